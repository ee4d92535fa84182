// RUN: dlas-opt %s --dlas-fold-batch-norm --split-input-file | FileCheck %s

// CHECK-LABEL: func @conv_bn
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<folded_bn_filter> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<folded_bn_bias> : tensor<2xf32>
// CHECK: %[[C:.*]] = nn.conv2d %arg0, %[[W]], %[[B]] {strides = array<i64: 2, 2>}
// CHECK-NOT: nn.batch_norm
// CHECK: return %[[C]]
// a = [2 / sqrt(3 + 1), 1 / sqrt(0 + 1)] = [1, 1]: W' = [3, 5];
// b' = ([1, 2] - [4, 1]) * 1 + [10, 20] = [7, 21]
// CHECK: folded_bn_filter: "0x04000000000040400000A040"
// CHECK: folded_bn_bias: "0x040000000000E0400000A841"
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<[[[[3.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %g = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %m = arith.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %v = arith.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = nn.conv2d %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = nn.batch_norm %c, %g, %beta, %m, %v {epsilon = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// The convolution has another use: folding would compute it twice.
// CHECK-LABEL: func @shared_conv
// CHECK: nn.conv2d
// CHECK: nn.batch_norm
func.func @shared_conv(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x1x1x1xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %c = nn.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = nn.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %c, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Parameters that are function arguments are not known at compile time.
// CHECK-LABEL: func @runtime_params
// CHECK: nn.batch_norm
func.func @runtime_params(%x: tensor<1x1x4x4xf32>, %p: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<2x1x1x1xf32>
  %c = nn.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = nn.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A 3-D convolution's batch norm on the view that keeps N and C (the ONNX
// importer's 5-D BatchNormalization): folded into the conv3d, the view
// moved onto its result. Same numbers as @conv_bn.
// CHECK-LABEL: func @conv3d_bn
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<folded_bn_filter> : tensor<2x1x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<folded_bn_bias> : tensor<2xf32>
// CHECK: %[[C:.*]] = nn.conv3d %arg0, %[[W]], %[[B]] {strides = array<i64: 1, 2, 2>}
// CHECK: %[[V:.*]] = nn.reshape %[[C]] {shape = array<i64: 1, 2, 4, 2>}
// CHECK-NOT: nn.batch_norm
// CHECK: return %[[V]]
// CHECK: folded_bn_filter: "0x04000000000040400000A040"
// CHECK: folded_bn_bias: "0x040000000000E0400000A841"
func.func @conv3d_bn(%x: tensor<1x1x2x4x4xf32>) -> tensor<1x2x4x2xf32> {
  %w = arith.constant dense<[[[[[3.0]]]], [[[[5.0]]]]]> : tensor<2x1x1x1x1xf32>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %g = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %m = arith.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %v = arith.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = nn.conv3d %x, %w, %b {strides = array<i64: 1, 2, 2>} : (tensor<1x1x2x4x4xf32>, tensor<2x1x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2x2xf32>
  %r = nn.reshape %c {shape = array<i64: 1, 2, 4, 2>} : (tensor<1x2x2x2x2xf32>) -> tensor<1x2x4x2xf32>
  %y = nn.batch_norm %r, %g, %beta, %m, %v {epsilon = 1.0 : f64} : (tensor<1x2x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x2xf32>
  return %y : tensor<1x2x4x2xf32>
}

// -----

// A view that moves the channels (here into the batch) is no batch norm
// of the conv3d's channels: kept.
// CHECK-LABEL: func @conv3d_view_moves_channels
// CHECK: nn.conv3d
// CHECK: nn.reshape
// CHECK: nn.batch_norm
func.func @conv3d_view_moves_channels(%x: tensor<1x1x2x4x4xf32>) -> tensor<2x2x2x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x1x1x1x1xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %c = nn.conv3d %x, %w {strides = array<i64: 1, 2, 2>} : (tensor<1x1x2x4x4xf32>, tensor<2x1x1x1x1xf32>) -> tensor<1x2x2x2x2xf32>
  %r = nn.reshape %c {shape = array<i64: 2, 2, 2, 2>} : (tensor<1x2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
  %y = nn.batch_norm %r, %p, %p, %p, %p : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2x2xf32>
  return %y : tensor<2x2x2x2xf32>
}
