// An int8 GEMM on k quads (vpdpbusd, vpmaddubsw) or a bf16 one on k pairs
// (vdpbf16ps) runs one k block where its packed B tile (kc x n0 elements)
// fits a quarter of L2: its accumulators
// never pass through memory between blocks, and B is packed (and the
// threads fork) once per call. Past that, blocks of that size. The
// widening kernel (no quads: sandybridge, without AVX2) keeps the L1 rule.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-cpu-select-lowering | FileCheck %s --check-prefix=VNNI
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni l2=131072" --dlas-cpu-select-lowering | FileCheck %s --check-prefix=SMALLL2
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-cpu-select-lowering | FileCheck %s --check-prefix=BF16
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16 l2=131072" --dlas-cpu-select-lowering | FileCheck %s --check-prefix=BF16L2
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=sandybridge --dlas-cpu-select-lowering | FileCheck %s --check-prefix=WIDEN

// VNNI-LABEL: func @int8_k2304
// VNNI: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = {{[0-9]+}}, vectors = 2, lanes = 16, kc = 2304,{{.*}}input = i8, acc = i32
// SMALLL2-LABEL: func @int8_k2304
// SMALLL2: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = {{[0-9]+}}, vectors = 2, lanes = 16, kc = 1024,{{.*}}input = i8, acc = i32
// WIDEN-LABEL: func @int8_k2304

// WIDEN: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = {{[0-9]+}}, vectors = 2, lanes = 8, kc = 1024,{{.*}}input = i8, acc = i32
func.func @int8_k2304(%a: tensor<256x2304xi8>, %b: tensor<2304x196xi8>) -> tensor<256x196xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<256x196xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<256x196xi32>) -> tensor<256x196xi32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x2304xi8>, tensor<2304x196xi8>) outs(%init : tensor<256x196xi32>) -> tensor<256x196xi32>
  return %mm : tensor<256x196xi32>
}

// -----

// K not a multiple of 4: the block is all of K (the last quad padded).
// VNNI-LABEL: func @int8_k_tail
// VNNI: kc = 150,
func.func @int8_k_tail(%a: tensor<64x150xi8>, %b: tensor<150x128xi8>) -> tensor<64x128xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<64x128xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<64x128xi32>) -> tensor<64x128xi32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x150xi8>, tensor<150x128xi8>) outs(%init : tensor<64x128xi32>) -> tensor<64x128xi32>
  return %mm : tensor<64x128xi32>
}

// -----

// bf16 pairs: B's tile is 2 bytes an element (128 KiB of L2: kc = 512).
// BF16-LABEL: func @bf16_k2304
// BF16: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = {{[0-9]+}}, vectors = 2, lanes = 16, kc = 2304,{{.*}}input = bf16, acc = f32
// BF16L2-LABEL: func @bf16_k2304
// BF16L2: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = {{[0-9]+}}, vectors = 2, lanes = 16, kc = 512,{{.*}}input = bf16, acc = f32
func.func @bf16_k2304(%a: tensor<256x2304xbf16>, %b: tensor<2304x196xbf16>) -> tensor<256x196xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x196xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x196xf32>) -> tensor<256x196xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x2304xbf16>, tensor<2304x196xbf16>) outs(%init : tensor<256x196xf32>) -> tensor<256x196xf32>
  return %mm : tensor<256x196xf32>
}
