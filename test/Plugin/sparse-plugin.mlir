// Stock mlir-opt parses the sparse dialect and runs dlas-sparsify and the
// sparse kernels (with a fused max pool) from the plugin.
// UNSUPPORTED: asan
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-sparsify{policy=always min-pool-positions=0})" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%dlas_lib/DLASPlugin.so --load-pass-plugin=%dlas_lib/DLASPlugin.so --pass-pipeline="builtin.module(dlas-attach-target{target=x86-64-v3},dlas-sparsify{policy=always min-pool-positions=0},canonicalize,convert-sparse-to-loops)" | FileCheck %s --check-prefix=POOL
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

// A max pool after a sparse convolution: folded into it (min-pool-positions
// lowered for this 6x6 map) and lowered to bands pooled from a scratch
// buffer, through stock mlir-opt.
// CHECK-LABEL: func @conv_pool
// CHECK: sparse.conv2d {{.*}}pool_kernel = array<i64: 2, 2>, pool_padding = array<i64: 0, 0, 0, 0>, pool_strides = array<i64: 2, 2>, relu
// CHECK-NOT: nn.max_pool2d
// POOL-LABEL: func @conv_pool
// POOL: scf.parallel
// POOL: memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x{{[0-9]+}}xf32>
// POOL: vector.shuffle
// POOL-NOT: sparse.
func.func @conv_pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x3x3x3xf32> {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[0.0]]], [[[0.0]], [[-2.0]]]]> : tensor<3x2x1x1xf32>
  %c = nn.conv2d %x, %w : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %r = nn.relu %c : tensor<1x3x6x6xf32>
  %p = nn.max_pool2d %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x6x6xf32>) -> tensor<1x3x3x3xf32>
  return %p : tensor<1x3x3x3xf32>
}
