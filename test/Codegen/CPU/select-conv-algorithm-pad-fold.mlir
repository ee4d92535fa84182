// The padded-width flat form (x86-64-v3, rows that are not whole 8-lane
// vectors: 30 and 28 here) appends a
// zero row to its input. Where the input is already a zero tensor.pad (the
// convolution's own padding), directly or through the grouped form's
// channel split, the row extends that pad: one buffer filled and copied
// instead of two.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true" --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func @dense
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK: } : tensor<1x8x30x30xf32> to tensor<1x8x33x32xf32>
// CHECK-NOT: tensor.pad %[[P]]
// CHECK: tensor.collapse_shape %[[P]] {{.*}} into tensor<1x8x1056xf32>
func.func @dense(%x: tensor<1x8x30x30xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x30x30xf32> to tensor<1x8x32x32xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32>
  return %0 : tensor<1x8x30x30xf32>
}

// -----

// CHECK-LABEL: func @grouped
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK: } : tensor<1x32x28x28xf32> to tensor<1x32x31x30xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 8, 4, 31, 30]
// CHECK-NOT: tensor.pad
// CHECK: tensor.collapse_shape %[[E]] {{.*}} into tensor<1x8x4x930xf32>
func.func @grouped(%x: tensor<1x32x28x28xf32>, %w: tensor<8x4x4x3x3xf32>, %o: tensor<1x8x4x28x28xf32>) -> tensor<1x8x4x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x28x28xf32> to tensor<1x32x30x30xf32>
  %g = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 8, 4, 30, 30] : tensor<1x32x30x30xf32> into tensor<1x8x4x30x30xf32>
  %0 = linalg.conv_2d_ngchw_gfchw ins(%g, %w : tensor<1x8x4x30x30xf32>, tensor<8x4x4x3x3xf32>) outs(%o : tensor<1x8x4x28x28xf32>) -> tensor<1x8x4x28x28xf32>
  return %0 : tensor<1x8x4x28x28xf32>
}

// -----

// The first pad has another user: it stays for it, and the convolution
// reads a pad of its own (still one, from the source).
// CHECK-LABEL: func @shared
// CHECK-DAG: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK-DAG: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 2, 1]
func.func @shared(%x: tensor<1x8x30x30xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x30x30xf32>) -> (tensor<1x8x30x30xf32>, tensor<1x8x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x30x30xf32> to tensor<1x8x32x32xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32>
  return %0, %p : tensor<1x8x30x30xf32>, tensor<1x8x32x32xf32>
}

// -----

// Padding with something other than zero is not the zero row the flat
// form needs: two pads.
// CHECK-LABEL: func @ones
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.pad %[[P]] low[0, 0, 0, 0] high[0, 0, 1, 0]
func.func @ones(%x: tensor<1x8x30x30xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32> {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x8x30x30xf32> to tensor<1x8x32x32xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32>
  return %0 : tensor<1x8x30x30xf32>
}

// -----

// A nofold pad is kept as written.
// CHECK-LABEL: func @nofold
// CHECK: %[[P:.*]] = tensor.pad %arg0 nofold low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.pad %[[P]] low[0, 0, 0, 0] high[0, 0, 1, 0]
func.func @nofold(%x: tensor<1x8x30x30xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x nofold low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x30x30xf32> to tensor<1x8x32x32xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32>
  return %0 : tensor<1x8x30x30xf32>
}

// -----

// Only an expand_shape that keeps the two spatial dims as they are is
// looked through: here the pad's last dim becomes both of them.
// CHECK-LABEL: func @split_columns
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 0] high[0, 0, 64]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]]
// CHECK: tensor.pad %[[E]] low[0, 0, 0, 0] high[0, 0, 1, 0]
func.func @split_columns(%x: tensor<1x8x960xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 0] high[0, 0, 64] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %zero : f32
  } : tensor<1x8x960xf32> to tensor<1x8x1024xf32>
  %e = tensor.expand_shape %p [[0], [1], [2, 3]] output_shape [1, 8, 32, 32] : tensor<1x8x1024xf32> into tensor<1x8x32x32xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%e, %w : tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x30x30xf32>) -> tensor<1x8x30x30xf32>
  return %0 : tensor<1x8x30x30xf32>
}
