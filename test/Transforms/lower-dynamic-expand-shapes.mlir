// RUN: dlas-opt %s --dlas-lower-dynamic-expand-shapes | FileCheck %s
// Then upstream's expansion, which crashed on these (two run-time sizes in
// one group) before: every expand_shape is gone and what is left verifies.
// RUN: dlas-opt %s --dlas-lower-dynamic-expand-shapes --expand-strided-metadata | FileCheck %s --check-prefix=EXPANDED
// EXPANDED-NOT: memref.expand_shape

// A [T * B, 48] GEMM result split into [T, B, 48]: row stride B * 48.
// CHECK-LABEL: func @sequence_by_batch
// CHECK-SAME: (%[[A:.*]]: memref<?x48xf32>, %[[T:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[ROW:.*]] = arith.muli %c48, %[[B]]
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[T]], %[[B]], 48], strides: [%[[ROW]], 48, 1] : memref<f32> to memref<?x?x48xf32>
// CHECK-NOT: memref.expand_shape
func.func @sequence_by_batch(%a: memref<?x48xf32>, %t: index, %b: index) -> memref<?x?x48xf32> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%t, %b, 48] : memref<?x48xf32> into memref<?x?x48xf32>
  return %e : memref<?x?x48xf32>
}

// Three run-time sizes and a static one in one group of a strided view
// at a run-time offset: the strides are products of the sizes after each
// dimension times the source's run-time stride, the offset the source's.
// CHECK-LABEL: func @strided_source
// CHECK-SAME: (%[[A:.*]]: memref<?x5xf32, strided<[?, 1], offset: ?>>, %[[X:.*]]: index, %[[Y:.*]]: index, %[[Z:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %[[STR:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[S2:.*]] = arith.muli %[[STR]]#0, %c2
// CHECK: %[[S1:.*]] = arith.muli %[[S2]], %[[Z]]
// CHECK: %[[S0:.*]] = arith.muli %[[S1]], %[[Y]]
// CHECK-NOT: arith.muli
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[X]], %[[Y]], %[[Z]], 2, 5], strides: [%[[S0]], %[[S1]], %[[S2]], %[[STR]]#0, 1]
func.func @strided_source(%a: memref<?x5xf32, strided<[?, 1], offset: ?>>, %x: index, %y: index, %z: index)
    -> memref<?x?x?x2x5xf32, strided<[?, ?, ?, ?, 1], offset: ?>> {
  %e = memref.expand_shape %a [[0, 1, 2, 3], [4]] output_shape [%x, %y, %z, 2, 5]
      : memref<?x5xf32, strided<[?, 1], offset: ?>> into memref<?x?x?x2x5xf32, strided<[?, ?, ?, ?, 1], offset: ?>>
  return %e : memref<?x?x?x2x5xf32, strided<[?, ?, ?, ?, 1], offset: ?>>
}

// One run-time size per group: left to expand-strided-metadata.
// CHECK-LABEL: func @one_per_group
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_per_group(%a: memref<?x?xf32>, %t: index, %b: index) -> memref<?x4x?x2xf32> {
  %e = memref.expand_shape %a [[0, 1], [2, 3]] output_shape [%t, 4, %b, 2] : memref<?x?xf32> into memref<?x4x?x2xf32>
  return %e : memref<?x4x?x2xf32>
}
