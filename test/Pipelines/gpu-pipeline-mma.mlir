// Tensor-core kernels through the GPU pipeline: an fp16 convolution (an
// implicit GEMM: m = output positions, n = output channels, k = input
// channels x window) with its bias and ReLU fused becomes one gpu.launch
// of 128 threads per 64 x 64 block tile, staging each 32-deep step of both
// operands in shared memory (zero outside the GEMM), WMMA on 16 x 16 x 16
// tiles with the sums in registers, and the epilogue through the shared C
// tile to guarded stores; then PTX with wmma instructions on shared memory.
// (The weights are arguments here, rounded to f16 by kernels of their own;
// constant weights are rounded at compile time.)
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_80 precision=fp16 keep-f32=none print-decisions lower-to-llvm=false})" | FileCheck %s
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=fp16 keep-f32=none})" | FileCheck %s --check-prefix=PTX
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=fp16 keep-f32=none tensor-cores=never print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=NEVER
// bf16 on NVIDIA: the same kernel with mma.sync m16n8k16, its fragments
// loaded from shared memory with ldmatrix (A: .x4, each lane addressing
// row lane % 16 at k + 8 (lane / 16); B, staged k x n: .x2.trans, rows
// k + lane % 16), tiles' rows padded by 8 elements against bank
// conflicts; 2 x 4 tiles of 16 x 8 a warp, two 16-deep steps a stage.
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_80 precision=bf16 keep-f32=none print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=BF16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=bf16 keep-f32=none})" | FileCheck %s --check-prefix=BF16-PTX
// f32 with allow-tf32: mma.sync m16n8k8 on operands rounded to tf32 as
// they are staged (one register each; 2 x 4 tiles a warp, four 8-deep
// steps a stage), A's fragments by ldmatrix.
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_80 allow-tf32 print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=TF32
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 allow-tf32})" | FileCheck %s --check-prefix=TF32-PTX
// AMD: MFMA 16x16x16 on waves of 64 (256 threads a 64 x 64 tile), f16 and
// bf16, to the CDNA2 and CDNA3 instructions.
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx942 precision=fp16 keep-f32=none print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=MFMA
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx942 precision=fp16 keep-f32=none})" | FileCheck %s --check-prefix=GFX942-F16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx942 precision=bf16 keep-f32=none})" | FileCheck %s --check-prefix=GFX942-BF16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx90a precision=bf16 keep-f32=none})" | FileCheck %s --check-prefix=GFX90A-BF16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx90a precision=fp16 keep-f32=none tensor-cores=never print-decisions lower-to-llvm=false})" | FileCheck %s --check-prefix=NEVER

// CHECK: dlas-gpu-select-lowering: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> mma 128 threads, 64x64 outputs a block (cost_model)
// CHECK: gpu.launch_func @main_kernels::@conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}} blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: gpu.module @main_kernels
// CHECK-DAG: memref.global "private" @dlas_mma_a_64x32xf16 : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.global "private" @dlas_mma_b_32x64xf16 : memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.global "private" @dlas_mma_c_64x64xf32 : memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.func @conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}}
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// The bias starts the sums: staged into the C tile, then the fragments.
// CHECK: memref.store {{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 64 : index} : memref<64x64xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: scf.for {{.*}} iter_args
// The input read through the convolution's indexing (clamped, zero outside).
// CHECK: arith.select {{.*}} : f16
// CHECK: memref.store {{.*}} : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index} : memref<64x32xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 64 : index} : memref<32x64xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK-COUNT-4: gpu.subgroup_mma_store_matrix
// CHECK: gpu.barrier
// The epilogue, where inside: the ReLU on the f32 sum (it commutes with
// the rounding: dlas-fuse-conversions), the rounding to f16, widened for
// the f32 result.
// CHECK: scf.if
// CHECK: arith.maximumf {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: arith.extf
// CHECK: memref.store {{.*}} : memref<2x64x20x20xf32>

// PTX: .target sm_90
// PTX-SAME: wmma.load.a.sync.aligned.row.m16n16k16.shared.f16
// PTX-SAME: wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32
// PTX-SAME: wmma.store.d.sync.aligned.row.m16n16k16.shared.f32

// NEVER: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> tiled
// NEVER-NOT: subgroup_mma
// NEVER-NOT: amdgpu.mfma

