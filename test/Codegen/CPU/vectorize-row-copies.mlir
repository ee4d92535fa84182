// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-vectorize-row-copies))" | FileCheck %s
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-vectorize-row-copies{parallel=0}))" | FileCheck %s --check-prefix=SERIAL
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-vectorize-row-copies{min-parallel-elements=60000}))" | FileCheck %s --check-prefix=SMALL

// 56-wide rows of bytes: a 32-byte vector and one flush with the row's end.
// CHECK-LABEL: func.func @stride1
// CHECK: scf.parallel (%[[Q:.*]]) = (%{{.*}}) to (%c36)
// CHECK: %[[C:.*]] = arith.divui %[[Q]], %{{.*}} : index
// CHECK: scf.for %[[OH:.*]] = %{{.*}} to %c56
// CHECK: %[[V0:.*]] = vector.load %arg0[%{{.*}}, %[[C]], %{{.*}}, %{{.*}}] : memref<1x4x58x58xi8>, vector<32xi8>
// CHECK: vector.store %[[V0]], %arg1[%{{.*}}, %[[Q]], %[[OH]], %{{.*}}] : memref<1x36x56x56xi8>, vector<32xi8>
// CHECK: %[[V1:.*]] = vector.load %arg0{{.*}} : memref<1x4x58x58xi8>, vector<32xi8>
// CHECK: vector.store %[[V1]], %arg1[%{{.*}}, %[[Q]], %[[OH]], %c24{{.*}}] : memref<1x36x56x56xi8>, vector<32xi8>
// CHECK-NOT: vector.store
// CHECK-NOT: linalg.generic
// SERIAL-LABEL: func.func @stride1
// SERIAL-NOT: scf.parallel
// SERIAL: scf.for %{{.*}} = %{{.*}} to %c36
// 112896 elements: enough for threads at min-parallel-elements=60000.
// SMALL-LABEL: func.func @stride1
// SMALL: scf.parallel
func.func @stride1(%x: memref<1x4x58x58xi8>, %p: memref<1x36x56x56xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 + (d1 mod 9) floordiv 3, d3 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x4x58x58xi8>) outs(%p : memref<1x36x56x56xi8>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  return
}
// Stride 2 on f32, OW = 7: 4-lane vectors from 8 floats loaded (every
// second kept), the second vector flush with the row's end (columns 3-6).
// CHECK-LABEL: func.func @stride2
// CHECK: vector.load %arg0{{.*}} : memref<1x2x16x16xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}] : memref<1x18x7x7xf32>, vector<4xf32>
// CHECK: vector.shuffle
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %c3{{.*}}] : memref<1x18x7x7xf32>, vector<4xf32>
func.func @stride2(%x: memref<1x2x16x16xf32>, %p: memref<1x18x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 * 2 + (d1 mod 9) floordiv 3, d3 * 2 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x16x16xf32>) outs(%p : memref<1x18x7x7xf32>) attrs = {dlas.im2col = array<i64: 3, 3, 2, 2, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
// Stride 2 where the last vector would read past the row (W = 15 < 2 + 14):
// scalar.
// CHECK-LABEL: func.func @stride2_short_rows
// CHECK-NOT: vector.load
// CHECK: memref.load %arg0{{.*}} : memref<1x2x15x15xf32>
// CHECK: memref.store %{{.*}}, %arg1{{.*}} : memref<1x18x7x7xf32>
func.func @stride2_short_rows(%x: memref<1x2x15x15xf32>, %p: memref<1x18x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 * 2 + (d1 mod 9) floordiv 3, d3 * 2 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x15x15xf32>) outs(%p : memref<1x18x7x7xf32>) attrs = {dlas.im2col = array<i64: 3, 3, 2, 2, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
// Unmarked copies are not this pass's.
// CHECK-LABEL: func.func @unmarked
// CHECK: linalg.generic
func.func @unmarked(%x: memref<1x4x58x58xi8>, %p: memref<1x36x56x56xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 + (d1 mod 9) floordiv 3, d3 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x4x58x58xi8>) outs(%p : memref<1x36x56x56xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  return
}

// A marker that is not six positive numbers, or rows that are not
// contiguous, leave the copy as it is.
// CHECK-LABEL: func.func @bad_marker
// CHECK: linalg.generic
// CHECK-LABEL: func.func @strided_rows
// CHECK: linalg.generic
func.func @bad_marker(%x: memref<1x4x58x58xi8>, %p: memref<1x36x56x56xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 + (d1 mod 9) floordiv 3, d3 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x4x58x58xi8>) outs(%p : memref<1x36x56x56xi8>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1>} {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  return
}
func.func @strided_rows(%x: memref<1x4x58x58xi8, strided<[13456, 3364, 58, 2]>>, %p: memref<1x36x56x28xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 + (d1 mod 9) floordiv 3, d3 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x4x58x58xi8, strided<[13456, 3364, 58, 2]>>) outs(%p : memref<1x36x56x28xi8>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  return
}

// Rows of one element stay scalar.
// CHECK-LABEL: func.func @one_column
// CHECK-NOT: vector.load
// CHECK: memref.load
func.func @one_column(%x: memref<1x1x3x3xf32>, %p: memref<1x9x1x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 + (d1 mod 9) floordiv 3, d3 + d1 mod 3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x3x3xf32>) outs(%p : memref<1x9x1x1xf32>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// The interior of a padded map (how tensor.pad bufferizes): rows of 14
// bytes as an 8-byte vector and one flush with the row's end (bytes 6-13),
// the channel loop parallel.
// CHECK-LABEL: func.func @padded_interior
// CHECK: %[[V:.*]] = memref.subview
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%c256)
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %c14
// CHECK: %[[A:.*]] = vector.load %arg0[%{{.*}}, %[[C]], %[[H]], %c0{{.*}}] : memref<1x256x14x14xi8>, vector<8xi8>
// CHECK: vector.store %[[A]], %[[V]][%{{.*}}, %[[C]], %[[H]], %c0{{.*}}] : memref<1x256x14x14xi8, strided<[65536, 256, 16, 1], offset: 17>>, vector<8xi8>
// CHECK: %[[B:.*]] = vector.load %arg0[%{{.*}}, %[[C]], %[[H]], %c6{{.*}}] : memref<1x256x14x14xi8>, vector<8xi8>
// CHECK: vector.store %[[B]], %[[V]][%{{.*}}, %[[C]], %[[H]], %c6{{.*}}]
// CHECK-NOT: linalg.copy
// SERIAL-LABEL: func.func @padded_interior
// SERIAL-NOT: scf.parallel
// SERIAL: vector.load
// 50176 elements, fewer than min-parallel-elements=60000: a sequential
// channel loop (the default, 32768, runs it in parallel, above).
// SMALL-LABEL: func.func @padded_interior
// SMALL-NOT: scf.parallel
// SMALL: scf.for %{{.*}} = %{{.*}} to %c256
// SMALL: vector.load
func.func @padded_interior(%x: memref<1x256x14x14xi8>, %p: memref<1x256x16x16xi8>) {
  %v = memref.subview %p[0, 0, 1, 1] [1, 256, 14, 14] [1, 1, 1, 1] : memref<1x256x16x16xi8> to memref<1x256x14x14xi8, strided<[65536, 256, 16, 1], offset: 17>>
  linalg.copy ins(%x : memref<1x256x14x14xi8>) outs(%v : memref<1x256x14x14xi8, strided<[65536, 256, 16, 1], offset: 17>>)
  return
}

// f32 rows of 56: one 8-float vector per 8 columns, 7 in all.
// CHECK-LABEL: func.func @f32_rows
// CHECK-COUNT-7: vector.store %{{.*}} : memref<3x56xf32, strided<[64, 1]>>, vector<8xf32>
// CHECK-NOT: vector.store
func.func @f32_rows(%x: memref<3x56xf32>, %y: memref<3x56xf32, strided<[64, 1]>>) {
  linalg.copy ins(%x : memref<3x56xf32>) outs(%y : memref<3x56xf32, strided<[64, 1]>>)
  return
}

// Copies whose rows are not contiguous, or of one dimension, are left alone.
// CHECK-LABEL: func.func @not_rows
// CHECK: linalg.copy
// CHECK: linalg.copy
func.func @not_rows(%x: memref<4x8xf32, strided<[1, 4]>>, %y: memref<4x8xf32>, %a: memref<8xf32, strided<[2]>>, %b: memref<8xf32>) {
  linalg.copy ins(%x : memref<4x8xf32, strided<[1, 4]>>) outs(%y : memref<4x8xf32>)
  linalg.copy ins(%a : memref<8xf32, strided<[2]>>) outs(%b : memref<8xf32>)
  return
}

// Rows of more than 8 vectors copy in a loop (here 1000 floats: 125
// vectors of 8 by steps of 8 elements) rather than unrolled.
// CHECK-LABEL: func.func @wide_rows
// CHECK: scf.for %[[J:.*]] = %c0{{.*}} to %c1000 step %c8
// CHECK: %[[W:.*]] = vector.load %arg0[%{{.*}}, %[[J]]] : memref<2x1000xf32>, vector<8xf32>
// CHECK: vector.store %[[W]], %arg1[%{{.*}}, %[[J]]] : memref<2x1000xf32, strided<[1024, 1]>>, vector<8xf32>
// CHECK-NOT: vector.store
func.func @wide_rows(%x: memref<2x1000xf32>, %y: memref<2x1000xf32, strided<[1024, 1]>>) {
  linalg.copy ins(%x : memref<2x1000xf32>) outs(%y : memref<2x1000xf32, strided<[1024, 1]>>)
  return
}
