// int8 GEMMs on vpmaddubsw where the target has no int8 dot product but
// multiplies bytes in pairs (AVX2; AVX512BW at 16 lanes): the same k-quad
// packing as vpdpbusd (B biased to u8, A's row sums taking the bias back
// out), and per quad vpmaddubsw (u8 x s8 in pairs into i16), vpmaddwd by
// ones (pairs of those into i32) and an add. vpmaddubsw saturates beyond
// 2 * 255 * 64, so only a constant A whose bytes all lie within +-64 (the
// 7-bit weights dlas-mixed-precision gives such targets) takes it; any
// other A widens i8 into i32 multiplies.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-gemm-microkernel | FileCheck %s --check-prefix=V4
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3" --dlas-gemm-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3" --dlas-gemm-microkernel="parallel" | FileCheck %s --check-prefix=PAR

// A constant within +-64 (63 and -64 at the ends): packed in quads with
// its row sums at compile time.
// CHECK-LABEL: func @pairs
// CHECK-DAG: memref.get_global @dlas_packed{{.*}} : memref<1x{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}xi8>
// CHECK-DAG: memref.get_global @dlas_row_sums{{.*}} : memref<{{[0-9]+}}xi32>
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<32xi8>
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"(%{{.*}}, %{{.*}}) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// CHECK: %[[S:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%[[P]], %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: arith.addi %{{.*}}, %[[S]] : vector<8xi32>
// CHECK-NOT: vpdpbusd
// V4-LABEL: func @pairs
// V4: llvm.call_intrinsic "llvm.x86.avx512.pmaddubs.w.512"(%{{.*}}, %{{.*}}) : (vector<64xi8>, vector<64xi8>) -> vector<32xi16>
// V4: llvm.call_intrinsic "llvm.x86.avx512.pmaddw.d.512"(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// PRINT: remark: microkernel {{.*}}B packed, int8 pairs) key 'm16_n64_k32' for M=16 N=64 K=32, A packed at compile time
memref.global "private" constant @weights : memref<16x32xi8> = dense<[[63, -64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1]]>
func.func @pairs(%b: memref<32x64xi8>, %c: memref<16x64xi32>) {
  %a = memref.get_global @weights : memref<16x32xi8>
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x64xi8>) outs(%c : memref<16x64xi32>)
  return
}

// -----

// One byte of A at 65: vpmaddubsw could saturate, so the GEMM widens.
// CHECK-LABEL: func @beyond_pairs
// CHECK-NOT: pmadd
// CHECK: arith.muli %{{.*}} : vector<8xi32>
// PRINT: remark: microkernel {{.*}}B packed) key 'm2_n64_k4'
memref.global "private" constant @wide_weights : memref<2x4xi8> = dense<[[65, 1, 2, 3], [4, 5, 6, 7]]>
func.func @beyond_pairs(%b: memref<4x64xi8>, %c: memref<2x64xi32>) {
  %a = memref.get_global @wide_weights : memref<2x4xi8>
  linalg.matmul ins(%a, %b : memref<2x4xi8>, memref<4x64xi8>) outs(%c : memref<2x64xi32>)
  return
}

// -----

// A not a constant: its range is unknown, the GEMM widens.
// CHECK-LABEL: func @argument
// CHECK-NOT: pmadd
// CHECK: arith.muli %{{.*}} : vector<8xi32>
func.func @argument(%a: memref<16x32xi8>, %b: memref<32x64xi8>, %c: memref<16x64xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x64xi8>) outs(%c : memref<16x64xi32>)
  return
}

// -----

