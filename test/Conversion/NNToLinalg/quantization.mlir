// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// nn.quantize: x / scale (a division, as ONNX), ties to even, plus the
// zero point, saturated to [-128, 127] (maxnumf/minnumf: NaN goes to the
// bound, not to an undefined conversion), then to i8.
// CHECK-LABEL: func @quantize
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: i8):
// CHECK: %[[SCALED:.*]] = arith.divf %[[IN]], %{{.*}} : f32
// CHECK: %[[ROUNDED:.*]] = math.roundeven %[[SCALED]] : f32
// CHECK: %[[ZP:.*]] = arith.sitofp %{{.*}} : i8 to f32
// CHECK: %[[SHIFTED:.*]] = arith.addf %[[ROUNDED]], %[[ZP]] : f32
// CHECK: %[[LOW:.*]] = arith.maxnumf %[[SHIFTED]], %{{.*}} : f32
// CHECK: %[[HIGH:.*]] = arith.minnumf %[[LOW]], %{{.*}} : f32
// CHECK: %[[Q:.*]] = arith.fptosi %[[HIGH]] : f32 to i8
// CHECK: linalg.yield %[[Q]] : i8
func.func @quantize(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %0 = nn.quantize %x {scales = array<f32: 0.5>, zero_points = array<i64: -128>} : tensor<2x3xf32> to tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// Per channel: the scales and zero points are 1-D constants read through a
// map onto the channel dimension; the difference is taken in i32, then
// converted and scaled once.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func @dequantize_per_channel
// CHECK-DAG: %[[SCALES:.*]] = arith.constant dense<[1.000000e-03, 2.000000e-03]> : tensor<2xf32>
// CHECK-DAG: %[[ZPS:.*]] = arith.constant dense<[40, -12]> : tensor<2xi32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CHANNEL]], #[[CHANNEL]], #[[ID]]]
// CHECK-SAME: ins(%{{.*}}, %[[SCALES]], %[[ZPS]] : tensor<1x2x4x4xi32>, tensor<2xf32>, tensor<2xi32>)
// CHECK: ^bb0(%[[ACC:.*]]: i32, %[[S:.*]]: f32, %[[Z:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[D:.*]] = arith.subi %[[ACC]], %[[Z]] : i32
// CHECK: %[[F:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK: %[[Y:.*]] = arith.mulf %[[F]], %[[S]] : f32
// CHECK: linalg.yield %[[Y]] : f32
func.func @dequantize_per_channel(%x: tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xf32> {
  %0 = nn.dequantize %x {scales = array<f32: 1.0e-3, 2.0e-3>, zero_points = array<i64: 40, -12>} : tensor<1x2x4x4xi32> to tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// An i8 input and its zero point widen to i32 before the subtraction.
// CHECK-LABEL: func @dequantize_i8
// CHECK: ^bb0(%[[IN:.*]]: i8, %{{.*}}: f32):
// CHECK: %[[WIDE:.*]] = arith.extsi %[[IN]] : i8 to i32
// CHECK: %[[ZP:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.subi %[[WIDE]], %[[ZP]] : i32
func.func @dequantize_i8(%x: tensor<4xi8>) -> tensor<4xf32> {
  %0 = nn.dequantize %x {scales = array<f32: 0.25>, zero_points = array<i64: 3>} : tensor<4xi8> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Per channel along the last axis (negative axis counts from the end).
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @quantize_last_axis
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[LAST]], #[[LAST]], #{{.*}}]
func.func @quantize_last_axis(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %0 = nn.quantize %x {scales = array<f32: 1.0, 0.5, 0.25>, zero_points = array<i64: 0, 1, 2>, axis = -1 : i64} : tensor<2x3xf32> to tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}
