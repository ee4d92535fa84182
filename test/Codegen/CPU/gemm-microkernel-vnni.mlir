// int8 GEMMs on vpdpbusd where the target has it (AVX512-VNNI; AVX-VNNI at
// 8 lanes): A and B packed in k quads, B biased to u8, the row sums of A
// taking the bias back out; elsewhere the same op widens i8 into i32
// multiplies (NOVNNI).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3 features=+avxvnni" --dlas-gemm-microkernel | FileCheck %s --check-prefix=AVX2
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-gemm-microkernel | FileCheck %s --check-prefix=NOVNNI
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-gemm-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT

// K = 32: 8 quads per row. A: [k blocks][panels][quads][m0 * 4] bytes;
// row sums of A, one i32 per (padded) row; B: [tiles][quads][n0 * 4].
// CHECK-LABEL: func @i8_matmul
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x{{[0-9]+}}x8x{{[0-9]+}}xi8>
// CHECK: %[[SUMS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}xi32>
// CHECK: vector.from_elements {{.*}} : vector<4xi8>
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x8x{{[0-9]+}}xi8>
// Four rows of B interleaved byte-wise into 32-bit lanes, then + 128.
// CHECK: vector.shuffle {{.*}} : vector<16xi8>, vector<16xi8>
// CHECK: vector.shuffle {{.*}} : vector<16xi16>, vector<16xi16>
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<64xi8>
// The first k block starts from acc - 128 * rowsum (a shift by 7).
// CHECK: memref.load %[[SUMS]]
// CHECK: arith.shli %{{.*}}, %{{.*}} : i32
// CHECK: arith.subi %{{.*}} : vector<16xi32>
// CHECK: vector.load %[[BP]]{{.*}} : memref<{{.*}}xi8>, vector<64xi8>
// CHECK: vector.load %[[AP]]{{.*}} : memref<{{.*}}xi8>, vector<4xi8>
// CHECK: vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: memref.dealloc %[[BP]]
// CHECK-DAG: memref.dealloc %[[AP]]
// CHECK-DAG: memref.dealloc %[[SUMS]]
// AVX2-LABEL: func @i8_matmul
// AVX2: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// NOVNNI-LABEL: func @i8_matmul
// NOVNNI-NOT: vpdpbusd
// NOVNNI: arith.muli %{{.*}} : vector<16xi32>
// PRINT: remark: microkernel {{.*}}B packed, VNNI) key 'm16_n64_k32'
func.func @i8_matmul(%a: memref<16x32xi8>, %b: memref<32x64xi8>, %c: memref<16x64xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x64xi8>) outs(%c : memref<16x64xi32>)
  return
}

// -----

// B packed where it is used: the threads take chunks of column tiles, and
// each packs a tile into its chunk's slot of Bp (the chunk's first tile)
// just before every row panel multiplies it there (a tail panel too where M
// leaves one); no pass packs all of B first.
// CHECK-LABEL: func @i8_pack_where_used
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<7x16x128xi8>
// CHECK-NOT: vector.store {{.*}}%[[BP]]
// CHECK: scf.parallel (%[[CHUNK:.*]]) =
// CHECK: %[[SLOT:.*]] = arith.muli %[[CHUNK]]
// CHECK: scf.for %[[TILE:.*]] = %[[SLOT]] to
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<64xi8>
// CHECK: vector.store %{{.*}}, %[[BP]][%[[SLOT]], %{{.*}}, %{{.*}}] : memref<7x16x128xi8>, vector<64xi8>
// CHECK: vector.load %[[BP]][%[[SLOT]], %{{.*}}, %{{.*}}] : memref<7x16x128xi8>, vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: scf.reduce
// CHECK: memref.dealloc %[[BP]]
func.func @i8_pack_where_used(%a: memref<40x64xi8>, %b: memref<64x200xi8>, %c: memref<40x200xi32>) {
  linalg.matmul ins(%a, %b : memref<40x64xi8>, memref<64x200xi8>) outs(%c : memref<40x200xi32>)
  return
}

// -----

