// dlas-gpu-name-kernels: each gpu.launch of a function gets the layer
// dlas-gpu-map-kernels recorded for it (in program order) and the
// function's one kernel module; gpu-kernel-outlining then puts the kernels
// in that module, named after their layers.
// RUN: dlas-opt %s --split-input-file --dlas-gpu-name-kernels --verify-diagnostics | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-gpu-name-kernels --gpu-kernel-outlining 2>/dev/null | FileCheck %s --check-prefix=OUTLINED

// CHECK-LABEL: func.func @main
// CHECK-NOT: dlas.gpu_kernel_names
// CHECK: gpu.launch {{.*}} module(@main_kernels) function(@conv_2d_nchw_fchw_1x8x16x16x3x3x3_0)
// CHECK: gpu.launch {{.*}} module(@main_kernels) function(@matmul_1x10x2048_1)
// OUTLINED: gpu.launch_func @main_kernels::@conv_2d_nchw_fchw_1x8x16x16x3x3x3_0
// OUTLINED: gpu.launch_func @main_kernels::@matmul_1x10x2048_1
// OUTLINED: gpu.module @main_kernels
// OUTLINED-NEXT: gpu.func @conv_2d_nchw_fchw_1x8x16x16x3x3x3_0(
// OUTLINED: gpu.func @matmul_1x10x2048_1(
// OUTLINED-NOT: gpu.module @main
func.func @main(%a: memref<4xf32>) attributes {dlas.gpu_kernel_names = ["conv_2d_nchw_fchw_1x8x16x16x3x3x3", "matmul_1x10x2048"]} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    memref.store %f, %a[%tx] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    memref.store %f, %a[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Launches that do not match the recorded layers one to one keep
// outlining's names.
// CHECK-LABEL: func.func @mismatch
// CHECK-NOT: dlas.gpu_kernel_names
// CHECK: gpu.launch
// CHECK-NOT: module(
// OUTLINED: gpu.module @mismatch_kernel
// expected-warning @+1 {{dlas-gpu-name-kernels: 1 kernels for 2 recorded layers; the kernels keep outlining's names}}
func.func @mismatch(%a: memref<4xf32>) attributes {dlas.gpu_kernel_names = ["a", "b"]} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    memref.store %f, %a[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}