// BF16: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> mma 128 threads, 64x64 outputs a block (cost_model)
// BF16: gpu.module @main_kernels
// BF16-DAG: memref.global "private" @dlas_mma_a_64x40xbf16 : memref<64x40xbf16, #gpu.address_space<workgroup>>
// BF16-DAG: memref.global "private" @dlas_mma_b_32x72xbf16 : memref<32x72xbf16, #gpu.address_space<workgroup>>
// BF16: gpu.func @conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}}
// BF16-SAME: known_block_size = array<i32: 128, 1, 1>
// The accumulators: each lane's 4 values of each 16 x 8 tile from the C tile.
// BF16: gpu.thread_id x
// BF16: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// BF16: memref.load {{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// BF16: vector.from_elements {{.*}} : vector<4xf32>
// BF16: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// BF16: arith.select {{.*}} : bf16
// BF16: gpu.barrier
// BF16: %[[AROW:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[LANE]]]
// BF16: %[[ACOL:.*]] = affine.apply #{{.*}}()[%[[LANE]]]
// BF16: nvgpu.ldmatrix %{{.*}}[%[[AROW]], %[[ACOL]]] {numTiles = 4 : i32, transpose = false} : memref<64x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// BF16: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// BF16: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<32x72xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// BF16-NOT: memref.load {{.*}}bf16
// BF16: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// BF16-COUNT-15: nvvm.mma.sync
// BF16-NOT: nvvm.mma.sync
// BF16: scf.yield
// BF16: memref.store {{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// BF16: gpu.barrier
// BF16: arith.truncf {{.*}} : f32 to bf16

// BF16-PTX: .target sm_90
// BF16-PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16-PTX-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// BF16-PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-PTX-NOT: ld.shared.b16

// TF32: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> mma 128 threads, 64x64 outputs a block (cost_model)
// TF32: gpu.func @conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}}
// TF32: scf.for {{.*}} iter_args
// The rounding (ties away from zero), finite values only.
// TF32: arith.bitcast {{.*}} : f32 to i32
// TF32: arith.addi {{.*}}, %c4096_i32
// TF32: arith.andi {{.*}}, %c-8192_i32
// TF32: arith.cmpi ne, {{.*}}, %c2139095040_i32
// TF32: memref.store {{.*}} : memref<64x36xf32, #gpu.address_space<workgroup>>
// TF32: memref.store {{.*}} : memref<32x72xf32, #gpu.address_space<workgroup>>
// A's fragment by ldmatrix (16-byte rows of 4 f32: lane l addresses row
// l % 16 at k + 4 (l / 16)); B's lane by lane (no 32-bit transpose).
// TF32: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x36xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// TF32: memref.load {{.*}} : memref<32x72xf32, #gpu.address_space<workgroup>>
// TF32: vector.bitcast {{.*}} : vector<2xf32> to vector<2xi32>
// TF32: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// TF32-COUNT-31: nvvm.mma.sync
// TF32-NOT: nvvm.mma.sync
// TF32: scf.yield

// TF32-PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TF32-PTX-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// MFMA: linalg.conv_2d_nchw_fchw_2x64x20x20x48x3x3 -> mma 256 threads, 64x64 outputs a block (cost_model)
// MFMA: gpu.func @conv_2d_nchw_fchw_2x64x20x20x48x3x3_{{[0-9]+}}
// MFMA-SAME: known_block_size = array<i32: 256, 1, 1>
// MFMA: %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// MFMA: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// MFMA: gpu.barrier
// MFMA: affine.apply #{{.*}}()[%{{.*}}, %[[LANE]]]
// MFMA: vector.from_elements {{.*}} : vector<4xf16>
// MFMA: amdgpu.mfma 16x16x16 {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// MFMA-COUNT-7: amdgpu.mfma 16x16x16
// MFMA-NOT: amdgpu.mfma
// MFMA: scf.yield

// GFX942-F16: v_mfma_f32_16x16x16_f16
// GFX942-BF16: v_mfma_f32_16x16x16_bf16
// GFX90A-BF16: v_mfma_f32_16x16x16bf16_1k

func.func @main(%x: tensor<2x48x20x20xf32>, %w0: tensor<48x48x3x3xf32>, %w: tensor<64x48x3x3xf32>, %b: tensor<64xf32>) -> tensor<2x64x20x20xf32> {
  %c0 = nn.conv2d %x, %w0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x48x20x20xf32>, tensor<48x48x3x3xf32>) -> tensor<2x48x20x20xf32>
  %c = nn.conv2d %c0, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x48x20x20xf32>, tensor<64x48x3x3xf32>, tensor<64xf32>) -> tensor<2x64x20x20xf32>
  %r = nn.relu %c : tensor<2x64x20x20xf32>
  return %r : tensor<2x64x20x20xf32>
}
