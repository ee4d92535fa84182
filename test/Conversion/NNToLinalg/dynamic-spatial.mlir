// Window ops (convolutions, pools) and resizes of NCHW tensors whose
// spatial sizes are known at run time only (an ONNX model exported with
// symbolic image sizes, compiled once for any size), and slices to sizes
// read at run time (a symbolic sequence length).
// RUN: dlas-opt %s --convert-nn-to-linalg -canonicalize -cse --split-input-file | FileCheck %s

// Spatial sizes known at run time only: each output size is
// (padded size - dilation * (k - 1) - 1) / stride + 1, after a run-time check
// that the window fits (not the padded input's size, as an elementwise
// op's result would take).
// CHECK-LABEL: func @conv_dynamic_spatial
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[N:.*]] = tensor.dim %[[PAD]], %c0
// CHECK: %[[H:.*]] = tensor.dim %[[PAD]], %[[C2]]
// CHECK: %[[HFITS:.*]] = arith.cmpi sge, %[[H]], %[[C3]]
// CHECK: cf.assert %[[HFITS]], "nn.conv2d: the padded input is smaller than the window"
// CHECK: %[[HSPAN:.*]] = arith.subi %[[H]], %[[C3]]
// CHECK: %[[HSTEPS:.*]] = arith.divui %[[HSPAN]], %[[C2]]
// CHECK: %[[OH:.*]] = arith.addi %[[HSTEPS]], %c1
// CHECK: %[[W:.*]] = tensor.dim %[[PAD]], %[[C3]]
// CHECK: arith.cmpi sge, %[[W]], %[[C5]]
// CHECK: %[[WSPAN:.*]] = arith.subi %[[W]], %[[C5]]
// CHECK: %[[WSTEPS:.*]] = arith.divui %[[WSPAN]], %[[C2]]
// CHECK: %[[OW:.*]] = arith.addi %[[WSTEPS]], %c1
// CHECK: tensor.empty(%[[N]], %[[OH]], %[[OW]]) : tensor<?x8x?x?xf32>
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %arg1
func.func @conv_dynamic_spatial(%x: tensor<?x4x?x?xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %0 = nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 2>} : (tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// -----

// A transposed convolution of a run-time height: the zero-inserted,
// re-padded input is (H - 1) * 2 + 1 + 2 * (3 - 1 - 1) = 2H + 1 high and
// the result 2H - 1.
// CHECK-LABEL: func @conv_transpose_dynamic_spatial
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[H:.*]] = tensor.dim %arg0, %[[C2]] : tensor<1x4x?x5xf32>
// CHECK: %[[TWOH:.*]] = arith.muli %[[H]], %[[C2]]
// CHECK: %[[FULLH:.*]] = arith.addi %[[TWOH]], %c1
// CHECK: %[[FULL:.*]] = tensor.empty(%[[FULLH]]) : tensor<1x4x?x11xf32>
// CHECK: %[[ZEROS:.*]] = linalg.fill {{.*}} outs(%[[FULL]]
// CHECK: tensor.insert_slice %arg0 into %[[ZEROS]][0, 0, 1, 1] [1, 4, %[[H]], 5] [1, 1, 2, 2]
// CHECK: %[[OH:.*]] = arith.addi %[[TWOH]], %c-1
// CHECK: tensor.empty(%[[OH]]) : tensor<1x2x?x9xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @conv_transpose_dynamic_spatial(%x: tensor<1x4x?x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x?x9xf32> {
  %0 = nn.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x?x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x?x9xf32>
  return %0 : tensor<1x2x?x9xf32>
}

// -----

