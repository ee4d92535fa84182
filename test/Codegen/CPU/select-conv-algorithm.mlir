// RUN: dlas-opt %s --dlas-select-conv-algorithm --split-input-file | FileCheck %s --check-prefix=AUTO
// RUN: dlas-opt %s --dlas-select-conv-algorithm="algorithm=direct" --split-input-file | FileCheck %s --check-prefix=DIRECT
// RUN: dlas-opt %s --dlas-select-conv-algorithm="algorithm=im2col" --split-input-file | FileCheck %s --check-prefix=IM2COL
// RUN: dlas-opt %s --dlas-select-conv-algorithm="print=true" --split-input-file -verify-diagnostics -o /dev/null
// RUN: dlas-opt %s --dlas-select-conv-algorithm="algorithm=flat print=true" --split-input-file 2>&1 | FileCheck %s --check-prefix=FORCEFLAT
// RUN: dlas-opt %s --dlas-select-conv-algorithm="algorithm=flat print=true" --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLATREMARKS
// RUN: dlas-opt %s --dlas-select-conv-algorithm="l1-cache-bytes=1000000 print=true" --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIGL1
// BIGL1: remark: convolution algorithm: flat (stride 1, output plane 51072 B
// RUN: not dlas-opt %s --dlas-select-conv-algorithm="algorithm=fft" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error

// 1x1 stride 1: a GEMM on collapsed views, no copy.
// AUTO-LABEL: func @pointwise
// AUTO: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : tensor<1x8x7x7xf32> into tensor<1x8x49xf32>
// AUTO: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<16x8x1x1xf32> into tensor<16x8xf32>
// AUTO: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[W]], %[[X]] : tensor<16x8xf32>, tensor<1x8x49xf32>)
// AUTO: tensor.expand_shape {{.*}} into tensor<1x16x7x7xf32>
// DIRECT-LABEL: func @pointwise
// DIRECT: linalg.conv_2d_nchw_fchw
// IM2COL-LABEL: func @pointwise
// IM2COL: tensor<1x8x49xf32>
// IM2COL: linalg.generic
// FORCEFLAT: remark: convolution algorithm: flat (forced)
func.func @pointwise(%x: tensor<1x8x7x7xf32>, %w: tensor<16x8x1x1xf32>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  // expected-remark @+1 {{convolution algorithm: gemm (1x1 kernel: a GEMM without copies)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x7x7xf32>, tensor<16x8x1x1xf32>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// Stride 1: the flattened spatial domain. One zero row below the 9x9 input,
// the output widened to 9 columns, taps at p + 9 * kh + kw (dilation 1).
// AUTO-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + d4 * 9 + d5)>
// AUTO-LABEL: func @stride1
// AUTO: %[[PX:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 0]
// AUTO: %[[X:.*]] = tensor.collapse_shape %[[PX]] {{\[\[}}0], [1], [2, 3]] : tensor<1x8x10x9xf32> into tensor<1x8x90xf32>
// AUTO: %[[PO:.*]] = tensor.pad %arg2 low[0, 0, 0, 0] high[0, 0, 0, 2]
// AUTO: %[[O:.*]] = tensor.collapse_shape %[[PO]] {{.*}} : tensor<1x16x7x9xf32> into tensor<1x16x63xf32>
// AUTO: %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], {{.*}}]{{.*}} ins(%[[X]], %arg1 : tensor<1x8x90xf32>, tensor<16x8x3x3xf32>) outs(%[[O]] : tensor<1x16x63xf32>)
// AUTO: %[[E:.*]] = tensor.expand_shape %[[G]] {{.*}} into tensor<1x16x7x9xf32>
// AUTO: tensor.extract_slice %[[E]][0, 0, 0, 0] [1, 16, 7, 7] [1, 1, 1, 1]
// DIRECT-LABEL: func @stride1
// DIRECT: linalg.conv_2d_nchw_fchw
func.func @stride1(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, output plane 252 B fits a third of L1: innermost loop over Ho*Wp, no copy)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// Strided dense: im2col patches P[N, C*Kh*Kw, Ho, Wo], the (c, kh, kw) row
// index split by div/mod of the outer loop only, collapsed to the GEMM's
// [N, C*Kh*Kw, Ho*Wo]; the copy is marked with its window (KH, KW,
// strides, dilations) for dlas-vectorize-row-copies.
// AUTO-DAG: #[[PATCH:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 9, d2 * 2 + (d1 mod 9) floordiv 3, d3 * 2 + d1 mod 3)>
// AUTO-LABEL: func @strided
// AUTO: tensor.empty() : tensor<1x72x4x4xf32>
// AUTO: linalg.generic {indexing_maps = [#[[PATCH]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// AUTO-SAME: dlas.im2col = array<i64: 3, 3, 2, 2, 1, 1>
// AUTO: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x72x4x4xf32> into tensor<1x72x16xf32>
// AUTO: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x72xf32>, tensor<1x72x16xf32>)
// AUTO-NOT: linalg.conv_2d_nchw_fchw
// Forced flat splits a strided dense convolution's padded input into its
// 2x2 stride phases Q[n, c, ph, pw, i, j] = X[n, c, 2i + ph, 2j + pw]
// (Hq = OH + 1 + 1 = 6 rows, one for the flat overrun, Wq = OW + 1 = 5
// columns: the 9x9 input is padded to 12x10),
// and tap (kh, kw) reads phase (kh mod 2, kw mod 2) at
// p + (kh floordiv 2) * Wq + kw floordiv 2 of the phases laid end to end.
// FORCEFLAT: remark: convolution algorithm: flat (forced)
// FORCEFLAT-DAG: #[[SPLIT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
// FORCEFLAT-DAG: #[[PHASE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + ((d4 mod 2) * 2 + d5 mod 2) * 30 + (d4 floordiv 2) * 5 + d5 floordiv 2)>
// FORCEFLAT-LABEL: func @strided
// FORCEFLAT: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 3, 1]
// FORCEFLAT: linalg.generic {indexing_maps = [#[[SPLIT]], {{.*}}} ins(%{{.*}} : tensor<1x8x12x10xf32>) outs(%{{.*}} : tensor<1x8x2x2x6x5xf32>)
// FORCEFLAT: tensor.collapse_shape {{.*}} into tensor<1x8x120xf32>
// FORCEFLAT: linalg.generic {indexing_maps = [#[[PHASE]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x120xf32>, tensor<16x8x3x3xf32>) outs(%{{.*}} : tensor<1x16x20xf32>)
// FORCEFLAT: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x5xf32> to tensor<1x16x4x4xf32>
func.func @strided(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-remark @+1 {{convolution algorithm: im2col (strided: im2col makes the innermost loop Ho*Wo)}}
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Grouped and depthwise stride-1 convolutions go flat too; strided ones
// stay direct; dilation scales the tap offsets (2 * 12 per row, 2 per column).
// AUTO-DAG: #[[GIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d3 + d5 * 24 + d6 * 2)>
// AUTO-LABEL: func @grouped_depthwise
// AUTO: linalg.generic {indexing_maps = [#[[GIN]]
// AUTO: linalg.generic {{.*}} ins(%{{.*}}, %arg4 : tensor<1x4x169xf32>, tensor<4x3x3xf32>)
// AUTO: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @grouped_depthwise(%x: tensor<1x2x2x12x12xf32>, %w: tensor<2x3x2x3x3xf32>, %o: tensor<1x2x3x8x8xf32>,
                             %dx: tensor<1x4x12x13xf32>, %dw: tensor<4x3x3xf32>, %do: tensor<1x4x10x11xf32>,
                             %so: tensor<1x4x5x6xf32>) -> (tensor<1x2x3x8x8xf32>, tensor<1x4x10x11xf32>, tensor<1x4x5x6xf32>) {
  // expected-remark @+1 {{convolution algorithm: flat}}
  %0 = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x2x12x12xf32>, tensor<2x3x2x3x3xf32>) outs(%o : tensor<1x2x3x8x8xf32>) -> tensor<1x2x3x8x8xf32>
  // expected-remark @+1 {{convolution algorithm: flat}}
  %1 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%dx, %dw : tensor<1x4x12x13xf32>, tensor<4x3x3xf32>) outs(%do : tensor<1x4x10x11xf32>) -> tensor<1x4x10x11xf32>
  // FLATREMARKS: remark: convolution algorithm: direct (forced flat needs stride 1, or a dense or grouped undilated kernel for its phase split; direct instead)
  // expected-remark @+1 {{convolution algorithm: direct (strided depthwise: no copy-free long loop)}}
  %2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%dx, %dw : tensor<1x4x12x13xf32>, tensor<4x3x3xf32>) outs(%so : tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  return %0, %1, %2 : tensor<1x2x3x8x8xf32>, tensor<1x4x10x11xf32>, tensor<1x4x5x6xf32>
}

