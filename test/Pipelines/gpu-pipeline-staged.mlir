// Staged kernels through the GPU pipeline: an f32 convolution (an implicit
// GEMM: m = 2 x 20 x 20 output positions, n = 64 output channels, k = 48 x
// 3 x 3) with its bias and ReLU fused becomes one gpu.launch of 128
// threads per 64 x 64 block tile, staging each 32-deep step of A
// (transposed: k x m) and B (k x n) in shared memory (rows padded to 68),
// each thread then multiplying its 8 x 4 register tile one k at a time:
// two aligned vector loads (8 values of A, 4 of B) and one vector FMA of
// their outer product on the 32 sums it carries across steps; the epilogue
// through the shared C tile to guarded stores. In PTX, ld.shared.v4 and
// fma.rn.f32; AMD (waves of 64, 4 x 4 outputs a thread): ds_read_b128 and
// packed FMAs. bf16 without tensor cores: staged in bf16, widened in
// registers.
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_80 staged=always print-decisions lower-to-llvm=false})" | FileCheck %s
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 staged=always})" | FileCheck %s --check-prefix=PTX
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 staged=always})" | grep -o 'ld[.]shared[.a-z0-9]*\|fma[.]rn[.]f32\|mul[.]rn[.]f32' | sort | uniq -c | FileCheck %s --check-prefix=COUNTS
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx942 staged=always print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=ROCM
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx942 staged=always})" | FileCheck %s --check-prefix=GFX942
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=bf16 keep-f32=none tensor-cores=never staged=always lower-to-llvm=false})" | FileCheck %s --check-prefix=BF16
// The cost model (staged=auto) leaves this small layer (13 blocks) to the
// tiled kernels.
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=AUTO

// CHECK: dlas-gpu-select-lowering: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> staged 128 threads, 64x64 outputs a block (cost_model)
// CHECK: gpu.launch_func @main_kernels::@conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}} blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: gpu.module @main_kernels
// CHECK: gpu.func @conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}}
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 13, 1>
// The bias starts the sums: staged into the C tile, then each thread's 32.
// CHECK: memref.store {{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.load {{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: vector.from_elements {{.*}} : vector<32xf32>
// CHECK: scf.for {{.*}} to %c432 step %c32 iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// The input read through the convolution's indexing (clamped, zero
// outside), stored k-major.
// CHECK: arith.select {{.*}} : f32
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[K:.*]], %[[M:.*]]] : memref<32x68xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load {{.*}} : memref<64x48x3x3xf32>
// CHECK: memref.store {{.*}} : memref<32x68xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}}[%c0, {{.*}}] {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK: vector.load {{.*}}[%c0, {{.*}}] {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.shuffle {{.*}} [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7] : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3] : vector<4xf32>, vector<4xf32>
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK-COUNT-31: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: vector.fma
// CHECK: gpu.barrier
// CHECK: scf.yield {{.*}} : vector<32xf32>
// CHECK-COUNT-32: memref.store {{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The epilogue where inside: ReLU, stored once.
// CHECK: scf.if
// CHECK: arith.maximumf
// CHECK: memref.store {{.*}} : memref<2x64x20x20xf32>
// The shared tiles: A k-major, rows padded by 4 elements.
// CHECK-DAG: memref.global "private" @dlas_mma_at_32x68xf32 : memref<32x68xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.global "private" @dlas_mma_b_32x68xf32 : memref<32x68xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.global "private" @dlas_mma_c_64x64xf32 : memref<64x64xf32, #gpu.address_space<workgroup>>

// In PTX, 32 k steps a stage, each of 3 vector loads (8 values of A, 4
// of B) and 32 FMAs (1024), plus 8 vector loads of the start values; one
// scalar shared-memory load: the epilogue's loop over the C tile.
// PTX: .entry conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}}
// PTX: ld.shared.v4.b32
// PTX: fma.rn.f32
// COUNTS: 1024 fma.rn.f32
// COUNTS-NEXT: 1 ld.shared.b32
// COUNTS-NEXT: 104 ld.shared.v4.b32
// COUNTS-NOT: mul.rn.f32

// ROCM: dlas-gpu-select-lowering: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> staged 256 threads, 64x64 outputs a block (cost_model)
// ROCM: known_block_size = array<i32: 256, 1, 1>
// ROCM: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// ROCM: vector.load {{.*}} {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// ROCM: vector.load {{.*}} {alignment = 16 : i64} : memref<32x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// ROCM: vector.fma {{.*}} : vector<16xf32>

// GFX942: ds_read_b128
// GFX942: v_pk_fma_f32

// BF16: dlas_mma_at_32x68xbf16
// BF16: vector.load {{.*}} {alignment = 16 : i64} : memref<32x68xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// BF16: vector.load {{.*}} {alignment = 8 : i64} : memref<32x68xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// BF16: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// BF16: arith.extf {{.*}} : vector<4xbf16> to vector<4xf32>
// BF16: vector.fma {{.*}} : vector<32xf32>

// AUTO: dlas-gpu-select-lowering: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> tiled
// AUTO-NOT: dlas_mma_

func.func @main(%x: tensor<2x48x20x20xf32>, %w: tensor<64x48x3x3xf32>, %b: tensor<64xf32>) -> tensor<2x64x20x20xf32> {
  %c = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x48x20x20xf32>, tensor<64x48x3x3xf32>, tensor<64xf32>) -> tensor<2x64x20x20xf32>
  %r = nn.relu %c : tensor<2x64x20x20xf32>
  return %r : tensor<2x64x20x20xf32>
}
