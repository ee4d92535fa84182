// What dlas-gpu-map-kernels refuses.
// RUN: dlas-opt %s --split-input-file --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-map-kernels --verify-diagnostics
// RUN: not dlas-opt %s --split-input-file --dlas-gpu-map-kernels 2>&1 | FileCheck %s --check-prefix=NOTARGET

// NOTARGET: dlas-gpu-map-kernels needs the module's 'dlas.target' to be a #dlas.gpu_target (dlas-gpu-attach-target)

func.func @tensor(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{dlas-gpu-map-kernels runs after bufferization; this op still has tensor operands}}
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

func.func @grid_z(%a: memref<70000x8x4xf32>, %b: memref<70000x4x32xf32>, %c: memref<70000x8x32xf32>) {
  // expected-error @+1 {{a tiled GPU kernel over 70000 outer iterations (reduction chunks included) exceeds the grid's 65535 blocks in z; give it a flat decision (dlas.gpu_threads = array<i64: t>)}}
  linalg.batch_matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "k", source = override>} ins(%a, %b : memref<70000x8x4xf32>, memref<70000x4x32xf32>) outs(%c : memref<70000x8x32xf32>)
  return
}

// -----

// A split reduction adds partial results atomically: only sums can.
func.func @split_max(%x: memref<1x8x16x16xf32>, %w: memref<3x3xf32>, %y: memref<1x8x14x14xf32>) {
  // expected-error @+1 {{a split reduction (split = 2) needs a sum reduction into one f32 output}}
  linalg.pooling_nchw_max {dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [64], split = 2, key = "k", source = override>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x8x16x16xf32>, memref<3x3xf32>) outs(%y : memref<1x8x14x14xf32>)
  return
}

// -----

// An mma decision on what tensor cores do not compute here (integers).
func.func @mma_i8(%a: memref<64x32xi8>, %b: memref<32x64xi8>, %c: memref<64x64xi32>) {
  // expected-error @+1 {{an mma kernel needs a contraction of two f16, bf16 or f32 (tf32) operands into f32 sums with static shapes}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [128], outputs = [64, 64], key = "k", source = override>} ins(%a, %b : memref<64x32xi8>, memref<32x64xi8>) outs(%c : memref<64x64xi32>)
  return
}

// -----

// Waves of 64 (an AMD decision) on an NVIDIA target: the thread count must
// be the target's warps.
func.func @mma_threads(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{an mma kernel on cuda:sm_90 takes 128 threads for outputs = [64, 64] (4 warps of 32), got 256}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [256], outputs = [64, 64], key = "k", source = override>} ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A staged decision on what is no GEMM of one float type (mixed operands;
// a max pool: no product).
func.func @staged_mixed(%a: memref<64x32xf16>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{a staged kernel needs a contraction of two f16, bf16 or f32 operands into f32 sums with static shapes}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], outputs = [64, 64], key = "k", source = override>} ins(%a, %b : memref<64x32xf16>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @staged_pool(%x: memref<1x64x34x34xf32>, %w: memref<3x3xf32>, %o: memref<1x64x32x32xf32>) {
  // expected-error @+1 {{a staged kernel needs a contraction of two f16, bf16 or f32 operands into f32 sums with static shapes}}
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], outputs = [64, 64], key = "k", source = override>} ins(%x, %w : memref<1x64x34x34xf32>, memref<3x3xf32>) outs(%o : memref<1x64x32x32xf32>)
  return
}

// -----

// Waves of 64 on NVIDIA, for a staged kernel too.
func.func @staged_threads(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{a staged kernel on cuda:sm_90 takes 128 threads for outputs = [64, 64] (4 warps of 32), got 256}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [256], outputs = [64, 64], key = "k", source = override>} ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A block tile whose shared tiles exceed the target's static shared
// memory (A and B 32 x 132 f32, C 128 x 128 f32: 99328 bytes > 48 KiB).
func.func @staged_shared_memory(%a: memref<256x64xf32>, %b: memref<64x256xf32>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{a kernel of outputs = [128, 128] needs 99328 bytes of shared memory; cuda:sm_90 gives a block 49152}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [512], outputs = [128, 128], key = "k", source = override>} ins(%a, %b : memref<256x64xf32>, memref<64x256xf32>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// The same for a tensor-core kernel (f16 tiles, f32 C: 81920 bytes).
func.func @mma_shared_memory(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{a kernel of outputs = [128, 128] needs 81920 bytes of shared memory; cuda:sm_90 gives a block 49152}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [512], outputs = [128, 128], key = "k", source = override>} ins(%a, %b : memref<256x64xf16>, memref<64x256xf16>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// 64 x 128 f32 (A 32 x 68, B 32 x 132, C 64 x 128: 58368 bytes) would
// fit AMD's 64 KiB, not NVIDIA's 48.
func.func @staged_wide(%a: memref<64x64xf32>, %b: memref<64x128xf32>, %c: memref<64x128xf32>) {
  // expected-error @+1 {{a kernel of outputs = [64, 128] needs 58368 bytes of shared memory; cuda:sm_90 gives a block 49152}}
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [256], outputs = [64, 128], key = "k", source = override>} ins(%a, %b : memref<64x64xf32>, memref<64x128xf32>) outs(%c : memref<64x128xf32>)
  return
}
