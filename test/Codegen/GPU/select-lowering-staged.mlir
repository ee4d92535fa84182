// The staged decision: a contraction into f32 sums that takes no mma
// kernel (f32 operands without allow-tf32; f16/bf16 on a chip without a
// matrix instruction for them) becomes a staged kernel (64 x 64 outputs a
// block, 2 x 2 warps) when its GEMM is at least 32 x 32 x 32 and its
// blocks cover every processor (auto), whatever its size (always), or
// never. The 512 x 1024 matmul has 8 x 16 = 128 blocks: enough for
// sm_80's 108 processors, not for sm_90's 132.
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 --dlas-gpu-select-lowering | FileCheck %s --check-prefix=SM80
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering | FileCheck %s --check-prefix=SM90
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=staged=always | FileCheck %s --check-prefix=ALWAYS
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 --dlas-gpu-select-lowering=staged=never | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 --dlas-gpu-select-lowering=allow-tf32 | FileCheck %s --check-prefix=TF32
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=rocm:gfx90a --dlas-gpu-select-lowering=staged=always | FileCheck %s --check-prefix=ROCM
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 "--dlas-gpu-select-lowering=print split=3" -o /dev/null | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 "--dlas-gpu-select-lowering=threads=64" | FileCheck %s --check-prefix=THREADS
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 "--dlas-gpu-select-lowering=tensor-cores=never staged=always" | FileCheck %s --check-prefix=NOTC
// RUN: not dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_80 --dlas-gpu-select-lowering=staged=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// SM80-LABEL: func.func @matmul_f32
// SM80: kind = staged, threads = [128], outputs = [64, 64], key = "linalg.matmul_512x1024x64"
// SM90-LABEL: func.func @matmul_f32
// SM90: kind = tiled
// ALWAYS-LABEL: func.func @matmul_f32
// ALWAYS: kind = staged, threads = [128], outputs = [64, 64]
// NEVER-LABEL: func.func @matmul_f32
// NEVER: kind = tiled
// TF32-LABEL: func.func @matmul_f32
// TF32: kind = mma, threads = [128], outputs = [64, 64]
// ROCM-LABEL: func.func @matmul_f32
// ROCM: kind = staged, threads = [256], outputs = [64, 64]
// The staged kernel's reduction is not split (split=3 leaves it whole).
// PRINT: dlas-gpu-select-lowering: linalg.matmul_512x1024x64 -> staged 128 threads, 64x64 outputs a block (cost_model)
// THREADS-LABEL: func.func @matmul_f32
// THREADS: kind = flat, threads = [64]{{.*}}source = override
func.func @matmul_f32(%a: tensor<512x64xf32>, %b: tensor<64x1024xf32>, %c: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x1024xf32>) outs(%c : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}

// A small convolution (2 x 2 blocks): tiled unless staged=always, which
// takes it as an implicit GEMM (m: n, oh, ow; n: f; k: c, kh, kw).
// SM80-LABEL: func.func @conv_f32
// SM80: kind = tiled
// ALWAYS-LABEL: func.func @conv_f32
// ALWAYS: kind = staged, threads = [128], outputs = [64, 64], key = "linalg.conv_2d_nchw_fchw_1x96x10x10x32x3x3"
func.func @conv_f32(%x: tensor<1x32x12x12xf32>, %w: tensor<96x32x3x3xf32>, %o: tensor<1x96x10x10xf32>) -> tensor<1x96x10x10xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x12x12xf32>, tensor<96x32x3x3xf32>) outs(%o : tensor<1x96x10x10xf32>) -> tensor<1x96x10x10xf32>
  return %r : tensor<1x96x10x10xf32>
}

// bf16 takes tensor cores where the chip has them; without them
// (tensor-cores=never, or a chip without an instruction for the type),
// staged, its operands widened to f32 in the kernel.
// ALWAYS-LABEL: func.func @matmul_bf16
// ALWAYS: kind = mma
// NOTC-LABEL: func.func @matmul_bf16
// NOTC: kind = staged, threads = [128], outputs = [64, 64]
// ROCM-LABEL: func.func @matmul_bf16
// ROCM: kind = mma, threads = [256]
func.func @matmul_bf16(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// A pooling window (no second operand to multiply) and a contraction of
// mixed operands are not GEMMs of one type: never staged.
// ALWAYS-LABEL: func.func @pool
// ALWAYS: kind = tiled
func.func @pool(%x: tensor<1x64x34x34xf32>, %w: tensor<3x3xf32>, %o: tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32> {
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x34x34xf32>, tensor<3x3xf32>) outs(%o : tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32>
  return %r : tensor<1x64x32x32xf32>
}
// ALWAYS-LABEL: func.func @mixed
// ALWAYS-NOT: kind = staged
// ALWAYS: return
func.func @mixed(%a: tensor<64x64xf16>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// BAD: dlas-gpu-select-lowering: unknown staged 'sometimes' (auto, always or never)
