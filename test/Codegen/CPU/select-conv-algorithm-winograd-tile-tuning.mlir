// Winograd's output tile from a tuning file's `conv_algorithm` entry
// (`winograd_tile`, what dlas-tune writes when it measured F(2x2) against
// F(4x4)): the entry beats the cost model (F(4x4) for this 16x16 layer on
// x86-64-v3) and the `winograd-tile` option; a tile that is neither 2 nor
// 4 is refused with the entry's name.
// RUN: split-file %s %t
// RUN: dlas-opt %t/conv.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=MODEL
// RUN: dlas-opt %t/conv.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true tuning-file=%t/tuned.json" | FileCheck %s --check-prefix=TUNED
// RUN: dlas-opt %t/conv.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true winograd-tile=4 tuning-file=%t/tuned.json" | FileCheck %s --check-prefix=TUNED
// RUN: dlas-opt %t/conv.mlir --dlas-cpu-pipeline="target=x86-64-v3 tuning-file=%t/tuned.json lower-to-llvm=false" -o /dev/null
// RUN: not dlas-opt %t/conv.mlir --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true tuning-file=%t/bad.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// MODEL: dense_resource<dlas_winograd_filter> : tensor<36x64x64xf32>
// TUNED: dense_resource<dlas_winograd_filter> : tensor<16x64x64xf32>
// TUNED-NOT: tensor<36x
// BAD: error: tuning entry 'c64_f64_i18x18_o16x16_k3x3_s1x1': winograd_tile 3 is not 2 or 4

//--- tuned.json
{
  "dlas_tuning": 1,
  "conv_algorithm": {
    "c64_f64_i18x18_o16x16_k3x3_s1x1": {"algorithm": "winograd", "winograd_tile": 2}
  }
}
//--- bad.json
{
  "dlas_tuning": 1,
  "conv_algorithm": {
    "c64_f64_i18x18_o16x16_k3x3_s1x1": {"algorithm": "winograd", "winograd_tile": 3}
  }
}
//--- conv.mlir
func.func @conv(%x: tensor<1x64x18x18xf32>, %y: tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x18x18xf32>, tensor<64x64x3x3xf32>) outs(%y : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  return %r : tensor<1x64x16x16xf32>
}