// K = 30 (the last quad half empty) and N = 50 (a column tail): B's rows
// load masked, rows past K with no lanes; A's past K select zero.
// CHECK-LABEL: func @i8_tails
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x{{[0-9]+}}x8x{{[0-9]+}}xi8>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i8
// CHECK: vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.maskedload %{{.*}} : memref<30x50xi8>, vector<16xi1>, vector<16xi8> into vector<16xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: vector.maskedstore %{{.*}} : memref<16x50xi32>, vector<16xi1>, vector<16xi32>
// PRINT: remark: microkernel {{.*}}B packed, VNNI) key 'm16_n50_k30'
func.func @i8_tails(%a: memref<16x30xi8>, %b: memref<30x50xi8>, %c: memref<16x50xi32>) {
  linalg.matmul ins(%a, %b : memref<16x30xi8>, memref<30x50xi8>) outs(%c : memref<16x50xi32>)
  return
}

// -----

// The transposed convolution GEMM Y^T[P, F] = X[K, P]^T x W^T[K, F]: A's
// rows (the positions) are its contiguous dim, so each panel's quads
// gather from four vector loads of a power-of-two rows (the first m0
// kept), with the panel's row sums in one vector; panels whose load
// would run past M (and the tail) go row by row. The constant B (the
// weights) is packed at compile time in quads, each byte + 128 (K = 6:
// rows past K hold 128), and read at the absolute quad.
// CHECK: memref.global "private" constant @dlas_packed : memref<1x2x64xi8> = dense_resource<dlas_packed
// CHECK-LABEL: func @transposed_conv_gemm
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x{{[0-9]+}}x2x{{[0-9]+}}xi8>
// CHECK: %[[SUMS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}xi32>
// CHECK-NOT: scf.parallel
// CHECK: vector.load %{{.*}} : memref<6x49xi8>, vector<16xi8>
// CHECK: arith.extsi %{{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: vector.shuffle {{.*}} : vector<16xi8>, vector<16xi8>
// CHECK: vector.shuffle {{.*}} : vector<16xi16>, vector<16xi16>
// CHECK: vector.extract_strided_slice
// CHECK: vector.store %{{.*}}, %[[AP]]
// CHECK: vector.store %{{.*}}, %[[SUMS]]
// CHECK: vector.from_elements {{.*}} : vector<4xi8>
// CHECK: %[[BP:.*]] = memref.get_global @dlas_packed : memref<1x2x64xi8>
// CHECK-NOT: xori {{.*}} vector<64xi8>
// CHECK: vector.load %[[BP]]{{.*}} : memref<1x2x64xi8>, vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// PRINT: remark: microkernel {{.*}}B packed, VNNI) key 'm49_n16_k6' for M=49 N=16 K=6, A packed at run time, B packed at compile time
memref.global "private" constant @weights : memref<6x16xi8> = dense<3>
func.func @transposed_conv_gemm(%x: memref<6x49xi8>, %c: memref<49x16xi32>) {
  %w = memref.get_global @weights : memref<6x16xi8>
  linalg.generic {indexing_maps = [affine_map<(p, f, k) -> (k, p)>, affine_map<(p, f, k) -> (k, f)>, affine_map<(p, f, k) -> (p, f)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<6x49xi8>, memref<6x16xi8>) outs(%c : memref<49x16xi32>) {
  ^bb0(%in: i8, %in_0: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    %1 = arith.extsi %in_0 : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %out, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// A of 64 KiB or more (49 x 1440 bytes) packs in parallel: the threads
// split its vector panels.
// CHECK-LABEL: func @transposed_conv_gemm_parallel_a
// CHECK: %[[AP2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x{{[0-9]+}}x360x{{[0-9]+}}xi8>
// CHECK: scf.parallel
// CHECK: vector.load %{{.*}} : memref<1440x49xi8>, vector<16xi8>
// CHECK: vector.store %{{.*}}, %[[AP2]]
// CHECK: scf.reduce
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
memref.global "private" constant @weights_wide : memref<1440x16xi8> = dense<3>
func.func @transposed_conv_gemm_parallel_a(%x: memref<1440x49xi8>, %c: memref<49x16xi32>) {
  %w = memref.get_global @weights_wide : memref<1440x16xi8>
  linalg.generic {indexing_maps = [affine_map<(p, f, k) -> (k, p)>, affine_map<(p, f, k) -> (k, f)>, affine_map<(p, f, k) -> (p, f)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<1440x49xi8>, memref<1440x16xi8>) outs(%c : memref<49x16xi32>) {
  ^bb0(%in: i8, %in_0: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    %1 = arith.extsi %in_0 : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %out, %2 : i32
    linalg.yield %3 : i32
  }
  return
}