// N = 36 in 16-wide tiles: two full tiles and a partial one of 4 columns.
// Masked byte loads are scalarized on AVX2, so B's packing takes them in
// the partial tile only; the partial tile computes one vector per row (not
// two) and stores it masked.
// CHECK-LABEL: func @partial_tile
// CHECK: scf.if
// CHECK-COUNT-8: vector.load %{{.*}} : memref<8x36xi8>, vector<8xi8>
// CHECK-NOT: vector.maskedload
// CHECK: } else {
// CHECK-COUNT-8: vector.maskedload %{{.*}} : memref<8x36xi8>, vector<8xi1>, vector<8xi8> into vector<8xi8>
// CHECK: scf.if
// CHECK-COUNT-12: llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"
// CHECK-COUNT-12: vector.store %{{.*}} : memref<6x36xi32>, vector<8xi32>
// CHECK: } else {
// CHECK-COUNT-6: llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"
// CHECK-NOT: pmadd.ub.sw
// CHECK-COUNT-6: vector.maskedstore %{{.*}} : memref<6x36xi32>, vector<8xi1>, vector<8xi32>
// V4-LABEL: func @partial_tile
// PRINT: remark: microkernel 6x16 (m0=6, vectors=2, {{.*}}int8 pairs, overridden) key 'm6_n36_k8'
memref.global "private" constant @w36 : memref<6x8xi8> = dense<[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [-64, 63, 0, 0, 0, 0, 0, -1]]>
func.func @partial_tile(%b: memref<8x36xi8>, %c: memref<6x36xi32>) {
  %a = memref.get_global @w36 : memref<6x8xi8>
  linalg.matmul {dlas.gemm_tiles = {m0 = 6, vectors = 2}} ins(%a, %b : memref<6x8xi8>, memref<8x36xi8>) outs(%c : memref<6x36xi32>)
  return
}

// -----

