// Stock mlir-opt loads DLAS as a dialect and pass plugin.
// The plugin is built with the sanitizers in `make test-asan`, stock mlir-opt
// without: it cannot load it there.
// UNSUPPORTED: asan
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(convert-nn-to-linalg)" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-cpu-pipeline)" | FileCheck %s --check-prefix=PIPELINE
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-cpu-pipeline{target=x86-64-v3})" | FileCheck %s --check-prefix=V3
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-attach-target{target=znver3})" | FileCheck %s --check-prefix=ATTACH

// CHECK-LABEL: func @main
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic
// CHECK-NOT: nn.

// ROUNDTRIP: nn.conv2d
// ROUNDTRIP: nn.relu

// PIPELINE: llvm.func @_mlir_ciface_main
// V3: llvm.func @main_layer0_conv2d({{.*}}target_cpu = "x86-64-v3"
// ATTACH: module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3",
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = nn.relu %0 : tensor<1x4x6x6xf32>
  return %1 : tensor<1x4x6x6xf32>
}