// Ceil mode at run time: (H + 2 - 3 + 1) / 2 + 1 windows, one fewer where
// the last would start in the bottom padding; the input is padded by the
// most a ceil-mode window can need (pad + stride - 1).
// CHECK-LABEL: func @max_pool_ceil_dynamic
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: cf.assert %{{.*}}, "nn.max_pool2d: the padded input is smaller than the window"
// CHECK: %[[STEPS:.*]] = arith.divui %[[H]], %c2
// CHECK: %[[CEIL:.*]] = arith.addi %[[STEPS]], %c1
// CHECK: %[[LAST:.*]] = arith.muli %[[STEPS]], %c2
// CHECK: %[[LIMIT:.*]] = arith.addi %[[H]], %c1
// CHECK: %[[OUTSIDE:.*]] = arith.cmpi sge, %[[LAST]], %[[LIMIT]]
// CHECK: %[[OH:.*]] = arith.select %[[OUTSIDE]], %[[STEPS]], %[[CEIL]]
// CHECK: %[[INIT:.*]] = tensor.empty(%[[OH]], %{{.*}}) : tensor<1x4x?x?xf32>
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x4x?x?xf32>, tensor<3x3xf32>)
func.func @max_pool_ceil_dynamic(%x: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %0 = nn.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true} : (tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// -----

// Average pooling divides by each window's count of real elements, clipped
// to the run-time height and width.
// CHECK-LABEL: func @avg_pool_dynamic
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[W:.*]] = tensor.dim %arg0, %c3
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic
// CHECK: arith.minsi %{{.*}}, %[[H]] : index
// CHECK: arith.minsi %{{.*}}, %[[W]] : index
// CHECK: arith.divf
func.func @avg_pool_dynamic(%x: tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = nn.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = false} : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// The global mean's divisor is H * W, read at run time.
// CHECK-LABEL: func @global_avg_pool_dynamic
// CHECK: %[[SUMS:.*]] = linalg.reduce ins(%arg0 : tensor<2x4x?x?xf32>)
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[W:.*]] = tensor.dim %arg0, %c3
// CHECK: %[[HW:.*]] = arith.muli %[[H]], %[[W]] : index
// CHECK: %[[HW64:.*]] = arith.index_cast %[[HW]] : index to i64
// CHECK: %[[COUNT:.*]] = arith.sitofp %[[HW64]] : i64 to f32
// CHECK: arith.divf %{{.*}}, %[[COUNT]] : f32
func.func @global_avg_pool_dynamic(%x: tensor<2x4x?x?xf32>) -> tensor<2x4x1x1xf32> {
  %0 = nn.global_avg_pool2d %x : (tensor<2x4x?x?xf32>) -> tensor<2x4x1x1xf32>
  return %0 : tensor<2x4x1x1xf32>
}

// -----

