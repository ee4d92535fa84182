// The sparse dialect's ops parse, verify and print back (CSR, r x 1 and
// r x c block-CSR weights from upstream #sparse_tensor encodings).
// RUN: dlas-opt %s | dlas-opt | FileCheck %s

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
#BSR41 = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 4 : dense, d1 : compressed, d0 mod 4 : dense)}>
#BSR22 = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 2 : dense, d1 floordiv 2 : compressed, d0 mod 2 : dense, d1 mod 2 : dense)}>

// CHECK-LABEL: func.func @csr_conv
// CHECK: %[[W:.*]] = sparse.constant {coordinates = array<i32: 2, 0, 17, 5>, positions = array<i32: 0, 1, 3, 3, 4>, values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>} : tensor<4x18xf32, #sparse>
// CHECK: sparse.conv2d %{{.*}}, %[[W]], %{{.*}} {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, relu} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #sparse>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
func.func @csr_conv(%x: tensor<1x2x5x5xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3, 3, 4>, coordinates = array<i32: 2, 0, 17, 5>,
                        values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4x18xf32, #CSR>
  %y = sparse.conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, relu}
      : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// A residual convolution: the shortcut, with or without a bias.
// CHECK-LABEL: func.func @residual_conv
// CHECK: sparse.conv2d %{{.*}}, %{{.*}}, %{{.*}} residual %{{.*}} {kernel_size = array<i64: 1, 1>, relu} : (tensor<1x18x5x5xf32>, tensor<4x18xf32, #sparse>, tensor<4xf32>, tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
// CHECK: sparse.conv2d %{{.*}}, %{{.*}} residual %{{.*}} {kernel_size = array<i64: 1, 1>} : (tensor<1x18x5x5xf32>, tensor<4x18xf32, #sparse>, tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
func.func @residual_conv(%x: tensor<1x18x5x5xf32>, %b: tensor<4xf32>, %r: tensor<1x4x5x5xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) {
  %w = sparse.constant {positions = array<i32: 0, 1, 3, 3, 4>, coordinates = array<i32: 2, 0, 17, 5>,
                        values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4x18xf32, #CSR>
  %y = sparse.conv2d %x, %w, %b residual %r {kernel_size = array<i64: 1, 1>, relu}
      : (tensor<1x18x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<4xf32>, tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  %z = sparse.conv2d %x, %w residual %r {kernel_size = array<i64: 1, 1>}
      : (tensor<1x18x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  return %y, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>
}

// A fused max pool: ResNet's stem (7x7 s2 p3, 3x3 s2 p1 pool), and a
// pool with its defaults (strides 1, no padding) and a dynamic batch.
// CHECK-LABEL: func.func @pooled_conv
// CHECK: sparse.conv2d %{{.*}}, %{{.*}}, %{{.*}} {kernel_size = array<i64: 7, 7>, padding = array<i64: 3, 3, 3, 3>, pool_kernel = array<i64: 3, 3>, pool_padding = array<i64: 1, 1, 1, 1>, pool_strides = array<i64: 2, 2>, relu, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x147xf32, #sparse>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
// CHECK: sparse.conv2d %{{.*}}, %{{.*}} {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 3>} : (tensor<?x147x5x5xf32>, tensor<64x147xf32, #sparse>) -> tensor<?x64x4x3xf32>
func.func @pooled_conv(%x: tensor<1x3x224x224xf32>, %d: tensor<64x147xf32>, %b: tensor<64xf32>,
                       %x2: tensor<?x147x5x5xf32>) -> (tensor<1x64x56x56xf32>, tensor<?x64x4x3xf32>) {
  %w = sparse.pack %d : tensor<64x147xf32> -> tensor<64x147xf32, #CSR>
  %y = sparse.conv2d %x, %w, %b {kernel_size = array<i64: 7, 7>, strides = array<i64: 2, 2>,
                                 padding = array<i64: 3, 3, 3, 3>, relu,
                                 pool_kernel = array<i64: 3, 3>, pool_strides = array<i64: 2, 2>,
                                 pool_padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x224x224xf32>, tensor<64x147xf32, #CSR>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  %z = sparse.conv2d %x2, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 3>}
      : (tensor<?x147x5x5xf32>, tensor<64x147xf32, #CSR>) -> tensor<?x64x4x3xf32>
  return %y, %z : tensor<1x64x56x56xf32>, tensor<?x64x4x3xf32>
}

// A grouped, strided, dilated convolution with 4 x 1 blocks (8 output
// channels in 2 groups of 4: blocks do not straddle groups) and no bias.
// CHECK-LABEL: func.func @block_conv
// CHECK: sparse.pack %{{.*}} : tensor<8x2x3x3xf32> -> tensor<8x18xf32, #sparse1>
// CHECK: sparse.conv2d {{.*}}dilations = array<i64: 2, 2>, groups = 2 : i64, kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>}
func.func @block_conv(%x: tensor<2x4x9x9xf32>, %d: tensor<8x2x3x3xf32>) -> tensor<2x8x3x3xf32> {
  %w = sparse.pack %d : tensor<8x2x3x3xf32> -> tensor<8x18xf32, #BSR41>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                             dilations = array<i64: 2, 2>, groups = 2 : i64}
      : (tensor<2x4x9x9xf32>, tensor<8x18xf32, #BSR41>) -> tensor<2x8x3x3xf32>
  return %y : tensor<2x8x3x3xf32>
}

// CHECK-LABEL: func.func @linear
// CHECK: sparse.constant {coordinates = array<i32: 1>, positions = array<i32: 0, 1, 1>, values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>} : tensor<4x4xf32, #sparse2>
// CHECK: sparse.linear %{{.*}}, %{{.*}}, %{{.*}} {relu} : (tensor<?x4xf32>, tensor<4x4xf32, #sparse2>, tensor<4xf32>) -> tensor<?x4xf32>
func.func @linear(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 1>, coordinates = array<i32: 1>,
                        values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4x4xf32, #BSR22>
  %y = sparse.linear %x, %w, %b {relu} : (tensor<?x4xf32>, tensor<4x4xf32, #BSR22>, tensor<4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// An all-zero weight has no stored blocks.
// CHECK-LABEL: func.func @empty
// CHECK: sparse.constant {coordinates = array<i32>, positions = array<i32: 0, 0, 0>, values = dense<> : tensor<0xf32>}
func.func @empty(%x: tensor<3x5xf32>) -> tensor<3x2xf32> {
  %w = sparse.constant {positions = array<i32: 0, 0, 0>, coordinates = array<i32>,
                        values = dense<> : tensor<0xf32>} : tensor<2x5xf32, #CSR>
  %y = sparse.linear %x, %w : (tensor<3x5xf32>, tensor<2x5xf32, #CSR>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
