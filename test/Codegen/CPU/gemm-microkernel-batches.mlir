// Batched GEMMs whose B is packed (16 vector registers: x86-64-v3): from 16
// batches (Winograd's 16 or 36 positions) the threads take whole batches in
// one parallel region, each chunk packing B into a buffer of its own, where
// fewer batches keep a shared packing and a tile split per batch (two
// regions per batch and k block).
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=8 vector-registers=16" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=8 vector-registers=16 parallel=false" | FileCheck %s --check-prefix=SERIAL

#a = affine_map<(t, n, f, p, c) -> (t, f, c)>
#b = affine_map<(t, n, f, p, c) -> (t, n, c, p)>
#c = affine_map<(t, n, f, p, c) -> (t, n, f, p)>

// Winograd F(4x4)'s GEMM: 36 positions of 32 x 49 x 16.
// CHECK-LABEL: func @positions
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK:   %[[OWN:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x16x16xf32>
// CHECK:   scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK:     affine.delinearize_index %[[T]] into (36, 1)
// CHECK-NOT: scf.parallel
// CHECK:     vector.store %{{.*}}, %[[OWN]]
// CHECK-NOT: scf.parallel
// CHECK:     vector.fma
// CHECK-NOT: scf.parallel
// CHECK:   memref.dealloc %[[OWN]]
// CHECK: return
// SERIAL-LABEL: func @positions
// SERIAL-NOT: scf.parallel
// SERIAL: vector.fma
func.func @positions(%u: memref<36x32x16xf32>, %v: memref<36x1x16x49xf32>, %m: memref<36x1x32x49xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%u, %v : memref<36x32x16xf32>, memref<36x1x16x49xf32>) outs(%m : memref<36x1x32x49xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(t, n, f, p, c) -> (t, f, c)>
#b = affine_map<(t, n, f, p, c) -> (t, n, c, p)>
#c = affine_map<(t, n, f, p, c) -> (t, n, f, p)>

// 8 batches: the batch loop outside, per batch the shared packing (one
// region over the tiles) and the tiles (another).
// CHECK-LABEL: func @few_batches
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x16x16xf32>
// CHECK: scf.for
// CHECK:   scf.parallel
// CHECK:     vector.store
// CHECK:   scf.parallel
// CHECK:     vector.fma
func.func @few_batches(%u: memref<8x32x16xf32>, %v: memref<8x1x16x49xf32>, %m: memref<8x1x32x49xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%u, %v : memref<8x32x16xf32>, memref<8x1x16x49xf32>) outs(%m : memref<8x1x32x49xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
