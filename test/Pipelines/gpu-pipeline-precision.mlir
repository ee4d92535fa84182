// The GPU pipeline in bf16 and fp16 (dlas-mixed-precision before the nn ->
// linalg stage, as on the CPU): the policy's choices, weights uploaded in
// the narrow type, kernels that widen bf16/f16 operands into f32
// accumulators and round the result once, and the device code for NVIDIA
// and AMD chips. The entry keeps its f32 signature.
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_80 precision=bf16 print-precision lower-to-llvm=false})" -o /dev/null | FileCheck %s --check-prefix=POLICY
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=bf16 keep-f32=none lower-to-llvm=false})" | FileCheck %s --check-prefix=KERNELS
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_80 precision=bf16 keep-f32=none})" | FileCheck %s --check-prefix=PTXBF16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=fp16 keep-f32=none})" | FileCheck %s --check-prefix=PTXF16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx942 precision=bf16 keep-f32=none})" | FileCheck %s --check-prefix=GFXBF16
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx90a precision=fp16 keep-f32=none})" | FileCheck %s --check-prefix=GFXF16
// `auto` is bf16 on every GPU target (the CPU's asks for avx512bf16).
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=rocm:gfx90a precision=auto keep-f32=none print-precision lower-to-llvm=false})" -o /dev/null | FileCheck %s --check-prefix=AUTO
// int8 has no GPU kernels: refused, naming the target.
// RUN: not dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=int8})" 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: not dlas-opt %s --pass-pipeline="builtin.module(dlas-gpu-pipeline{target=cuda:sm_90 precision=f8})" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The default guard keeps the first convolution and the classifier in f32.
// POLICY: dlas-mixed-precision: conv2d {{.*}}: f32 (first convolution)
// POLICY-NEXT: dlas-mixed-precision: conv2d {{.*}}: bf16 (weight error
// POLICY-NEXT: dlas-mixed-precision: linear {{.*}}: f32 (classifier)

// KERNELS: func.func @main(%{{.*}}: memref<1x8x16x16xf32>) -> memref<1x10xf32>
// KERNELS-DAG: call @dlas_gpu_constant_bf16
// KERNELS-DAG: gpu.launch_func
// The second convolution: bf16 input and weights widened, f32 sums (from
// the f32 bias), the result rounded to bf16 once, after the ReLU.
// KERNELS: gpu.func @conv_2d_nchw_fchw_1x8x16x16x8x3x3
// KERNELS: scf.for {{.*}} -> (f32)
// KERNELS: arith.extf {{.*}} : bf16 to f32
// KERNELS: arith.mulf {{.*}} : f32
// KERNELS: arith.addf {{.*}} : f32
// KERNELS: arith.truncf {{.*}} : f32 to bf16
// KERNELS: memref.store {{.*}} : memref<1x8x16x16xbf16>

// PTXBF16: .target sm_80
// PTXBF16-DAG: cvt.f32.bf16
// PTXBF16-DAG: cvt.rn.bf16.f32
// PTXF16: .target sm_90
// PTXF16-DAG: cvt.f32.f16
// PTXF16-DAG: cvt.rn.f16.f32
// gfx942 has no bf16 conversion instructions: widening is a shift,
// rounding to nearest even integer arithmetic (v_bfe_u32, v_add3_u32).
// GFXBF16: amdgcn-amd-amdhsa--gfx942
// GFXBF16-SAME: v_add3_u32
// GFXF16: amdgcn-amd-amdhsa--gfx90a
// GFXF16-SAME: v_cvt_f32_f16
// GFXF16-SAME: v_cvt_f16_f32

// AUTO: dlas-mixed-precision: conv2d {{.*}}: bf16 (weight error
// INT8: error: dlas-mixed-precision: policy int8 has no GPU kernels yet (cuda:sm_90 takes f32, bf16, fp16 or auto)
// UNKNOWN: error: dlas-mixed-precision: unknown policy 'f8'

func.func @main(%x: tensor<1x8x16x16xf32>) -> tensor<1x10xf32> {
  %w0 = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  %w1 = arith.constant dense<0.25> : tensor<8x8x3x3xf32>
  %b = arith.constant dense<0.25> : tensor<8xf32>
  %fc = arith.constant dense<0.125> : tensor<10x2048xf32>
  %c0 = nn.conv2d %x, %w0, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r0 = nn.relu %c0 : tensor<1x8x16x16xf32>
  %c1 = nn.conv2d %r0, %w1, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r1 = nn.relu %c1 : tensor<1x8x16x16xf32>
  %f = nn.flatten %r1 {axis = 1 : i64} : (tensor<1x8x16x16xf32>) -> tensor<1x2048xf32>
  %y = nn.linear %f, %fc : (tensor<1x2048xf32>, tensor<10x2048xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
