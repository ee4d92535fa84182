//===- NNInterfaces.td - interfaces of the nn dialect ------*- tablegen -*-===//
#ifndef DLAS_DIALECT_NN_NNINTERFACES_TD
#define DLAS_DIALECT_NN_NNINTERFACES_TD

include "mlir/IR/OpBase.td"

def NN_FlopCountOpInterface : OpInterface<"FlopCountOpInterface"> {
  let cppNamespace = "::mlir::dlas::nn";
  let description = [{
    Ops whose arithmetic cost is worth reporting (convolutions, matmuls)
    return their floating-point operation count, 2 x multiply-accumulates,
    so that tools can print GFLOP/s. Returns std::nullopt when a dimension
    that the count depends on is dynamic.
  }];
  let methods = [
    InterfaceMethod<"Number of floating-point operations (2 x MACs).",
      "std::optional<int64_t>", "getFlopCount">
  ];
}

#endif // DLAS_DIALECT_NN_NNINTERFACES_TD
