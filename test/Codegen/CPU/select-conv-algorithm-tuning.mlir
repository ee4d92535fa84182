// The algorithm of a dense convolution from a tuning file's
// `conv_algorithm` section (what dlas-tune writes) and from the op's own
// `dlas.conv_algorithm`: the entry beats the cost model and the
// `algorithm` option, the op's attribute beats the entry, entries for
// another CPU are ignored, and an algorithm that does not apply falls back
// and says why.
// RUN: split-file %s %t
// RUN: dlas-opt %t/convs.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true print=true tuning-file=%t/tuned.json" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,INT8
// RUN: dlas-opt %t/convs.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true print=true algorithm=flat tuning-file=%t/tuned.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: dlas-opt %t/convs.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true tuning-file=%t/tuned.json" | FileCheck %s --check-prefix=IR
// Without the file: the cost model (flat), and the op's own choice.
// RUN: dlas-opt %t/convs.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// The whole pipeline reads the same file.
// RUN: dlas-opt %t/convs.mlir --dlas-cpu-pipeline="target=x86-64-v3 print-conv-algorithms tuning-file=%t/tuned.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not dlas-opt %t/bad.mlir --dlas-select-conv-algorithm 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: remark: convolution algorithm: im2col (tuned), key c16_f16_i10x10_o8x8_k3x3_s1x1
// CHECK: remark: convolution algorithm: direct (tuned winograd needs a dense 3x3 stride-1 undilated convolution with a constant filter; direct instead), key c16_f16_i10x10_o4x4_k3x3_s2x2
// CHECK: remark: convolution algorithm: winograd (overridden), key c16_f32_i10x10_o8x8_k3x3_s1x1
// An int8 convolution keeps what its multiply kernel needs (the cost
// model's, the file's entry notwithstanding).
// INT8: remark: convolution algorithm: im2col (int8: im2col, for the GEMM on vpmaddubsw pairs), key c8_f8_i10x10_o8x8_k3x3_s1x1

// MODEL: remark: convolution algorithm: flat (stride 1, dense: {{.*}}), key c16_f16_i10x10_o8x8_k3x3_s1x1
// MODEL: remark: convolution algorithm: flat (strided dense: {{.*}}), key c16_f16_i10x10_o4x4_k3x3_s2x2
// MODEL: remark: convolution algorithm: winograd (overridden), key c16_f32_i10x10_o8x8_k3x3_s1x1

// IR-LABEL: func.func @tuned
// IR: linalg.generic {{.*}}dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>
// IR-LABEL: func.func @overridden
// Winograd's batched GEMM over the 16 tile positions.
// IR: tensor<16x32x16xf32>

// PIPELINE: remark: convolution algorithm: im2col (tuned)
// PIPELINE: remark: convolution algorithm: direct (tuned winograd needs
// PIPELINE: remark: convolution algorithm: winograd (overridden)

// BAD: error: 'dlas.conv_algorithm' must be one of "direct", "gemm", "im2col", "flat", "winograd"

//--- tuned.json
{
  "dlas_tuning": 1,
  "conv_algorithm": {
    "c16_f16_i10x10_o8x8_k3x3_s1x1": {"algorithm": "im2col"},
    "znver4/c16_f16_i10x10_o8x8_k3x3_s1x1": {"algorithm": "winograd"},
    "x86-64-v3/c16_f16_i10x10_o4x4_k3x3_s2x2": {"algorithm": "winograd"},
    "c16_f32_i10x10_o8x8_k3x3_s1x1": {"algorithm": "im2col"},
    "c8_f8_i10x10_o8x8_k3x3_s1x1": {"algorithm": "flat"}
  }
}
//--- convs.mlir
func.func @tuned(%x: tensor<1x16x10x10xf32>, %y: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<16x16x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%y : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}
func.func @strided(%x: tensor<1x16x10x10xf32>, %y: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<16x16x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%y : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}
func.func @overridden(%x: tensor<1x16x10x10xf32>, %y: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.conv_algorithm = "winograd"}
      ins(%x, %w : tensor<1x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%y : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}
func.func @int8(%x: tensor<1x8x10x10xi8>, %y: tensor<1x8x8x8xi32>) -> tensor<1x8x8x8xi32> {
  %w = arith.constant dense<3> : tensor<8x8x3x3xi8>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x10x10xi8>, tensor<8x8x3x3xi8>) outs(%y : tensor<1x8x8x8xi32>) -> tensor<1x8x8x8xi32>
  return %r : tensor<1x8x8x8xi32>
}
//--- bad.mlir
func.func @bad(%x: tensor<1x16x10x10xf32>, %w: tensor<16x16x3x3xf32>, %y: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.conv_algorithm = "fft"}
      ins(%x, %w : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%y : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}
