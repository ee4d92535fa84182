// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-fold-qdq{print}),canonicalize)" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-fold-qdq{print}))" -o /dev/null | FileCheck %s --check-prefix=PRINT

// Weights that are int8 times a per-channel scale (channel 0: 0.02 x
// [1, -2, 3]; channel 1: 0.5 x [-1, 0, 1]) behind an input dequantized per
// tensor: the layer runs on integers, the bias joins the zero point, and
// quantize(dequantize(q)) folds to q. The finest exact grid is taken
// (0.06 / 126: q = [42, -84, 126]; 0.5 / 127: [-127, 0, 127]), so the
// zero points are 4 * 84 - round(0.01 / (0.1 * 0.06 / 126)) = 126 and
// 4 * 0 - round(0.1 / (0.1 * 0.5 / 127)) = -254.
// PRINT: dlas-fold-qdq: linear weight 2x3: int8 (weight error {{.*}}, input scale 1.000e-01 zero point 4)
// CHECK-LABEL: func @linear
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3xi8>)
// CHECK: %[[W:.*]] = arith.constant dense_resource<[[BLOB:.*]]> : tensor<2x3xi8>
// CHECK-NOT: nn.quantize
// CHECK: %[[ACC:.*]] = nn.linear %[[Q]], %[[W]] : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x2xi32>
// CHECK: nn.dequantize %[[ACC]] {scales = array<f32: 4.76190471E-5, 3.93700786E-4>, zero_points = array<i64: 126, -254>} : tensor<2x2xi32> to tensor<2x2xf32>
// CHECK: [[BLOB]]: "0x010000002AAC7E81007F"
func.func @linear(%q: tensor<2x3xi8>) -> tensor<2x2xf32> {
  %x = nn.dequantize %q {scales = array<f32: 0.1>, zero_points = array<i64: 4>} : tensor<2x3xi8> to tensor<2x3xf32>
  %w = arith.constant dense<[[0.02, -0.04, 0.06], [-0.5, 0.0, 0.5]]> : tensor<2x3xf32>
  %b = arith.constant dense<[0.01, 0.1]> : tensor<2xf32>
  %y = nn.linear %x, %w, %b : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Weights off every int8 grid stay float: requantizing them would change
// the model.
// PRINT: dlas-fold-qdq: linear weight 1x3: float (weight error {{.*}} > max-weight-error)
// CHECK-LABEL: func @off_grid
// CHECK: nn.linear %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x1xf32>
func.func @off_grid(%q: tensor<2x3xi8>) -> tensor<2x1xf32> {
  %x = nn.dequantize %q {scales = array<f32: 0.1>, zero_points = array<i64: 0>} : tensor<2x3xi8> to tensor<2x3xf32>
  %w = arith.constant dense<[[0.3, 0.7071, -1.0]]> : tensor<1x3xf32>
  %y = nn.linear %x, %w : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

// -----

// A padded convolution: the border holds the zero point.
// PRINT: dlas-fold-qdq: conv2d weight 2x1x3x3: int8
// CHECK-LABEL: func @conv
// CHECK: %[[P:.*]] = nn.pad %{{.*}} {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -5.000000e+00 : f64}
// CHECK: nn.conv2d %[[P]], %{{.*}} : (tensor<1x1x6x6xi8>, tensor<2x1x3x3xi8>) -> tensor<1x2x4x4xi32>
func.func @conv(%q: tensor<1x1x4x4xi8>) -> tensor<1x2x4x4xf32> {
  %x = nn.dequantize %q {scales = array<f32: 0.05>, zero_points = array<i64: -5>} : tensor<1x1x4x4xi8> to tensor<1x1x4x4xf32>
  %w = arith.constant dense<[[[[0.25, 0.5, 0.75], [1.0, 0.0, -0.25], [-0.5, 0.25, 0.0]]], [[[0.1, 0.2, 0.3], [0.0, 0.0, 0.0], [0.3, 0.2, 0.1]]]]> : tensor<2x1x3x3xf32>
  %y = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Depthwise convolutions stay float (as under dlas-mixed-precision's
// default guard); a per-channel input, a float input and an i32 one are no
// QDQ input: all stay as they are.
// PRINT: dlas-fold-qdq: conv2d weight 2x1x1x1: float (depthwise)
// CHECK-LABEL: func @untouched
// CHECK-NOT: xi32>
// CHECK: return
func.func @untouched(%q: tensor<1x2x4x4xi8>, %f: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %x = nn.dequantize %q {scales = array<f32: 0.05>, zero_points = array<i64: 0>} : tensor<1x2x4x4xi8> to tensor<1x2x4x4xf32>
  %dw = arith.constant dense<0.5> : tensor<2x1x1x1xf32>
  %a = nn.conv2d %x, %dw {groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %xc = nn.dequantize %q {scales = array<f32: 0.05, 0.1>, zero_points = array<i64: 0, 0>, axis = 1 : i64} : tensor<1x2x4x4xi8> to tensor<1x2x4x4xf32>
  %w = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %b = nn.conv2d %xc, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = nn.conv2d %f, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %a, %b, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
