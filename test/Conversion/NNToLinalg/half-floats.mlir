// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// bf16 and f16 convolutions, matmuls and linear layers accumulate in f32
// (the named op widens its operands) and round once, at the end.

// CHECK-LABEL: func @conv_bf16
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<8xbf16>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%[[BIAS]] : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x6x6xf32>)
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x4x8x8xbf16>, tensor<8x4x3x3xbf16>) outs(%[[INIT]] : tensor<1x8x6x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x8x6x6xf32>) outs(%{{.*}} : tensor<1x8x6x6xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
func.func @conv_bf16(%x: tensor<1x4x8x8xbf16>, %w: tensor<8x4x3x3xbf16>, %b: tensor<8xbf16>) -> tensor<1x8x6x6xbf16> {
  %0 = nn.conv2d %x, %w, %b : (tensor<1x4x8x8xbf16>, tensor<8x4x3x3xbf16>, tensor<8xbf16>) -> tensor<1x8x6x6xbf16>
  return %0 : tensor<1x8x6x6xbf16>
}

// -----

// CHECK-LABEL: func @depthwise_f16
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} outs(%{{.*}} : tensor<1x4x6x6xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @depthwise_f16(%x: tensor<1x4x8x8xf16>, %w: tensor<4x1x3x3xf16>) -> tensor<1x4x6x6xf16> {
  %0 = nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x4x8x8xf16>, tensor<4x1x3x3xf16>) -> tensor<1x4x6x6xf16>
  return %0 : tensor<1x4x6x6xf16>
}

// -----

// CHECK-LABEL: func @transposed_bf16
// CHECK: linalg.conv_2d_ngchw_gfchw {{.*}} -> tensor<1x1x2x9x9xf32>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @transposed_bf16(%x: tensor<1x3x4x4xbf16>, %w: tensor<3x2x3x3xbf16>) -> tensor<1x2x9x9xbf16> {
  %0 = nn.conv_transpose2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x4x4xbf16>, tensor<3x2x3x3xbf16>) -> tensor<1x2x9x9xbf16>
  return %0 : tensor<1x2x9x9xbf16>
}

// -----

// CHECK-LABEL: func @matmul_bf16
// CHECK: %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<4x5xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xbf16>, tensor<8x5xbf16>) outs(%[[FILL]] : tensor<4x5xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @matmul_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x5xbf16>) -> tensor<4x5xbf16> {
  %0 = nn.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x5xbf16>) -> tensor<4x5xbf16>
  return %0 : tensor<4x5xbf16>
}

// -----

