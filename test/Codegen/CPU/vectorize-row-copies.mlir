// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-vectorize-row-copies))" | FileCheck %s
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-vectorize-row-copies{parallel=0}))" | FileCheck %s --check-prefix=SERIAL
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-vectorize-row-copies{min-parallel-elements=60000}))" | FileCheck %s --check-prefix=SMALL
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-fill-pad-borders,dlas-vectorize-row-copies{min-parallel-elements=1}))" | FileCheck %s --check-prefix=PIPE
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-fill-pad-borders,dlas-vectorize-row-copies))" | FileCheck %s --check-prefix=READERS
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-fill-pad-borders,dlas-vectorize-row-copies{min-parallel-read-elements=20000}))" | FileCheck %s --check-prefix=FEWREAD
// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-fill-pad-borders),dlas-vectorize-row-copies)" | FileCheck %s --check-prefix=MODULE

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

// A padded map as dlas-fill-pad-borders leaves it: border fills, then the
// interior copy. One nest writes it: per channel (in parallel), the top
// row's splat vectors, per interior row its left column, the source row and
// its right column, then the bottom row. No fill is left.
// CHECK-LABEL: func.func @padded_copy
// CHECK: %[[S:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[V:.*]] = memref.subview %arg1[0, 0, 1, 1]
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%c128)
// CHECK: %[[Z:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK-COUNT-4: vector.store %[[Z]], %arg1[%{{.*}}, %[[C]], %c0{{.*}}, %{{.*}}] : memref<1x128x30x30xf32>, vector<8xf32>
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %c28
// CHECK: %[[ROW:.*]] = arith.addi %[[H]], %c1
// CHECK: memref.store %[[S]], %arg1[%{{.*}}, %[[C]], %[[ROW]], %c0{{.*}}] : memref<1x128x30x30xf32>
// CHECK: %[[A:.*]] = vector.load %arg0[%{{.*}}, %[[C]], %[[H]], %c0{{.*}}] : memref<1x128x28x28xf32>, vector<8xf32>
// CHECK: vector.store %[[A]], %[[V]][%{{.*}}, %[[C]], %[[H]], %c0{{.*}}]
// CHECK-COUNT-3: vector.store %{{.*}}, %[[V]]
// CHECK: memref.store %[[S]], %arg1[%{{.*}}, %[[C]], %[[ROW]], %c29{{.*}}] : memref<1x128x30x30xf32>
// CHECK: }
// CHECK-COUNT-4: vector.store %{{.*}}, %arg1[%{{.*}}, %[[C]], %c29{{.*}}, %{{.*}}] : memref<1x128x30x30xf32>, vector<8xf32>
// CHECK: scf.reduce
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.fill
// SERIAL-LABEL: func.func @padded_copy
// SERIAL-NOT: scf.parallel
// SERIAL: scf.for %{{.*}} = %{{.*}} to %c128
func.func @padded_copy(%x: memref<1x128x28x28xf32>, %p: memref<1x128x30x30xf32>) {
  %cst = arith.constant 0.0 : f32
  %top = memref.subview %p[0, 0, 0, 0] [1, 128, 1, 30] [1, 1, 1, 1] : memref<1x128x30x30xf32> to memref<1x128x1x30xf32, strided<[115200, 900, 30, 1]>>
  linalg.fill ins(%cst : f32) outs(%top : memref<1x128x1x30xf32, strided<[115200, 900, 30, 1]>>)
  %bottom = memref.subview %p[0, 0, 29, 0] [1, 128, 1, 30] [1, 1, 1, 1] : memref<1x128x30x30xf32> to memref<1x128x1x30xf32, strided<[115200, 900, 30, 1], offset: 870>>
  linalg.fill ins(%cst : f32) outs(%bottom : memref<1x128x1x30xf32, strided<[115200, 900, 30, 1], offset: 870>>)
  %left = memref.subview %p[0, 0, 1, 0] [1, 128, 28, 1] [1, 1, 1, 1] : memref<1x128x30x30xf32> to memref<1x128x28x1xf32, strided<[115200, 900, 30, 1], offset: 30>>
  linalg.fill ins(%cst : f32) outs(%left : memref<1x128x28x1xf32, strided<[115200, 900, 30, 1], offset: 30>>)
  %right = memref.subview %p[0, 0, 1, 29] [1, 128, 28, 1] [1, 1, 1, 1] : memref<1x128x30x30xf32> to memref<1x128x28x1xf32, strided<[115200, 900, 30, 1], offset: 59>>
  linalg.fill ins(%cst : f32) outs(%right : memref<1x128x28x1xf32, strided<[115200, 900, 30, 1], offset: 59>>)
  %v = memref.subview %p[0, 0, 1, 1] [1, 128, 28, 28] [1, 1, 1, 1] : memref<1x128x30x30xf32> to memref<1x128x28x28xf32, strided<[115200, 900, 30, 1], offset: 31>>
  linalg.copy ins(%x : memref<1x128x28x28xf32>) outs(%v : memref<1x128x28x28xf32, strided<[115200, 900, 30, 1], offset: 31>>)
  return
}

