// Without a target and without vector-width/vector-registers the kernel
// has no vector shape.
// RUN: dlas-opt %s --convert-sparse-to-loops --verify-diagnostics
#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @no_target(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1>, coordinates = array<i32: 0>, values = dense<1.0> : tensor<1xf32>} : tensor<1x1xf32, #CSR>
  // expected-error @+1 {{no target: set the module's 'dlas.target'}}
  %y = sparse.linear %x, %w : (tensor<3x1xf32>, tensor<1x1xf32, #CSR>) -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}
