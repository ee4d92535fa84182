// On a target with AMX tiles for a dense convolution's operands (bf16 with
// AMX-BF16, i8 with AMX-INT8; 16-lane vectors), the convolution runs as
// im2col for the GEMM on tiles, before the Winograd rule is asked (the
// tiles multiply so fast that Winograd's transforms would cost more than
// the multiplies they save). f32 and f16 keep their rules; bf16 on the
// same CPU without AMX takes Winograd where its tile is F(4x4) (4x fewer
// multiplies: faster than vdpbf16ps at twice the FMA rate), else im2col
// for vdpbf16ps (NOAMX).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids" --dlas-select-conv-algorithm="microkernels=true print=true" -verify-diagnostics -o /dev/null
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids features=-amx-tile" --dlas-select-conv-algorithm="microkernels=true print=true" 2>&1 -o /dev/null | FileCheck %s --check-prefix=NOAMX

// NOAMX: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(4x4,3x3)
func.func @bf16_winograd_shape(%x: tensor<1x64x58x58xbf16>, %o: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xbf16>
  // expected-remark @+1 {{convolution algorithm: im2col (AMX tiles for its operands: im2col, for the GEMM on them)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x64x58x58xbf16>, tensor<64x64x3x3xbf16>) outs(%o : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %0 : tensor<1x64x56x56xf32>
}

// -----

// NOAMX: remark: convolution algorithm: flat
func.func @f32_keeps_its_rule(%x: tensor<1x8x10x10xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  // expected-remark @+1 {{convolution algorithm: flat}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// NOAMX: remark: convolution algorithm: im2col (bf16/f16
func.func @f16_keeps_its_rule(%x: tensor<1x8x10x10xf16>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf16>
  // expected-remark @+1 {{convolution algorithm: im2col (bf16/f16: im2col, for the GEMM that widens the patch matrix as it packs it)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x10x10xf16>, tensor<8x8x3x3xf16>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// 14x14 (16 4x4 tiles: F(2x2) under the 16-lane rule): vdpbf16ps wins
// over F(2x2)'s 2.25x.
// NOAMX: remark: convolution algorithm: im2col (bf16 with AVX512-BF16: im2col, for the GEMM on vdpbf16ps that packs the patch matrix in k pairs)
func.func @bf16_small_map(%x: tensor<1x256x16x16xbf16>, %o: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w = arith.constant dense<0.5> : tensor<256x256x3x3xbf16>
  // expected-remark @+1 {{convolution algorithm: im2col (AMX tiles for its operands: im2col, for the GEMM on them)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x256x16x16xbf16>, tensor<256x256x3x3xbf16>) outs(%o : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}
