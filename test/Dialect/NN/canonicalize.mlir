// RUN: dlas-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func @relu6_is_clip
// CHECK: nn.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK-NOT: nn.relu6
func.func @relu6_is_clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.relu6 %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @reshape_of_reshape
// CHECK-NEXT: %[[R:.*]] = nn.reshape %arg0 {shape = array<i64: 3, 8>} : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<3x8xf32> {
  %0 = nn.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = nn.reshape %0 {shape = array<i64: 3, 8>} : (tensor<6x4xf32>) -> tensor<3x8xf32>
  return %1 : tensor<3x8xf32>
}

// CHECK-LABEL: func @identity_folds
// CHECK-NEXT: return %arg0
func.func @identity_folds(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.reshape %x {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.transpose %0 {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.pad %1 {pads = array<i64: 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.concat %2 {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.flatten %3 {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}

// CHECK-LABEL: func @no_fold
// CHECK: nn.transpose
// CHECK: nn.pad
func.func @no_fold(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %0 = nn.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = nn.pad %0 {pads = array<i64: 1, 0, 0, 0>} : (tensor<3x2xf32>) -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}

// nn.broadcast_to to its own shape folds away.
// CHECK-LABEL: func @broadcast_to_fold
// CHECK-NEXT: return %arg0
func.func @broadcast_to_fold(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = nn.broadcast_to %x {shape = array<i64: 3, 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// An exact widening undone folds away; a rounding narrowing does not.
// CHECK-LABEL: func @cast_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>, %[[Y:.*]]: tensor<4xf32>, %[[Z:.*]]: tensor<4xf16>)
// CHECK-DAG: %[[NARROW:.*]] = nn.cast %[[Y]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-DAG: %[[WIDE:.*]] = nn.cast %[[NARROW]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-DAG: %[[VIA:.*]] = nn.cast %[[X]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-DAG: %[[TOHALF:.*]] = nn.cast %[[VIA]] : tensor<4xf32> to tensor<4xf16>
// CHECK: return %[[X]], %[[WIDE]], %[[TOHALF]], %[[Z]]
func.func @cast_round_trip(%x: tensor<4xbf16>, %y: tensor<4xf32>, %z: tensor<4xf16>) -> (tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>) {
  %0 = nn.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = nn.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %2 = nn.cast %y : tensor<4xf32> to tensor<4xbf16>
  %3 = nn.cast %2 : tensor<4xbf16> to tensor<4xf32>
  %4 = nn.cast %0 : tensor<4xf32> to tensor<4xf16>
  %5 = nn.cast %z : tensor<4xf16> to tensor<4xf32>
  %6 = nn.cast %5 : tensor<4xf32> to tensor<4xf16>
  return %1, %3, %4, %6 : tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>
}

// GELU as PyTorch exports it: (x * (1 + erf(x / sqrt(2)))) * 0.5.
// CHECK-LABEL: func @gelu_pytorch_form
// CHECK-NEXT: %[[G:.*]] = nn.gelu %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_pytorch_form(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %0 = nn.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nn.erf %0 : tensor<2x8xf32>
  %2 = nn.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nn.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nn.mul %3, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// Hugging Face's BERT: (x * 0.5) * (1 + erf(x * (1 / sqrt(2)))), constants
// of rank 1.
// CHECK-LABEL: func @gelu_hf_form
// CHECK-NEXT: %[[G:.*]] = nn.gelu %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_hf_form(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %inv = arith.constant dense<0.707106769> : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %half = arith.constant dense<0.5> : tensor<1xf32>
  %0 = nn.mul %x, %half : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %1 = nn.mul %inv, %x : (tensor<1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = nn.erf %1 : tensor<2x8xf32>
  %3 = nn.add %one, %2 : (tensor<1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nn.mul %0, %3 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// Not GELU: another constant than 1/2, an erf of another value than the
// one multiplied, an intermediate value used elsewhere.
// CHECK-LABEL: func @not_gelu
// CHECK-NOT: nn.gelu
// CHECK: return
func.func @not_gelu(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %third = arith.constant dense<0.333> : tensor<f32>
  %0 = nn.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nn.erf %0 : tensor<2x8xf32>
  %2 = nn.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nn.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nn.mul %3, %third : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %5 = nn.div %y, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %6 = nn.erf %5 : tensor<2x8xf32>
  %7 = nn.add %6, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %8 = nn.mul %x, %7 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %9 = nn.mul %8, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %10 = nn.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %11 = nn.erf %10 : tensor<2x8xf32>
  %12 = nn.add %11, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %13 = nn.mul %x, %12 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %14 = nn.mul %13, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4, %9, %14, %11 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// GELU's tanh form as PyTorch exports F.gelu(x, approximate="tanh"): the
// cube as x * (x * x), constants on the left.
// CHECK-LABEL: func @gelu_tanh_pytorch_form
// CHECK-NEXT: %[[G:.*]] = nn.gelu %arg0 {approximate = #nn<gelu_approximation tanh>} : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_pytorch_form(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c = arith.constant dense<0.044715> : tensor<f32>
  %k = arith.constant dense<0.797884583> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %0 = nn.mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = nn.mul %x, %0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = nn.mul %c, %1 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = nn.add %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nn.mul %k, %3 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = nn.tanh %4 : tensor<2x8xf32>
  %6 = nn.add %one, %5 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %7 = nn.mul %x, %6 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %8 = nn.mul %half, %7 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %8 : tensor<2x8xf32>
}

// GPT-2's gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 *
// pow(x, 3)))), constants on the right.
// CHECK-LABEL: func @gelu_tanh_gpt2_form
// CHECK-NEXT: %[[G:.*]] = nn.gelu %arg0 {approximate = #nn<gelu_approximation tanh>} : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_gpt2_form(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %three = arith.constant dense<3.0> : tensor<f32>
  %c = arith.constant dense<0.044715> : tensor<f32>
  %k = arith.constant dense<0.797884583> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %0 = nn.mul %x, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nn.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %2 = nn.mul %1, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nn.add %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nn.mul %3, %k : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %5 = nn.tanh %4 : tensor<2x8xf32>
  %6 = nn.add %5, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %7 = nn.mul %0, %6 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// Not the tanh form: another cubic coefficient, a square instead of a
// cube, a cube of another value.
// CHECK-LABEL: func @not_gelu_tanh
// CHECK-NOT: nn.gelu
// CHECK: return
func.func @not_gelu_tanh(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %two = arith.constant dense<2.0> : tensor<f32>
  %three = arith.constant dense<3.0> : tensor<f32>
  %c = arith.constant dense<0.044715> : tensor<f32>
  %d = arith.constant dense<0.05> : tensor<f32>
  %k = arith.constant dense<0.797884583> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %a0 = nn.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %a1 = nn.mul %a0, %d : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %a2 = nn.add %x, %a1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a3 = nn.mul %a2, %k : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %a4 = nn.tanh %a3 : tensor<2x8xf32>
  %a5 = nn.add %a4, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %a6 = nn.mul %x, %a5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a7 = nn.mul %a6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %b0 = nn.pow %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %b1 = nn.mul %b0, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %b2 = nn.add %x, %b1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b3 = nn.mul %b2, %k : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %b4 = nn.tanh %b3 : tensor<2x8xf32>
  %b5 = nn.add %b4, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %b6 = nn.mul %x, %b5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b7 = nn.mul %b6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %c0 = nn.pow %y, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %c1 = nn.mul %c0, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %c2 = nn.add %x, %c1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c3 = nn.mul %c2, %k : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %c4 = nn.tanh %c3 : tensor<2x8xf32>
  %c5 = nn.add %c4, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %c6 = nn.mul %x, %c5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c7 = nn.mul %c6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %a7, %b7, %c7 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// SiLU as exporters write it: x * sigmoid(x), either order; a gate of
// another value (squeeze-excitation) or a sigmoid used twice stays.
// CHECK-LABEL: func @silu_forms
// CHECK-NEXT: %[[A:.*]] = nn.silu %arg0 : tensor<1x4x3x3xf32>
// CHECK-NEXT: %[[B:.*]] = nn.silu %arg0 : tensor<1x4x3x3xf32>
// CHECK-NEXT: %[[G:.*]] = nn.sigmoid %arg1
// CHECK-NEXT: %[[C:.*]] = nn.mul %arg0, %[[G]]
// CHECK-NEXT: %[[S:.*]] = nn.sigmoid %arg0
// CHECK-NEXT: %[[D:.*]] = nn.mul %arg0, %[[S]]
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[S]]
func.func @silu_forms(%x: tensor<1x4x3x3xf32>, %y: tensor<1x4x1x1xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %0 = nn.sigmoid %x : tensor<1x4x3x3xf32>
  %1 = nn.mul %x, %0 : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %2 = nn.sigmoid %x : tensor<1x4x3x3xf32>
  %3 = nn.mul %2, %x : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %4 = nn.sigmoid %y : tensor<1x4x1x1xf32>
  %5 = nn.mul %x, %4 : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
  %6 = nn.sigmoid %x : tensor<1x4x3x3xf32>
  %7 = nn.mul %x, %6 : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %1, %3, %5, %7, %6 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// LayerNorm as PyTorch exports it (Pow for the square, the epsilon on the
// right), then the weight and bias: one nn.layer_norm.
// CHECK-LABEL: func @layer_norm_pytorch_form
// CHECK-NEXT: %[[N:.*]] = nn.layer_norm %arg0 scale %arg1 bias %arg2 {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64}
// CHECK-NEXT: return %[[N]]
func.func @layer_norm_pytorch_form(%x: tensor<1x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<1x5x16xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %eps = arith.constant dense<9.99999974E-6> : tensor<f32>
  %0 = nn.reduce %x {axes = array<i64: -1>, kind = #nn<reduce_kind mean>} : (tensor<1x5x16xf32>) -> tensor<1x5x1xf32>
  %1 = nn.sub %x, %0 : (tensor<1x5x16xf32>, tensor<1x5x1xf32>) -> tensor<1x5x16xf32>
  %2 = nn.pow %1, %two : (tensor<1x5x16xf32>, tensor<f32>) -> tensor<1x5x16xf32>
  %3 = nn.reduce %2 {axes = array<i64: -1>, kind = #nn<reduce_kind mean>} : (tensor<1x5x16xf32>) -> tensor<1x5x1xf32>
  %4 = nn.add %3, %eps : (tensor<1x5x1xf32>, tensor<f32>) -> tensor<1x5x1xf32>
  %5 = nn.sqrt %4 : tensor<1x5x1xf32>
  %6 = nn.div %1, %5 : (tensor<1x5x16xf32>, tensor<1x5x1xf32>) -> tensor<1x5x16xf32>
  %7 = nn.mul %6, %g : (tensor<1x5x16xf32>, tensor<16xf32>) -> tensor<1x5x16xf32>
  %8 = nn.add %7, %b : (tensor<1x5x16xf32>, tensor<16xf32>) -> tensor<1x5x16xf32>
  return %8 : tensor<1x5x16xf32>
}

// As dlas-import expands LayerNormalization and InstanceNormalization:
// the square as a multiply, the epsilon on the left, the means over
// several trailing dims (axis 2 of 4: an instance norm, whose per-channel
// scale [C, 1, 1] is not of the normalized shape and stays a multiply);
// a weight of the normalized shape with a leading unit dim is reshaped.
// CHECK-LABEL: func @instance_norm_form
// CHECK: %[[N:.*]] = nn.layer_norm %arg0 {axis = 2 : i64, epsilon = 0.0010000000474974513 : f64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK: nn.mul %[[N]], %arg1 : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>)
// CHECK: %[[G:.*]] = nn.reshape %arg2 {shape = array<i64: 4, 5>} : (tensor<1x4x5xf32>) -> tensor<4x5xf32>
// CHECK: nn.layer_norm %arg0 scale %[[G]] {axis = 2 : i64, epsilon = 0.0010000000474974513 : f64}
func.func @instance_norm_form(%x: tensor<2x3x4x5xf32>, %c: tensor<3x1x1xf32>, %g: tensor<1x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %eps = arith.constant dense<1.0e-3> : tensor<f32>
  %0 = nn.reduce %x {axes = array<i64: 2, 3>, kind = #nn<reduce_kind mean>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %1 = nn.sub %x, %0 : (tensor<2x3x4x5xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %2 = nn.mul %1, %1 : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %3 = nn.reduce %2 {axes = array<i64: 3, 2>, kind = #nn<reduce_kind mean>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %4 = nn.add %eps, %3 : (tensor<f32>, tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32>
  %5 = nn.sqrt %4 : tensor<2x3x1x1xf32>
  %6 = nn.div %1, %5 : (tensor<2x3x4x5xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %7 = nn.mul %6, %c : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %a = nn.reduce %x {axes = array<i64: 2, 3>, kind = #nn<reduce_kind mean>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %b = nn.sub %x, %a : (tensor<2x3x4x5xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %c2 = nn.mul %b, %b : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %d = nn.reduce %c2 {axes = array<i64: 2, 3>, kind = #nn<reduce_kind mean>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %e = nn.add %d, %eps : (tensor<2x3x1x1xf32>, tensor<f32>) -> tensor<2x3x1x1xf32>
  %f = nn.sqrt %e : tensor<2x3x1x1xf32>
  %h = nn.div %b, %f : (tensor<2x3x4x5xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %i = nn.mul %g, %h : (tensor<1x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  return %7, %i : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
}

// Not a LayerNorm: means over different axes, over a leading axis, a
// centred value read elsewhere, a variance without epsilon constant.
// CHECK-LABEL: func @not_layer_norm
// CHECK-NOT: nn.layer_norm
// CHECK: return
func.func @not_layer_norm(%x: tensor<4x6xf32>, %e: tensor<4x1xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  // Leading axis 0.
  %a0 = nn.reduce %x {axes = array<i64: 0>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  %a1 = nn.sub %x, %a0 : (tensor<4x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
  %a2 = nn.mul %a1, %a1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %a3 = nn.reduce %a2 {axes = array<i64: 0>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  %a4 = nn.add %a3, %eps : (tensor<1x6xf32>, tensor<f32>) -> tensor<1x6xf32>
  %a5 = nn.sqrt %a4 : tensor<1x6xf32>
  %a6 = nn.div %a1, %a5 : (tensor<4x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
  // The variance is a sum, not a mean.
  %b0 = nn.reduce %x {axes = array<i64: 1>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %b1 = nn.sub %x, %b0 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %b2 = nn.mul %b1, %b1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %b3 = nn.reduce %b2 {axes = array<i64: 1>, kind = #nn<reduce_kind sum>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %b4 = nn.add %b3, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %b5 = nn.sqrt %b4 : tensor<4x1xf32>
  %b6 = nn.div %b1, %b5 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  // The centred value is also returned.
  %c0 = nn.reduce %x {axes = array<i64: 1>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %c1 = nn.sub %x, %c0 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %c2 = nn.mul %c1, %c1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %c3 = nn.reduce %c2 {axes = array<i64: 1>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %c4 = nn.add %c3, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %c5 = nn.sqrt %c4 : tensor<4x1xf32>
  %c6 = nn.div %c1, %c5 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  // The epsilon is a tensor of run-time values.
  %d0 = nn.reduce %x {axes = array<i64: 1>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d1 = nn.sub %x, %d0 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %d2 = nn.mul %d1, %d1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %d3 = nn.reduce %d2 {axes = array<i64: 1>, kind = #nn<reduce_kind mean>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d4 = nn.add %d3, %e : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %d5 = nn.sqrt %d4 : tensor<4x1xf32>
  %d6 = nn.div %d1, %d5 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  return %a6, %b6, %c6, %c1, %d6 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}