// CHECK-LABEL: func @linear_f16
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<5xf32>) outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: linalg.matmul ins(%arg0, %{{.*}} : tensor<2x8xf16>, tensor<8x5xf16>) outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @linear_f16(%x: tensor<2x8xf16>, %w: tensor<5x8xf16>, %b: tensor<5xf16>) -> tensor<2x5xf16> {
  %0 = nn.linear %x, %w, %b : (tensor<2x8xf16>, tensor<5x8xf16>, tensor<5xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// Sums and transcendentals run in f32 between an extf and one truncf.
// CHECK-LABEL: func @softmax_bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: math.exp %{{.*}} : bf16
func.func @softmax_bf16(%x: tensor<2x10xbf16>) -> tensor<2x10xbf16> {
  %0 = nn.softmax %x {axis = 1 : i64} : tensor<2x10xbf16>
  return %0 : tensor<2x10xbf16>
}

// -----

// CHECK-LABEL: func @avg_pool_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.pooling_nchw_sum {{.*}} -> tensor<1x2x2x2xf32>
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @avg_pool_f16(%x: tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16> {
  %0 = nn.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16>
  return %0 : tensor<1x2x2x2xf16>
}

// -----

// Exact in the half-width type: no casts.
// CHECK-LABEL: func @max_pool_relu_bf16
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @max_pool_relu_bf16(%x: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16> {
  %0 = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16>
  %1 = nn.relu %0 : tensor<1x2x2x2xbf16>
  return %1 : tensor<1x2x2x2xbf16>
}

// -----

// Recurrent layers compute in f32 on half-width tensors.
// CHECK-LABEL: func @rnn_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @rnn_f16(%x: tensor<3x1x2xf16>, %w: tensor<1x4x2xf16>, %r: tensor<1x4x4xf16>, %b: tensor<1x8xf16>, %h: tensor<1x1x4xf16>) -> tensor<3x1x1x4xf16> {
  %0:2 = nn.rnn %x, %w, %r, %b, %h
      : (tensor<3x1x2xf16>, tensor<1x4x2xf16>, tensor<1x4x4xf16>, tensor<1x8xf16>, tensor<1x1x4xf16>)
      -> (tensor<3x1x1x4xf16>, tensor<1x1x4xf16>)
  return %0#0 : tensor<3x1x1x4xf16>
}

// -----

// A constant bf16 bias is widened at compile time (exactly): the
// accumulator starts from an f32 constant, with no conversion loop that
// every call would run.
// CHECK-LABEL: func @conv_bf16_constant_bias
// CHECK-NOT: arith.extf
// CHECK: %[[BIAS:.*]] = arith.constant dense<[1.000000e+00, -2.500000e-01, 3.906250e-03, 2.560000e+02]> : tensor<4xf32>
// CHECK-NOT: arith.extf
// CHECK: linalg.broadcast ins(%[[BIAS]] : tensor<4xf32>) outs(%{{.*}} : tensor<1x4x6x6xf32>)
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_bf16_constant_bias(%x: tensor<1x4x8x8xbf16>, %w: tensor<4x4x3x3xbf16>) -> tensor<1x4x6x6xbf16> {
  %b = arith.constant dense<[1.0, -0.25, 0.00390625, 256.0]> : tensor<4xbf16>
  %0 = nn.conv2d %x, %w, %b : (tensor<1x4x8x8xbf16>, tensor<4x4x3x3xbf16>, tensor<4xbf16>) -> tensor<1x4x6x6xbf16>
  return %0 : tensor<1x4x6x6xbf16>
}

// -----

// A splat stays a splat.
// CHECK-LABEL: func @linear_f16_splat_bias
// CHECK: %[[BIAS:.*]] = arith.constant dense<5.000000e-01> : tensor<5xf32>
// CHECK: linalg.broadcast ins(%[[BIAS]] : tensor<5xf32>) outs(%{{.*}} : tensor<2x5xf32>)
func.func @linear_f16_splat_bias(%x: tensor<2x8xf16>, %w: tensor<5x8xf16>) -> tensor<2x5xf16> {
  %b = arith.constant dense<0.5> : tensor<5xf16>
  %0 = nn.linear %x, %w, %b : (tensor<2x8xf16>, tensor<5x8xf16>, tensor<5xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// A dense_resource bias (the 16-bit patterns 0x3F80 = 1.0 and 0xC000 =
// -2.0) becomes an f32 dense_resource blob (0x3F800000, 0xC0000000).
// CHECK-LABEL: func @conv_bf16_resource_bias
// CHECK-NOT: arith.extf
// CHECK: arith.constant dense_resource<[[BLOB:widened[_0-9]*]]> : tensor<2xf32>
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: [[BLOB]]: "0x040000000000803F000000C0"
func.func @conv_bf16_resource_bias(%x: tensor<1x2x4x4xbf16>, %w: tensor<2x2x1x1xbf16>) -> tensor<1x2x4x4xbf16> {
  %b = arith.constant dense_resource<bias16> : tensor<2xbf16>
  %0 = nn.conv2d %x, %w, %b : (tensor<1x2x4x4xbf16>, tensor<2x2x1x1xbf16>, tensor<2xbf16>) -> tensor<1x2x4x4xbf16>
  return %0 : tensor<1x2x4x4xbf16>
}

{-#
  dialect_resources: {
    builtin: {
      bias16: "0x02000000803F00C0"
    }
  }
#-}
