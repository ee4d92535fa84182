// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(convert-nn-to-linalg,dlas-fuse-conversions))" | FileCheck %s

// A residual add reading an i8 skip connection: the dequantize's loop is
// fused into the add's, which reads the bytes and converts them itself.
// CHECK-LABEL: func.func @residual
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @residual(%y: tensor<1x8x4x4xf32>, %q: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xf32> {
  %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xi8> to tensor<1x8x4x4xf32>
  %s = nn.add %y, %d : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %s : tensor<1x8x4x4xf32>
}

// -----

// An int8 layer's dequantize of its i32 accumulator stays: it starts the
// kernel's epilogue chain.
// CHECK-LABEL: func.func @accumulator
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}}, %{{.*}} : tensor<1x8x4x4xi32>, tensor<8xf32>, tensor<8xi32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x4x4xf32>)
func.func @accumulator(%acc: tensor<1x8x4x4xi32>) -> tensor<1x8x4x4xf32> {
  %d = nn.dequantize %acc {scales = array<f32: 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2>, zero_points = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, axis = 1 : i64} : tensor<1x8x4x4xi32> to tensor<1x8x4x4xf32>
  %r = nn.relu %d : tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// A dequantize with two readers is computed once, not in each.
// CHECK-LABEL: func.func @shared
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<1x8x4x4xi8>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[D]] : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[D]] : tensor<1x8x4x4xf32>)
func.func @shared(%y: tensor<1x8x4x4xf32>, %q: tensor<1x8x4x4xi8>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xi8> to tensor<1x8x4x4xf32>
  %s = nn.add %y, %d : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = nn.relu %d : tensor<1x8x4x4xf32>
  return %s, %r : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Only the dequantize moves: the add that absorbed it reads a full f32
// tensor, so the ReLU after it stays an op of its own (a kernel's second
// epilogue).
// CHECK-LABEL: func.func @chain
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<1x8x4x4xf32>)
// CHECK: arith.maximumf
func.func @chain(%y: tensor<1x8x4x4xf32>, %q: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xf32> {
  %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xi8> to tensor<1x8x4x4xf32>
  %s = nn.add %y, %d : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = nn.relu %s : tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// A bf16 add: the widenings of its operands and the rounding of its result
// run in its own body, one loop instead of four.
// CHECK-LABEL: func.func @bf16_add
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x8x4x4xbf16>, tensor<1x8x4x4xbf16>) outs(%{{.*}} : tensor<1x8x4x4xbf16>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @bf16_add(%x: tensor<1x8x4x4xbf16>, %y: tensor<1x8x4x4xbf16>) -> tensor<1x8x4x4xbf16> {
  %s = nn.add %x, %y : (tensor<1x8x4x4xbf16>, tensor<1x8x4x4xbf16>) -> tensor<1x8x4x4xbf16>
  return %s : tensor<1x8x4x4xbf16>
}

// -----

// A narrowing of a function argument (no producer to fuse) and of a value
// read twice stay apart.
// CHECK-LABEL: func.func @narrowing_kept
// CHECK-COUNT-3: linalg.generic
// CHECK: return
func.func @narrowing_kept(%x: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xf32>, tensor<8xf16>) {
  %a = nn.cast %x : tensor<8xf32> to tensor<8xf16>
  %r = nn.relu %x : tensor<8xf32>
  %b = nn.cast %r : tensor<8xf32> to tensor<8xf16>
  return %a, %r, %b : tensor<8xf16>, tensor<8xf32>, tensor<8xf16>
}
