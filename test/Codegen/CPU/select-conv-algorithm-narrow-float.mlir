// bf16/f16 dense convolutions that Winograd does not take run as im2col
// with microkernels: the GEMM widens the patch matrix into f32 as it packs
// it, where the flat convolution's shifted rows would widen at every FMA.
// f32 keeps the flat convolution; bf16 layers Winograd takes stay Winograd.
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="microkernels=true print=true" -verify-diagnostics -o /dev/null
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s
// With AVX512-BF16 the bf16 layers take im2col for the GEMM on vdpbf16ps;
// f16 keeps the widening reason.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=znver4" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16DOT
// BF16DOT: remark: convolution algorithm: im2col (bf16 with AVX512-BF16: im2col, for the GEMM on vdpbf16ps that packs the patch matrix in k pairs)
// BF16DOT: remark: convolution algorithm: im2col (bf16/f16: im2col, for the GEMM that widens the patch matrix as it packs it)
// BF16DOT: remark: convolution algorithm: flat
// CHECK-LABEL: func @bf16_strided
// CHECK: tensor<1x144x4x4xbf16>
// CHECK: linalg.generic
func.func @bf16_strided(%x: tensor<1x16x10x10xbf16>, %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<16x16x3x3xbf16>
  // expected-remark @+1 {{convolution algorithm: im2col (bf16/f16: im2col, for the GEMM that widens the patch matrix as it packs it)}}
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x10x10xbf16>, tensor<16x16x3x3xbf16>) outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// CHECK-LABEL: func @f16_unit_stride
func.func @f16_unit_stride(%x: tensor<1x8x10x10xf16>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf16>
  // expected-remark @+1 {{convolution algorithm: im2col (bf16/f16: im2col, for the GEMM that widens the patch matrix as it packs it)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x10x10xf16>, tensor<8x8x3x3xf16>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// The same layer in f32: flat.
// CHECK-LABEL: func @f32_unit_stride
func.func @f32_unit_stride(%x: tensor<1x8x10x10xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}
