// Winograd F(2x2,3x3) in dlas-select-conv-algorithm: the filter transform
// at compile time, the input and output transforms as contractions with
// constant matrices marked for dlas-winograd-transforms, one batched GEMM
// over the 16 tile positions.
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="algorithm=winograd" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="microkernels=true winograd=true print=true" -verify-diagnostics -o /dev/null
// Without a target `auto` takes the 16-lane rule (see
// select-conv-algorithm-winograd-targets.mlir); `off` leaves the large
// layer flat.
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="microkernels=true winograd=off print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// OFF: remark: convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="algorithm=winograd print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED
// F(4x4,3x3): 6x6 input tiles at stride 4, 36 products, 4x4 output tiles.
// RUN: dlas-opt %s --split-input-file --dlas-select-conv-algorithm="algorithm=winograd winograd-tile=4" | FileCheck %s --check-prefix=F4

// F4-DAG: #[[IN_X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3 * 4 + d5, d4 * 4 + d6)>
// F4-LABEL: func @winograd
// 16x16 output: 4x4 tiles of 4x4; the input read as 4*4 + 2 = 18 rows.
// F4: %[[V0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<36x1x128x4x4xf32>)
// T[0][k][l] = B^T[0][k] B^T[0][l], row k = 0: 16, 0, -20, 0, 4, 0.
// F4: arith.constant dense<"0x00008041000000000000A0C1000000000000804000000000
// F4: %[[V:.*]] = linalg.generic {indexing_maps = [#[[IN_X]], #{{.*}}, #{{.*}}], {{.*}} ins(%arg0, %{{.*}} : tensor<1x128x18x18xf32>, tensor<36x6x6xf32>) outs(%[[V0]] : tensor<36x1x128x4x4xf32>) attrs = {dlas.winograd_input}
// F4: arith.constant dense_resource<dlas_winograd_filter> : tensor<36x128x128xf32>
// F4: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<36x128x128xf32>, tensor<36x1x128x16xf32>)
// F4: tensor.expand_shape %arg1 {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 128, 4, 4, 4, 4]
// A[0][0][t] = A^T[0][a] A^T[0][b] (hex f32): ones over rows and columns
// 0-4, zero in column 5.
// F4: %[[A:.*]] = arith.constant dense<"0x0000803F0000803F0000803F0000803F0000803F000000000000803F
// F4: linalg.generic {{.*}} ins(%{{.*}}, %[[A]] : tensor<36x1x128x4x4xf32>, tensor<4x4x36xf32>) outs(%{{.*}} : tensor<1x128x4x4x4x4xf32>) attrs = {dlas.winograd_output}
// F4-NOT: linalg.conv_2d_nchw_fchw
// F4-LABEL: func @winograd_bf16
// F4: ins(%arg0, %{{.*}} : tensor<1x128x18x18xbf16>, tensor<36x6x6xf32>) outs(%{{.*}} : tensor<36x1x128x4x4xf32>) attrs = {dlas.winograd_input}
// 7x7 output: 2x2 tiles of 4x4, the input padded to 10x10, the init to
// 8x8 and the result sliced back.
// F4-LABEL: func @odd_output
// F4: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// F4: tensor<1x4x10x10xf32>
// F4: tensor.pad %arg1 low[0, 0, 0, 0] high[0, 0, 1, 1]
// F4: tensor<36x1x4x2x2xf32>
// F4: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 4, 7, 7] [1, 1, 1, 1] : tensor<1x4x8x8xf32> to tensor<1x4x7x7xf32>

// CHECK-DAG: #[[IN_X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3 * 2 + d5, d4 * 2 + d6)>
// CHECK-DAG: #[[IN_T:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d6)>
// CHECK-DAG: #[[IN_V:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[GEMM_A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>
// CHECK-DAG: #[[GEMM_B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[GEMM_C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[OUT_M:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d0, d1, d2, d4)>
// CHECK-DAG: #[[OUT_A:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6)>
// CHECK-DAG: #[[OUT_Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func @winograd
// The input transform (16x16 output: 8x8 tiles): V[t, n, c, i, j] +=
// T[t, k, l] x[n, c, 2i + k, 2j + l] into zeros.
// CHECK: %[[V0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x1x128x8x8xf32>)
// CHECK: %[[V:.*]] = linalg.generic {indexing_maps = [#[[IN_X]], #[[IN_T]], #[[IN_V]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %{{.*}} : tensor<1x128x18x18xf32>, tensor<16x4x4xf32>) outs(%[[V0]] : tensor<16x1x128x8x8xf32>) attrs = {dlas.winograd_input}
// The filter transform U = G g G^T, computed at compile time.
// CHECK: %[[U:.*]] = arith.constant dense_resource<dlas_winograd_filter> : tensor<16x128x128xf32>
// CHECK: %[[VF:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0], [1], [2], [3, 4]]
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[GEMM_A]], #[[GEMM_B]], #[[GEMM_C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[U]], %[[VF]] : tensor<16x128x128xf32>, tensor<16x1x128x64xf32>)
// CHECK: %[[MT:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [16, 1, 128, 8, 8]
// The output transform, added into the init viewed as [n, f, i, p, j, q]
// (row 2i + p, column 2j + q), with A[p, q, t] = A^T[p][a] A^T[q][b]
// (t = 4a + b; p = q = 0: rows a and columns b 0-2).
// CHECK: %[[Y6:.*]] = tensor.expand_shape %arg1 {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 128, 8, 2, 8, 2]
// CHECK: %[[A:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[OUT_M]], #[[OUT_A]], #[[OUT_Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[MT]], %[[A]] : tensor<16x1x128x8x8xf32>, tensor<2x2x16xf32>) outs(%[[Y6]] : tensor<1x128x8x2x8x2xf32>) attrs = {dlas.winograd_output}
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x128x8x2x8x2xf32> into tensor<1x128x16x16xf32>
// CHECK: return %[[R]]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @winograd(%x: tensor<1x128x18x18xf32>, %o: tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x3x3xf32>
  // expected-remark @+1 {{convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x128x18x18xf32>, tensor<128x128x3x3xf32>) outs(%o : tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32>
  return %0 : tensor<1x128x16x16xf32>
}

// -----

// bf16 operands into f32 (a bf16 layer): the filter transform widens at
// compile time, the input transform reads bf16 and widens it; the GEMM and
// output transform are f32.
// CHECK-LABEL: func @winograd_bf16
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x128x18x18xbf16>, tensor<16x4x4xf32>) outs(%{{.*}} : tensor<16x1x128x8x8xf32>) attrs = {dlas.winograd_input}
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.constant dense_resource<dlas_winograd_filter> : tensor<16x128x128xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @winograd_bf16(%x: tensor<1x128x18x18xbf16>, %o: tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x3x3xbf16>
  // expected-remark @+1 {{convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x128x18x18xbf16>, tensor<128x128x3x3xbf16>) outs(%o : tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32>
  return %0 : tensor<1x128x16x16xf32>
}

// -----

// An odd output (7x7): the input and init are padded to whole 2x2 tiles
// and the result sliced back.
// CHECK-LABEL: func @odd_output
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.pad %arg1 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 4, 7, 7] [1, 1, 1, 1] : tensor<1x4x8x8xf32> to tensor<1x4x7x7xf32>
func.func @odd_output(%x: tensor<1x4x9x9xf32>, %o: tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32> {
  %w = arith.constant dense<1.0> : tensor<4x4x3x3xf32>
  // Too few channels for the cost model: flat.
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x9x9xf32>, tensor<4x4x3x3xf32>) outs(%o : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}

// -----

// Refused: a filter that is not a constant (its transform would run on
// every call); forced winograd falls back to direct and says why.
// CHECK-LABEL: func @runtime_filter
// CHECK: linalg.conv_2d_nchw_fchw
// FORCED: remark: convolution algorithm: direct (forced winograd needs a dense 3x3 stride-1 undilated convolution with a constant filter; direct instead)
func.func @runtime_filter(%x: tensor<1x128x18x18xf32>, %w: tensor<128x128x3x3xf32>, %o: tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32> {
  // expected-remark @+1 {{convolution algorithm: flat (stride 1, dense: flat implicit GEMM for the microkernel)}}
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x128x18x18xf32>, tensor<128x128x3x3xf32>) outs(%o : tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32>
  return %0 : tensor<1x128x16x16xf32>
}

// -----

// Refused: stride 2.
// FORCED: remark: convolution algorithm: direct (forced winograd needs a dense 3x3 stride-1 undilated convolution with a constant filter; direct instead)
func.func @strided(%x: tensor<1x128x17x17xf32>, %o: tensor<1x128x8x8xf32>) -> tensor<1x128x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x3x3xf32>
  // expected-remark @+1 {{convolution algorithm: flat (strided dense: flat implicit GEMM over the input's stride phases (one copy of the input, im2col makes KH*KW/(sh*sw)))}}
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x128x17x17xf32>, tensor<128x128x3x3xf32>) outs(%o : tensor<1x128x8x8xf32>) -> tensor<1x128x8x8xf32>
  return %0 : tensor<1x128x8x8xf32>
}
