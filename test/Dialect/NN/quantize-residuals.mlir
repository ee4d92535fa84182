// RUN: dlas-opt %s --split-input-file --dlas-quantize-residuals | FileCheck %s

// A residual block's output, read by the next layer (quantized) and by the
// next residual add (f32): the add reads the quantized tensor, dequantized
// with the same parameters, placed just before the add.
// CHECK-LABEL: func.func @block
// CHECK: %[[X:.*]] = nn.relu
// CHECK: %[[Q:.*]] = nn.quantize %[[X]] {scales = array<f32: 2.000000e-02>, zero_points = array<i64: -128>}
// CHECK: %[[C:.*]] = nn.conv2d %[[Q]]
// CHECK: %[[Y:.*]] = nn.dequantize %[[C]]
// CHECK: %[[D:.*]] = nn.dequantize %[[Q]] {scales = array<f32: 2.000000e-02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xi8> to tensor<1x8x4x4xf32>
// CHECK-NEXT: %[[S:.*]] = nn.add %[[Y]], %[[D]]
// CHECK: return %[[S]]
func.func @block(%a: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %x = nn.relu %a : tensor<1x8x4x4xf32>
  %q = nn.quantize %x {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %w = arith.constant dense<1> : tensor<8x8x1x1xi8>
  %c = nn.conv2d %q, %w : (tensor<1x8x4x4xi8>, tensor<8x8x1x1xi8>) -> tensor<1x8x4x4xi32>
  %y = nn.dequantize %c {scales = array<f32: 0.001>, zero_points = array<i64: 0>} : tensor<1x8x4x4xi32> to tensor<1x8x4x4xf32>
  %s = nn.add %y, %x : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %s : tensor<1x8x4x4xf32>
}

// -----

// Two layers quantize the value with different parameters: the add reads
// the widest (largest scale), which clips least.
// CHECK-LABEL: func.func @widest
// CHECK: %[[Q1:.*]] = nn.quantize %{{.*}} {scales = array<f32: 2.000000e-02>
// CHECK: %[[Q2:.*]] = nn.quantize %{{.*}} {scales = array<f32: 5.000000e-02>
// CHECK: nn.dequantize %[[Q2]] {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -100>}
// CHECK-NEXT: nn.add
func.func @widest(%a: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xi8>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>) {
  %x = nn.relu %a : tensor<1x8x4x4xf32>
  %q1 = nn.quantize %x {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %q2 = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: -100>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %s = nn.add %a, %x : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %q1, %q2, %s : tensor<1x8x4x4xi8>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>
}

// -----

// Left alone: a function argument (its producer is outside: nothing to
// store in i8), a value that another op reads in f32 (a pool), a value
// quantized per channel, a value no quantize reads, and an add before the
// quantize it would read.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: nn.dequantize
// CHECK: return
func.func @left_alone(%a: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>) {
  %qa = nn.quantize %a {scales = array<f32: 0.02>, zero_points = array<i64: 0>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %sa = nn.add %a, %a : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %x = nn.relu %a : tensor<1x8x4x4xf32>
  %qx = nn.quantize %x {scales = array<f32: 0.02>, zero_points = array<i64: 0>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %px = nn.max_pool2d %x {kernel = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %sx = nn.add %a, %x : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %z = nn.sigmoid %a : tensor<1x8x4x4xf32>
  %qz = nn.quantize %z {scales = array<f32: 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1>, zero_points = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, axis = 1 : i64} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %sz = nn.add %a, %z : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %t = nn.tanh %a : tensor<1x8x4x4xf32>
  %st = nn.add %t, %t : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %u = nn.relu6 %a : tensor<1x8x4x4xf32>
  %su = nn.add %a, %u : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %qu = nn.quantize %u {scales = array<f32: 0.02>, zero_points = array<i64: 0>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  return %qa, %sa, %px, %qx, %sx, %sz, %st, %qu : tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>
}
