// bf16 and int8 GEMMs on AMX tiles where the target has them (amx-tile
// with amx-bf16 / amx-int8, 16-lane vectors): A in tile-row panels, B in k
// pairs (bf16) or biased quads (i8), one tile multiply per C tile and 64
// bytes of k; the same ops without AMX take the vector kernels (NOAMX).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni,+avx512bf16,+amx-tile,+amx-bf16,+amx-int8" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids features=-amx-tile" --dlas-gemm-microkernel | FileCheck %s --check-prefix=NOAMX
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids vector-bits=256" --dlas-gemm-microkernel | FileCheck %s --check-prefix=NOAMX
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids" --dlas-gemm-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// Without threads everything runs in slot 0 (SERIAL).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids" --dlas-gemm-microkernel="parallel=false" | FileCheck %s --check-prefix=SERIAL

// M = 40, N = 50, K = 70: two row panels (32 + 8 rows), two column tiles
// (32 + 18 columns), k padded to 96 (three steps of 32). A (a run-time
// value) is copied into [k blocks][panels][steps][32][32], each 16 x 32
// tile of a step in one piece; B into k pairs, rows past K and columns
// past N zero.
// CHECK-LABEL: func @bf16_matmul
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x32x32xbf16>
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x48x64xbf16>
// Slots of packed B and of C tiles, one per chunk of parallel work
// (numbered by its first tile); each chunk packs the tile it multiplies
// next.
// CHECK: %[[CT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// CHECK: scf.parallel
// CHECK: vector.maskedload %{{.*}} : memref<70x50xbf16>, vector<16xi1>, vector<16xbf16> into vector<16xbf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, {{.*}}] : vector<16xi16>, vector<16xi16>
// CHECK: vector.store %{{.*}}, %[[BP]]{{.*}} : memref<2x48x64xbf16>, vector<32xbf16>
// The full panel: 2 x 2 C tiles through this thread's block, A and B tile loads, one tdpbf16ps per C tile and
// step.
// CHECK: vector.store %{{.*}}, %[[CT]]
// CHECK-COUNT-4: amx.tile_load %[[CT]]
// CHECK: scf.for {{.*}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-COUNT-2: amx.tile_load %[[AP]]{{.*}} : memref<1x2x3x32x32xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-2: amx.tile_load %[[BP]]{{.*}} : memref<2x48x64xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-4: amx.tile_mulf
// CHECK-COUNT-4: amx.tile_store %[[CT]]
// The tail panel (8 rows) uses one row of C tiles.
// CHECK: scf.for {{.*}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK: memref.dealloc %[[BP]]
// CHECK: memref.dealloc %[[CT]]
// SERIAL-LABEL: func @bf16_matmul
// SERIAL-NOT: scf.parallel
// SERIAL: memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// SERIAL: amx.tile_mulf
// NOAMX-LABEL: func @bf16_matmul
// NOAMX-NOT: amx.
// NOAMX: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps
// PRINT: remark: microkernel 32x32 (m0=32, vectors=2, kc=96{{.*}}, B packed, AMX) key 'm40_n50_k70'
func.func @bf16_matmul(%a: memref<40x70xbf16>, %b: memref<70x50xbf16>, %c: memref<40x50xf32>) {
  linalg.matmul ins(%a, %b : memref<40x70xbf16>, memref<70x50xbf16>) outs(%c : memref<40x50xf32>)
  return
}

// -----

