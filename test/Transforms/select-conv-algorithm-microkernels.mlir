// With microkernels (the CPU pipeline's default), every dense or grouped
// stride-1 convolution goes flat, an implicit GEMM (per group), however
// large its plane.
// RUN: dlas-opt %s --dlas-select-conv-algorithm="microkernels=true print=true" -verify-diagnostics -o /dev/null
// RUN: dlas-opt %s --dlas-select-conv-algorithm="print=true l1-cache-bytes=16384" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// LOOPS: convolution algorithm: im2col (stride 1, output plane {{[0-9]+}} B too large for L1: im2col)

func.func @large_plane(%x: tensor<1x8x58x58xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x56x56xf32>) -> tensor<1x8x56x56xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x58x58xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x56x56xf32>) -> tensor<1x8x56x56xf32>
  return %0 : tensor<1x8x56x56xf32>
}

func.func @grouped(%x: tensor<1x4x8x34x34xf32>, %w: tensor<4x8x8x3x3xf32>, %o: tensor<1x4x8x32x32xf32>) -> tensor<1x4x8x32x32xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, grouped: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_ngchw_gfchw ins(%x, %w : tensor<1x4x8x34x34xf32>, tensor<4x8x8x3x3xf32>) outs(%o : tensor<1x4x8x32x32xf32>) -> tensor<1x4x8x32x32xf32>
  return %0 : tensor<1x4x8x32x32xf32>
}
