// sparse.pack of a constant compresses at compile time into sparse.constant.
// RUN: dlas-opt %s --canonicalize --split-input-file | FileCheck %s

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
#BSR21 = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 2 : dense, d1 : compressed, d0 mod 2 : dense)}>

// Row 0 holds columns 1 and 3, row 1 nothing, row 2 column 0; the filter's
// trailing dimensions are flattened (3 x 1 x 2 x 2 -> 3 x 4).
// CHECK-LABEL: func.func @csr
// CHECK: %[[W:.*]] = sparse.constant {coordinates = array<i32: 1, 3, 0>, positions = array<i32: 0, 2, 2, 3>, values = dense<[5.000000e-01, -2.000000e+00, 7.000000e+00]> : tensor<3xf32>} : tensor<3x4xf32, #sparse>
// CHECK-NOT: sparse.pack
// CHECK: return %[[W]]
func.func @csr() -> tensor<3x4xf32, #CSR> {
  %d = arith.constant dense<[[[[0.0, 0.5], [0.0, -2.0]]], [[[0.0, 0.0], [0.0, 0.0]]], [[[7.0, 0.0], [0.0, 0.0]]]]> : tensor<3x1x2x2xf32>
  %w = sparse.pack %d : tensor<3x1x2x2xf32> -> tensor<3x4xf32, #CSR>
  return %w : tensor<3x4xf32, #CSR>
}

// -----

#BSR21 = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 2 : dense, d1 : compressed, d0 mod 2 : dense)}>

// 2 x 1 blocks: a block with one non-zero is stored whole (its zero too).
// CHECK-LABEL: func.func @blocks
// CHECK: sparse.constant {coordinates = array<i32: 0, 2, 1>, positions = array<i32: 0, 2, 3>, values = dense<[1.000000e+00, 0.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<6xf32>}
func.func @blocks() -> tensor<4x3xf32, #BSR21> {
  %d = arith.constant dense<[[1.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 4.0, 0.0], [0.0, 5.0, 0.0]]> : tensor<4x3xf32>
  %w = sparse.pack %d : tensor<4x3xf32> -> tensor<4x3xf32, #BSR21>
  return %w : tensor<4x3xf32, #BSR21>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A source that is not a constant stays a pack.
// CHECK-LABEL: func.func @not_constant
// CHECK: sparse.pack %arg0
func.func @not_constant(%d: tensor<2x3xf32>) -> tensor<2x3xf32, #CSR> {
  %w = sparse.pack %d : tensor<2x3xf32> -> tensor<2x3xf32, #CSR>
  return %w : tensor<2x3xf32, #CSR>
}