// Threads with B packed and few column tiles against the row panels (N =
// 20: 3 tiles of 8; 8 panels of 12 rows): per k block the tiles are packed
// in parallel, then the threads split the row panels rather than the tiles.
// PAR-LABEL: func @few_tiles
// PAR: scf.for
// PAR: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c3{{.*}}) step
// PAR: arith.xori
// PAR: func.call @omp_get_max_threads()
// PAR: scf.parallel
// PAR: scf.for %[[PANEL:.*]] = %{{.*}} to %{{.*}} step %c2730
// PAR: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step
// PAR: llvm.call_intrinsic "llvm.x86.avx2.pmadd.ub.sw"
memref.global "private" constant @w96 : memref<96x8xi8> = dense<[[-64, -61, -58, -55, -52, -49, -46, -43], [-57, -54, -51, -48, -45, -42, -39, -36], [-50, -47, -44, -41, -38, -35, -32, -29], [-43, -40, -37, -34, -31, -28, -25, -22], [-36, -33, -30, -27, -24, -21, -18, -15], [-29, -26, -23, -20, -17, -14, -11, -8], [-22, -19, -16, -13, -10, -7, -4, -1], [-15, -12, -9, -6, -3, 0, 3, 6], [-8, -5, -2, 1, 4, 7, 10, 13], [-1, 2, 5, 8, 11, 14, 17, 20], [6, 9, 12, 15, 18, 21, 24, 27], [13, 16, 19, 22, 25, 28, 31, 34], [20, 23, 26, 29, 32, 35, 38, 41], [27, 30, 33, 36, 39, 42, 45, 48], [34, 37, 40, 43, 46, 49, 52, 55], [41, 44, 47, 50, 53, 56, 59, 62], [48, 51, 54, 57, 60, 63, -63, -60], [55, 58, 61, 64, -62, -59, -56, -53], [62, -64, -61, -58, -55, -52, -49, -46], [-60, -57, -54, -51, -48, -45, -42, -39], [-53, -50, -47, -44, -41, -38, -35, -32], [-46, -43, -40, -37, -34, -31, -28, -25], [-39, -36, -33, -30, -27, -24, -21, -18], [-32, -29, -26, -23, -20, -17, -14, -11], [-25, -22, -19, -16, -13, -10, -7, -4], [-18, -15, -12, -9, -6, -3, 0, 3], [-11, -8, -5, -2, 1, 4, 7, 10], [-4, -1, 2, 5, 8, 11, 14, 17], [3, 6, 9, 12, 15, 18, 21, 24], [10, 13, 16, 19, 22, 25, 28, 31], [17, 20, 23, 26, 29, 32, 35, 38], [24, 27, 30, 33, 36, 39, 42, 45], [31, 34, 37, 40, 43, 46, 49, 52], [38, 41, 44, 47, 50, 53, 56, 59], [45, 48, 51, 54, 57, 60, 63, -63], [52, 55, 58, 61, 64, -62, -59, -56], [59, 62, -64, -61, -58, -55, -52, -49], [-63, -60, -57, -54, -51, -48, -45, -42], [-56, -53, -50, -47, -44, -41, -38, -35], [-49, -46, -43, -40, -37, -34, -31, -28], [-42, -39, -36, -33, -30, -27, -24, -21], [-35, -32, -29, -26, -23, -20, -17, -14], [-28, -25, -22, -19, -16, -13, -10, -7], [-21, -18, -15, -12, -9, -6, -3, 0], [-14, -11, -8, -5, -2, 1, 4, 7], [-7, -4, -1, 2, 5, 8, 11, 14], [0, 3, 6, 9, 12, 15, 18, 21], [7, 10, 13, 16, 19, 22, 25, 28], [14, 17, 20, 23, 26, 29, 32, 35], [21, 24, 27, 30, 33, 36, 39, 42], [28, 31, 34, 37, 40, 43, 46, 49], [35, 38, 41, 44, 47, 50, 53, 56], [42, 45, 48, 51, 54, 57, 60, 63], [49, 52, 55, 58, 61, 64, -62, -59], [56, 59, 62, -64, -61, -58, -55, -52], [63, -63, -60, -57, -54, -51, -48, -45], [-59, -56, -53, -50, -47, -44, -41, -38], [-52, -49, -46, -43, -40, -37, -34, -31], [-45, -42, -39, -36, -33, -30, -27, -24], [-38, -35, -32, -29, -26, -23, -20, -17], [-31, -28, -25, -22, -19, -16, -13, -10], [-24, -21, -18, -15, -12, -9, -6, -3], [-17, -14, -11, -8, -5, -2, 1, 4], [-10, -7, -4, -1, 2, 5, 8, 11], [-3, 0, 3, 6, 9, 12, 15, 18], [4, 7, 10, 13, 16, 19, 22, 25], [11, 14, 17, 20, 23, 26, 29, 32], [18, 21, 24, 27, 30, 33, 36, 39], [25, 28, 31, 34, 37, 40, 43, 46], [32, 35, 38, 41, 44, 47, 50, 53], [39, 42, 45, 48, 51, 54, 57, 60], [46, 49, 52, 55, 58, 61, 64, -62], [53, 56, 59, 62, -64, -61, -58, -55], [60, 63, -63, -60, -57, -54, -51, -48], [-62, -59, -56, -53, -50, -47, -44, -41], [-55, -52, -49, -46, -43, -40, -37, -34], [-48, -45, -42, -39, -36, -33, -30, -27], [-41, -38, -35, -32, -29, -26, -23, -20], [-34, -31, -28, -25, -22, -19, -16, -13], [-27, -24, -21, -18, -15, -12, -9, -6], [-20, -17, -14, -11, -8, -5, -2, 1], [-13, -10, -7, -4, -1, 2, 5, 8], [-6, -3, 0, 3, 6, 9, 12, 15], [1, 4, 7, 10, 13, 16, 19, 22], [8, 11, 14, 17, 20, 23, 26, 29], [15, 18, 21, 24, 27, 30, 33, 36], [22, 25, 28, 31, 34, 37, 40, 43], [29, 32, 35, 38, 41, 44, 47, 50], [36, 39, 42, 45, 48, 51, 54, 57], [43, 46, 49, 52, 55, 58, 61, 64], [50, 53, 56, 59, 62, -64, -61, -58], [57, 60, 63, -63, -60, -57, -54, -51], [64, -62, -59, -56, -53, -50, -47, -44], [-58, -55, -52, -49, -46, -43, -40, -37], [-51, -48, -45, -42, -39, -36, -33, -30], [-44, -41, -38, -35, -32, -29, -26, -23]]>
func.func @few_tiles(%b: memref<8x20xi8>, %c: memref<96x20xi32>) {
  %a = memref.get_global @w96 : memref<96x8xi8>
  linalg.matmul ins(%a, %b : memref<96x8xi8>, memref<8x20xi8>) outs(%c : memref<96x20xi32>)
  return
}
