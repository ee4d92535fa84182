// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func @conv_bias
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 2] high[0, 0, 3, 4]
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x5x6xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %arg1 : tensor<1x4x13x16xf32>, tensor<8x4x3x3xf32>) outs(%[[INIT]] : tensor<1x8x5x6xf32>)
// CHECK-NOT: nn.
func.func @conv_bias(%x: tensor<1x4x9x10xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x5x6xf32> {
  %0 = nn.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 2, 3, 4>, dilations = array<i64: 2, 2>} : (tensor<1x4x9x10xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x5x6xf32>
  return %0 : tensor<1x8x5x6xf32>
}

// -----

// Depthwise: filter C x 1 x Kh x Kw collapses to C x Kh x Kw.
// CHECK-LABEL: func @depthwise
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%{{.*}}, %[[F]] : tensor<1x8x11x11xf32>, tensor<8x3x3xf32>) outs(%[[Z]]
func.func @depthwise(%x: tensor<1x8x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32> {
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 8 : i64} : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32>
  return %0 : tensor<1x8x9x9xf32>
}

// -----

// Grouped: one named op whatever the group count, on expanded operands.
// CHECK-LABEL: func @grouped
// CHECK-DAG: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 4, 2, 6, 6] : tensor<?x8x6x6xf32> into tensor<?x4x2x6x6xf32>
// CHECK-DAG: %[[W:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [4, 3, 2, 1, 1] : tensor<12x2x1x1xf32> into tensor<4x3x2x1x1xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[X]], %[[W]] : tensor<?x4x2x6x6xf32>, tensor<4x3x2x1x1xf32>)
// CHECK: tensor.collapse_shape %[[C]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x4x3x6x6xf32> into tensor<?x12x6x6xf32>
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
func.func @grouped(%x: tensor<?x8x6x6xf32>, %w: tensor<12x2x1x1xf32>) -> tensor<?x12x6x6xf32> {
  %0 = nn.conv2d %x, %w {groups = 4 : i64} : (tensor<?x8x6x6xf32>, tensor<12x2x1x1xf32>) -> tensor<?x12x6x6xf32>
  return %0 : tensor<?x12x6x6xf32>
}

// -----

// NHWC runs the NCHW kernel between transposes.
// CHECK-LABEL: func @nhwc
// CHECK: linalg.transpose ins(%arg0 : tensor<1x6x6x4xf32>) outs(%{{.*}} : tensor<1x4x6x6xf32>) permutation = [0, 3, 1, 2]
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x8x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>) permutation = [0, 2, 3, 1]
func.func @nhwc(%x: tensor<1x6x6x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x4x8xf32> {
  %0 = nn.conv2d %x, %w {layout = #nn<layout nhwc>} : (tensor<1x6x6x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// Quantized: i8 operands accumulate into i32.
// CHECK-LABEL: func @int8
// CHECK: arith.constant 0 : i32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x5x5xi8>, tensor<2x4x1x1xi8>) outs(%{{.*}} : tensor<1x2x5x5xi32>)
func.func @int8(%x: tensor<1x4x5x5xi8>, %w: tensor<2x4x1x1xi8>) -> tensor<1x2x5x5xi32> {
  %0 = nn.conv2d %x, %w : (tensor<1x4x5x5xi8>, tensor<2x4x1x1xi8>) -> tensor<1x2x5x5xi32>
  return %0 : tensor<1x2x5x5xi32>
}

// -----

// Transposed: zero insertion by a strided insert_slice, a flipped and
// regrouped filter, then a stride-1 grouped convolution.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 2 + d2, d1, -d3 + 2, -d4 + 2)>
// CHECK-LABEL: func @conv_transpose
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<?x4x12x12xf32>
// CHECK: %[[S:.*]] = tensor.insert_slice %arg0 into %[[Z]][0, 0, 1, 1] [%{{.*}}, 4, 5, 5] [1, 1, 2, 2]
// CHECK: %[[W:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]} ins(%arg1 : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<2x3x2x3x3xf32>)
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[W]] : tensor<?x2x2x12x12xf32>, tensor<2x3x2x3x3xf32>)
func.func @conv_transpose(%x: tensor<?x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x6x10x10xf32> {
  %0 = nn.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<?x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x6x10x10xf32>
  return %0 : tensor<?x6x10x10xf32>
}

// -----

// Padding larger than the dilated kernel crops instead of padding.
// CHECK-LABEL: func @conv_transpose_crop
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x3x3xf32> into tensor<1x2x5x5xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x3x3xf32>
func.func @conv_transpose_crop(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %0 = nn.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}


// -----

// nn.conv3d: the input padded along D; per kernel depth, the depths it
// reads (offset kd, step stride_d) sliced out and gathered into a fresh
// N x D_out x C x H x W tensor, folded into the batch of one 2-D
// convolution whose filter is that depth's slice of the constant (a
// constant again: [1, 3] then [2, 4]); the bias goes with the first; the
// shares summed and the result made NCDHW again. Groups of one channel are
// depthwise, as for nn.conv2d.
// CHECK-DAG: #[[GATHER:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1 * 2, d3, d4)>
// CHECK-DAG: #[[ID5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func @conv3d
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 0, 0] high[0, 0, 0, 0, 0]
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0, 0] [2, 2, 5, 4, 4] [1, 1, 1, 1, 1] : tensor<2x2x6x4x4xf32> to tensor<2x2x5x4x4xf32>
// CHECK: %[[G0:.*]] = linalg.generic {indexing_maps = [#[[GATHER]], #[[ID5]]], {{.*}} ins(%[[S0]] : tensor<2x2x5x4x4xf32>) outs(%{{.*}} : tensor<2x3x2x4x4xf32>)
// CHECK: %[[I0:.*]] = tensor.collapse_shape %[[G0]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x3x2x4x4xf32> into tensor<6x2x4x4xf32>
// CHECK: arith.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%arg1 : tensor<2xf32>)
// CHECK: %[[Y0:.*]] = linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%[[I0]], %{{.*}}) outs(%[[B]] : tensor<6x2x4x4xf32>)
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[P]][0, 0, 1, 0, 0] [2, 2, 5, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[G1:.*]] = linalg.generic {indexing_maps = [#[[GATHER]], #[[ID5]]], {{.*}} ins(%[[S1]] :
// CHECK: arith.constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[Y1:.*]] = linalg.depthwise_conv_2d_nchw_chw {{.*}} outs(%[[Z]] : tensor<6x2x4x4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[Y0]], %[[Y1]] :
// CHECK: arith.addf
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 3, 2, 4, 4]
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[E]] : tensor<2x3x2x4x4xf32>) outs(%{{.*}} : tensor<2x2x3x4x4xf32>) permutation = [0, 2, 1, 3, 4]
// CHECK: return %[[R]]
// CHECK-NOT: nn.
func.func @conv3d(%x: tensor<2x2x5x4x4xf32>, %b: tensor<2xf32>) -> tensor<2x2x3x4x4xf32> {
  %w = arith.constant dense<[[[[[1.0]], [[2.0]]]], [[[[3.0]], [[4.0]]]]]> : tensor<2x1x2x1x1xf32>
  %y = nn.conv3d %x, %w, %b {strides = array<i64: 2, 1, 1>, padding = array<i64: 1, 0, 0, 0, 0, 0>, groups = 2 : i64} : (tensor<2x2x5x4x4xf32>, tensor<2x1x2x1x1xf32>, tensor<2xf32>) -> tensor<2x2x3x4x4xf32>
  return %y : tensor<2x2x3x4x4xf32>
}

