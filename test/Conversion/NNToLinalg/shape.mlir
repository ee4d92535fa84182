// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func @concat
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x12x4x4xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0, 0, 0] [1, 8, 4, 4] [1, 1, 1, 1]
// CHECK: tensor.insert_slice %arg1 into %[[A]][0, 8, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1]
func.func @concat(%a: tensor<1x8x4x4xf32>, %b: tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32> {
  %0 = nn.concat %a, %b {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32>
  return %0 : tensor<1x12x4x4xf32>
}

// -----

// CHECK-LABEL: func @reshape_static
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
func.func @reshape_static(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = nn.reshape %x {shape = array<i64: 6, -1>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// One dynamic size on each side: a collapse (a view, no shape buffer).
// CHECK-LABEL: func @reshape_dynamic
// CHECK-NOT: tensor.reshape
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
func.func @reshape_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = nn.reshape %x {shape = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// The dynamic size grouped with static ones: ?x12 -> ?x3x4 is an
// expansion of the second size, the first carried over.
// CHECK-LABEL: func @reshape_dynamic_expand
// CHECK-NOT: tensor.reshape
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [%{{.*}}, 3, 4] : tensor<?x12xf32> into tensor<?x3x4xf32>
func.func @reshape_dynamic_expand(%x: tensor<?x12xf32>) -> tensor<?x3x4xf32> {
  %0 = nn.reshape %x {shape = array<i64: -1, 3, 4>} : (tensor<?x12xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

// A run-time size splitting the dynamic one (a batch of 4-frame clips, as
// conv3d's lowering reshapes it): an expansion with that size.
// CHECK-LABEL: func @reshape_run_time_expand
// CHECK-NOT: tensor.reshape
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0, 1], [2], [3], [4]] output_shape [%arg1, 4, 8, 3, 3] : tensor<?x8x3x3xf32> into tensor<?x4x8x3x3xf32>
func.func @reshape_run_time_expand(%x: tensor<?x8x3x3xf32>, %n: index) -> tensor<?x4x8x3x3xf32> {
  %0 = nn.reshape %x sizes(%n) {shape = array<i64: -1, 4, 8, 3, 3>} : (tensor<?x8x3x3xf32>, index) -> tensor<?x4x8x3x3xf32>
  return %0 : tensor<?x4x8x3x3xf32>
}

// -----

// Two dynamic sizes on a side: which group each falls in depends on their
// run-time values, so the shape buffer stays.
// CHECK-LABEL: func @reshape_two_dynamic
// CHECK: %[[S:.*]] = tensor.from_elements
// CHECK: tensor.reshape %arg0(%[[S]]) : (tensor<?x4x?xf32>, tensor<2xindex>) -> tensor<?x8xf32>
func.func @reshape_two_dynamic(%x: tensor<?x4x?xf32>) -> tensor<?x8xf32> {
  %0 = nn.reshape %x {shape = array<i64: -1, 8>} : (tensor<?x4x?xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func @flatten
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2, 3]] : tensor<?x512x1x1xf32> into tensor<?x512xf32>
func.func @flatten(%x: tensor<?x512x1x1xf32>) -> tensor<?x512xf32> {
  %0 = nn.flatten %x {axis = 1 : i64} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
  return %0 : tensor<?x512xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: linalg.transpose ins(%arg0 : tensor<1x8x4x5xf32>) outs(%{{.*}} : tensor<1x4x5x8xf32>) permutation = [0, 2, 3, 1]
func.func @transpose(%x: tensor<1x8x4x5xf32>) -> tensor<1x4x5x8xf32> {
  %0 = nn.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x5xf32>) -> tensor<1x4x5x8xf32>
  return %0 : tensor<1x4x5x8xf32>
}

// -----

// CHECK-LABEL: func @pad
// CHECK: %[[V:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: tensor.pad %arg0 low[0, 1] high[2, 3]
// CHECK: tensor.yield %[[V]]
func.func @pad(%x: tensor<2x3xf32>) -> tensor<4x7xf32> {
  %0 = nn.pad %x {pads = array<i64: 0, 1, 2, 3>, value = 0.5 : f64} : (tensor<2x3xf32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// Nearest: floor(dst / scale) (in f64, as ONNX) clamped, read with
// tensor.extract.
// CHECK-LABEL: func @resize_nearest
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x8x8xf32>)
// CHECK: %[[S:.*]] = arith.constant 2.000000e+00 : f64
// CHECK: arith.divf %{{.*}}, %[[S]] : f64
// CHECK: math.floor
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %arg0
func.func @resize_nearest(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %0 = nn.resize %x {scales = array<f64: 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Bilinear: four taps and two lerps per output.
// CHECK-LABEL: func @resize_bilinear
// CHECK-COUNT-4: tensor.extract %arg0
func.func @resize_bilinear(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x7x9xf32> {
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, sizes = array<i64: 7, 9>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x7x9xf32>
  return %0 : tensor<1x3x7x9xf32>
}

// -----

// Bicubic: 4 x 4 taps per output; with exclude_outside the weights of
// out-of-range taps are selected away and the rest renormalized.
// CHECK-LABEL: func @resize_bicubic
// CHECK-COUNT-4: arith.select
// CHECK-COUNT-16: tensor.extract %arg0
func.func @resize_bicubic(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x7x9xf32> {
  %0 = nn.resize %x {mode = #nn<resize_mode bicubic>, exclude_outside = true, sizes = array<i64: 7, 9>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x7x9xf32>
  return %0 : tensor<1x3x7x9xf32>
}

// -----

// Scalars reshape to and from rank 1 with no reassociation groups (a
// rank-0 collapse used to crash the lowering).
// CHECK-LABEL: func @reshape_from_scalar
// CHECK: tensor.expand_shape %arg0 [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @reshape_from_scalar(%a: tensor<f32>) -> tensor<1xf32> {
  %0 = nn.reshape %a {shape = array<i64: 1>} : (tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// CHECK-LABEL: func @reshape_to_scalar
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<1x1x1xf32> into tensor<1xf32>
// CHECK: tensor.collapse_shape %[[FLAT]] [] : tensor<1xf32> into tensor<f32>
func.func @reshape_to_scalar(%a: tensor<1x1x1xf32>) -> tensor<f32> {
  %0 = nn.reshape %a {shape = array<i64>} : (tensor<1x1x1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func @reshape_scalar_to_3d
// CHECK: %[[FLAT:.*]] = tensor.expand_shape %arg0 [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xf32> into tensor<1x1x1xf32>
func.func @reshape_scalar_to_3d(%a: tensor<f32>) -> tensor<1x1x1xf32> {
  %0 = nn.reshape %a {shape = array<i64: 1, 1, 1>} : (tensor<f32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

// -----

// Forward steps: one extract_slice.
// CHECK-LABEL: func @slice_forward
// CHECK: tensor.extract_slice %arg0[1, 2] [2, 3] [1, 2] : tensor<4x8xf32> to tensor<2x3xf32>
func.func @slice_forward(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %0 = nn.slice %x {offsets = array<i64: 1, 2>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A backward step reads offset + i * step.
// CHECK: #[[READ:.*]] = affine_map<(d0, d1) -> (d0 + 1, d1 * -2 + 7)>
// CHECK-LABEL: func @slice_backward
// CHECK: linalg.generic {indexing_maps = [#[[READ]], #{{.*}}]
func.func @slice_backward(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %0 = nn.slice %x {offsets = array<i64: 1, 7>, sizes = array<i64: 2, 4>, steps = array<i64: 1, -2>} : (tensor<4x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Size-1 dimensions read index 0; missing leading ones are not read.
// CHECK: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @broadcast_to
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[A]]
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.broadcast_to %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A dynamic size (never broadcast) is read from the input.
// CHECK-LABEL: func @broadcast_to_dynamic
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x1xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x5xf32>
func.func @broadcast_to_dynamic(%x: tensor<?x1xf32>) -> tensor<?x5xf32> {
  %0 = nn.broadcast_to %x {shape = array<i64: 1, 5>} : (tensor<?x1xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Run-time indices: the generic iterates the result, reads the index
// through a projection, wraps a negative one by the axis extent, clamps it
// in bounds and extracts from the data.
// CHECK-LABEL: func @gather
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1 : tensor<4x?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x5xi64>) outs(%{{.*}} : tensor<4x2x5x3xf32>)
// CHECK:   %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:   %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[ZERO:.*]] : index
// CHECK:   %[[UP:.*]] = arith.addi %[[I]], %[[N]] : index
// CHECK:   %[[W:.*]] = arith.select %[[NEG]], %[[UP]], %[[I]] : index
// CHECK:   %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK:   %[[LO:.*]] = arith.maxsi %[[W]], %[[ZERO]] : index
// CHECK:   %[[IDX:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK:   %[[D0:.*]] = linalg.index 0 : index
// CHECK:   %[[D3:.*]] = linalg.index 3 : index
// CHECK:   tensor.extract %arg0[%[[D0]], %[[IDX]], %[[D3]]] : tensor<4x?x3xf32>
func.func @gather(%x: tensor<4x?x3xf32>, %i: tensor<2x5xi64>) -> tensor<4x2x5x3xf32> {
  %0 = nn.gather %x, %i {axis = 1 : i64} : (tensor<4x?x3xf32>, tensor<2x5xi64>) -> tensor<4x2x5x3xf32>
  return %0 : tensor<4x2x5x3xf32>
}

// -----

// A negative axis counts from the end: the last dimension's coordinate is
// replaced by the (wrapped, clamped) index.
// CHECK-LABEL: func @gather_elements
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1 : tensor<3x4xf32>
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<3x2xi32>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK:   %[[D0:.*]] = linalg.index 0 : index
// CHECK:   arith.index_cast %{{.*}} : i32 to index
// CHECK:   %[[IDX:.*]] = arith.minsi
// CHECK:   tensor.extract %arg0[%[[D0]], %[[IDX]]] : tensor<3x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi32>) -> tensor<3x2xf32> {
  %0 = nn.gather_elements %x, %i {axis = -1 : i64} : (tensor<3x4xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Zero-size tensors need no code: an op with empty results becomes
// tensor.empty, and a concatenation drops its empty inputs.
// CHECK-LABEL: func @zero_size
// CHECK-NOT: nn.
// CHECK: %[[E:.*]] = tensor.empty() : tensor<20x0x5xf32>
// CHECK: %[[C:.*]] = tensor.empty() : tensor<2x6x4xf32>
// CHECK: %[[C1:.*]] = tensor.insert_slice %arg1 into %[[C]][0, 0, 0] [2, 3, 4] [1, 1, 1]
// CHECK: %[[C2:.*]] = tensor.insert_slice %arg1 into %[[C1]][0, 3, 0] [2, 3, 4] [1, 1, 1]
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[E]], %arg1, %[[C2]]
func.func @zero_size(%x: tensor<20x10x5xf32>, %b: tensor<2x3x4xf32>, %a: tensor<2x0x4xf32>)
    -> (tensor<20x0x5xf32>, tensor<2x3x4xf32>, tensor<2x6x4xf32>) {
  %0 = nn.slice %x {offsets = array<i64: 0, 10, 0>, sizes = array<i64: 20, 0, 5>, steps = array<i64: 1, 1, 1>} : (tensor<20x10x5xf32>) -> tensor<20x0x5xf32>
  %1 = nn.concat %b, %a {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x0x4xf32>) -> tensor<2x3x4xf32>
  %2 = nn.concat %a, %b, %a, %b {axis = 1 : i64} : (tensor<2x0x4xf32>, tensor<2x3x4xf32>, tensor<2x0x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  return %0, %1, %2 : tensor<20x0x5xf32>, tensor<2x3x4xf32>, tensor<2x6x4xf32>
}

// -----

// Edge padding reads the input at the output index minus the low pad,
// clamped into [0, size - 1]; unpadded dimensions read their own index.
// CHECK-LABEL: func @pad_edge
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x9xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[LAST:.*]] = arith.subi %c4, %c1
// CHECK: %[[J:.*]] = arith.subi %[[I1]], %c2
// CHECK: %[[LO:.*]] = arith.maxsi %[[J]], %c0
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %[[LAST]]
// CHECK: tensor.extract %arg0[%[[I0]], %[[HI]]]
func.func @pad_edge(%x: tensor<2x4xf32>) -> tensor<2x9xf32> {
  %0 = nn.pad %x {pads = array<i64: 0, 2, 0, 3>, mode = #nn<pad_mode edge>} : (tensor<2x4xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// Reflect: |j|, then 2 * (size - 1) - j past the end.
// CHECK-LABEL: func @pad_reflect
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[LAST:.*]] = arith.subi %c4, %c1
// CHECK: %[[J:.*]] = arith.subi %[[I]], %c1
// CHECK: %[[NEG:.*]] = arith.subi %c0, %[[J]]
// CHECK: %[[ABS:.*]] = arith.maxsi %[[J]], %[[NEG]]
// CHECK: %[[TWICE:.*]] = arith.addi %[[LAST]], %[[LAST]]
// CHECK: %[[MIRROR:.*]] = arith.subi %[[TWICE]], %[[ABS]]
// CHECK: %[[SRC:.*]] = arith.minsi %[[ABS]], %[[MIRROR]]
// CHECK: tensor.extract %arg0[%[[SRC]]]
func.func @pad_reflect(%x: tensor<4xf32>) -> tensor<8xf32> {
  %0 = nn.pad %x {pads = array<i64: 1, 3>, mode = #nn<pad_mode reflect>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// tf_crop_and_resize: start * (in - 1) + x * (end - start) * (in - 1) /
// (L - 1) per axis; outside [0, in - 1] the extrapolation value.
// CHECK-LABEL: func @resize_crop
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %{{.*}}, %[[LO]] : f64
// CHECK: %[[HI:.*]] = arith.constant 4.000000e+00 : f64
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %{{.*}}, %[[HI]] : f64
// CHECK: %[[OUTH:.*]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK: %[[HIW:.*]] = arith.constant 5.000000e+00 : f64
// CHECK: arith.cmpf ogt, %{{.*}}, %[[HIW]] : f64
// CHECK: %[[OUTW:.*]] = arith.ori
// CHECK: %[[FILL:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[OUT:.*]] = arith.ori %[[OUTH]], %[[OUTW]] : i1
// CHECK: arith.select %[[OUT]], %[[FILL]], %{{.*}} : f32
func.func @resize_crop(%x: tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32> {
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, coordinates = #nn<resize_coordinates tf_crop_and_resize>, roi = array<f64: 0.2, -0.3, 1.1, 0.9>, extrapolation_value = 2.5 : f64, sizes = array<i64: 4, 7>} : (tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32>
  return %0 : tensor<1x2x4x7xf32>
}

// -----

// Run-time sizes: the shape tensor.reshape reads is completed by them
// (same rank on both sides: no collapse or expansion).
// CHECK-LABEL: func @reshape_run_time_sizes
// CHECK-DAG: %[[C17:.*]] = arith.constant 17 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[S:.*]] = tensor.from_elements %[[C17]], %arg1, %[[C8]] : tensor<3xindex>
// CHECK: tensor.reshape %arg0(%[[S]]) : (tensor<17x?x32xf32>, tensor<3xindex>) -> tensor<17x?x8xf32>
func.func @reshape_run_time_sizes(%x: tensor<17x?x32xf32>, %n: index) -> tensor<17x?x8xf32> {
  %0 = nn.reshape %x sizes(%n) {shape = array<i64: 17, -1, 8>} : (tensor<17x?x32xf32>, index) -> tensor<17x?x8xf32>
  return %0 : tensor<17x?x8xf32>
}

// -----

// A run-time target size is the result's size where the input has 1.
// CHECK-LABEL: func @broadcast_to_run_time_size
// CHECK: %[[E:.*]] = tensor.empty(%arg1) : tensor<?x1x32xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1x1x32xf32>) outs(%[[E]] : tensor<?x1x32xf32>)
func.func @broadcast_to_run_time_size(%c: tensor<1x1x32xf32>, %n: index) -> tensor<?x1x32xf32> {
  %0 = nn.broadcast_to %c sizes(%n) {shape = array<i64: -1, 1, 1>} : (tensor<1x1x32xf32>, index) -> tensor<?x1x32xf32>
  return %0 : tensor<?x1x32xf32>
}

// -----

// Size -1 takes a whole dynamic dimension: its size is read at run time.
// CHECK-LABEL: func @slice_whole_dynamic
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c1 : tensor<17x?x96xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 32] [17, %[[D]], 32] [1, 1, 1] : tensor<17x?x96xf32> to tensor<17x?x32xf32>
func.func @slice_whole_dynamic(%x: tensor<17x?x96xf32>) -> tensor<17x?x32xf32> {
  %0 = nn.slice %x {offsets = array<i64: 0, 0, 32>, sizes = array<i64: 17, -1, 32>, steps = array<i64: 1, 1, 1>} : (tensor<17x?x96xf32>) -> tensor<17x?x32xf32>
  return %0 : tensor<17x?x32xf32>
}

// -----

// ... and for a backward step, the result's dynamic size is the input's.
// CHECK-LABEL: func @slice_whole_dynamic_backward
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0 : tensor<?x8xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4xf32>
func.func @slice_whole_dynamic_backward(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %0 = nn.slice %x {offsets = array<i64: 0, 7>, sizes = array<i64: -1, 4>, steps = array<i64: 1, -2>} : (tensor<?x8xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
