// RUN: dlas-opt %s --split-input-file --dlas-calibration-probes | FileCheck %s

// Each quantizable layer's input (conv2d, linear, matmul with a constant
// f32 weight) is returned after the function's own results, in walk
// order; a convolution whose weight is an argument is not quantizable.
// CHECK: module attributes {dlas.calibration_probes = [{function = "main", key = "main#0", layer = "conv2d \22stem\22 weight 4x1x3x3", result = 1 : i64}, {function = "main", key = "main#1", layer = "linear weight 2x4", result = 2 : i64}, {function = "main", key = "main#2", layer = "matmul weight 2x3", result = 3 : i64}]}
// CHECK: func.func @main(%[[X:.*]]: tensor<1x1x4x4xf32>, %{{.*}}: tensor<4x4x1x1xf32>) -> (tensor<1x3xf32>, tensor<1x1x4x4xf32>, tensor<1x4xf32>, tensor<1x2xf32>)
// CHECK: %[[C:.*]] = nn.conv2d %[[X]]
// CHECK: %[[F:.*]] = nn.flatten
// CHECK: %[[L:.*]] = nn.linear %[[F]]
// CHECK: %[[M:.*]] = nn.matmul %[[L]]
// CHECK: return %[[M]], %[[X]], %[[F]], %[[L]]
func.func @main(%x: tensor<1x1x4x4xf32>, %v: tensor<4x4x1x1xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x1x3x3xf32>
  %fc = arith.constant dense<0.25> : tensor<2x4xf32>
  %mm = arith.constant dense<1.0> : tensor<2x3xf32>
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> loc("stem")
  %1 = nn.conv2d %0, %v : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %2 = nn.global_avg_pool2d %1 : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  %3 = nn.flatten %2 {axis = 1 : i64} : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %4 = nn.linear %3, %fc : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  %5 = nn.matmul %4, %mm : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  return %5 : tensor<1x3xf32>
}

// -----

// Private functions are not entries: no probes (an empty list); layers in
// other types (already bf16) are not quantizable.
// CHECK: module attributes {dlas.calibration_probes = []}
// CHECK: func.func private @helper(%{{.*}}: tensor<1x4xf32>) -> tensor<1x2xf32>
// CHECK: func.func @half(%{{.*}}: tensor<1x4xbf16>) -> tensor<1x2xbf16>
func.func private @helper(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %fc = arith.constant dense<0.25> : tensor<2x4xf32>
  %0 = nn.linear %x, %fc : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
func.func @half(%x: tensor<1x4xbf16>) -> tensor<1x2xbf16> {
  %fc = arith.constant dense<0.25> : tensor<2x4xbf16>
  %0 = nn.linear %x, %fc : (tensor<1x4xbf16>, tensor<2x4xbf16>) -> tensor<1x2xbf16>
  return %0 : tensor<1x2xbf16>
}
