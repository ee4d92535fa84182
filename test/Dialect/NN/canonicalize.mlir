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
