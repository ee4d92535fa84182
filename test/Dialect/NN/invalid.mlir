// Every verifier message of the nn dialect, one case each.
// RUN: dlas-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{input channel count 6 is not divisible by groups = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<5x3x3x3xf32>) {
  // expected-error @+2 {{output channel count (filter dim 0) 5 is not divisible by groups = 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {groups = 2 : i64} : (tensor<1x6x8x8xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{operand 'filter' dim 1 is 3 but input channels / groups = 6 / 1 = 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w : (tensor<1x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3xf32>) {
  // expected-error @+1 {{operand #1 must be 4D tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 32-bit signless integer values, but got 'tensor<4x6x3xf32>'}}
  %0 = nn.conv2d %x, %w : (tensor<1x6x8x8xf32>, tensor<4x6x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{attribute 'padding' must not be negative, got [1, -1, 1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, -1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x8x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{attribute 'strides' must be positive, got [0, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{attribute 'dilations' must be positive, got [1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {dilations = array<i64: 1, 0>} : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{attribute 'groups' must be positive, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {groups = 0 : i64} : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{operand 'bias' has 5 elements but the filter has 4 output channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf16>) {
  // expected-error @+2 {{operand 'filter' element type 'f16' differs from operand 'input' element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x2x2xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{dilated kernel 3x3 is larger than the padded input 2x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w : (tensor<1x6x2x2xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}
// -----
func.func @f(%x: tensor<1x?x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+2 {{operand 'input' must have a static channel dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w : (tensor<1x?x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<?x6x3x3xf32>) {
  // expected-error @+2 {{operand 'filter' must have a static shape, got 'tensor<?x6x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w : (tensor<1x6x8x8xf32>, tensor<?x6x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{operand 'bias' element type 'f16' should be 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>, tensor<4xf16>) -> tensor<1x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{operand 'filter' dim 0 is 6 but the input has 4 channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return
}
// -----
func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{input channel count 4 is not divisible by groups = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w {groups = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x7x7xf32>
  return
}
// -----
func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{output_padding 2 must be smaller than the stride 2 or the dilation 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, output_padding = array<i64: 2, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x13x11xf32>
  return
}
// -----
func.func @f(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) {
  // expected-error @+2 {{padding [1, 1, 1, 1] leaves an empty output (-1x-1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return
}
// -----
func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operand 'bias' has 3 elements but the op has 2 output channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w, %b : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<3xf32>) -> tensor<1x2x7x7xf32>
  return
}
// -----
func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{attribute 'output_padding' must not be negative, got [-1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w {output_padding = array<i64: -1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) {
  // expected-error @+2 {{contraction sizes differ: lhs is 'tensor<4x8xf32>' and rhs is 'tensor<7x16xf32>' (8 vs 7)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) {
  // expected-error @+2 {{operand 'rhs' element type 'f16' differs from 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  return
}
// -----
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+2 {{batch sizes differ: 2 vs 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return
}
// -----
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x9x16xf32>) {
  // expected-error @+2 {{contraction sizes differ: 8 vs 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x9x16xf32>) -> tensor<2x4x16xf32>
  return
}
// -----
func.func @f(%x: tensor<2x8xf32>, %w: tensor<4x9xf32>) {
  // expected-error @+2 {{operand 'input' has 8 features but operand 'weight' expects 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x9xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @f(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{operand 'bias' has 5 elements but the weight has 4 outputs}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.linear %x, %w, %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<5xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>, %p: tensor<7xf32>) {
  // expected-error @+2 {{operand 'scale' has shape 'tensor<7xf32>' but mode 'spatial' needs [8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.batch_norm %x, %p, %p, %p, %p : (tensor<1x8x4x4xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<1x8x4x4xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>) {
  // expected-error @+2 {{attribute 'epsilon' must not be negative, got -1.000000e+00}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %h: tensor<8xf16>) {
  // expected-error @+2 {{operand 'bias' element type 'f16' differs from the input's 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.batch_norm %x, %p, %h, %p, %p : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{padding 2 is not smaller than the (dilated) kernel size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x5x3xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{attribute 'kernel' must be positive, got [0, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.max_pool2d %x {kernel = array<i64: 0, 2>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x3xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{kernel 5x5 is larger than the padded input 4x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.avg_pool2d %x {kernel = array<i64: 5, 5>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  return
}
// -----
func.func @f(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+1 {{attribute 'kernel' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = nn.max_pool2d %x {kernel = array<i64: 2, 2, 2>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x3x3xf32>
  return
}
// -----
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'min' (2.000000e+00) is greater than 'max' (1.000000e+00)}}
  %0 = nn.clip %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<4xf32>
  return
}
// -----
func.func @f(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0 = nn.softmax %x {axis = 2 : i64} : tensor<2x4xf32>
  return
}
// -----
func.func @f(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{attribute 'axis' = -3 is out of range for rank 2}}
  %0 = nn.log_softmax %x {axis = -3 : i64} : tensor<2x4xf32>
  return
}
// -----
func.func @f(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{attribute 'axis' = 2 is out of range for rank 2}}
  %0 = nn.cumsum %x {axis = 2 : i64} : tensor<2x4xf32>
  return
}
// -----
func.func @f(%x: tensor<f32>) {
  // expected-error @+1 {{needs an input of rank 1 or more}}
  %0 = nn.cumsum %x {axis = 0 : i64} : tensor<f32>
  return
}
// -----
func.func @f(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = nn.sign %x : tensor<4xi1>
  return
}
// -----
func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = nn.sigmoid %x : tensor<4xi32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{operands are not broadcastable: 'tensor<2x3xf32>' and 'tensor<4x3xf32>' differ in dimension 0 (2 vs 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = nn.mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3x4xf32>) {
  // expected-error @+2 {{input #1 has rank 3 but input #0 has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x4xf32>) -> tensor<4x3xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{input #1 has size 4 in dimension 1 but input #0 has 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'axis' = 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.concat %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot reshape 6 elements into [4, 2] (8 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'shape' has more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: -1, -1>} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'shape' has size 0 at index 0; sizes must be positive or -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: 0, 6>} : (tensor<2x3xf32>) -> tensor<1x6xf32>
  return
}
// -----
// A shape whose element count overflows 64 bits (found by dlas-fuzz-onnx:
// UBSan's signed overflow in the product).
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'shape' [-1, 9223372036854775726, 2] has more elements than 64 bits count}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: -1, 9223372036854775726, 2>} : (tensor<2x3xf32>) -> tensor<1x4xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot reshape 6 elements into [-1, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: -1, 4>} : (tensor<2x3xf32>) -> tensor<1x4xf32>
  return
}
// -----
func.func @f(%a: tensor<?x3xf32>) {
  // expected-error @+2 {{a dynamic input needs a -1 in attribute 'shape'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %a {shape = array<i64: 3, 2>} : (tensor<?x3xf32>) -> tensor<3x2xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'axis' = 2 must be in [0, rank) for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.flatten %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'perm' has 1 entries but the input has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.transpose %a {perm = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'perm' [0, 0] is not a permutation of [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.transpose %a {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'pads' has 3 entries but a rank-2 input needs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.pad %a {pads = array<i64: 0, 1, 0>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{attribute 'pads' must not be negative, got [0, -1, 0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.pad %a {pads = array<i64: 0, -1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{needs exactly one of attributes 'scales' and 'sizes'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{needs exactly one of attributes 'scales' and 'sizes'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{attribute 'sizes' needs 2 entries (H, W), got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {sizes = array<i64: 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{attribute 'scales' needs 2 entries (H, W), got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {scales = array<f64: 2.0, 2.0, 1.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{attribute 'scales' must be positive, got -1.000000e+00}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {scales = array<f64: 2.0, -1.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{scale 1.000000e-01 makes dimension 3 of size 4 empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {scales = array<f64: 2.0, 0.1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x0xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{attribute 'sizes' must be positive, got [8, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {sizes = array<i64: 8, 0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x0xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{'exclude_outside' applies only to bicubic mode}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a {sizes = array<i64: 8, 8>, exclude_outside = true} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x?x?xf32>, %h: index) {
  // expected-error @+2 {{has 1 'sizes' operand(s) for 2 entries of -1 in attribute 'sizes'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a sizes(%h) {sizes = array<i64: -1, -1>} : (tensor<1x3x?x?xf32>, index) -> tensor<1x3x?x?xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x?x?xf32>, %h: index) {
  // expected-error @+2 {{'sizes' operands go with attribute 'sizes'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a sizes(%h) {scales = array<f64: 2.0, 2.0>} : (tensor<1x3x?x?xf32>, index) -> tensor<1x3x?x?xf32>
  return
}
// -----
func.func @f(%a: tensor<1x3x?x?xf32>, %h: index) {
  // expected-error @+2 {{attribute 'sizes' must be positive, got [-1, -2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %a sizes(%h) {sizes = array<i64: -1, -2>} : (tensor<1x3x?x?xf32>, index) -> tensor<1x3x?x?xf32>
  return
}

// -----

func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nn.pow' op needs floating-point operands, got 'tensor<4xi32>'}}
  %0 = nn.pow %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = nn.exp %x : tensor<4xi32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.slice' op step of dimension 1 is 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 4>, steps = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.slice' op dimension 1 reads from 1 with step -2 for 4 elements, outside its size 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 4>, steps = array<i64: 1, -2>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.slice' op attribute 'steps' must have 2 entries, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 4>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.slice' op attribute 'sizes' has -5 at dimension 1; sizes must be -1 (all of it) or at least 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, -5>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.slice' op dimension 1 reads from 6 with step 1 for 4 elements, outside its size 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 0, 6>, sizes = array<i64: 2, 4>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.reduce' op axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reduce %x {kind = #nn<reduce_kind sum>, axes = array<i64: 2>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.reduce' op axis 1 is reduced twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reduce %x {kind = #nn<reduce_kind sum>, axes = array<i64: 1, -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  return
}

// -----


// Found by dlas-fuzz-onnx under UBSan: the padded size overflowed.
func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'nn.pad' op padded size of dimension 0 overflows 64 bits}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.pad %x {pads = array<i64: 8071587942684567820, 0, 8389750308618530659, 0>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'nn.max_pool2d' op padding 9223372036854775807 is not smaller than the (dilated) kernel size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 9223372036854775807, 0, 0, 0>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{'nn.conv_transpose2d' op output size overflows 64 bits}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv_transpose2d %x, %w {strides = array<i64: 4611686018427387904, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{'nn.conv2d' op output size overflows 64 bits}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv2d %x, %w {padding = array<i64: 9223372036854775807, 0, 9223372036854775807, 0>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x8x8xf32>
  return
}

// -----

func.func @f(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{'nn.broadcast_to' op input dimension 1 of size 2 does not broadcast to 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x {shape = array<i64: 3, 4>} : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{'nn.broadcast_to' op attribute 'shape' has 1 entries, fewer than the input's rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x {shape = array<i64: 2>} : (tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{'nn.broadcast_to' op attribute 'shape' has size 0 at index 0; sizes must be positive or -1 (a 'sizes' operand)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x {shape = array<i64: 0, 2>} : (tensor<3x2xf32>) -> tensor<0x2xf32>
  return
}

// -----

func.func @f(%x: tensor<?x2xf32>) {
  // expected-error @+2 {{'nn.broadcast_to' op input dimension 0 of size ? does not broadcast to 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x {shape = array<i64: 4, 2>} : (tensor<?x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{'nn.broadcast_to' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x {shape = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @f(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{'nn.arg_max' op axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.arg_max %x {axis = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @f(%x: tensor<2x0xf32>) {
  // expected-error @+2 {{'nn.arg_min' op axis 1 is empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.arg_min %x {axis = 1 : i64, keepdims = false} : (tensor<2x0xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @f(%x: tensor<2x10xi32>) {
  // expected-error @+1 {{'nn.arg_max' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = nn.arg_max %x {axis = 1 : i64} : (tensor<2x10xi32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @f(%x: tensor<5x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'input' must have rank 3 ([seq, batch, input_size]), got 'tensor<5x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'recurrence' must have rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x?xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'recurrence' must have a static, non-zero hidden size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x?xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x7xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'weights' must be [directions, gates * hidden, input_size] = [1, 16, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x7xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<2x16x8xf32>, %r: tensor<2x16x16xf32>, %b: tensor<2x32xf32>, %h: tensor<2x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'weights' must be [directions, gates * hidden, input_size] = [1, 16, 8] (-1: any), got 'tensor<2x16x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<2x16x8xf32>, tensor<2x16x16xf32>, tensor<2x32xf32>, tensor<2x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x12x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'recurrence' must be [directions, gates * hidden, hidden] = [1, 16, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x12x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x16xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'bias' must be [directions, 2 * gates * hidden] = [1, 32]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x16xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x3x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'initial_h' must be [directions, batch, hidden] = [1, 2, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x3x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'initial_h' must have rank 3 ([directions, batch, hidden])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>, %e: tensor<3xi32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'sequence_lens' must be [batch] = [2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h lengths %e : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>, tensor<3xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op attribute 'activations' needs 1 entries (1 per direction), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h {activations = [#nn<rnn_activation tanh>, #nn<rnn_activation relu>]} : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op attribute 'activation_alpha' needs 'activations'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h {activation_alpha = array<f64: 1.0>} : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op attribute 'activation_beta' needs one entry per activation (1), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h {activations = [#nn<rnn_activation elu>], activation_beta = array<f64: 1.0, 2.0>} : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op attribute 'clip' must be positive, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h {clip = 0.0 : f64} : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'weights' must be [directions, gates * hidden, input_size] = [2, 16, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h {direction = #nn<rnn_direction bidirectional>} : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf16>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.rnn' op operand 'weights' has element type 'f16' but 'input' has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x16x8xf16>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x16x8xf32>, %r: tensor<1x16x16xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x16xf32>, %l: tensor<2xi64>) {
  // expected-error @+1 {{'nn.rnn' op operand #5 must be tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h lengths %l : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>, tensor<1x2x16xf32>, tensor<2xi64>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x64x8xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>, %h: tensor<1x2x16xf32>, %c: tensor<1x2x8xf32>) {
  // expected-error @+2 {{'nn.lstm' op operand 'initial_c' must be [directions, batch, hidden] = [1, 2, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = nn.lstm %x, %w, %r, %b, %h, %c : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>, tensor<1x2x16xf32>, tensor<1x2x8xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x64x8xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>, %h: tensor<1x2x16xf32>, %c: tensor<1x2x16xf32>, %p: tensor<1x64xf32>) {
  // expected-error @+2 {{'nn.lstm' op operand 'peepholes' must be [directions, 3 * hidden] = [1, 48]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = nn.lstm %x, %w, %r, %b, %h, %c peepholes %p : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x64xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x64x8xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>, %h: tensor<1x2x16xf32>, %c: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.lstm' op attribute 'activations' needs 3 entries (3 per direction), got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = nn.lstm %x, %w, %r, %b, %h, %c {activations = [#nn<rnn_activation tanh>]} : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x64x8xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>, %h: tensor<1x2x16xf32>) {
  // expected-error @+2 {{'nn.gru' op operand 'weights' must be [directions, gates * hidden, input_size] = [1, 48, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.gru %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>, tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// -----

func.func @f(%x: tensor<5x2x8xf32>, %w: tensor<1x?x8xf32>, %r: tensor<1x?x4611686018427387904xf32>, %b: tensor<1x?xf32>, %h: tensor<1x2x?xf32>) {
  // expected-error @+2 {{'nn.rnn' op hidden size 4611686018427387904 is too large}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.rnn %x, %w, %r, %b, %h : (tensor<5x2x8xf32>, tensor<1x?x8xf32>, tensor<1x?x4611686018427387904xf32>, tensor<1x?xf32>, tensor<1x2x?xf32>) -> (tensor<5x1x2x?xf32>, tensor<1x2x?xf32>)
  return
}

// -----

func.func @f(%x: tensor<4x5xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'nn.gather' op axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather %x, %i {axis = 2 : i64} : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f(%x: tensor<0x5xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'nn.gather' op axis 0 is empty: there is nothing to gather}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather %x, %i : (tensor<0x5xf32>, tensor<2xi64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @f(%x: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'nn.gather' op operand 'data' must have rank 1 or more}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather %x, %i : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%x: tensor<4x5xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'nn.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = nn.gather %x, %i : (tensor<4x5xf32>, tensor<2xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @f(%x: tensor<4x5xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'nn.gather_elements' op operand 'indices' must have the rank of 'data' (2), got 'tensor<2xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather_elements %x, %i : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%x: tensor<4x5xf32>, %i: tensor<4x6xi64>) {
  // expected-error @+2 {{'nn.gather_elements' op operand 'indices' dimension 1 (6) is larger than the data's (5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather_elements %x, %i : (tensor<4x5xf32>, tensor<4x6xi64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @f(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+2 {{'nn.gather_elements' op axis -3 is out of range for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather_elements %x, %i {axis = -3 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f(%x: tensor<0x5xf32>, %i: tensor<0x2xi64>) {
  // expected-error @+2 {{'nn.gather_elements' op axis 0 is empty: there is nothing to gather}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather_elements %x, %i : (tensor<0x5xf32>, tensor<0x2xi64>) -> tensor<0x2xf32>
  return
}

// -----

func.func @f(%x: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+2 {{'nn.gather_elements' op operand 'data' must have rank 1 or more}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.gather_elements %x, %i : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.mod' op of floats needs fmod = true (the sign of the dividend), got 'tensor<4xf32>'}}
  %0 = nn.mod %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'nn.compare' op operands are not broadcastable: 'tensor<3x4xf32>' and 'tensor<3xf32>' differ in dimension 1 (4 vs 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.compare %x, %y {predicate = #nn<compare_predicate eq>} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xi1>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %y: tensor<3x4xi32>) {
  // expected-error @+1 {{'nn.compare' op requires the same element type for all operands}}
  %0 = nn.compare %x, %y {predicate = #nn<compare_predicate eq>} : (tensor<3x4xf32>, tensor<3x4xi32>) -> tensor<3x4xi1>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'nn.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3x4xf32>'}}
  %0 = nn.compare %x, %x {predicate = #nn<compare_predicate eq>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xi32>) {
  // expected-error @+1 {{'nn.logical' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3x4xi32>'}}
  %0 = nn.logical %x, %x {kind = #nn<logical_kind and>} : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
  return
}

// -----

func.func @f(%m: tensor<3x4xi1>, %x: tensor<3x4xf32>, %y: tensor<3x4xf64>) {
  // expected-error @+2 {{'nn.select' op values must have one element type, got 'tensor<3x4xf32>' and 'tensor<3x4xf64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.select %m, %x, %y : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%m: tensor<2x4xi1>, %x: tensor<3x4xf32>) {
  // expected-error @+2 {{'nn.select' op operands are not broadcastable: 'tensor<2x4xi1>' and 'tensor<3x4xf32>' differ in dimension 0 (2 vs 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.select %m, %x, %x : (tensor<2x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'nn.cast' op requires the same shape for all operands and results}}
  %0 = nn.cast %x : tensor<3x4xf32> to tensor<4x3xi32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'nn.top_k' op k = 5 must be in [1, 4], the size of axis 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.top_k %x {k = 5 : i64} : (tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'nn.top_k' op axis -3 is out of range for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.top_k %x {k = 1 : i64, axis = -3 : i64} : (tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expected-error @+2 {{'nn.top_k' op needs an input of rank 1 or more, got 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = nn.top_k %x {k = 1 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @f(%x: tensor<3x4xi1>) {
  // expected-error @+1 {{'nn.top_k' op operand #0 must be ranked tensor of 64-bit float or 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3x4xi1>'}}
  %0:2 = nn.top_k %x {k = 1 : i64} : (tensor<3x4xi1>) -> (tensor<3x1xi1>, tensor<3x1xi64>)
  return
}

// -----

func.func @f(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'nn.pad' op reflect padding of 4 in dimension 1 needs a size above it, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.pad %x {pads = array<i64: 0, 4, 0, 0>, mode = #nn<pad_mode reflect>} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @f(%x: tensor<2x0xf32>) {
  // expected-error @+2 {{'nn.pad' op edge padding of dimension 1, which is empty: there is no edge to repeat}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.pad %x {pads = array<i64: 0, 1, 0, 0>, mode = #nn<pad_mode edge>} : (tensor<2x0xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x5x5xf32>) {
  // expected-error @+2 {{'nn.max_pool2d_with_indices' op padding 3 is not smaller than the (dilated) kernel size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = nn.max_pool2d_with_indices %x {kernel = array<i64: 2, 2>, padding = array<i64: 3, 0, 0, 0>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x7x4xf32>, tensor<1x1x7x4xi64>)
  return
}

// -----

func.func @f(%x: tensor<1x1x5x5xf32>) {
  // expected-error @+1 {{'nn.max_pool2d_with_indices' op result #1 must be 4D tensor of 64-bit signless integer values, but got 'tensor<1x1x4x4xi32>'}}
  %y, %i = nn.max_pool2d_with_indices %x {kernel = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi32>)
  return
}

// -----

func.func @f(%x: tensor<1x2x5x6xf32>) {
  // expected-error @+2 {{'nn.resize' op attribute 'roi' goes with coordinates tf_crop_and_resize, and only with it}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, coordinates = #nn<resize_coordinates tf_crop_and_resize>, sizes = array<i64: 4, 7>} : (tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32>
  return
}

// -----

func.func @f(%x: tensor<1x2x5x6xf32>) {
  // expected-error @+2 {{'nn.resize' op attribute 'roi' goes with coordinates tf_crop_and_resize, and only with it}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, roi = array<f64: 0.0, 0.0, 1.0, 1.0>, sizes = array<i64: 4, 7>} : (tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32>
  return
}

// -----

func.func @f(%x: tensor<1x2x5x6xf32>) {
  // expected-error @+2 {{'nn.resize' op attribute 'roi' needs 4 entries (h_start, w_start, h_end, w_end), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.resize %x {coordinates = #nn<resize_coordinates tf_crop_and_resize>, roi = array<f64: 0.0, 1.0>, sizes = array<i64: 4, 7>} : (tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %n: index) {
  // expected-error @+2 {{'nn.reshape' op has 1 'sizes' operands for 2 -1 entries of attribute 'shape'; they must be as many}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %x sizes(%n) {shape = array<i64: -1, -1>} : (tensor<2x3xf32>, index) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %n: index) {
  // expected-error @+2 {{'nn.reshape' op attribute 'shape' has size 0 at index 1; sizes must be positive or -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.reshape %x sizes(%n) {shape = array<i64: -1, 0>} : (tensor<2x3xf32>, index) -> tensor<?x0xf32>
  return
}

// -----

func.func @f(%x: tensor<1x3xf32>, %n: index) {
  // expected-error @+2 {{'nn.broadcast_to' op has 1 'sizes' operands for 0 -1 entries of attribute 'shape'; they must be as many}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x sizes(%n) {shape = array<i64: 2, 3>} : (tensor<1x3xf32>, index) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%x: tensor<?x3xf32>, %n: index) {
  // expected-error @+2 {{'nn.broadcast_to' op input dimension 0 is dynamic and meets a run-time size: whether it broadcasts cannot be decided when compiling}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.broadcast_to %x sizes(%n) {shape = array<i64: -1, 3>} : (tensor<?x3xf32>, index) -> tensor<?x3xf32>
  return
}

// -----

func.func @f(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{'nn.slice' op dimension 0 is taken whole (size -1) but has offset 1 and step 1 instead of 0 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: -1, 4>, steps = array<i64: 1, 1>} : (tensor<?x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @f(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{'nn.slice' op dimension 1 is taken whole (size -1) but has offset 0 and step -1 instead of 0 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: -1, -1>, steps = array<i64: 1, -1>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return
}

// -----
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.quantize' op needs at least one scale}}
  %0 = nn.quantize %x {scales = array<f32>, zero_points = array<i64>} : tensor<2x3xf32> to tensor<2x3xi8>
  return
}
// -----
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.quantize' op has 1 scale(s) but 2 zero point(s)}}
  %0 = nn.quantize %x {scales = array<f32: 0.5>, zero_points = array<i64: 0, 1>} : tensor<2x3xf32> to tensor<2x3xi8>
  return
}
// -----
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.quantize' op scale 0.000000e+00 must be positive and finite}}
  %0 = nn.quantize %x {scales = array<f32: 0.0>, zero_points = array<i64: 0>} : tensor<2x3xf32> to tensor<2x3xi8>
  return
}
// -----
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.quantize' op scale INF must be positive and finite}}
  %0 = nn.quantize %x {scales = array<f32: 0x7F800000>, zero_points = array<i64: 0>} : tensor<2x3xf32> to tensor<2x3xi8>
  return
}
// -----
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.quantize' op zero point 128 is out of range for 'i8'}}
  %0 = nn.quantize %x {scales = array<f32: 0.5>, zero_points = array<i64: 128>} : tensor<2x3xf32> to tensor<2x3xi8>
  return
}
// -----
func.func @f(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'nn.dequantize' op zero point 2147483648 is out of range for 'i32'}}
  %0 = nn.dequantize %x {scales = array<f32: 0.5>, zero_points = array<i64: 2147483648>} : tensor<2x3xi32> to tensor<2x3xf32>
  return
}
// -----
func.func @f(%x: tensor<2x3xi8>) {
  // expected-error @+1 {{'nn.dequantize' op attribute 'axis' = 2 is out of range for rank 2}}
  %0 = nn.dequantize %x {scales = array<f32: 0.5, 0.25>, zero_points = array<i64: 0, 0>, axis = 2 : i64} : tensor<2x3xi8> to tensor<2x3xf32>
  return
}
// -----
func.func @f(%x: tensor<2x3xi8>) {
  // expected-error @+1 {{'nn.dequantize' op has 2 per-channel scales but dimension 1 has size 3}}
  %0 = nn.dequantize %x {scales = array<f32: 0.5, 0.25>, zero_points = array<i64: 0, 0>, axis = 1 : i64} : tensor<2x3xi8> to tensor<2x3xf32>
  return
}
// -----
func.func @f(%x: tensor<2x?xi8>) {
  // expected-error @+1 {{'nn.dequantize' op has 2 per-channel scales but dimension -1 has size ?}}
  %0 = nn.dequantize %x {scales = array<f32: 0.5, 0.25>, zero_points = array<i64: 0, 0>, axis = -1 : i64} : tensor<2x?xi8> to tensor<2x?xf32>
  return
}
// -----
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.quantize' op result #0 must be ranked tensor of 8-bit signless integer values}}
  %0 = nn.quantize %x {scales = array<f32: 0.5>, zero_points = array<i64: 0>} : tensor<2x3xf32> to tensor<2x3xi32>
  return
}

// -----

func.func @f(%x: tensor<64x64xf32>, %t: index) {
  // expected-error @+2 {{'nn.slice' op has 1 'sizes' operand(s) for 2 entries of -1 in attribute 'sizes'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x sizes(%t) {offsets = array<i64: 0, 0>, sizes = array<i64: -1, -1>, steps = array<i64: 1, 1>} : (tensor<64x64xf32>, index) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%x: tensor<64x64xf32>, %t: index) {
  // expected-error @+2 {{'nn.slice' op dimension 1 has a run-time size but offset 0 and step 2 (step 1 and an offset inside the dimension are needed)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x sizes(%t) {offsets = array<i64: 0, 0>, sizes = array<i64: 64, -1>, steps = array<i64: 1, 2>} : (tensor<64x64xf32>, index) -> tensor<64x?xf32>
  return
}

// -----

func.func @f(%x: tensor<64x64xf32>, %t: index) {
  // expected-error @+2 {{'nn.slice' op dimension 0 has a run-time size but offset 65 and step 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.slice %x sizes(%t) {offsets = array<i64: 65, 0>, sizes = array<i64: -1, 64>, steps = array<i64: 1, 1>} : (tensor<64x64xf32>, index) -> tensor<?x64xf32>
  return
}
// -----
func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{attribute 'axis' (2) must be in [-rank, rank) for an input of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.layer_norm %x {axis = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}
// -----
func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{attribute 'epsilon' must not be negative, got -1.000000e-05}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.layer_norm %x {epsilon = -1.0e-5 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}
// -----
func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{operand 'scale' must have the normalized dimensions' shape (input dims from 1), got 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.layer_norm %x scale %g {axis = 1 : i64} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return
}
// -----
func.func @f(%x: tensor<2x8xf32>, %b: tensor<8xf16>) {
  // expected-error @+2 {{operand 'bias' element type 'f16' differs from the input's 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.layer_norm %x bias %b : (tensor<2x8xf32>, tensor<8xf16>) -> tensor<2x8xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op input channel count 6 is not divisible by groups = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w {groups = 4 : i64} : (tensor<1x6x4x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op operand 'filter' dim 1 is 3 but input channels / groups = 6 / 1 = 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w : (tensor<1x6x4x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+1 {{operand #1 must be 5D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x6x3x3xf32>'}}
  %0 = nn.conv3d %x, %w : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xi8>, %w: tensor<4x6x3x3x3xi8>) {
  // expected-error @+1 {{operand #0 must be 5D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1x6x4x8x8xi8>'}}
  %0 = nn.conv3d %x, %w : (tensor<1x6x4x8x8xi8>, tensor<4x6x3x3x3xi8>) -> tensor<1x4x2x6x6xi8>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf32>) {
  // expected-error @+1 {{'nn.conv3d' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 3 elements}}
  %0 = nn.conv3d %x, %w {strides = array<i64: 1, 1>} : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op attribute 'padding' must not be negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w {padding = array<i64: 0, 0, -1, 0, 0, 0>} : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op attribute 'dilations' must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w {dilations = array<i64: 0, 1, 1>} : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x2x8x8xf32>, %w: tensor<4x6x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op dilated kernel 3x3x3 is larger than the padded input 2x8x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w : (tensor<1x6x2x8x8xf32>, tensor<4x6x3x3x3xf32>) -> tensor<1x4x1x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{'nn.conv3d' op operand 'bias' has 5 elements but the filter has 4 output channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w, %b : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op inferred type(s) 'tensor<1x4x2x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x4x6x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf32>) -> tensor<1x4x4x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf16>) {
  // expected-error @+2 {{'nn.conv3d' op operand 'filter' element type 'f16' differs from operand 'input' element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf16>) -> tensor<1x4x2x6x6xf32>
  return
}
// -----
func.func @f(%x: tensor<1x6x4x8x8xf32>, %w: tensor<4x6x3x3x3xf32>) {
  // expected-error @+2 {{'nn.conv3d' op output size overflows 64 bits}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = nn.conv3d %x, %w {padding = array<i64: 9223372036854775807, 0, 0, 9223372036854775807, 0, 0>} : (tensor<1x6x4x8x8xf32>, tensor<4x6x3x3x3xf32>) -> tensor<1x4x4x6x6xf32>
  return
}
