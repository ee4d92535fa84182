//===- Passes.td - graph-level passes on the nn dialect ----*- tablegen -*-===//
#ifndef DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD
#define DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineLayers : Pass<"dlas-outline-layers", "mlir::ModuleOp"> {
  let summary = "Give every nn layer a function of its own";
  let description = [{
    Moves each nn op that computes (everything but `reshape` and `flatten`,
    which only relabel memory) of every public function into a private
    function `@<caller>_layer<N>_<op>` marked `noinline` and named after the
    op's location in `dlas.layer`, and calls it. Constant operands move
    into the layer function with the op.

    Why: LLVM's loop passes (IndVarSimplify above all) grow superlinearly
    with the size of one function; a 120-convolution DenseNet compiled as
    one function spends most of its ~39 s there, as one function per layer
    about a tenth. Layer functions are also the unit a per-layer profile
    times.

    Before:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %y = nn.relu %x : tensor<1x8xf32>
      return %y : tensor<1x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %y = call @main_layer0_relu(%x) : (tensor<1x8xf32>) -> tensor<1x8xf32>
      return %y : tensor<1x8xf32>
    }
    func.func private @main_layer0_relu(%arg0: tensor<1x8xf32>) -> tensor<1x8xf32>
        attributes {dlas.layer = "...", passthrough = ["noinline"]} {
      %0 = nn.relu %arg0 : tensor<1x8xf32>
      return %0 : tensor<1x8xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layer functions created">
  ];
}

#endif // DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD
