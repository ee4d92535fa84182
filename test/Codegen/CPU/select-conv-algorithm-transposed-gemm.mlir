// dlas-select-conv-algorithm{transposed-gemm}: a batch-1 float 1x1 or
// im2col convolution with a constant filter whose output plane fills the
// target's vectors at least 15% worse than its channels (a multiple of the
// lanes) runs as Y^T[P, F] = X^T[P, K] x W^T[K, F]: the filter transposed
// at compile time, the bias broadcast rebuilt as the init, the elementwise
// ops after it moved before the copy back to NCHW. Pinned targets: 16
// lanes (x86-64-v4: 7x7 = 49 of 64 lanes) and 8 (x86-64-v3: 49 of 56 is
// under 15%, 3x3 = 9 of 16 is not).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true transposed-gemm=false" | FileCheck %s --check-prefix=OFF
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=V3
// Without microkernels (the generic loops), nothing changes.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="algorithm=gemm" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func @pointwise_7x7
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x7x7xf32>, %[[B:.*]]: tensor<16xf32>)
// The filter [16, 2] transposed: row c holds every channel's weight c.
// CHECK: %[[WT:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 2.000000e+00, 4.000000e+00{{.*}}], [1.000000e+00, 3.000000e+00{{.*}}]]> : tensor<2x16xf32>
// CHECK: %[[XT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x2x49xf32> into tensor<2x49xf32>
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%[[B]] : tensor<16xf32>) outs(%{{.*}} : tensor<49x16xf32>) dimensions = [0]
// CHECK: %[[YT:.*]] = linalg.generic {indexing_maps = [#[[A:.*]], #[[BM:.*]], #[[C:.*]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XT]], %[[WT]] : tensor<2x49xf32>, tensor<2x16xf32>) outs(%[[INIT]] : tensor<49x16xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[YT]] : tensor<49x16xf32>)
// CHECK: arith.maximumf
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[RELU]] {{\[\[}}0, 1], [2]] output_shape [7, 7, 16]
// CHECK: %[[NCHW:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<7x7x16xf32>) outs(%{{.*}} : tensor<1x16x7x7xf32>)
// CHECK: return %[[NCHW]]
// OFF-LABEL: func @pointwise_7x7
// OFF-NOT: tensor<49x16xf32>
// OFF: return
// V3-LABEL: func @pointwise_7x7
// V3-NOT: tensor<49x16xf32>
// V3: return
func.func @pointwise_7x7(%x: tensor<1x2x7x7xf32>, %b: tensor<16xf32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<[[[[0.0]], [[1.0]]], [[[2.0]], [[3.0]]], [[[4.0]], [[5.0]]], [[[6.0]], [[7.0]]], [[[8.0]], [[9.0]]], [[[10.0]], [[11.0]]], [[[12.0]], [[13.0]]], [[[14.0]], [[15.0]]], [[[16.0]], [[17.0]]], [[[18.0]], [[19.0]]], [[[20.0]], [[21.0]]], [[[22.0]], [[23.0]]], [[[24.0]], [[25.0]]], [[[26.0]], [[27.0]]], [[[28.0]], [[29.0]]], [[[30.0]], [[31.0]]]]> : tensor<16x2x1x1xf32>
  %e = tensor.empty() : tensor<1x16x7x7xf32>
  %init = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<1x16x7x7xf32>) dimensions = [0, 2, 3]
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x2x7x7xf32>, tensor<16x2x1x1xf32>) outs(%init : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %e2 = tensor.empty() : tensor<1x16x7x7xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x16x7x7xf32>) outs(%e2 : tensor<1x16x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<1x16x7x7xf32>
  return %1 : tensor<1x16x7x7xf32>
}

// -----

// A 3x3 plane (9 positions) goes transposed on 8 lanes too; the add of
// another tensor cannot move and stays after the copy back.
// CHECK-LABEL: func @pointwise_3x3_add
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<9x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3x3x16xf32>) outs(%{{.*}} : tensor<1x16x3x3xf32>)
// CHECK: arith.addf
// V3-LABEL: func @pointwise_3x3_add
// V3: tensor<9x16xf32>
func.func @pointwise_3x3_add(%x: tensor<1x4x3x3xf32>, %r: tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %w = arith.constant dense<0.5> : tensor<16x4x1x1xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x3x3xf32>
  %init = linalg.fill ins(%c0 : f32) outs(%e : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x3x3xf32>, tensor<16x4x1x1xf32>) outs(%init : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  %e2 = tensor.empty() : tensor<1x16x3x3xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %r : tensor<1x16x3x3xf32>, tensor<1x16x3x3xf32>) outs(%e2 : tensor<1x16x3x3xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x16x3x3xf32>
  return %1 : tensor<1x16x3x3xf32>
}

// -----

// bf16 3x3 on 7x7 (im2col): the patches [144, 49] are the transposed
// product's X^T.
// CHECK-LABEL: func @bf16_im2col_7x7
// CHECK: arith.constant dense<5.000000e-01> : tensor<144x16xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<144x49xbf16>, tensor<144x16xbf16>) outs(%{{.*}} : tensor<49x16xf32>)
func.func @bf16_im2col_7x7(%x: tensor<1x16x9x9xbf16>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<16x16x3x3xbf16>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x16x9x9xbf16>, tensor<16x16x3x3xbf16>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// Refused: a batch of two, a 14x14 plane (196 of 208 lanes), channels not
// a multiple of the lanes, a filter that is not a constant, int8.
// CHECK-LABEL: func @refused
// CHECK-NOT: tensor<98x16xf32>
// CHECK-NOT: tensor<196x16xf32>
// CHECK-NOT: tensor<49x24xf32>
// CHECK-NOT: tensor<49x16xf32>
// CHECK-NOT: tensor<49x16xi32>
// CHECK: return
func.func @refused(%x2: tensor<2x4x7x7xf32>, %o2: tensor<2x16x7x7xf32>,
                   %x14: tensor<1x4x14x14xf32>, %o14: tensor<1x16x14x14xf32>,
                   %x: tensor<1x4x7x7xf32>, %o24: tensor<1x24x7x7xf32>,
                   %wa: tensor<16x4x1x1xf32>, %o: tensor<1x16x7x7xf32>,
                   %x8: tensor<1x4x7x7xi8>, %o8: tensor<1x16x7x7xi32>)
    -> (tensor<2x16x7x7xf32>, tensor<1x16x14x14xf32>, tensor<1x24x7x7xf32>, tensor<1x16x7x7xf32>, tensor<1x16x7x7xi32>) {
  %w = arith.constant dense<0.5> : tensor<16x4x1x1xf32>
  %w24 = arith.constant dense<0.5> : tensor<24x4x1x1xf32>
  %w8 = arith.constant dense<3> : tensor<16x4x1x1xi8>
  %0 = linalg.conv_2d_nchw_fchw ins(%x2, %w : tensor<2x4x7x7xf32>, tensor<16x4x1x1xf32>) outs(%o2 : tensor<2x16x7x7xf32>) -> tensor<2x16x7x7xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%x14, %w : tensor<1x4x14x14xf32>, tensor<16x4x1x1xf32>) outs(%o14 : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %2 = linalg.conv_2d_nchw_fchw ins(%x, %w24 : tensor<1x4x7x7xf32>, tensor<24x4x1x1xf32>) outs(%o24 : tensor<1x24x7x7xf32>) -> tensor<1x24x7x7xf32>
  %3 = linalg.conv_2d_nchw_fchw ins(%x, %wa : tensor<1x4x7x7xf32>, tensor<16x4x1x1xf32>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %4 = linalg.conv_2d_nchw_fchw ins(%x8, %w8 : tensor<1x4x7x7xi8>, tensor<16x4x1x1xi8>) outs(%o8 : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  return %0, %1, %2, %3, %4 : tensor<2x16x7x7xf32>, tensor<1x16x14x14xf32>, tensor<1x24x7x7xf32>, tensor<1x16x7x7xf32>, tensor<1x16x7x7xi32>
}

// -----

// On AMX tiles (16 x 16) the rows would be as poorly filled: refused.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=sapphirerapids --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=AMX
// AMX-LABEL: func @bf16_amx
// AMX-NOT: tensor<49x16xf32>
// AMX: return
func.func @bf16_amx(%x: tensor<1x32x7x7xbf16>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<16x32x1x1xbf16>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x32x7x7xbf16>, tensor<16x32x1x1xbf16>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// An epilogue whose body reads a value defined after the convolution
// stays after the copy back (its transposed copy would go before that
// value); the convolution still runs transposed.
// CHECK-LABEL: func @late_capture
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<49x16xf32>)
// CHECK: %[[NCHW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<7x7x16xf32>) outs(%{{.*}} : tensor<1x16x7x7xf32>)
// CHECK: %[[BOUND:.*]] = arith.constant 6.0
// CHECK: linalg.generic {{.*}} ins(%[[NCHW]] : tensor<1x16x7x7xf32>)
// CHECK: arith.minimumf %{{.*}}, %[[BOUND]]
func.func @late_capture(%x: tensor<1x4x7x7xf32>, %o: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<16x4x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x7x7xf32>, tensor<16x4x1x1xf32>) outs(%o : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %bound = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<1x16x7x7xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x16x7x7xf32>) outs(%e : tensor<1x16x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %in, %bound : f32
    linalg.yield %m : f32
  } -> tensor<1x16x7x7xf32>
  return %1 : tensor<1x16x7x7xf32>
}
