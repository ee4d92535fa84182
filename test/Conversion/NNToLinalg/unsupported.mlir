// Inputs the lowering must refuse, with a diagnostic naming the op.
// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file -verify-diagnostics

// Max pooling with indices has static shapes only (its flat indices are
// built from the sizes).
func.func @pool_with_indices_dynamic(%x: tensor<1x4x?x?xf32>) -> (tensor<1x4x?x?xf32>, tensor<1x4x?x?xi64>) {
  // expected-error @+2 {{convert-nn-to-linalg cannot lower 'nn.max_pool2d_with_indices': a dynamic input shape}}
  // expected-error @+1 {{failed to legalize operation}}
  %0:2 = nn.max_pool2d_with_indices %x {kernel = array<i64: 2, 2>} : (tensor<1x4x?x?xf32>) -> (tensor<1x4x?x?xf32>, tensor<1x4x?x?xi64>)
  return %0#0, %0#1 : tensor<1x4x?x?xf32>, tensor<1x4x?x?xi64>
}

// -----

// An op that computes a non-empty result from a zero-size operand is
// refused, naming the op (ops with empty results need no code: shape.mlir).
func.func @pad_zero_size(%a: tensor<2x0xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{convert-nn-to-linalg cannot lower 'nn.pad': zero-size tensor 'tensor<2x0xf32>' (a dimension of size 0)}}
  %0 = nn.pad %a {pads = array<i64: 0, 1, 0, 1>} : (tensor<2x0xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @reduce_zero_size(%a: tensor<3x0xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{convert-nn-to-linalg cannot lower 'nn.reduce': zero-size tensor 'tensor<3x0xf32>' (a dimension of size 0)}}
  %0 = nn.reduce %a {kind = #nn<reduce_kind sum>, axes = array<i64: 1>} : (tensor<3x0xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @rnn_f64(%x: tensor<3x1x2xf64>, %w: tensor<1x4x2xf64>, %r: tensor<1x4x4xf64>, %b: tensor<1x8xf64>, %h: tensor<1x1x4xf64>) -> tensor<3x1x1x4xf64> {
  // expected-error @+2 {{convert-nn-to-linalg cannot lower 'nn.rnn': element type f64 (recurrent layers lower in f32 only)}}
  // expected-error @+1 {{failed to legalize operation}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h
      : (tensor<3x1x2xf64>, tensor<1x4x2xf64>, tensor<1x4x4xf64>, tensor<1x8xf64>, tensor<1x1x4xf64>)
      -> (tensor<3x1x1x4xf64>, tensor<1x1x4xf64>)
  return %0#0 : tensor<3x1x1x4xf64>
}

// -----

// nn.conv3d folds the output depths into the batch of 2-D convolutions:
// only the batch may be dynamic.
func.func @conv3d_dynamic_depth(%x: tensor<1x4x?x8x8xf32>, %w: tensor<8x4x3x3x3xf32>) -> tensor<1x8x?x6x6xf32> {
  // expected-error @+2 {{convert-nn-to-linalg cannot lower 'nn.conv3d': a dynamic size other than the batch in 'tensor<1x4x?x8x8xf32>'}}
  // expected-error @+1 {{failed to legalize operation}}
  %0 = nn.conv3d %x, %w : (tensor<1x4x?x8x8xf32>, tensor<8x4x3x3x3xf32>) -> tensor<1x8x?x6x6xf32>
  return %0 : tensor<1x8x?x6x6xf32>
}

// -----

// Padding the depth by 2^62 at both ends verifies (the output has 3
// depths) but the padded tensor has no 64-bit size.
func.func @conv3d_padded_depth_overflow(%x: tensor<1x1x4x3x3xf32>, %w: tensor<1x1x3x1x1xf32>) -> tensor<1x1x3x3x3xf32> {
  // expected-error @+2 {{convert-nn-to-linalg cannot lower 'nn.conv3d': its padded depth or its batch times output depths overflows 64 bits}}
  // expected-error @+1 {{failed to legalize operation}}
  %0 = nn.conv3d %x, %w {strides = array<i64: 4611686018427387904, 1, 1>, padding = array<i64: 4611686018427387904, 0, 0, 4611686018427387904, 0, 0>} : (tensor<1x1x4x3x3xf32>, tensor<1x1x3x1x1xf32>) -> tensor<1x1x3x3x3xf32>
  return %0 : tensor<1x1x3x3x3xf32>
}