// The pipeline's form from a whole fill (dlas-fill-pad-borders first):
// padding on the channel dim too (2 channels before, 1 after, whole 5x5
// planes of 7 filled sequentially around the parallel interior channels),
// rows padded 2 | 3 | 2 with a 2-wide vector for each side, an i8 fill
// value that is not zero. The padded copy's result against the fill and
// copy it replaces runs in Integration/padded-copy.mlir.
// Without dlas-fill-pad-borders the whole fill overlaps the interior: it
// stays, and the copy is a plain row copy after it (sequential: 36
// elements).
// CHECK-LABEL: func.func @padded_channels
// CHECK: linalg.fill
// CHECK: scf.for %{{.*}} to %c4
// PIPE-LABEL: func.func @padded_channels
// PIPE-NOT: linalg.fill
// PIPE: %[[P:.*]] = memref.alloc() : memref<1x7x5x7xi8>
// PIPE: %[[V:.*]] = memref.subview %[[P]][0, 2, 1, 2]
// PIPE: scf.for %[[C0:.*]] = %c0{{.*}} to %c2
// PIPE: scf.for %[[H0:.*]] = %c0{{.*}} to %c5
// PIPE: vector.store %{{.*}}, %[[P]][%{{.*}}, %[[C0]], %[[H0]], %c0{{.*}}] : memref<1x7x5x7xi8>, vector<4xi8>
// PIPE: vector.store %{{.*}}, %[[P]][%{{.*}}, %[[C0]], %[[H0]], %c3{{.*}}] : memref<1x7x5x7xi8>, vector<4xi8>
// PIPE: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%c4{{.*}})
// PIPE: vector.store %{{.*}}, %[[P]][%{{.*}}, %{{.*}}, %c0{{.*}}, %c0{{.*}}] : memref<1x7x5x7xi8>, vector<4xi8>
// PIPE: scf.for %[[H:.*]] = %c0{{.*}} to %c3
// PIPE: vector.store %{{.*}}, %[[P]][{{.*}}, %c0{{.*}}] : memref<1x7x5x7xi8>, vector<2xi8>
// PIPE: vector.load %arg0[%{{.*}}, %[[C]], %[[H]], %c0{{.*}}] : memref<1x4x3x3xi8>, vector<2xi8>
// PIPE: vector.store %{{.*}}, %[[V]]
// PIPE: vector.load %arg0[%{{.*}}, %[[C]], %[[H]], %c1{{.*}}] : memref<1x4x3x3xi8>, vector<2xi8>
// PIPE: vector.store %{{.*}}, %[[V]]
// PIPE: vector.store %{{.*}}, %[[P]][{{.*}}, %c5{{.*}}] : memref<1x7x5x7xi8>, vector<2xi8>
// PIPE: scf.reduce
// PIPE: scf.for %{{.*}} = %c0{{.*}} to %c5
// PIPE: vector.store %{{.*}}, %[[P]][%{{.*}}, %c6{{.*}}, %{{.*}}, %c0{{.*}}] : memref<1x7x5x7xi8>, vector<4xi8>
// PIPE-NOT: linalg.copy
// PIPE-NOT: linalg.fill
// PIPE-LABEL: func.func @border_gap
func.func @padded_channels(%x: memref<1x4x3x3xi8>) -> memref<1x7x5x7xi8> {
  %c7 = arith.constant 7 : i8
  %p = memref.alloc() : memref<1x7x5x7xi8>
  linalg.fill ins(%c7 : i8) outs(%p : memref<1x7x5x7xi8>)
  %v = memref.subview %p[0, 2, 1, 2] [1, 4, 3, 3] [1, 1, 1, 1] : memref<1x7x5x7xi8> to memref<1x4x3x3xi8, strided<[245, 35, 7, 1], offset: 79>>
  linalg.copy ins(%x : memref<1x4x3x3xi8>) outs(%v : memref<1x4x3x3xi8, strided<[245, 35, 7, 1], offset: 79>>)
  return %p : memref<1x7x5x7xi8>
}

