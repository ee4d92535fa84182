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
    into the layer function with the op. Elementwise ops of the same type
    that consume a layer's result one after the other (each the only user
    of the one before: an activation, a residual add) join its function,
    so that the CPU microkernels can apply them before they store.

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

def FoldBatchNorm : Pass<"dlas-fold-batch-norm"> {
  let summary = "Fold inference batch norm into the convolution before it";
  let description = [{
    `batch_norm(conv2d(x, W, b))` with constant `W`, `b` and batch-norm
    parameters (spatial mode, NCHW, f32) and no other use of the convolution
    becomes `conv2d(x, W', b')` with `W'[f] = W[f] * a[f]` and
    `b'[f] = (b[f] - mean[f]) * a[f] + beta[f]`,
    `a = gamma / sqrt(var + eps)`, computed at compile time into new
    `dense_resource` blobs. Batch norms that follow anything else (pre-
    activation networks such as DenseNet) stay as they are.

    Before:
    ```mlir
    %c = nn.conv2d %x, %w : (...) -> tensor<1x8x4x4xf32>
    %y = nn.batch_norm %c, %g, %b, %m, %v : (...) -> tensor<1x8x4x4xf32>
    ```
    After:
    ```mlir
    %y = nn.conv2d %x, %w_bn, %b_bn : (...) -> tensor<1x8x4x4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Batch norms folded into convolutions">
  ];
}

#endif // DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD
