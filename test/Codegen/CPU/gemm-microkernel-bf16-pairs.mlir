// bf16 GEMMs on vdpbf16ps where the target has AVX512-BF16 (without AMX):
// A and B packed in k pairs of bf16 (one 32-bit lane each), two products
// per f32 lane and instruction, nothing widened; 8-lane vectors need
// AVX512VL too (every x86-64-v4 target has it). Without AVX512-BF16 the
// same ops widen bf16 into f32 FMAs (NOBF16).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=znver4" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16 vector-bits=256" --dlas-gemm-microkernel | FileCheck %s --check-prefix=YMM
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-gemm-microkernel | FileCheck %s --check-prefix=NOBF16
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3" --dlas-gemm-microkernel | FileCheck %s --check-prefix=NOBF16
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-gemm-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-gemm-microkernel="pack-b=never print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPACK

// M = 40, N = 50, K = 70 (35 pairs): A (a run-time value) is copied into
// [k blocks][panels][pairs][m0 * 2] as i16 bit patterns; B into
// [tiles][pairs][n0 * 2], its last column tile masked; one broadcast of a
// row's pair feeds vdpbf16ps against each B vector.
// CHECK-LABEL: func @bf16_matmul
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x{{[0-9]+}}x35x{{[0-9]+}}xbf16>
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: vector.bitcast %{{.*}} : vector<{{[0-9]+}}xi16> to vector<{{[0-9]+}}xbf16>
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x35x{{[0-9]+}}xbf16>
// CHECK: vector.shuffle {{.*}} : vector<16xi16>, vector<16xi16>
// CHECK: vector.store %{{.*}}, %[[BP]]{{.*}} : memref<{{.*}}xbf16>, vector<32xbf16>
// CHECK: vector.load %[[BP]]{{.*}} : memref<{{.*}}xbf16>, vector<32xbf16>
// CHECK: vector.load %[[AP]]{{.*}} : memref<{{.*}}xbf16>, vector<2xbf16>
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: vector.bitcast %{{.*}} : vector<16xi32> to vector<32xbf16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: vector.maskedstore %{{.*}} : memref<40x50xf32>, vector<16xi1>, vector<16xf32>
// CHECK: memref.dealloc %[[BP]]
// CHECK: memref.dealloc %[[AP]]
// YMM-LABEL: func @bf16_matmul
// YMM: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.256"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<16xbf16>, vector<16xbf16>) -> vector<8xf32>
// NOBF16-LABEL: func @bf16_matmul
// NOBF16-NOT: dpbf16ps
// NOBF16: vector.fma
// PRINT: remark: microkernel {{.*}}B packed, AVX512-BF16 pairs) key 'm40_n50_k70'{{.*}}A packed at run time
// A batch-1 row of A (M = 1, a linear layer's input) streams B in place:
// no packing, so no pairs; nor where B is never packed.
// PRINT: remark: microkernel {{.*}}key 'm1_n64_k256'{{.*}}A packed at run time
// PRINT-NOT: AVX512-BF16 pairs
// NOPACK-NOT: AVX512-BF16 pairs
func.func @bf16_matmul(%a: memref<40x70xbf16>, %b: memref<70x50xbf16>, %c: memref<40x50xf32>) {
  linalg.matmul ins(%a, %b : memref<40x70xbf16>, memref<70x50xbf16>) outs(%c : memref<40x50xf32>)
  return
}
func.func @one_row(%a: memref<1x256xbf16>, %b: memref<256x64xbf16>, %c: memref<1x64xf32>) {
  linalg.matmul ins(%a, %b : memref<1x256xbf16>, memref<256x64xbf16>) outs(%c : memref<1x64xf32>)
  return
}

// -----

// A constant A (a layer's weights, K = 9 odd) is packed at compile time
// into a bf16 global of k pairs, the last pair's second half zero; B's
// last pair loads its second row with no lanes.
// CHECK-LABEL: memref.global "private" constant @dlas_packed{{.*}} : memref<1x{{[0-9]+}}x5x{{[0-9]+}}xbf16> = dense_resource
// CHECK-LABEL: func @bf16_constant
// CHECK: memref.get_global @dlas_packed{{.*}} : memref<1x{{[0-9]+}}x5x{{[0-9]+}}xbf16>
// CHECK: vector.maskedload
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// PRINT: remark: microkernel {{.*}}B packed, AVX512-BF16 pairs) key 'm32_n64_k9'{{.*}}A packed at compile time
memref.global "private" constant @w : memref<32x9xbf16> = dense<1.5>
func.func @bf16_constant(%b: memref<9x64xbf16>, %c: memref<32x64xf32>) {
  %a = memref.get_global @w : memref<32x9xbf16>
  linalg.matmul ins(%a, %b : memref<32x9xbf16>, memref<9x64xbf16>) outs(%c : memref<32x64xf32>)
  return
}

// -----

// f16 and f32 GEMMs keep their kernels on a bf16 target.
// CHECK-LABEL: func @f16_matmul
// CHECK-NOT: dpbf16ps
// CHECK: vector.fma
// CHECK-LABEL: func @f32_matmul
// CHECK-NOT: dpbf16ps
// CHECK: vector.fma
func.func @f16_matmul(%a: memref<32x64xf16>, %b: memref<64x64xf16>, %c: memref<32x64xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x64xf16>) outs(%c : memref<32x64xf32>)
  return
}
func.func @f32_matmul(%a: memref<32x64xf32>, %b: memref<64x64xf32>, %c: memref<32x64xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x64xf32>) outs(%c : memref<32x64xf32>)
  return
}

// -----

// A constant B (a dense layer's weights, K = 45 odd, N = 33 with a partial
// tile) is packed at compile time into k pairs over all of K, the last
// pair's second half zero; the kernel reads it at the absolute pair and
// no k block packs B at run time.
// CHECK-LABEL: memref.global "private" constant @dlas_packed{{.*}} : memref<1x23x96xbf16> = dense_resource
// CHECK-LABEL: func @bf16_constant_b
// CHECK: %[[BP:.*]] = memref.get_global @dlas_packed{{.*}} : memref<1x23x96xbf16>
// CHECK-NOT: vector.shuffle
// CHECK: vector.load %[[BP]]{{.*}} : memref<1x23x96xbf16>, vector<32xbf16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// PRINT: remark: microkernel {{.*}}B packed, AVX512-BF16 pairs) key 'm20_n33_k45'{{.*}}B packed at compile time
memref.global "private" constant @wb : memref<45x33xbf16> = dense<0.75>
func.func @bf16_constant_b(%a: memref<20x45xbf16>, %c: memref<20x33xf32>) {
  %b = memref.get_global @wb : memref<45x33xbf16>
  linalg.matmul ins(%a, %b : memref<20x45xbf16>, memref<45x33xbf16>) outs(%c : memref<20x33xf32>)
  return
}

// -----

// A whose rows are its contiguous dim (the transposed convolution GEMM's
// activations, X[K, P]) packs its full panels from two vector loads of
// rows k and k + 1 (a power of two wide), interleaved as i16 into the m0
// pairs; an odd K's last pair (here k = 8 and a zero) and the panels a
// load would run past M go element by element.
// CHECK-LABEL: func @transposed_pairs
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x5x5x20xbf16>
// CHECK: %[[R0:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}] : memref<9x49xbf16>, vector<16xbf16>
// CHECK: %[[B0:.*]] = vector.bitcast %[[R0]] : vector<16xbf16> to vector<16xi16>
// CHECK: %[[R1:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}] : memref<9x49xbf16>, vector<16xbf16>
// CHECK: %[[B1:.*]] = vector.bitcast %[[R1]] : vector<16xbf16> to vector<16xi16>
// CHECK: %[[PAIRS:.*]] = vector.shuffle %[[B0]], %[[B1]] [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24, 9, 25] : vector<16xi16>, vector<16xi16>
// CHECK: %[[V:.*]] = vector.bitcast %[[PAIRS]] : vector<20xi16> to vector<20xbf16>
// CHECK: vector.store %[[V]], %[[AP]]
// CHECK: memref.load %arg0
// CHECK: vector.from_elements
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
memref.global "private" constant @w_pairs : memref<9x32xbf16> = dense<1.0>
func.func @transposed_pairs(%x: memref<9x49xbf16>, %c: memref<49x32xf32>) {
  %w = memref.get_global @w_pairs : memref<9x32xbf16>
  linalg.generic {indexing_maps = [affine_map<(p, f, k) -> (k, p)>, affine_map<(p, f, k) -> (k, f)>, affine_map<(p, f, k) -> (p, f)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<9x49xbf16>, memref<9x32xbf16>) outs(%c : memref<49x32xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