// Not a padded copy, so the plain row copy and the fills stay: the fills
// leave a gap (the right column), fills of two values, a read of the
// buffer between the fills and the copy, a source that is the buffer
// itself.
// CHECK-LABEL: func.func @border_gap
// CHECK-COUNT-3: linalg.fill
// CHECK: scf.for
// CHECK-LABEL: func.func @two_values
// CHECK-COUNT-2: linalg.fill
// CHECK-LABEL: func.func @read_between
// CHECK: linalg.fill
// CHECK: memref.load
// CHECK-LABEL: func.func @self_copy
// CHECK: linalg.fill
func.func @border_gap(%x: memref<1x4x6x6xf32>, %p: memref<1x4x8x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %top = memref.subview %p[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>
  linalg.fill ins(%cst : f32) outs(%top : memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>)
  %bottom = memref.subview %p[0, 0, 7, 0] [1, 4, 1, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x1x8xf32, strided<[256, 64, 8, 1], offset: 56>>
  linalg.fill ins(%cst : f32) outs(%bottom : memref<1x4x1x8xf32, strided<[256, 64, 8, 1], offset: 56>>)
  %left = memref.subview %p[0, 0, 1, 0] [1, 4, 6, 1] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x1xf32, strided<[256, 64, 8, 1], offset: 8>>
  linalg.fill ins(%cst : f32) outs(%left : memref<1x4x6x1xf32, strided<[256, 64, 8, 1], offset: 8>>)
  %v = memref.subview %p[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.copy ins(%x : memref<1x4x6x6xf32>) outs(%v : memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>)
  return
}
func.func @two_values(%x: memref<1x4x7x8xf32>, %p: memref<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %top = memref.subview %p[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>)
  %v = memref.subview %p[0, 0, 1, 0] [1, 4, 7, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x7x8xf32, strided<[256, 64, 8, 1], offset: 8>>
  %half = memref.subview %p[0, 0, 0, 4] [1, 4, 1, 4] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x1x4xf32, strided<[256, 64, 8, 1], offset: 4>>
  linalg.fill ins(%one : f32) outs(%half : memref<1x4x1x4xf32, strided<[256, 64, 8, 1], offset: 4>>)
  linalg.copy ins(%x : memref<1x4x7x8xf32>) outs(%v : memref<1x4x7x8xf32, strided<[256, 64, 8, 1], offset: 8>>)
  return
}
func.func @read_between(%x: memref<1x4x7x8xf32>, %p: memref<1x4x8x8xf32>) -> f32 {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %top = memref.subview %p[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>
  linalg.fill ins(%cst : f32) outs(%top : memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>)
  %r = memref.load %p[%c0, %c0, %c0, %c0] : memref<1x4x8x8xf32>
  %v = memref.subview %p[0, 0, 1, 0] [1, 4, 7, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x7x8xf32, strided<[256, 64, 8, 1], offset: 8>>
  linalg.copy ins(%x : memref<1x4x7x8xf32>) outs(%v : memref<1x4x7x8xf32, strided<[256, 64, 8, 1], offset: 8>>)
  return %r : f32
}
func.func @self_copy(%p: memref<1x4x8x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %top = memref.subview %p[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>
  linalg.fill ins(%cst : f32) outs(%top : memref<1x4x1x8xf32, strided<[256, 64, 8, 1]>>)
  %src = memref.subview %p[0, 0, 0, 0] [1, 4, 7, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x7x8xf32, strided<[256, 64, 8, 1]>>
  %v = memref.subview %p[0, 0, 1, 0] [1, 4, 7, 8] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x7x8xf32, strided<[256, 64, 8, 1], offset: 8>>
  linalg.copy ins(%src : memref<1x4x7x8xf32, strided<[256, 64, 8, 1]>>) outs(%v : memref<1x4x7x8xf32, strided<[256, 64, 8, 1], offset: 8>>)
  return
}

// A padded buffer of 12800 elements (WRN-40-2's 128-channel 8x8 map),
// below min-parallel-elements (32768): written by one thread unless a
// parallel loop reads it afterwards (a grouped kernel's threads, each on
// its own channels), from min-parallel-read-elements (4096) on. Views of
// the buffer count as reads; a sequential reader does not.
// READERS-LABEL: func.func @parallel_reader
// READERS: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c128)
// READERS: scf.parallel
// READERS-LABEL: func.func @sequential_reader
// READERS-NOT: scf.parallel
// READERS: scf.for %{{.*}} = %{{.*}} to %c128
// READERS-NOT: scf.parallel
// READERS-LABEL: func.func @small_parallel_reader
// READERS-NOT: scf.parallel
// READERS: scf.for %{{.*}} = %{{.*}} to %c8
// READERS: scf.parallel
// On the module (the CPU pipeline's run), the small buffer's nest asks
// OpenMP first: parallel with more than one thread, sequential with one.
// MODULE: func.func private @omp_get_max_threads() -> i32
// MODULE-LABEL: func.func @parallel_reader
// MODULE: %[[T:.*]] = call @omp_get_max_threads() : () -> i32
// MODULE: %[[N:.*]] = arith.index_cast %[[T]] : i32 to index
// MODULE: %[[MANY:.*]] = arith.cmpi ugt, %[[N]], %c1
// MODULE: scf.if %[[MANY]] {
// MODULE: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c128)
// MODULE: } else {
// MODULE-NOT: scf.parallel
// MODULE: scf.for %{{.*}} = %{{.*}} to %c128
// MODULE: }
// MODULE: scf.parallel (%{{.*}}) = (%c0) to (%c16)
// MODULE-LABEL: func.func @sequential_reader
// MODULE-NOT: scf.if
// MODULE-LABEL: func.func @small_parallel_reader
// MODULE-NOT: scf.if
// FEWREAD-LABEL: func.func @parallel_reader
// FEWREAD: scf.for %{{.*}} = %{{.*}} to %c128
// FEWREAD: scf.parallel
func.func @parallel_reader(%x: memref<1x128x8x8xf32>, %y: memref<16xf32>) {
  %p = memref.alloc() : memref<1x128x10x10xf32>
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  linalg.fill ins(%cst : f32) outs(%p : memref<1x128x10x10xf32>)
  %v = memref.subview %p[0, 0, 1, 1] [1, 128, 8, 8] [1, 1, 1, 1] : memref<1x128x10x10xf32> to memref<1x128x8x8xf32, strided<[12800, 100, 10, 1], offset: 11>>
  linalg.copy ins(%x : memref<1x128x8x8xf32>) outs(%v : memref<1x128x8x8xf32, strided<[12800, 100, 10, 1], offset: 11>>)
  %g = memref.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 16, 8, 10, 10] : memref<1x128x10x10xf32> into memref<1x16x8x10x10xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %e = memref.load %g[%c0, %i, %c0, %c0, %c0] : memref<1x16x8x10x10xf32>
    memref.store %e, %y[%i] : memref<16xf32>
    scf.reduce
  }
  return
}
func.func @sequential_reader(%x: memref<1x128x8x8xf32>) -> f32 {
  %p = memref.alloc() : memref<1x128x10x10xf32>
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%cst : f32) outs(%p : memref<1x128x10x10xf32>)
  %v = memref.subview %p[0, 0, 1, 1] [1, 128, 8, 8] [1, 1, 1, 1] : memref<1x128x10x10xf32> to memref<1x128x8x8xf32, strided<[12800, 100, 10, 1], offset: 11>>
  linalg.copy ins(%x : memref<1x128x8x8xf32>) outs(%v : memref<1x128x8x8xf32, strided<[12800, 100, 10, 1], offset: 11>>)
  %e = memref.load %p[%c0, %c0, %c0, %c0] : memref<1x128x10x10xf32>
  return %e : f32
}
func.func @small_parallel_reader(%x: memref<1x8x8x8xf32>, %y: memref<8xf32>) {
  %p = memref.alloc() : memref<1x8x10x10xf32>
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  linalg.fill ins(%cst : f32) outs(%p : memref<1x8x10x10xf32>)
  %v = memref.subview %p[0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x10x10xf32> to memref<1x8x8x8xf32, strided<[800, 100, 10, 1], offset: 11>>
  linalg.copy ins(%x : memref<1x8x8x8xf32>) outs(%v : memref<1x8x8x8xf32, strided<[800, 100, 10, 1], offset: 11>>)
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %e = memref.load %p[%c0, %i, %c0, %c0] : memref<1x8x10x10xf32>
    memref.store %e, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
