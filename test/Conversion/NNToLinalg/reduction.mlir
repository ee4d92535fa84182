// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func @softmax
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[MAX]], %[[SUM]] :
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = nn.softmax %x {axis = 1 : i64} : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// A negative axis counts from the end.
// CHECK-LABEL: func @log_softmax
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: math.log
// CHECK: arith.subf
func.func @log_softmax(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = nn.log_softmax %x {axis = -1 : i64} : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// Mean over the middle axis, kept as size 1: sum, divide, expand.
// CHECK-LABEL: func @reduce_mean_keepdims
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
func.func @reduce_mean_keepdims(%x: tensor<2x8x4xf32>) -> tensor<2x1x4xf32> {
  %0 = nn.reduce %x {kind = #nn<reduce_kind mean>, axes = array<i64: 1>, keepdims = true} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// log(sum(exp(x - max))) + max: the maximum first.
// CHECK-LABEL: func @reduce_log_sum_exp
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: math.log
// CHECK: arith.addf
// CHECK-NOT: tensor.expand_shape
func.func @reduce_log_sum_exp(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  %0 = nn.reduce %x {kind = #nn<reduce_kind log_sum_exp>, axes = array<i64: -1>, keepdims = false} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Every axis, kept: a rank-0 accumulator expanded to 1x1.
// CHECK-LABEL: func @reduce_all_keepdims
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.minimumf
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @reduce_all_keepdims(%x: tensor<2x8xf32>) -> tensor<1x1xf32> {
  %0 = nn.reduce %x {kind = #nn<reduce_kind min>, axes = array<i64: 0, 1>} : (tensor<2x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// One generic reduces the axis into (best value, index); the first element
// is always taken, later ones when strictly larger (first index on ties).
// CHECK-LABEL: func @arg_max_keepdims
// CHECK: %[[V:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[I:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<2x4xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%[[V]], %[[I]] : tensor<2x4xf32>, tensor<2x4xi64>)
// CHECK: linalg.index 1
// CHECK: arith.cmpf ogt
// CHECK: tensor.expand_shape %[[R]]#1 {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xi64> into tensor<2x1x4xi64>
func.func @arg_max_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xi64> {
  %0 = nn.arg_max %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  return %0 : tensor<2x1x4xi64>
}

// -----

// The last index on ties: better or equal.
// CHECK-LABEL: func @arg_min_last
// CHECK: arith.cmpf ole
// CHECK-NOT: tensor.expand_shape
func.func @arg_min_last(%x: tensor<5xf32>) -> tensor<i64> {
  %0 = nn.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<5xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A mean over a dimension known at run time only (a sequence's symbolic
// length) divides by its size read at run time.
// CHECK-LABEL: func @mean_dynamic
// CHECK: %[[T:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[COUNT:.*]] = arith.muli %[[T]], %c4
// CHECK: %[[COUNT64:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK: %[[DIVISOR:.*]] = arith.sitofp %[[COUNT64]] : i64 to f32
// CHECK: arith.divf %{{.*}}, %[[DIVISOR]] : f32
func.func @mean_dynamic(%x: tensor<2x?x4xf32>) -> tensor<2x1x1xf32> {
  %0 = nn.reduce %x {kind = #nn<reduce_kind mean>, axes = array<i64: 1, 2>} : (tensor<2x?x4xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// nn.layer_norm over the last two dims: collapsed into rows of 80, the row
// sums, the sums of squared deviations (two-pass), one elementwise pass
// with scale and bias per column, and the shape back.
// CHECK-LABEL: func @layer_norm
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<?x5x16xf32> into tensor<?x80xf32>
// CHECK: %[[G:.*]] = tensor.collapse_shape %arg1 {{\[}}[0, 1]] : tensor<5x16xf32> into tensor<80xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<?x80xf32>)
// CHECK: arith.addf
// CHECK: %[[SSD:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[SUM]] : tensor<?x80xf32>, tensor<?xf32>)
// CHECK: arith.subf
// CHECK: math.fma
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[SUM]], %[[SSD]], %[[G]], %{{.*}} : tensor<?x80xf32>, tensor<?xf32>, tensor<?xf32>, tensor<80xf32>, tensor<80xf32>)
// CHECK: math.rsqrt
// CHECK: tensor.expand_shape %[[Y]] {{\[}}[0], [1, 2]]{{.*}} : tensor<?x80xf32> into tensor<?x5x16xf32>
// CHECK-NOT: nn.layer_norm
func.func @layer_norm(%x: tensor<?x5x16xf32>, %g: tensor<5x16xf32>, %b: tensor<5x16xf32>) -> tensor<?x5x16xf32> {
  %0 = nn.layer_norm %x scale %g bias %b {axis = 1 : i64, epsilon = 1.0e-3 : f64} : (tensor<?x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<?x5x16xf32>
  return %0 : tensor<?x5x16xf32>
}

// -----

// Over the last dim alone, without scale and bias: no reshapes.
// CHECK-LABEL: func @layer_norm_last
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}}["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}["parallel", "parallel", "parallel"]
// CHECK-NOT: tensor.expand_shape
func.func @layer_norm_last(%x: tensor<2x7x33xf32>) -> tensor<2x7x33xf32> {
  %0 = nn.layer_norm %x : (tensor<2x7x33xf32>) -> tensor<2x7x33xf32>
  return %0 : tensor<2x7x33xf32>
}

// -----

// f64 computes in f64 (only bf16 and f16 are widened, before lowering).
// CHECK-LABEL: func @layer_norm_f64
// CHECK-NOT: arith.extf
// CHECK: math.fma %{{.*}} : f64
// CHECK: math.rsqrt %{{.*}} : f64
func.func @layer_norm_f64(%x: tensor<3x10xf64>) -> tensor<3x10xf64> {
  %0 = nn.layer_norm %x : (tensor<3x10xf64>) -> tensor<3x10xf64>
  return %0 : tensor<3x10xf64>
}
