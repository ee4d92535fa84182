// RUN: dlas-opt %s --dlas-vectorizable-loop-order --split-input-file | FileCheck %s
// RUN: dlas-opt %s --dlas-vectorizable-loop-order="max-inner-reduction=0" --split-input-file | FileCheck %s --check-prefix=NOSHORT

// conv_2d_nchw_fchw: loops (n, f, oh, ow, c, kh, kw) become
// (n, f, oh, c, ow, kh, kw): output width contiguous and vectorized, the
// long channel reduction outside it, the 3x3 window (<= 7) inside it.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d2 + d5, d4 + d6)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d3, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func @conv
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction", "reduction"]}
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// With no short reductions, every reduction goes outside.
// NOSHORT-LABEL: func @conv
// NOSHORT: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]
func.func @conv(%x: tensor<1x8x8x8xf32>, %w: tensor<4x8x3x3xf32>, %o: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>) outs(%o : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// matmul: (m, n, k) becomes (m, k, n).
// CHECK-LABEL: func @matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Elementwise ops stay as they are, and so do row reductions, whose input is
// contiguous along the reduced loop.
// CHECK-LABEL: func @unchanged
// CHECK: linalg.add
// CHECK: linalg.reduce
func.func @unchanged(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %0 = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%c : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0, %1 : tensor<4x8xf32>, tensor<4xf32>
}
