// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=8 vector-registers=16" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=8 vector-registers=16 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=8 vector-registers=16 pack-constants=false" | FileCheck %s --check-prefix=RUNTIME

// A constant B (a dense layer's weights, M > m0) is packed at compile time
// into its column-tile panels over all of K, Bp[N/n0][K][n0] (zero past
// N = 50: 4 tiles of 16), instead of into a k block's buffer at every
// call; the original global goes when nothing else reads it. The kernel
// reads Bp at the absolute k.
// CHECK: memref.global "private" constant @dlas_packed : memref<4x20x16xf32> = dense_resource<dlas_packed
// CHECK-NOT: @weights
// CHECK-LABEL: func @constant_b
// CHECK: %[[BP:.*]] = memref.get_global @dlas_packed : memref<4x20x16xf32>
// CHECK-NOT: memref<4x8x16xf32>
// CHECK: vector.load %[[BP]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x20x16xf32>, vector<8xf32>
// CHECK: vector.fma
// CHECK-NOT: memref.dealloc %[[BP]]
// CHECK: return
// PRINT: remark: microkernel 4x16 {{.*}} for M=40 N=50 K=20, A packed at run time, B packed at compile time
// Without compile-time packing, a k block's buffer per call.
// RUNTIME-LABEL: func @constant_b
// RUNTIME: memref.alloc() {alignment = 64 : i64} : memref<4x8x16xf32>
memref.global "private" constant @weights : memref<20x50xf32> = dense<0.5>
func.func @constant_b(%x: memref<40x20xf32>, %y: memref<40x50xf32>) {
  %w = memref.get_global @weights : memref<20x50xf32>
  linalg.matmul {dlas.gemm_tiles = {m0 = 4, vectors = 2, kc = 8, mc = 8, pack_b = true}}
      ins(%x, %w : memref<40x20xf32>, memref<20x50xf32>) outs(%y : memref<40x50xf32>)
  return
}

// -----

// A global that something else reads too stays next to its packed copy.
// CHECK: memref.global "private" constant @dlas_packed : memref<2x12x16xf32>
// CHECK-LABEL: func @shared_weights
// CHECK: memref.get_global @weights : memref<12x24xf32>
// CHECK: memref.get_global @dlas_packed : memref<2x12x16xf32>
// CHECK: vector.fma
// CHECK: memref.copy
// PRINT: remark: microkernel 4x16 {{.*}} for M=9 N=24 K=12, A packed at run time, B packed at compile time
memref.global "private" constant @weights : memref<12x24xf32> = dense<2.0>
func.func @shared_weights(%x: memref<9x12xf32>, %y: memref<9x24xf32>, %z: memref<12x24xf32>) {
  %w = memref.get_global @weights : memref<12x24xf32>
  linalg.matmul {dlas.gemm_tiles = {m0 = 4, vectors = 2, pack_b = true}}
      ins(%x, %w : memref<9x12xf32>, memref<12x24xf32>) outs(%y : memref<9x24xf32>)
  memref.copy %w, %z : memref<12x24xf32> to memref<12x24xf32>
  return
}

// -----

// bf16 weights widen into f32 panels at compile time: the loop is the f32
// kernel's.
// CHECK: memref.global "private" constant @dlas_packed : memref<2x32x16xf32>
// CHECK-LABEL: func @bf16_b
// CHECK: memref.get_global @dlas_packed : memref<2x32x16xf32>
// CHECK-NOT: arith.extf %{{.*}} : vector<8xbf16>
// CHECK: vector.fma %{{.*}} : vector<8xf32>
memref.global "private" constant @weights : memref<32x32xbf16> = dense<1.5>
func.func @bf16_b(%x: memref<16x32xbf16>, %y: memref<16x32xf32>) {
  %w = memref.get_global @weights : memref<32x32xbf16>
  linalg.matmul {dlas.gemm_tiles = {m0 = 2, vectors = 2, kc = 16, mc = 4, pack_b = true}}
      ins(%x, %w : memref<16x32xbf16>, memref<32x32xbf16>) outs(%y : memref<16x32xf32>)
  return
}

// -----

// One row panel (M <= m0, a batch-1 linear layer) reads B in place: each
// element is used once, and a packed copy would only add its bytes.
// CHECK-LABEL: func @one_panel
// CHECK-NOT: dlas_packed
// CHECK: memref.get_global @weights : memref<64x48xf32>
// CHECK: vector.fma
// PRINT: remark: microkernel {{.*}} for M=2 N=48 K=64, A packed at run time; init
memref.global "private" constant @weights : memref<64x48xf32> = dense<0.25>
func.func @one_panel(%x: memref<2x64xf32>, %y: memref<2x48xf32>) {
  %w = memref.get_global @weights : memref<64x48xf32>
  linalg.matmul ins(%x, %w : memref<2x64xf32>, memref<64x48xf32>) outs(%y : memref<2x48xf32>)
  return
}

// -----

// A B that is not a constant is packed per k block at run time.
// CHECK-LABEL: func @runtime_b
// CHECK-NOT: dlas_packed
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x8x16xf32>
// PRINT: remark: microkernel 4x16 {{.*}} for M=40 N=50 K=20, A packed at run time; init
func.func @runtime_b(%x: memref<40x20xf32>, %w: memref<20x50xf32>, %y: memref<40x50xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 4, vectors = 2, kc = 8, mc = 8, pack_b = true}}
      ins(%x, %w : memref<40x20xf32>, memref<20x50xf32>) outs(%y : memref<40x50xf32>)
  return
}
