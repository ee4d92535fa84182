// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// One loop per dimension but the axis, then k selection passes, each a
// scan of the axis that keeps the best (value, index) ranking after the
// previous pick.
// CHECK-LABEL: func @top_k_last_axis
// CHECK: %[[V:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[I:.*]] = tensor.empty() : tensor<2x3xi64>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %[[C2]] {{.*}} iter_args(%{{.*}} = %[[V]], %{{.*}} = %[[I]])
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C3]] {{.*}} -> (tensor<2x3xf32>, tensor<2x3xi64>, f32, i64)
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %[[C10]] {{.*}} -> (f32, i64, i1)
// CHECK: tensor.extract %arg0[%[[ROW]], %[[E]]]
// Largest first; ties by the lower index.
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%[[ROW]], %[[J]]] : tensor<2x3xf32>
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%[[ROW]], %[[J]]] : tensor<2x3xi64>
func.func @top_k_last_axis(%x: tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = nn.top_k %x {k = 3 : i64} : (tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// axis 0 of an integer tensor, smallest first; a dynamic dimension sizes
// its loop with tensor.dim.
// CHECK-LABEL: func @top_k_smallest_axis0
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c1
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %[[D]]
// CHECK: tensor.extract %arg0[%{{.*}}, %[[COL]]]
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi eq
func.func @top_k_smallest_axis0(%x: tensor<9x?xi32>) -> (tensor<4x?xi32>, tensor<4x?xi64>) {
  %v, %i = nn.top_k %x {k = 4 : i64, axis = 0 : i64, largest = false} : (tensor<9x?xi32>) -> (tensor<4x?xi32>, tensor<4x?xi64>)
  return %v, %i : tensor<4x?xi32>, tensor<4x?xi64>
}
