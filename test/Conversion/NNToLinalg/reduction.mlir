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
