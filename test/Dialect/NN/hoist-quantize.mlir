// RUN: dlas-opt %s --split-input-file --dlas-hoist-quantize | FileCheck %s

// A max pool whose result only an int8 layer reads: the pool runs on i8,
// its input quantized with the same parameters.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[Q:.*]] = nn.quantize %arg0 {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -128>} : tensor<1x8x8x8xf32> to tensor<1x8x8x8xi8>
// CHECK: %[[P:.*]] = nn.max_pool2d %[[Q]] {{.*}} : (tensor<1x8x8x8xi8>) -> tensor<1x8x4x4xi8>
// CHECK-NOT: nn.quantize
// CHECK: return %[[P]]
func.func @max_pool(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xi8> {
  %p = nn.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %q = nn.quantize %p {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  return %q : tensor<1x8x4x4xi8>
}

// -----

// GoogLeNet's inception output: a concat read by the next block's 1x1
// convolutions (one quantize) and by a 3x3/1 pool whose convolution
// quantizes with other parameters. The pool moves first, then the concat,
// quantized with the widest parameters (scale 0.05); the narrower quantize
// requantizes the concat's i8 result. The quantizes land on the branches.
// CHECK-LABEL: func.func @inception
// CHECK-DAG: %[[A:.*]] = nn.quantize %arg0 {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -128>} : tensor<1x4x8x8xf32>
// CHECK-DAG: %[[B:.*]] = nn.quantize %arg1 {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -128>} : tensor<1x4x8x8xf32>
// CHECK: %[[C:.*]] = nn.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<1x4x8x8xi8>, tensor<1x4x8x8xi8>) -> tensor<1x8x8x8xi8>
// CHECK: %[[D:.*]] = nn.dequantize %[[C]] {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -128>}
// CHECK: %[[R:.*]] = nn.quantize %[[D]] {scales = array<f32: 4.000000e-02>, zero_points = array<i64: -128>}
// CHECK: %[[P:.*]] = nn.max_pool2d %[[R]] {{.*}} : (tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi8>
// CHECK: return %[[C]], %[[P]]
func.func @inception(%a: tensor<1x4x8x8xf32>, %b: tensor<1x4x8x8xf32>) -> (tensor<1x8x8x8xi8>, tensor<1x8x8x8xi8>) {
  %c = nn.concat %a, %b {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %q = nn.quantize %c {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : tensor<1x8x8x8xf32> to tensor<1x8x8x8xi8>
  %p = nn.max_pool2d %c {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %qp = nn.quantize %p {scales = array<f32: 0.04>, zero_points = array<i64: -128>} : tensor<1x8x8x8xf32> to tensor<1x8x8x8xi8>
  return %q, %qp : tensor<1x8x8x8xi8>, tensor<1x8x8x8xi8>
}

// -----

// Reshapes and flattens move elements only: the quantize climbs through
// both, to above the pool.
// CHECK-LABEL: func.func @flatten_reshape
// CHECK: nn.quantize %arg0 {{.*}} : tensor<2x4x4x4xf32> to tensor<2x4x4x4xi8>
// CHECK: nn.max_pool2d {{.*}} -> tensor<2x4x2x2xi8>
// CHECK: nn.flatten {{.*}} -> tensor<2x16xi8>
// CHECK: nn.reshape {{.*}} -> tensor<32xi8>
// CHECK-NOT: nn.quantize
func.func @flatten_reshape(%x: tensor<2x4x4x4xf32>) -> tensor<32xi8> {
  %p = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x2x2xf32>
  %f = nn.flatten %p {axis = 1 : i64} : (tensor<2x4x2x2xf32>) -> tensor<2x16xf32>
  %r = nn.reshape %f {shape = array<i64: 32>} : (tensor<2x16xf32>) -> tensor<32xf32>
  %q = nn.quantize %r {scales = array<f32: 0.1>, zero_points = array<i64: 3>} : tensor<32xf32> to tensor<32xi8>
  return %q : tensor<32xi8>
}

// -----

// What stays: a pool whose f32 result is also read by other ops (a
// residual add), a per-channel quantize, and ops that do not commute with a
// quantize (an average pool).
// CHECK-LABEL: func.func @stays
// CHECK: %[[P:.*]] = nn.max_pool2d %arg0 {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: nn.quantize %[[P]]
// CHECK: nn.add %[[P]]
// CHECK: %[[M:.*]] = nn.max_pool2d %arg0 {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: nn.quantize %[[M]] {scales = array<f32: 1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01>
// CHECK: %[[V:.*]] = nn.avg_pool2d %arg0 {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: nn.quantize %[[V]]
func.func @stays(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xi8>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi8>, tensor<1x4x4x4xi8>) {
  %p = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %q = nn.quantize %p {scales = array<f32: 0.05>, zero_points = array<i64: 0>} : tensor<1x4x4x4xf32> to tensor<1x4x4x4xi8>
  %s = nn.add %p, %p : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %m = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %qc = nn.quantize %m {axis = 1 : i64, scales = array<f32: 0.1, 0.2, 0.3, 0.4>, zero_points = array<i64: 0, 0, 0, 0>} : tensor<1x4x4x4xf32> to tensor<1x4x4x4xi8>
  %v = nn.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %qv = nn.quantize %v {scales = array<f32: 0.05>, zero_points = array<i64: 0>} : tensor<1x4x4x4xf32> to tensor<1x4x4x4xi8>
  return %q, %s, %qc, %qv : tensor<1x4x4x4xi8>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi8>, tensor<1x4x4x4xi8>
}
