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

// -----

// A ReLU6 and a ReLU of a bf16 convolution's rounded result compute on the
// f32 result before the rounding (exact: rounding is monotonic and 0 and 6
// are bf16 values), in the rounding op: no bf16 maximum remains.
// CHECK-LABEL: func.func @bf16_clamps
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x32x8x8xf32>) outs(%{{.*}} : tensor<1x32x8x8xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.minimumf %[[A]], %[[SIX]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.maximumf %[[B]], %[[ZERO]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[D]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @bf16_clamps(%x: tensor<1x16x8x8xbf16>) -> tensor<1x32x8x8xbf16> {
  %w = arith.constant dense<0.01> : tensor<32x16x1x1xbf16>
  %b = arith.constant dense<0.1> : tensor<32xbf16>
  %y = nn.conv2d %x, %w, %b : (tensor<1x16x8x8xbf16>, tensor<32x16x1x1xbf16>, tensor<32xbf16>) -> tensor<1x32x8x8xbf16>
  %z = nn.relu6 %y : tensor<1x32x8x8xbf16>
  %r = nn.relu %z : tensor<1x32x8x8xbf16>
  return %r : tensor<1x32x8x8xbf16>
}

// -----

// A bf16 add's rounding takes the ReLU after it too; a clamp of a rounded
// value that is read elsewhere, or of a function argument, or a body that
// is not a clamp (a max of two tensors), stays in bf16.
// CHECK-LABEL: func.func @clamps_kept
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NEXT: arith.maximumf {{.*}} : f32
// CHECK-NEXT: arith.truncf
// CHECK: arith.maximumf {{.*}} : bf16
// CHECK: arith.maximumf {{.*}} : bf16
// CHECK: arith.addf
// CHECK-NEXT: arith.truncf
// CHECK: arith.maximumf {{.*}} : bf16
// CHECK: return
func.func @clamps_kept(%x: tensor<8xbf16>, %y: tensor<8xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %s = nn.add %x, %y : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %r = nn.relu %s : tensor<8xbf16>
  %a = nn.relu %x : tensor<8xbf16>
  %m = nn.max %a, %y : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %s2 = nn.add %y, %x : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %r2 = nn.relu %s2 : tensor<8xbf16>
  return %r, %a, %m, %s2, %r2 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}