// A constant A is packed at compile time into a bf16 global.
// CHECK-LABEL: memref.global "private" constant @dlas_packed{{.*}} : memref<1x1x2x16x32xbf16> = dense_resource
// CHECK-LABEL: func @bf16_constant
// CHECK: memref.get_global @dlas_packed{{.*}} : memref<1x1x2x16x32xbf16>
// CHECK: amx.tile_mulf
// PRINT: remark: microkernel 16x16 (m0=16, vectors=1, kc=64{{.*}}, B packed, AMX) key 'm16_n16_k64'{{.*}}A packed at compile time
memref.global "private" constant @w : memref<16x64xbf16> = dense<1.5>
func.func @bf16_constant(%b: memref<64x16xbf16>, %c: memref<16x16xf32>) {
  %a = memref.get_global @w : memref<16x64xbf16>
  linalg.matmul ins(%a, %b : memref<16x64xbf16>, memref<64x16xbf16>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// int8 (K = 130: three steps of 64): B in the biased quads of the VNNI kernel, A in tiles with its
// row sums, the first k block starting from -128 * sum_k A; tdpbsud (s8 A,
// u8 B).
// CHECK-LABEL: func @i8_matmul
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x3x32x64xi8>
// CHECK: %[[SUMS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32xi32>
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x48x128xi8>
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<64xi8>
// CHECK: memref.load %[[SUMS]]
// CHECK: arith.subi %{{.*}} : vector<16xi32>
// CHECK: scf.for {{.*}} -> (!amx.tile<16x16xi32>, !amx.tile<16x16xi32>, !amx.tile<16x16xi32>, !amx.tile<16x16xi32>)
// CHECK: amx.tile_load %[[AP]]{{.*}} into !amx.tile<16x64xi8>
// CHECK: amx.tile_load %[[BP]]{{.*}} into !amx.tile<16x64xi8>
// CHECK: amx.tile_muli %{{.*}}, %{{.*}} zext, %{{.*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// NOAMX-LABEL: func @i8_matmul
// NOAMX-NOT: amx.
// NOAMX: vpdpbusd
// PRINT: remark: microkernel 32x32 (m0=32, vectors=2, kc=192{{.*}}, B packed, AMX) key 'm32_n64_k130'
func.func @i8_matmul(%a: memref<32x130xi8>, %b: memref<130x64xi8>, %c: memref<32x64xi32>) {
  linalg.matmul ins(%a, %b : memref<32x130xi8>, memref<130x64xi8>) outs(%c : memref<32x64xi32>)
  return
}

// -----

// Fewer than two k steps (here 63 < 64 bf16; 127 < 128 i8) or fewer than 8
// rows of A: the vector kernels (K would be padded to a whole step), bf16
// on vdpbf16ps (every target here has AVX512-BF16).
// CHECK-LABEL: func @short_k
// CHECK-NOT: amx.
// CHECK: dpbf16ps
// CHECK-LABEL: func @short_k_i8
// CHECK-NOT: amx.
// CHECK: vpdpbusd
// CHECK-LABEL: func @one_row
// CHECK-NOT: amx.
// CHECK: return
func.func @short_k(%a: memref<32x63xbf16>, %b: memref<63x64xbf16>, %c: memref<32x64xf32>) {
  linalg.matmul ins(%a, %b : memref<32x63xbf16>, memref<63x64xbf16>) outs(%c : memref<32x64xf32>)
  return
}
func.func @short_k_i8(%a: memref<32x127xi8>, %b: memref<127x64xi8>, %c: memref<32x64xi32>) {
  linalg.matmul ins(%a, %b : memref<32x127xi8>, memref<127x64xi8>) outs(%c : memref<32x64xi32>)
  return
}
func.func @one_row(%a: memref<1x256xbf16>, %b: memref<256x64xbf16>, %c: memref<1x64xf32>) {
  linalg.matmul ins(%a, %b : memref<1x256xbf16>, memref<256x64xbf16>) outs(%c : memref<1x64xf32>)
  return
}

// -----

// f32 and f16 have no AMX kernel here: the vector kernel.
// CHECK-LABEL: func @f32_matmul
// CHECK-NOT: amx.
// CHECK: vector.fma
func.func @f32_matmul(%a: memref<32x64xf32>, %b: memref<64x64xf32>, %c: memref<32x64xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x64xf32>) outs(%c : memref<32x64xf32>)
  return
}

// -----

// A folded init with one k block: the C tiles start from zero (no
// accumulators through memory on the way in) and the init is added to
// their sums before the epilogue.
// CHECK-LABEL: func @bf16_fill_init
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel
// CHECK-COUNT-4: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK: scf.for
// CHECK-COUNT-4: amx.tile_mulf
// CHECK: amx.tile_store
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// PRINT: remark: microkernel 32x32 (m0=32, vectors=2, kc=64{{.*}}, B packed, AMX) key 'm32_n64_k64'{{.*}}init linalg.fill
func.func @bf16_fill_init(%a: memref<32x64xbf16>, %b: memref<64x64xbf16>, %c: memref<32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x64xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x64xbf16>) outs(%c : memref<32x64xf32>)
  return
}

// -----

// Two row blocks (mc = 32 of M = 64): B's column tiles are packed once per
// k block, each into the slot of its number, before the row blocks (not
// again in each of them); the tile multiplies read the tile's own slot.
// SERIAL-LABEL: func @bf16_row_blocks
// SERIAL: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x64x64xbf16>
// SERIAL: scf.for %[[KC:.*]] = %{{.*}} to %{{.*}} step
// SERIAL-NEXT: arith.constant 128
// SERIAL: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// SERIAL: vector.store %{{.*}}, %[[BP]][%[[T]], %{{.*}}, %{{.*}}] : memref<2x64x64xbf16>, vector<32xbf16>
// SERIAL: amx.tile_load %[[BP]][%[[TILE:arg[0-9]+]], %{{.*}}, %{{.*}}] : memref<2x64x64xbf16> into !amx.tile<16x32xbf16>
// SERIAL-NOT: vector.store %{{.*}}, %[[BP]]
// SERIAL: return
// PRINT: remark: microkernel 32x32 (m0=32, vectors=2, kc=128, mc=32, B packed, AMX, overridden) key 'm64_n40_k128'
func.func @bf16_row_blocks(%a: memref<64x128xbf16>, %b: memref<128x40xbf16>, %c: memref<64x40xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 32, vectors = 2, mc = 32}} ins(%a, %b : memref<64x128xbf16>, memref<128x40xbf16>) outs(%c : memref<64x40xf32>)
  return
}
