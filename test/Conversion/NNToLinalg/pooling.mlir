// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// Max pooling pads with -inf; ceil mode adds rows at the bottom as needed.
// CHECK-LABEL: func @max_pool_ceil
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK: tensor.yield %[[NEG_INF]]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<1x4x6x6xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[WIN]] : tensor<1x4x13x13xf32>, tensor<3x3xf32>) outs(%[[INIT]]
func.func @max_pool_ceil(%x: tensor<1x4x10x11xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true} : (tensor<1x4x10x11xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Average pooling: a sum pool, then a per-position divisor that clips the
// window to the input when padding is not counted.
// CHECK-LABEL: func @avg_pool_exclude_pad
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x11x11xf32>, tensor<3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x4x5x5xf32>)
// CHECK: linalg.index 2
// CHECK: linalg.index 3
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @avg_pool_exclude_pad(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32> {
  %0 = nn.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = false} : (tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// CHECK-LABEL: func @global_avg_pool
// CHECK: %[[R:.*]] = linalg.reduce ins(%arg0 : tensor<?x4x7x7xf32>) outs(%{{.*}} : tensor<?x4xf32>) dimensions = [2, 3]
// CHECK: arith.constant 4.900000e+01 : f32
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<?x4xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2, 3]] {{.*}} : tensor<?x4xf32> into tensor<?x4x1x1xf32>
func.func @global_avg_pool(%x: tensor<?x4x7x7xf32>) -> tensor<?x4x1x1xf32> {
  %0 = nn.global_avg_pool2d %x : (tensor<?x4x7x7xf32>) -> tensor<?x4x1x1xf32>
  return %0 : tensor<?x4x1x1xf32>
}

// -----

// One generic over (n, c, oh, ow, kh, kw) with a window operand for the
// extent; positions in the padding are skipped, loads clamped; the running
// index is row-major and breaks ties; column_major converts it after.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @max_pool_with_indices
// CHECK: %[[W:.*]] = tensor.empty() : tensor<3x3xi1>
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[WIN]], #[[OUT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[W]] : tensor<3x3xi1>)
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %arg0
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: return %[[R]]#0
func.func @max_pool_with_indices(%x: tensor<2x3x9x8xf32>) -> (tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>) {
  %y, %i = nn.max_pool2d_with_indices %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true, column_major = true} : (tensor<2x3x9x8xf32>) -> (tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>)
  return %y, %i : tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>
}
