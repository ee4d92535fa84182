// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// A cumulative sum is one loop along the axis carrying the running sum (the
// input's shape with the axis of size 1), added to in place and written
// into the result at each step.
// CHECK-LABEL: func @cumsum
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x1xf32>)
// CHECK: %[[RESULT:.*]] = tensor.empty() : tensor<4x5xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %[[RESULT]], %[[SUM:.*]] = %[[INIT]])
// CHECK:   %[[SLICE:.*]] = tensor.extract_slice %arg0[0, %[[I]]] [4, 1] [1, 1]
// CHECK:   %[[NEXT:.*]] = linalg.add ins(%[[SUM]], %[[SLICE]] : {{.*}}) outs(%[[SUM]] : tensor<4x1xf32>)
// CHECK:   %[[WRITTEN:.*]] = tensor.insert_slice %[[NEXT]] into %[[OUT]][0, %[[I]]] [4, 1] [1, 1]
// CHECK:   scf.yield %[[WRITTEN]], %[[NEXT]]
// CHECK: return %[[LOOP]]#0
func.func @cumsum(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = nn.cumsum %x {axis = 1 : i64} : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Exclusive: the sum so far is written before the step's slice is added.
// Reverse: step i works at position size - 1 - i (a run-time size here).
// CHECK-LABEL: func @cumsum_reverse_exclusive
// CHECK: %[[LEN:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[LAST:.*]] = arith.subi %[[LEN]], %{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}})
// CHECK:   %[[POS:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK:   %[[SLICE:.*]] = tensor.extract_slice %arg0[0, %[[POS]], 0] [2, 1, 3]
// CHECK:   %[[WRITTEN:.*]] = tensor.insert_slice %[[SUM]] into %[[OUT]][0, %[[POS]], 0] [2, 1, 3]
// CHECK:   %[[NEXT:.*]] = linalg.add ins(%[[SUM]], %[[SLICE]] : {{.*}}) outs(%[[SUM]] : tensor<2x1x3xf32>)
// CHECK:   scf.yield %[[WRITTEN]], %[[NEXT]]
func.func @cumsum_reverse_exclusive(%x: tensor<2x?x3xf32>) -> tensor<2x?x3xf32> {
  %0 = nn.cumsum %x {axis = -2 : i64, exclusive = true, reverse = true} : tensor<2x?x3xf32>
  return %0 : tensor<2x?x3xf32>
}

// -----

// Integers add with linalg.add's integer form.
// CHECK-LABEL: func @cumsum_int
// CHECK: linalg.fill ins(%{{.*}} : i64)
// CHECK: linalg.add ins(%{{.*}}, %{{.*}} : tensor<1xi64>, tensor<1xi64>)
func.func @cumsum_int(%x: tensor<7xi64>) -> tensor<7xi64> {
  %0 = nn.cumsum %x {axis = 0 : i64} : tensor<7xi64>
  return %0 : tensor<7xi64>
}
