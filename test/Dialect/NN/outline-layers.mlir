// RUN: dlas-opt %s --dlas-outline-layers | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[C:.*]] = call @main_layer0_conv2d(%[[X]]) : (tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// CHECK: %[[R:.*]] = call @main_layer1_relu(%[[C]])
// Reshapes only relabel memory: they stay.
// CHECK: %[[F:.*]] = nn.flatten %[[R]]
// CHECK: %[[A:.*]] = call @main_layer2_add(%[[F]])
// CHECK: return %[[A]]

// The filter constant moves into the layer with its op.
// CHECK: func.func private @main_layer0_conv2d(%[[ARG:.*]]: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// CHECK-SAME: attributes {dlas.layer = "conv_1", passthrough = ["noinline"]}
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[Y:.*]] = nn.conv2d %[[ARG]], %[[W]]
// CHECK-NEXT: return %[[Y]]
// CHECK: func.func private @main_layer1_relu
// CHECK: func.func private @main_layer2_add(%{{.*}}: tensor<1x144xf32>) -> tensor<1x144xf32>

// Private functions are left alone.
// CHECK: func.func private @helper
// CHECK-NEXT: nn.relu

func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x144xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c = nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv_1")
  %r = nn.relu %c : tensor<1x4x6x6xf32>
  %f = nn.flatten %r {axis = 1 : i64} : (tensor<1x4x6x6xf32>) -> tensor<1x144xf32>
  %a = nn.add %f, %f : (tensor<1x144xf32>, tensor<1x144xf32>) -> tensor<1x144xf32>
  return %a : tensor<1x144xf32>
}

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
