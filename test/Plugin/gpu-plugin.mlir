// Stock mlir-opt runs DLAS's GPU strategy on upstream linalg (no nn op):
// the decision, the mapping to blocks and threads, device buffers, and the
// whole GPU pipeline down to PTX.
// UNSUPPORTED: asan
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-gpu-attach-target{target=cuda:sm_90},dlas-gpu-select-lowering)" | FileCheck %s --check-prefix=DECIDE
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 lower-to-llvm=false})" | FileCheck %s --check-prefix=KERNELS
// Tensor cores from stock mlir-opt: with allow-tf32 the f32 matmul is an
// mma kernel of nvvm.mma.sync m16n8k8 in tf32, to PTX.
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 allow-tf32 lower-to-llvm=false})" | FileCheck %s --check-prefix=TF32
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 allow-tf32})" | FileCheck %s --check-prefix=TF32-PTX
// Staged kernels from stock mlir-opt: the f32 matmul's operands staged in
// shared memory, each thread's outer products of FMAs.
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 staged=always lower-to-llvm=false})" | FileCheck %s --check-prefix=STAGED
// STAGED: gpu.func @matmul_128x64x256_{{[0-9]+}}
// STAGED-SAME: known_block_size = array<i32: 128, 1, 1>
// STAGED: vector.load {{.*}} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// STAGED: vector.fma {{.*}} : vector<32xf32>
// TF32: gpu.func @matmul_128x64x256_{{[0-9]+}}
// TF32-SAME: known_block_size = array<i32: 128, 1, 1>
// TF32: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<tf32>
// TF32-PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// DECIDE: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "linalg.matmul_128x64x256", source = cost_model>}
// KERNELS: gpu.launch_func @main_kernels::@matmul_128x64x256_0 blocks in (%c2, %c16, %c1) threads in (%c32, %c8, %c1)
// KERNELS: gpu.module @main_kernels
func.func @main(%a: tensor<128x256xf32>, %b: tensor<256x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x64xf32>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}
