// Stock mlir-opt runs DLAS's layout propagation on upstream linalg IR (no
// nn op involved): another MLIR compiler can block its convolutions with it.
// The plugin is built with the sanitizers in `make test-asan`, stock mlir-opt
// without: it cannot load it there.
// UNSUPPORTED: asan
// RUN: %mlir_opt %s --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-blocked-layout{block=16 convs-per-conversion=0})" | FileCheck %s

// CHECK-LABEL: func @conv
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x8x8x16xf32>, tensor<2x1x3x3x16x16xf32>) outs(%{{.*}} : tensor<1x2x6x6x16xf32>) attrs = {dlas.blocked_conv}
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  return %y : tensor<1x32x6x6xf32>
}
