// int8 convolutions (i8 operands, i32 result): on a target with an int8
// dot product (AVX512-VNNI, AVX-VNNI) or pair product (vpmaddubsw: AVX2,
// AVX512BW) a dense one takes im2col, whose matrix the GEMM kernel packs
// in k quads for vpdpbusd or vpmaddubsw; elsewhere (AVX without AVX2) the
// same rules as f32 (flat), and a 1x1 one is a GEMM either way.
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VNNI
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v3 features=+avxvnni" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VNNI
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v4" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAIRS
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v3" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAIRS
// RUN: dlas-opt %s --dlas-attach-target="target=sandybridge" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=IR

// VNNI: remark: convolution algorithm: im2col (int8 with VNNI: im2col, for the GEMM on vpdpbusd)
// VNNI: remark: convolution algorithm: gemm (1x1 kernel: a GEMM without copies)
// PAIRS: remark: convolution algorithm: im2col (int8: im2col, for the GEMM on vpmaddubsw pairs)
// PAIRS: remark: convolution algorithm: gemm (1x1 kernel: a GEMM without copies)
// PLAIN: remark: convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)
// PLAIN: remark: convolution algorithm: gemm (1x1 kernel: a GEMM without copies)
// The im2col matrix (72 = 8 channels x 9 taps), then the GEMM, whose body
// widens both operands into the i32 accumulator.
// IR-LABEL: func @conv3x3
// IR: tensor.empty() : tensor<1x72x8x8xi8>
// IR: ins(%{{.*}}, %{{.*}} : tensor<16x72xi8>, tensor<1x72x64xi8>) outs(%{{.*}} : tensor<1x16x64xi32>)
// IR: arith.extsi %{{.*}} : i8 to i32
// IR: arith.extsi %{{.*}} : i8 to i32
// IR: arith.muli
// IR: arith.addi
func.func @conv3x3(%x: tensor<1x8x10x10xi8>, %w: tensor<16x8x3x3xi8>, %init: tensor<1x16x8x8xi32>) -> tensor<1x16x8x8xi32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x10x10xi8>, tensor<16x8x3x3xi8>) outs(%init : tensor<1x16x8x8xi32>) -> tensor<1x16x8x8xi32>
  return %0 : tensor<1x16x8x8xi32>
}
func.func @conv1x1(%x: tensor<1x8x10x10xi8>, %w: tensor<16x8x1x1xi8>, %init: tensor<1x16x10x10xi32>) -> tensor<1x16x10x10xi32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x10x10xi8>, tensor<16x8x1x1xi8>) outs(%init : tensor<1x16x10x10xi32>) -> tensor<1x16x10x10xi32>
  return %0 : tensor<1x16x10x10xi32>
}