// -----

// Wide depthwise rows stay direct. A dense 112x112 output plane (51 KB) does
// not fit a third of L1 (the flat loop would stream it once per tap): im2col;
// with a larger L1 declared, flat.
// AUTO-LABEL: func @large_plane
// AUTO: linalg.depthwise_conv_2d_nchw_chw
// AUTO-NOT: linalg.conv_2d_nchw_fchw
func.func @large_plane(%x: tensor<1x2x114x114xf32>, %w: tensor<2x3x3xf32>, %o: tensor<1x2x112x112xf32>,
                       %dw: tensor<2x2x3x3xf32>) -> (tensor<1x2x112x112xf32>, tensor<1x2x112x112xf32>) {
  // expected-remark @+1 {{convolution algorithm: direct (stride 1, output width 112 >= 32: direct rows)}}
  %0 = linalg.depthwise_conv_2d_nchw_chw ins(%x, %w : tensor<1x2x114x114xf32>, tensor<2x3x3xf32>) outs(%o : tensor<1x2x112x112xf32>) -> tensor<1x2x112x112xf32>
  // expected-remark @+1 {{convolution algorithm: im2col (stride 1, output plane 51072 B too large for L1: im2col)}}
  %1 = linalg.conv_2d_nchw_fchw ins(%x, %dw : tensor<1x2x114x114xf32>, tensor<2x2x3x3xf32>) outs(%o : tensor<1x2x112x112xf32>) -> tensor<1x2x112x112xf32>
  return %0, %1 : tensor<1x2x112x112xf32>, tensor<1x2x112x112xf32>
}

// -----

// A strided 1x1 kernel reads every second position: the input is
// subsampled (a strided extract_slice), then it is a GEMM.
// AUTO-LABEL: func @pointwise_strided
// AUTO: %[[S:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 8, 4, 4] [1, 1, 2, 2] : tensor<1x8x7x7xf32> to tensor<1x8x4x4xf32>
// AUTO: tensor.collapse_shape %[[S]] {{\[\[}}0], [1], [2, 3]] : tensor<1x8x4x4xf32> into tensor<1x8x16xf32>
// AUTO: linalg.generic
func.func @pointwise_strided(%x: tensor<1x8x7x7xf32>, %w: tensor<16x8x1x1xf32>, %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-remark @+1 {{convolution algorithm: gemm (strided 1x1 kernel: subsampled input, GEMM)}}
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x7x7xf32>, tensor<16x8x1x1xf32>) outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}
