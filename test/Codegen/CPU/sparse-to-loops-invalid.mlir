// Inputs convert-sparse-to-loops refuses, each with its reason.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32" --verify-diagnostics

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @not_constant(%x: tensor<3x4xf32>, %d: tensor<2x4xf32>) -> tensor<3x2xf32> {
  %w = sparse.pack %d : tensor<2x4xf32> -> tensor<2x4xf32, #CSR>
  // expected-error @+1 {{weight must be a compile-time constant (sparse.constant, or sparse.pack of an arith.constant)}}
  %y = sparse.linear %x, %w : (tensor<3x4xf32>, tensor<2x4xf32, #CSR>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @escapes() -> tensor<1x1xf32, #CSR> {
  // expected-error @+1 {{has no lowering to loops: a sparse weight must only feed sparse.conv2d or sparse.linear}}
  %w = sparse.constant {positions = array<i32: 0, 1>, coordinates = array<i32: 0>, values = dense<1.0> : tensor<1xf32>} : tensor<1x1xf32, #CSR>
  return %w : tensor<1x1xf32, #CSR>
}
