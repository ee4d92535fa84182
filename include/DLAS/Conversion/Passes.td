//===- Passes.td - DLAS conversion passes ------------------*- tablegen -*-===//
#ifndef DLAS_CONVERSION_PASSES_TD
#define DLAS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

// Op-agnostic (like upstream conversions) so that it runs from the command
// line on a module and nested on any function-like op in a pipeline.
def ConvertNNToLinalg : Pass<"convert-nn-to-linalg"> {
  let summary = "Lower the nn dialect to linalg on tensors";
  let description = [{
    Rewrites every `nn` op into `linalg` (named ops where upstream has them),
    `tensor` and `arith`/`math` on tensors:

    * `nn.conv2d`: `tensor.pad` for the padding, then
      `linalg.conv_2d_nchw_fchw` (groups = 1), `linalg.depthwise_conv_2d_nchw_chw`
      (groups = C_in = C_out) or `linalg.conv_2d_ngchw_gfchw` on
      `tensor.expand_shape`d operands (other groups); the bias initialises the
      accumulator. NHWC activations are transposed around the NCHW kernel.
    * `nn.conv_transpose2d`: zero-insertion (`tensor.insert_slice` with
      strides) and padding of the input, a flipped/regrouped filter, then
      `linalg.conv_2d_ngchw_gfchw`.
    * `nn.matmul`/`batch_matmul`/`linear`: `linalg.matmul`/`batch_matmul`.
    * pooling: `linalg.pooling_nchw_max`/`_sum` on padded input; the average
      divisor follows PyTorch's `count_include_pad`/`ceil_mode` rules.
    * activations, broadcasting arithmetic, batch norm, softmax, resize:
      `linalg.generic`; shape ops: `tensor` reshapes, `linalg.transpose`,
      `tensor.pad`, `tensor.insert_slice`.

    Before:
    ```mlir
    %y = nn.relu %x : tensor<4xf32>
    ```
    After:
    ```mlir
    %0 = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {...} ins(%x : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %z = arith.constant 0.0 : f32
      %m = arith.maximumf %in, %z : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    ```
    Recurrent layers (nn.lstm, nn.gru, nn.rnn) become one input-projection
    nn.linear per direction and an scf.for over time steps whose body is
    the recurrent nn.linear and the gate linalg.generic; the nn.linear ops
    are lowered in the same run.

    An op the lowering cannot handle (for example an element type with no
    lowering yet) is reported with its name and the pass fails.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::cf::ControlFlowDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numLoweredOps", "lowered-ops", "Number of nn ops lowered">
  ];
}

#endif // DLAS_CONVERSION_PASSES_TD