// -----

// A filter that is no constant: its depth-major copy is sliced at run time.
// CHECK-LABEL: func @conv3d_filter_argument
// CHECK: %[[WT:.*]] = linalg.transpose ins(%arg1 : tensor<4x3x2x3x3xf32>) outs(%{{.*}} : tensor<2x4x3x3x3xf32>) permutation = [2, 0, 1, 3, 4]
// CHECK: tensor.extract_slice %[[WT]][0, 0, 0, 0, 0] [1, 4, 3, 3, 3] [1, 1, 1, 1, 1] : tensor<2x4x3x3x3xf32> to tensor<4x3x3x3xf32>
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: tensor.extract_slice %[[WT]][1, 0, 0, 0, 0] [1, 4, 3, 3, 3] [1, 1, 1, 1, 1] : tensor<2x4x3x3x3xf32> to tensor<4x3x3x3xf32>
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: nn.
func.func @conv3d_filter_argument(%x: tensor<?x3x4x8x8xf32>, %w: tensor<4x3x2x3x3xf32>) -> tensor<?x4x3x6x6xf32> {
  %y = nn.conv3d %x, %w : (tensor<?x3x4x8x8xf32>, tensor<4x3x2x3x3xf32>) -> tensor<?x4x3x6x6xf32>
  return %y : tensor<?x4x3x6x6xf32>
}
