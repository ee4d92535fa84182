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
