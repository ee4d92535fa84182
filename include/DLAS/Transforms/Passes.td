//===- Passes.td - DLAS transforms -------------------------*- tablegen -*-===//
#ifndef DLAS_TRANSFORMS_PASSES_TD
#define DLAS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrepareEntryABI : Pass<"dlas-prepare-entry-abi", "mlir::ModuleOp"> {
  let summary = "Mark public functions for the C calling convention of dlas-run";
  let description = [{
    Puts `llvm.emit_c_interface` on every public `func.func` with a body, so
    that the LLVM lowering emits a `_mlir_ciface_<name>` wrapper taking
    memref descriptors by pointer, and records the function's tensor
    signature in `dlas.signature` so that a runner given already-lowered
    LLVM-dialect IR still knows the shapes and element types of the entry.

    Before:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32>
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32>
        attributes {dlas.signature = (tensor<1x8xf32>) -> tensor<1x8xf32>,
                    llvm.emit_c_interface}
    ```
  }];
}

#endif // DLAS_TRANSFORMS_PASSES_TD
