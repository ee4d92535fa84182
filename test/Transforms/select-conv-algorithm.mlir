// RUN: dlas-opt %s --dlas-select-conv-algorithm --split-input-file | FileCheck %s --check-prefix=AUTO
// RUN: dlas-opt %s --dlas-select-conv-algorithm="algorithm=direct" --split-input-file | FileCheck %s --check-prefix=DIRECT
// RUN: dlas-opt %s --dlas-select-conv-algorithm="algorithm=im2col" --split-input-file | FileCheck %s --check-prefix=IM2COL
// RUN: dlas-opt %s --dlas-select-conv-algorithm="min-direct-width=4" --split-input-file | FileCheck %s --check-prefix=WIDTH
// RUN: dlas-opt %s --dlas-select-conv-algorithm="print=true" --split-input-file -verify-diagnostics -o /dev/null
// RUN: not dlas-opt %s --dlas-select-conv-algorithm="algorithm=winograd" 2>&1 | FileCheck %s --check-prefix=BAD
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
func.func @pointwise(%x: tensor<1x8x7x7xf32>, %w: tensor<16x8x1x1xf32>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  // expected-remark @+1 {{convolution algorithm: gemm (1x1 stride-1 kernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x7x7xf32>, tensor<16x8x1x1xf32>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// A narrow output (width 7 < 32) goes through im2col: patches [N, C*Kh*Kw, Ho*Wo].
// AUTO-LABEL: func @narrow
// AUTO: tensor.empty() : tensor<1x72x49xf32>
// AUTO-NOT: linalg.conv_2d_nchw_fchw
// WIDTH-LABEL: func @narrow
// WIDTH: linalg.conv_2d_nchw_fchw
func.func @narrow(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  // expected-remark @+1 {{convolution algorithm: im2col (output width 7 < 32)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// A wide output stays direct.
// AUTO-LABEL: func @wide
// AUTO: linalg.conv_2d_nchw_fchw
// IM2COL-LABEL: func @wide
// IM2COL-NOT: linalg.conv_2d_nchw_fchw
func.func @wide(%x: tensor<1x4x34x34xf32>, %w: tensor<4x4x3x3xf32>, %o: tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32> {
  // expected-remark @+1 {{convolution algorithm: direct (output width 32 >= 32)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x34x34xf32>, tensor<4x4x3x3xf32>) outs(%o : tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
  return %0 : tensor<1x4x32x32xf32>
}
