// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-affine-parallelize{min-iterations=1024}))" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-affine-parallelize{min-iterations=0}))" | FileCheck %s --check-prefix=ALL
// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-affine-parallelize{min-iterations=256 max-nested=2}))" | FileCheck %s --check-prefix=NESTED
// RUN: not dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-affine-parallelize{min-iterations=-1}))" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: dlas-affine-parallelize: min-iterations must be at least 0, got -1

// 16 x 8 = 128 iterations stay sequential; 64 x 256 = 16384 run in
// parallel, the outer loop only (max-nested=1).
// CHECK-LABEL: func.func @sizes
// CHECK: affine.for %{{.*}} = 0 to 16
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8
// CHECK: affine.parallel (%{{.*}}) = (0) to (64)
// CHECK-NEXT: affine.for %{{.*}} = 0 to 256
// ALL-LABEL: func.func @sizes
// ALL: affine.parallel (%{{.*}}) = (0) to (16)
// ALL: affine.parallel (%{{.*}}) = (0) to (64)
// NESTED-LABEL: func.func @sizes
// NESTED: affine.for %{{.*}} = 0 to 16
// NESTED: affine.parallel (%{{.*}}) = (0) to (64)
// NESTED-NEXT: affine.parallel (%{{.*}}) = (0) to (256)
func.func @sizes(%a: memref<16x8xf32>, %b: memref<64x256xf32>, %v: f32) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 8 {
      affine.store %v, %a[%i, %j] : memref<16x8xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 256 {
      affine.store %v, %b[%i, %j] : memref<64x256xf32>
    }
  }
  return
}

// -----

// The iterations of every nest inside a loop add up: 4 x (1 + 2 x 128) =
// 1028 reach 1024, though neither inner nest alone would.
// CHECK-LABEL: func.func @sequence
// CHECK: affine.parallel (%{{.*}}) = (0) to (4)
// CHECK-COUNT-2: affine.for %{{.*}} = 0 to 128
func.func @sequence(%a: memref<4x128xf32>, %b: memref<4x128xf32>, %v: f32) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 128 {
      affine.store %v, %a[%i, %j] : memref<4x128xf32>
    }
    affine.for %j = 0 to 128 {
      affine.store %v, %b[%i, %j] : memref<4x128xf32>
    }
  }
  return
}

// -----

// A trip count known only at run time may be large: parallel.
// CHECK-LABEL: func.func @dynamic
// CHECK: affine.parallel (%{{.*}}) = (0) to (symbol(%{{.*}}))
func.func @dynamic(%a: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  affine.for %i = 0 to %n {
    affine.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// A loop that carries a dependence stays sequential however large; the
// parallel loop inside it (2048 iterations) is made parallel instead.
// CHECK-LABEL: func.func @carried
// CHECK: affine.for %[[I:.*]] = 1 to 64
// CHECK-NEXT: affine.parallel (%{{.*}}) = (0) to (2048)
func.func @carried(%a: memref<64x2048xf32>) {
  affine.for %i = 1 to 64 {
    affine.for %j = 0 to 2048 {
      %x = affine.load %a[%i - 1, %j] : memref<64x2048xf32>
      affine.store %x, %a[%i, %j] : memref<64x2048xf32>
    }
  }
  return
}
