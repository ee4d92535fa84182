// RUN: dlas-opt %s --dlas-memref-copy-to-linalg | FileCheck %s

// CHECK-LABEL: func @strided_copy
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%arg0 : memref<4x4xf32, strided<[8, 1]>>) outs(%arg1 : memref<4x4xf32>)
func.func @strided_copy(%a: memref<4x4xf32, strided<[8, 1]>>, %b: memref<4x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  return
}

// A channel range of a batch-1 NCHW buffer is one contiguous run: the copy
// stays, to become a memcpy.
// CHECK-LABEL: func @contiguous_channel_range
// CHECK-NOT: linalg.copy
// CHECK: memref.copy %arg0, %{{.*}} : memref<1x32x7x7xf32> to memref<1x32x7x7xf32, strided<[4704, 49, 7, 1], offset: 3136>>
func.func @contiguous_channel_range(%a: memref<1x32x7x7xf32>, %b: memref<1x96x7x7xf32>) {
  %s = memref.subview %b[0, 64, 0, 0] [1, 32, 7, 7] [1, 1, 1, 1] : memref<1x96x7x7xf32> to memref<1x32x7x7xf32, strided<[4704, 49, 7, 1], offset: 3136>>
  memref.copy %a, %s : memref<1x32x7x7xf32> to memref<1x32x7x7xf32, strided<[4704, 49, 7, 1], offset: 3136>>
  return
}

// Whole buffers, dynamic shapes included.
// CHECK-LABEL: func @identity_dynamic
// CHECK-NOT: linalg.copy
// CHECK: memref.copy
func.func @identity_dynamic(%a: memref<?x8xf32>, %b: memref<?x8xf32>) {
  memref.copy %a, %b : memref<?x8xf32> to memref<?x8xf32>
  return
}

// Batch 2: the channel range is two runs, not one.
// CHECK-LABEL: func @two_runs
// CHECK-NOT: memref.copy
// CHECK: linalg.copy
func.func @two_runs(%a: memref<2x32x7x7xf32>, %b: memref<2x96x7x7xf32>) {
  %s = memref.subview %b[0, 64, 0, 0] [2, 32, 7, 7] [1, 1, 1, 1] : memref<2x96x7x7xf32> to memref<2x32x7x7xf32, strided<[4704, 49, 7, 1], offset: 3136>>
  memref.copy %a, %s : memref<2x32x7x7xf32> to memref<2x32x7x7xf32, strided<[4704, 49, 7, 1], offset: 3136>>
  return
}