// `scales` on a run-time height: floor(H * 2.5) rows, each source row
// clamped to H - 1 (the static width keeps its constants).
// CHECK-LABEL: func @resize_scales_dynamic
// CHECK-DAG: %[[S:.*]] = arith.constant 2.500000e+00 : f64
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[HF:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK: %[[OHF:.*]] = arith.mulf %[[HF]], %[[S]] : f64
// CHECK: %[[OH64:.*]] = arith.fptosi %[[OHF]] : f64 to i64
// CHECK: %[[OH:.*]] = arith.index_cast %[[OH64]] : i64 to index
// CHECK: %[[INIT:.*]] = tensor.empty(%[[OH]]) : tensor<1x4x?x8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[INIT]]
// CHECK: arith.divf %{{.*}}, %[[S]] : f64
// CHECK: %[[LASTROW:.*]] = arith.subi %[[H]], %c1 : index
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %[[LASTROW]] : index
// CHECK: arith.minsi %{{.*}}, %c3 : index
// CHECK: tensor.extract %arg0[%c0, %{{.*}}, %[[ROW]], %{{.*}}]
func.func @resize_scales_dynamic(%x: tensor<1x4x?x4xf32>) -> tensor<1x4x?x8xf32> {
  %0 = nn.resize %x {scales = array<f64: 2.5, 2.0>} : (tensor<1x4x?x4xf32>) -> tensor<1x4x?x8xf32>
  return %0 : tensor<1x4x?x8xf32>
}

// -----

// `sizes` from a run-time height with align_corners: x' = x * (H - 1) / 6.
// CHECK-LABEL: func @resize_sizes_dynamic
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: tensor.empty() : tensor<1x4x7x8xf32>
// CHECK: linalg.generic
// CHECK: %[[H64:.*]] = arith.index_cast %[[H]] : index to i64
// CHECK: %[[HF:.*]] = arith.sitofp %[[H64]] : i64 to f64
// CHECK: %[[NUMER:.*]] = arith.subf %[[HF]], %[[ONE]] : f64
// CHECK: %[[X:.*]] = arith.mulf %{{.*}}, %[[NUMER]] : f64
// CHECK: arith.divf %[[X]], %[[SIX]] : f64
// CHECK-COUNT-4: tensor.extract %arg0
func.func @resize_sizes_dynamic(%x: tensor<1x4x?x4xf32>) -> tensor<1x4x7x8xf32> {
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, coordinates = #nn<resize_coordinates align_corners>, sizes = array<i64: 7, 8>} : (tensor<1x4x?x4xf32>) -> tensor<1x4x7x8xf32>
  return %0 : tensor<1x4x7x8xf32>
}

// -----

// pytorch_half_pixel on a run-time size: whether the output has length 1
// (x' = -0.5) is decided at run time, by selects.
// CHECK-LABEL: func @resize_pytorch_half_pixel_dynamic
// CHECK: linalg.generic
// CHECK: %[[SINGLE:.*]] = arith.cmpf oeq
// CHECK: arith.select %[[SINGLE]]
func.func @resize_pytorch_half_pixel_dynamic(%x: tensor<1x4x?x4xf32>) -> tensor<1x4x?x8xf32> {
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, coordinates = #nn<resize_coordinates pytorch_half_pixel>, scales = array<f64: 0.5, 2.0>} : (tensor<1x4x?x4xf32>) -> tensor<1x4x?x8xf32>
  return %0 : tensor<1x4x?x8xf32>
}

// -----

// Output sizes read at run time (`sizes` operands for the -1 entries),
// checked to be at least 1; the scale is out / in, computed at run time.
// CHECK-LABEL: func @resize_run_time_sizes
// CHECK: %[[POSITIVE:.*]] = arith.cmpi sge, %arg1, %c1
// CHECK: cf.assert %[[POSITIVE]], "nn.resize: a run-time output size is below 1"
// CHECK: %[[INIT:.*]] = tensor.empty(%arg1) : tensor<1x4x?x8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[INIT]]
// CHECK: %[[OUT64:.*]] = arith.index_cast %arg1 : index to i64
// CHECK: %[[OUTF:.*]] = arith.sitofp %[[OUT64]] : i64 to f64
// CHECK: %[[SCALE:.*]] = arith.divf %[[OUTF]], %{{.*}} : f64
// CHECK: arith.divf %{{.*}}, %[[SCALE]] : f64
func.func @resize_run_time_sizes(%x: tensor<1x4x?x4xf32>, %h: index) -> tensor<1x4x?x8xf32> {
  %0 = nn.resize %x sizes(%h) {mode = #nn<resize_mode bilinear>, sizes = array<i64: -1, 8>} : (tensor<1x4x?x4xf32>, index) -> tensor<1x4x?x8xf32>
  return %0 : tensor<1x4x?x8xf32>
}

// -----

// A slice to sizes known at run time (a causal mask cut to a sequence's
// symbolic length): each size is checked to stay inside its dimension.
// CHECK-LABEL: func @slice_run_time
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[NONNEG:.*]] = arith.cmpi sge, %arg1, %c0
// CHECK: %[[FITS0:.*]] = arith.cmpi sle, %arg1, %[[C64]]
// CHECK: %[[OK0:.*]] = arith.andi %[[NONNEG]], %[[FITS0]]
// CHECK: cf.assert %[[OK0]], "nn.slice: a run-time size reads outside dimension 0"
// CHECK: %[[END1:.*]] = arith.addi %arg1, %c1
// CHECK: %[[FITS1:.*]] = arith.cmpi sle, %[[END1]], %[[C64]]
// CHECK: cf.assert %{{.*}}, "nn.slice: a run-time size reads outside dimension 1"
// CHECK: tensor.extract_slice %arg0[0, 1] [%arg1, %arg1] [1, 1] : tensor<64x64xf32> to tensor<?x?xf32>
func.func @slice_run_time(%m: tensor<64x64xf32>, %t: index) -> tensor<?x?xf32> {
  %0 = nn.slice %m sizes(%t, %t) {offsets = array<i64: 0, 1>, sizes = array<i64: -1, -1>, steps = array<i64: 1, 1>} : (tensor<64x64xf32>, index, index) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
