// The GPU pipeline end to end: nn -> kernels in gpu.module -> NVVM/ROCDL ->
// device code embedded in host LLVM IR that calls the mgpu* runtime.
// RUN: dlas-opt %s --dlas-gpu-pipeline="target=cuda:sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=KERNELS
// RUN: dlas-opt %s --dlas-gpu-pipeline=target=cuda:sm_90 | FileCheck %s --check-prefix=SM90
// RUN: dlas-opt %s --dlas-gpu-pipeline=target=cuda:sm_80 | FileCheck %s --check-prefix=SM80
// RUN: dlas-opt %s --dlas-gpu-pipeline=target=cuda:sm_90 | %mlir_translate --mlir-to-llvmir | FileCheck %s --check-prefix=HOST
// RUN: dlas-opt %s --dlas-gpu-pipeline=target=rocm:gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: dlas-opt %s --dlas-gpu-pipeline=target=rocm:gfx90a | FileCheck %s --check-prefix=GFX90A
// RUN: dlas-opt %s --dlas-gpu-pipeline="target=rocm:gfx942 format=bin" | FileCheck %s --check-prefix=HSACO
// RUN: dlas-opt %s --dlas-gpu-pipeline="target=cuda:sm_90 print-decisions" -o /dev/null | FileCheck %s --check-prefix=DECIDE
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 fuse-elementwise=false lower-to-llvm=false})" | FileCheck %s --check-prefix=UNFUSED
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 fuse-kernels=false lower-to-llvm=false})" | FileCheck %s --check-prefix=NOFOLD
// RUN: not dlas-opt %s --dlas-gpu-pipeline=target=cuda:sm_70 2>&1 | FileCheck %s --check-prefix=BADTARGET

// Three kernels: the convolution, reading its unpadded input with bounds
// checks (no padded copy) and starting from the bias (no broadcast
// kernel); the classifier's zero fill; and the classifier (elementwise
// fusion put the ReLU and the flatten into it), 10 outputs over 2048
// products, its reduction split in 2 (partial sums added atomically onto
// the zeros); each outlined into a gpu.module and launched by the host
// function.
// KERNELS: module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90"
// KERNELS: func.func @main(%{{.*}}: memref<1x3x16x16xf32>) -> memref<1x10xf32> attributes {dlas.signature = (tensor<1x3x16x16xf32>) -> tensor<1x10xf32>, llvm.emit_c_interface}
// KERNELS: gpu.alloc () : memref<1x3x16x16xf32>
// KERNELS: gpu.memcpy
// KERNELS: call @dlas_gpu_constant_f32
// KERNELS-COUNT-3: gpu.launch_func
// KERNELS-NOT: gpu.launch_func
// KERNELS: memref.alloc() : memref<1x10xf32>
// KERNELS: gpu.memcpy
// KERNELS: return
// The function's kernels share one module, each named after its layer
// (dlas-gpu-name-kernels).
// KERNELS: gpu.module @main_kernels
// KERNELS-NEXT: gpu.func @conv_2d_nchw_fchw_1x8x16x16x3x3x3_0({{.*}}) kernel attributes {known_block_size = array<i32: 32, 1, 1>
// KERNELS: gpu.func @fill_1x10_1(
// KERNELS: gpu.func @generic_1x10x8x16x16_2(
// KERNELS-NOT: gpu.module

// Elementwise fusion folds the ReLU and the flatten into the classifier's
// contraction (one generic); without it the ReLU (in place) is the
// convolution's epilogue and the classifier a matmul of 10 outputs over
// 2048 products, whose reduction is split in 8 (atomic partial sums; its
// zero fill then a kernel of its own): three kernels.
// Without kernel fusion the padding (a fill and a copy), the bias
// broadcast and the fill are kernels of their own. The 16-wide map is too
// narrow for 32-column tiles: flat.
// DECIDE: dlas-gpu-select-lowering: linalg.conv_2d_nchw_fchw_1x8x16x16x3x3x3 -> flat 32 threads (cost_model)
// DECIDE: dlas-gpu-select-lowering: linalg.generic_1x10x8x16x16 -> flat 32 threads, reduction split 2 (cost_model)
// UNFUSED-COUNT-3: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
// NOFOLD-COUNT-6: gpu.launch_func
// NOFOLD-NOT: gpu.launch_func

// SM90-NOT: gpu.module
// SM90: llvm.func @main(
// SM90: llvm.call @mgpuMemAlloc
// SM90: gpu.launch_func <%{{.*}} : !llvm.ptr> @main_kernels::@conv_2d_nchw_fchw_1x8x16x16x3x3x3_0 blocks in
// SM90: llvm.call @mgpuStreamSynchronize
// SM90: gpu.binary @main_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.version 8.0{{.*}}.target sm_90{{.*}}.entry conv_2d_nchw_fchw_1x8x16x16x3x3x3_0(
// SM90-NOT: gpu.module
// SM80: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.target sm_80

// The host module loads each kernel module in a constructor and launches
// kernels through the runtime.
// HOST: target triple = "x86_64-unknown-linux-gnu"
// HOST: @llvm.global_ctors = appending global [1 x {{.*}}@main_kernels_load
// HOST: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 64, i64 1, i64 1, i64 32, i64 1, i64 1, i32 0,
// HOST: define void @_mlir_ciface_main(
// HOST: call ptr @mgpuModuleLoadJIT(ptr @main_kernels_binary

// GFX942: gpu.binary @main_kernels {{ *}}[#gpu.object<#rocdl.target<O = 3, chip = "gfx942">, assembly = "{{.*}}.amdgcn_target \22amdgcn-amd-amdhsa--gfx942\22
// GFX90A: #rocdl.target<O = 3, chip = "gfx90a">, assembly = "{{.*}}.amdgcn_target \22amdgcn-amd-amdhsa--gfx90a
// HSACO: gpu.binary @main_kernels {{ *}}[#gpu.object<#rocdl.target<O = 3, chip = "gfx942">, bin = "\7FELF

// BADTARGET: dlas-gpu-attach-target: unknown GPU target 'cuda:sm_70'

func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x10xf32> {
  %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
  %b = arith.constant dense<0.25> : tensor<8xf32>
  %fc = arith.constant dense<0.125> : tensor<10x2048xf32>
  %c = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r = nn.relu %c : tensor<1x8x16x16xf32>
  %f = nn.flatten %r {axis = 1 : i64} : (tensor<1x8x16x16xf32>) -> tensor<1x2048xf32>
  %y = nn.linear %f, %fc : (tensor<1x2048xf32>, tensor<10x2048xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
