// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-select-conv-algorithm="microkernels=true print=true" 2>&1 -o /dev/null | FileCheck %s --check-prefix=REM
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-select-conv-algorithm="print=true" 2>&1 -o /dev/null | FileCheck %s --check-prefix=NOMK

// A strided grouped convolution whose groups fill no vector (8 channels
// a group on 16 lanes: GSPC left it) runs as the dense one does with
// microkernels: the padded input split into its 2x2 stride phases, per
// group, Q[n, g, c, ph, pw, i, j] = X[n, g, c, 2i + ph, 2j + pw] (Hq = 7 +
// 1 + 1 = 9 rows, one for the flat overrun, Wq = 8: the 15x15 input padded
// to 18x16), then the flat implicit GEMM with the group a batch dim: tap
// (kh, kw) reads phase (kh mod 2, kw mod 2) at p + (kh floordiv 2) * Wq +
// kw floordiv 2 of group d1's phases laid end to end (72 a phase), rows
// computed 8 wide and sliced to 7. It was the direct loop nest (2-6x
// slower on Zen 4).
// REM: remark: convolution algorithm: flat (strided grouped: flat implicit GEMM over the input's stride phases
// CHECK-DAG: #[[SPLIT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
// CHECK-DAG: #[[PHASE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d3 + ((d5 mod 2) * 2 + d6 mod 2) * 72 + (d5 floordiv 2) * 8 + d6 floordiv 2)>
// CHECK-DAG: #[[GFILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d4, d5, d6)>
// CHECK-LABEL: func @strided_grouped
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0, 0] high[0, 0, 0, 3, 1]
// CHECK: linalg.generic {indexing_maps = [#[[SPLIT]], {{.*}}} ins(%{{.*}} : tensor<1x16x8x18x16xf32>) outs(%{{.*}} : tensor<1x16x8x2x2x9x8xf32>)
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x16x8x288xf32>
// CHECK: linalg.generic {indexing_maps = [#[[PHASE]], #[[GFILTER]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x16x8x288xf32>, tensor<16x8x8x3x3xf32>) outs(%{{.*}} : tensor<1x16x8x56xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 16, 8, 7, 7] [1, 1, 1, 1, 1] : tensor<1x16x8x7x8xf32> to tensor<1x16x8x7x7xf32>
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
// Without microkernels (no kernel would take the GEMM) it stays direct.
// NOMK: remark: convolution algorithm: direct (strided grouped: no copy-free long loop)
func.func @strided_grouped(%x: tensor<1x16x8x15x15xf32>, %w: tensor<16x8x8x3x3xf32>, %o: tensor<1x16x8x7x7xf32>) -> tensor<1x16x8x7x7xf32> {
  %0 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x15x15xf32>, tensor<16x8x8x3x3xf32>) outs(%o : tensor<1x16x8x7x7xf32>) -> tensor<1x16x8x7x7xf32>
  return %0 : tensor<1x16x8x7x7xf32>
}

// -----

// Dilated, it has no phase split: direct.
// REM: remark: convolution algorithm: direct (strided grouped: no copy-free long loop)
// CHECK-LABEL: func @strided_dilated_grouped
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @strided_dilated_grouped(%x: tensor<1x4x8x15x15xf32>, %w: tensor<4x8x8x3x3xf32>, %o: tensor<1x4x8x6x6xf32>) -> tensor<1x4x8x6x6xf32> {
  %0 = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x15x15xf32>, tensor<4x8x8x3x3xf32>) outs(%o : tensor<1x4x8x6x6xf32>) -> tensor<1x4x8x6x6xf32>
  return %0 : tensor<1x4x8x6x6xf32>
}
