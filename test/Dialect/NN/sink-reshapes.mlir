// RUN: dlas-opt %s --dlas-sink-reshapes --split-input-file | FileCheck %s

// A matmul's reshape back to [batch, tokens, features] sinks below the bias
// add (broadcast along the kept features), the activation and the residual
// add (the other operand reshaped to the matrix), a layer scale (of unit
// leading dimensions: only its features stay), and cancels against the
// next matmul's reshape.
// CHECK-LABEL: func @transformer_mlp
// CHECK: %[[H:.*]] = nn.matmul %{{.*}}, %{{.*}} : (tensor<6x8xf32>, tensor<8x12xf32>) -> tensor<6x12xf32>
// CHECK: %[[B:.*]] = nn.add %[[H]], %{{.*}} : (tensor<6x12xf32>, tensor<12xf32>) -> tensor<6x12xf32>
// CHECK: %[[G:.*]] = nn.gelu %[[B]] : tensor<6x12xf32>
// CHECK: %[[O:.*]] = nn.matmul %[[G]], %{{.*}} : (tensor<6x12xf32>, tensor<12x8xf32>) -> tensor<6x8xf32>
// CHECK: %[[SCALE:.*]] = nn.reshape %arg4 {shape = array<i64: 8>} : (tensor<1x1x8xf32>) -> tensor<8xf32>
// CHECK: %[[S:.*]] = nn.mul %[[O]], %[[SCALE]] : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
// CHECK: %[[XM:.*]] = nn.reshape %arg0 {shape = array<i64: 6, 8>} : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
// CHECK: %[[R:.*]] = nn.add %[[S]], %[[XM]] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
// CHECK: %[[Y:.*]] = nn.reshape %[[R]] {shape = array<i64: 2, 3, 8>} : (tensor<6x8xf32>) -> tensor<2x3x8xf32>
// CHECK: return %[[Y]]
func.func @transformer_mlp(%x: tensor<2x3x8xf32>, %w1: tensor<8x12xf32>, %b1: tensor<12xf32>, %w2: tensor<12x8xf32>, %scale: tensor<1x1x8xf32>) -> tensor<2x3x8xf32> {
  %0 = nn.reshape %x {shape = array<i64: 6, 8>} : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  %1 = nn.matmul %0, %w1 : (tensor<6x8xf32>, tensor<8x12xf32>) -> tensor<6x12xf32>
  %2 = nn.reshape %1 {shape = array<i64: 2, 3, 12>} : (tensor<6x12xf32>) -> tensor<2x3x12xf32>
  %3 = nn.add %2, %b1 : (tensor<2x3x12xf32>, tensor<12xf32>) -> tensor<2x3x12xf32>
  %4 = nn.gelu %3 : tensor<2x3x12xf32>
  %5 = nn.reshape %4 {shape = array<i64: 6, 12>} : (tensor<2x3x12xf32>) -> tensor<6x12xf32>
  %6 = nn.matmul %5, %w2 : (tensor<6x12xf32>, tensor<12x8xf32>) -> tensor<6x8xf32>
  %7 = nn.reshape %6 {shape = array<i64: 2, 3, 8>} : (tensor<6x8xf32>) -> tensor<2x3x8xf32>
  %8 = nn.mul %7, %scale : (tensor<2x3x8xf32>, tensor<1x1x8xf32>) -> tensor<2x3x8xf32>
  %9 = nn.add %8, %x : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %9 : tensor<2x3x8xf32>
}

// -----

// Both operands the same reshape of equal shapes: the op moves above both.
// CHECK-LABEL: func @twin_reshapes
// CHECK: %[[M:.*]] = nn.mul %arg0, %arg1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: nn.reshape %[[M]] {shape = array<i64: 2, 2, 6>}
func.func @twin_reshapes(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>) -> tensor<2x2x6xf32> {
  %0 = nn.reshape %a {shape = array<i64: 2, 2, 6>} : (tensor<4x6xf32>) -> tensor<2x2x6xf32>
  %1 = nn.reshape %b {shape = array<i64: 2, 2, 6>} : (tensor<4x6xf32>) -> tensor<2x2x6xf32>
  %2 = nn.mul %0, %1 : (tensor<2x2x6xf32>, tensor<2x2x6xf32>) -> tensor<2x2x6xf32>
  return %2 : tensor<2x2x6xf32>
}

// -----

// A scalar and a constant first operand (sub is not commutative: the order
// stays).
// CHECK-LABEL: func @scalar_operand
// CHECK: %[[S:.*]] = nn.sub %{{.*}}, %arg0 : (tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: nn.reshape %[[S]] {shape = array<i64: 1, 4, 6>}
func.func @scalar_operand(%a: tensor<4x6xf32>) -> tensor<1x4x6xf32> {
  %c = arith.constant dense<3.0> : tensor<f32>
  %0 = nn.reshape %a {shape = array<i64: 1, 4, 6>} : (tensor<4x6xf32>) -> tensor<1x4x6xf32>
  %1 = nn.sub %c, %0 : (tensor<f32>, tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  return %1 : tensor<1x4x6xf32>
}

// -----

// Stays: the other operand varies along a dimension the reshape splits
// ([2, 3] from 6 rows), a softmax (its axis is the shape's), a reshape that
// removes dimensions, a run-time size, an operand that widens the result.
// CHECK-LABEL: func @stays
// CHECK: %[[R:.*]] = nn.reshape %arg0 {{.*}} -> tensor<2x3x8xf32>
// CHECK: nn.add %[[R]], %arg1 : (tensor<2x3x8xf32>, tensor<3x1xf32>)
// CHECK: nn.softmax %[[R]]
// CHECK: %[[C:.*]] = nn.reshape %arg2 {{.*}} -> tensor<6x8xf32>
// CHECK: nn.relu %[[C]] : tensor<6x8xf32>
// CHECK: %[[D:.*]] = nn.reshape %arg3 sizes
// CHECK: nn.relu %[[D]]
// CHECK: nn.add %[[R]], %arg4 : (tensor<2x3x8xf32>, tensor<5x2x3x8xf32>) -> tensor<5x2x3x8xf32>
func.func @stays(%a: tensor<6x8xf32>, %b: tensor<3x1xf32>, %c: tensor<2x3x8xf32>, %d: tensor<?x8xf32>, %e: tensor<5x2x3x8xf32>, %n: index)
    -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<?x2x4xf32>, tensor<5x2x3x8xf32>) {
  %0 = nn.reshape %a {shape = array<i64: 2, 3, 8>} : (tensor<6x8xf32>) -> tensor<2x3x8xf32>
  %1 = nn.add %0, %b : (tensor<2x3x8xf32>, tensor<3x1xf32>) -> tensor<2x3x8xf32>
  %2 = nn.softmax %0 {axis = 1 : i64} : tensor<2x3x8xf32>
  %3 = nn.reshape %c {shape = array<i64: 6, 8>} : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  %4 = nn.relu %3 : tensor<6x8xf32>
  %5 = nn.reshape %d sizes(%n) {shape = array<i64: -1, 2, 4>} : (tensor<?x8xf32>, index) -> tensor<?x2x4xf32>
  %6 = nn.relu %5 : tensor<?x2x4xf32>
  %7 = nn.add %0, %e : (tensor<2x3x8xf32>, tensor<5x2x3x8xf32>) -> tensor<5x2x3x8xf32>
  return %1, %2, %4, %6, %7 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<?x2x4xf32>, tensor<5x2x3x8xf32>
}
