// With microkernels (the CPU pipeline's default), every dense or grouped
// stride-1 convolution goes flat, an implicit GEMM (per group), however
// large its plane.
// RUN: dlas-opt %s --dlas-select-conv-algorithm="microkernels=true print=true" -verify-diagnostics -o /dev/null
// RUN: dlas-opt %s --dlas-select-conv-algorithm="print=true l1-cache-bytes=16384" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: dlas-opt %s --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=COMPACT
// RUN: dlas-opt %s --dlas-select-conv-algorithm="microkernels=true compact-flat-min-width=64" | FileCheck %s --check-prefix=PADDED
// Without AVX-512 masked loads are dear, but rows of whole vectors (56 is
// seven 8-lane vectors) need none: compact; rows of 28 stay padded.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefixes=COMPACT,V3ODD
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=COMPACT
// LOOPS: convolution algorithm: im2col (stride 1, output plane {{[0-9]+}} B too large for L1: im2col)

// Rows of at least 16 outputs go compact: output p = oh * 56 + ow reads
// input p + (p floordiv 56) * 2 + tap, and the output needs no padding
// or compaction.
// COMPACT-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + (d2 floordiv 56) * 2 + d4 * 58 + d5)>
// COMPACT-DAG: #[[GIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d3 + (d3 floordiv 32) * 2 + d5 * 34 + d6)>
// COMPACT-LABEL: func @large_plane
// COMPACT: tensor.collapse_shape %arg2 {{.*}} into tensor<1x8x3136xf32>
// COMPACT: linalg.generic {indexing_maps = [#[[IN]], {{.*}} ins(%{{.*}}, %arg1 : tensor<1x8x3364xf32>, tensor<8x8x3x3xf32>) outs(%{{.*}} : tensor<1x8x3136xf32>)
// COMPACT: tensor.expand_shape %{{.*}} output_shape [1, 8, 56, 56] : tensor<1x8x3136xf32> into tensor<1x8x56x56xf32>
// COMPACT-NOT: tensor.extract_slice
// COMPACT-LABEL: func @grouped
// COMPACT: linalg.generic {indexing_maps = [#[[GIN]]
// Narrower than the threshold: the padded-width form (OH * Wp outputs).
// PADDED-LABEL: func @large_plane
// PADDED: tensor.pad %arg2 low[0, 0, 0, 0] high[0, 0, 0, 2]
// PADDED: outs(%{{.*}} : tensor<1x8x3248xf32>)
// PADDED: tensor.extract_slice

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

// V3ODD-LABEL: func @rows_of_28
// V3ODD: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 0]
// V3ODD: tensor.pad %arg2 low[0, 0, 0, 0] high[0, 0, 0, 2]
// V3ODD: tensor.extract_slice
func.func @rows_of_28(%x: tensor<1x8x30x30xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x28x28xf32>) -> tensor<1x8x28x28xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x30x30xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x28x28xf32>) -> tensor<1x8x28x28xf32>
  return %0 : tensor<1x8x28x28xf32>
}

// Rows of 8 and 4 (a half and a quarter of a 16-lane vector) are compact on
// AVX-512 whatever the threshold: each vector covers whole rows. Rows of 2
// (8 rows a vector) and 12 (a vector straddles rows) keep the padded
// width; on x86-64-v3 (no cheap masked loads) rows of 4 stay padded and
// rows of 8 are whole vectors.
// ROWS-LABEL: func @rows_of_8
// ROWS-NOT: tensor.extract_slice
// ROWS: outs(%{{.*}} : tensor<1x8x64xf32>)
// ROWS-LABEL: func @rows_of_4
// ROWS-NOT: tensor.extract_slice
// ROWS: outs(%{{.*}} : tensor<1x8x16xf32>)
// ROWS-LABEL: func @rows_of_2
// ROWS: outs(%{{.*}} : tensor<1x8x8xf32>)
// ROWS: tensor.extract_slice
// ROWS-LABEL: func @rows_of_12
// ROWS: outs(%{{.*}} : tensor<1x8x168xf32>)
// ROWS: tensor.extract_slice
// V3ROWS-LABEL: func @rows_of_8
// V3ROWS-NOT: tensor.extract_slice
// V3ROWS: outs(%{{.*}} : tensor<1x8x64xf32>)
// V3ROWS-LABEL: func @rows_of_4
// V3ROWS: outs(%{{.*}} : tensor<1x8x24xf32>)
// V3ROWS: tensor.extract_slice
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true compact-flat-min-width=64" | FileCheck %s --check-prefix=ROWS
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=V3ROWS
func.func @rows_of_8(%x: tensor<1x8x10x10xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}
func.func @rows_of_4(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}
func.func @rows_of_2(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  return %0 : tensor<1x8x2x2xf32>
}
func.func @rows_of_12(%x: tensor<1x8x14x14xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x14x14xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32>
  return %0 : tensor<1x8x12x12xf32>
}
