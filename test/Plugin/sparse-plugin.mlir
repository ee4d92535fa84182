// Stock mlir-opt parses the sparse dialect and runs dlas-sparsify and the
// sparse kernels from the plugin.
// UNSUPPORTED: asan
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-sparsify{policy=always})" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-cpu-pipeline{target=x86-64-v3 sparsify=always})" | FileCheck %s --check-prefix=PIPELINE

// CHECK-LABEL: func @linear
// CHECK: sparse.constant {coordinates = array<i32: 1, 0>, positions = array<i32: 0, 1, 1, 2>
// CHECK: sparse.linear
// PIPELINE: llvm.mlir.global private constant @__dlas_sparse_values
// PIPELINE-LABEL: llvm.func @linear
// PIPELINE: llvm.intr.fmuladd
func.func @linear(%x: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]]> : tensor<3x2xf32>
  %y = nn.linear %x, %w : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
