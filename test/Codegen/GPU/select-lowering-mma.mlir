// The tensor-core (mma) decision: contractions of two f16 or bf16 operands
// into f32 sums, as GEMMs of m x n at least 32 x 32 with k at least 32
// (auto), any size (always) or none (never), on targets with a matrix
// instruction for the type (NVIDIA: WMMA for f16, mma.sync for bf16; AMD
// gfx90a/gfx942: MFMA for both, waves of 64: 256 threads a 64 x 64 tile);
// f32 contractions only with allow-tf32 and only on NVIDIA (mma.sync
// m16n8k8); mixed operands keep the FMA kernels.
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 --dlas-gpu-select-lowering | FileCheck %s
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=tensor-cores=always | FileCheck %s --check-prefix=ALWAYS
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=tensor-cores=never | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=rocm:gfx942 --dlas-gpu-select-lowering | FileCheck %s --check-prefix=ROCM
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=rocm:gfx90a --dlas-gpu-select-lowering=tensor-cores=always | FileCheck %s --check-prefix=ROCM-ALWAYS
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 "--dlas-gpu-select-lowering=allow-tf32" | FileCheck %s --check-prefix=TF32
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=rocm:gfx942 "--dlas-gpu-select-lowering=allow-tf32 tensor-cores=always" | FileCheck %s --check-prefix=ROCM-ALWAYS
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 "--dlas-gpu-select-lowering=print split=3" -o /dev/null | FileCheck %s --check-prefix=PRINT
// RUN: not dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=tensor-cores=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

#x = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#o = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>

// CHECK-LABEL: func.func @matmul_f16
// CHECK: kind = mma, threads = [128], outputs = [64, 64], key = "linalg.matmul_96x80x64"
// NEVER-LABEL: func.func @matmul_f16
// NEVER: kind = tiled
// ROCM-LABEL: func.func @matmul_f16
// ROCM: kind = mma, threads = [256], outputs = [64, 64], key = "linalg.matmul_96x80x64"
// PRINT: dlas-gpu-select-lowering: linalg.matmul_96x80x64 -> mma 128 threads, 64x64 outputs a block (cost_model)
func.func @matmul_f16(%a: tensor<96x64xf16>, %b: tensor<64x80xf16>, %c: tensor<96x80xf32>) -> tensor<96x80xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf16>, tensor<64x80xf16>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %r : tensor<96x80xf32>
}

// A strided convolution as an implicit GEMM (m: n, oh, ow; n: f; k: c, kh,
// kw), written as a generic.
// CHECK-LABEL: func.func @conv_generic_f16
// CHECK: kind = mma
func.func @conv_generic_f16(%x: tensor<2x16x17x17xf16>, %w: tensor<40x16x3x3xf16>, %o: tensor<2x40x8x8xf32>) -> tensor<2x40x8x8xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<2x16x17x17xf16>, tensor<40x16x3x3xf16>) outs(%o : tensor<2x40x8x8xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x40x8x8xf32>
  return %r : tensor<2x40x8x8xf32>
}

// Too small for the size rule (n = 10): FMA kernels, unless always.
// CHECK-LABEL: func.func @small_f16
// CHECK-NOT: kind = mma
// ALWAYS-LABEL: func.func @small_f16
// ALWAYS: kind = mma
// ROCM-ALWAYS-LABEL: func.func @small_f16
// ROCM-ALWAYS: kind = mma, threads = [256]
func.func @small_f16(%a: tensor<40x64xf16>, %b: tensor<64x10xf16>, %c: tensor<40x10xf32>) -> tensor<40x10xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<40x64xf16>, tensor<64x10xf16>) outs(%c : tensor<40x10xf32>) -> tensor<40x10xf32>
  return %r : tensor<40x10xf32>
}

// bf16: mma.sync on NVIDIA, MFMA on AMD; the same decision kind.
// CHECK-LABEL: func.func @matmul_bf16
// CHECK: kind = mma, threads = [128], outputs = [64, 64], key = "linalg.matmul_96x80x64"
// ROCM-LABEL: func.func @matmul_bf16
// ROCM: kind = mma, threads = [256], outputs = [64, 64]
func.func @matmul_bf16(%a: tensor<96x64xbf16>, %b: tensor<64x80xbf16>, %c: tensor<96x80xf32>) -> tensor<96x80xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<96x64xbf16>, tensor<64x80xbf16>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %r : tensor<96x80xf32>
}

// Not for tensor cores even with always: f32 operands, and one f16 with
// one bf16 operand (no instruction takes the pair).
// ALWAYS-LABEL: func.func @not_16bit
// ALWAYS-NOT: kind = mma
// ALWAYS: return
// ROCM-ALWAYS-LABEL: func.func @not_16bit
// ROCM-ALWAYS-NOT: kind = mma
// ROCM-ALWAYS: return
// With allow-tf32 on NVIDIA the f32 matmul takes tensor cores; the mixed
// pair still does not.
// TF32-LABEL: func.func @not_16bit
// TF32: kind = mma, threads = [128], outputs = [64, 64]
// TF32-NOT: kind = mma
// TF32: return
func.func @not_16bit(%a: tensor<96x64xf32>, %b: tensor<64x80xf32>, %c: tensor<96x80xf32>,
                     %ah: tensor<96x64xf16>, %bb: tensor<64x80xbf16>) -> (tensor<96x80xf32>, tensor<96x80xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x80xf32>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ah, %bb : tensor<96x64xf16>, tensor<64x80xbf16>) outs(%c : tensor<96x80xf32>) {
  ^bb0(%x: f16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : bf16 to f32
    %m = arith.mulf %xe, %ye : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<96x80xf32>
  return %r, %s : tensor<96x80xf32>, tensor<96x80xf32>
}

// BAD: error: dlas-gpu-select-lowering: unknown tensor-cores 'sometimes' (auto, always or never)
