// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-fill-pad-borders))" | FileCheck %s

// A bufferized tensor.pad (fill, then the source copied into the
// interior): only the two rows and two columns of each plane are filled.
// CHECK-LABEL: func @nchw_pad
// CHECK-NOT: linalg.map
// CHECK: %[[A:.*]] = memref.alloc() : memref<1x8x34x34xf32>
// CHECK: %[[TOP:.*]] = memref.subview %[[A]][0, 0, 0, 0] [1, 8, 1, 34] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]]
// CHECK: %[[BOTTOM:.*]] = memref.subview %[[A]][0, 0, 33, 0] [1, 8, 1, 34] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[BOTTOM]]
// CHECK: %[[LEFT:.*]] = memref.subview %[[A]][0, 0, 1, 0] [1, 8, 32, 1] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[LEFT]]
// CHECK: %[[RIGHT:.*]] = memref.subview %[[A]][0, 0, 1, 33] [1, 8, 32, 1] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[RIGHT]]
// CHECK-NOT: linalg.fill
// CHECK: linalg.copy
func.func @nchw_pad(%x: memref<1x8x32x32xf32>) -> memref<1x8x34x34xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x8x34x34xf32>
  linalg.map outs(%a : memref<1x8x34x34xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %s = memref.subview %a[0, 0, 1, 1] [1, 8, 32, 32] [1, 1, 1, 1] : memref<1x8x34x34xf32> to memref<1x8x32x32xf32, strided<[9248, 1156, 34, 1], offset: 35>>
  linalg.copy ins(%x : memref<1x8x32x32xf32>) outs(%s : memref<1x8x32x32xf32, strided<[9248, 1156, 34, 1], offset: 35>>)
  return %a : memref<1x8x34x34xf32>
}

// -----

// A blocked buffer, linalg.fill, a memref.copy; one row above, two below
// (the flat form's extra row), none along the block.
// CHECK-LABEL: func @blocked_fill
// CHECK: memref.subview %{{.*}}[0, 0, 0, 0, 0] [1, 2, 1, 10, 8]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.subview %{{.*}}[0, 0, 9, 0, 0] [1, 2, 2, 10, 8]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.subview %{{.*}}[0, 0, 1, 0, 0] [1, 2, 8, 1, 8]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.subview %{{.*}}[0, 0, 1, 9, 0] [1, 2, 8, 1, 8]
// CHECK-NEXT: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK: memref.copy
func.func @blocked_fill(%x: memref<1x2x8x8x8xf32>) -> memref<1x2x11x10x8xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x2x11x10x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<1x2x11x10x8xf32>)
  %s = memref.subview %a[0, 0, 1, 1, 0] [1, 2, 8, 8, 8] [1, 1, 1, 1, 1] : memref<1x2x11x10x8xf32> to memref<1x2x8x8x8xf32, strided<[1760, 880, 80, 8, 1], offset: 88>>
  memref.copy %x, %s : memref<1x2x8x8x8xf32> to memref<1x2x8x8x8xf32, strided<[1760, 880, 80, 8, 1], offset: 88>>
  return %a : memref<1x2x11x10x8xf32>
}

// -----

// A copy over the whole buffer leaves nothing to fill.
// CHECK-LABEL: func @whole
// CHECK-NOT: linalg.fill
// CHECK: memref.copy
func.func @whole(%x: memref<4x4xf32>) -> memref<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x4xf32>)
  %s = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<4x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  memref.copy %x, %s : memref<4x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  return %a : memref<4x4xf32>
}

// -----

// The buffer is read between the fill and the copy: the fill stays whole.
// CHECK-LABEL: func @read_between
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<6x6xf32>)
func.func @read_between(%x: memref<4x4xf32>, %i: index) -> (memref<6x6xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<6x6xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<6x6xf32>)
  %v = memref.load %a[%i, %i] : memref<6x6xf32>
  %s = memref.subview %a[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %s : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return %a, %v : memref<6x6xf32>, f32
}

// -----

// Read through a view made before the fill: still a read.
// CHECK-LABEL: func @read_through_view
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<6x6xf32>)
func.func @read_through_view(%x: memref<4x4xf32>, %i: index) -> (memref<6x6xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<6x6xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<6x6xf32> into memref<36xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<6x6xf32>)
  %v = memref.load %flat[%i] : memref<36xf32>
  %s = memref.subview %a[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %s : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return %a, %v : memref<6x6xf32>, f32
}

// -----

// A strided subview leaves holes in the interior: the fill stays whole.
// CHECK-LABEL: func @strided_interior
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<8x8xf32>)
func.func @strided_interior(%x: memref<4x4xf32>) -> memref<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<8x8xf32>)
  %s = memref.subview %a[0, 0] [4, 4] [2, 2] : memref<8x8xf32> to memref<4x4xf32, strided<[16, 2]>>
  memref.copy %x, %s : memref<4x4xf32> to memref<4x4xf32, strided<[16, 2]>>
  return %a : memref<8x8xf32>
}

// -----

// A rank-reducing subview is not a box of the buffer's rank.
// CHECK-LABEL: func @rank_reducing
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x6x6xf32>)
func.func @rank_reducing(%x: memref<4x4xf32>) -> memref<1x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<1x6x6xf32>)
  %s = memref.subview %a[0, 1, 1] [1, 4, 4] [1, 1, 1] : memref<1x6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %s : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return %a : memref<1x6x6xf32>
}

// -----

// Not a fresh buffer (a caller's argument may alias anything), a copy from
// the buffer itself, a map that computes its value: all unchanged.
// CHECK-LABEL: func @not_candidates
// CHECK-COUNT-2: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<6x6xf32>)
// CHECK: linalg.map
func.func @not_candidates(%x: memref<4x4xf32>, %arg: memref<6x6xf32>, %f: f32) -> (memref<6x6xf32>, memref<6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%arg : memref<6x6xf32>)
  %s = memref.subview %arg[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %s : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  %a = memref.alloc() : memref<6x6xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<6x6xf32>)
  %corner = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1]>>
  %s2 = memref.subview %a[2, 2] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 14>>
  memref.copy %corner, %s2 : memref<4x4xf32, strided<[6, 1]>> to memref<4x4xf32, strided<[6, 1], offset: 14>>
  %b = memref.alloc() : memref<6x6xf32>
  linalg.map outs(%b : memref<6x6xf32>)
    (%init: f32) {
      %two = arith.mulf %f, %f : f32
      linalg.yield %two : f32
    }
  %s3 = memref.subview %b[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %s3 : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return %a, %b : memref<6x6xf32>, memref<6x6xf32>
}
