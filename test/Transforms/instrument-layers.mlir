// RUN: dlas-opt %s --dlas-instrument-layers | FileCheck %s

// CHECK: module attributes {dlas.layers = ["conv_1: main_layer0_conv2d", "relu_2: main_layer1_relu"]}
// CHECK-DAG: func.func private @dlas_layer_begin(i64)
// CHECK-DAG: func.func private @dlas_layer_end(i64)
// CHECK-LABEL: func.func @main
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @dlas_layer_begin(%[[ID0]])
// CHECK-NEXT: call @main_layer0_conv2d
// CHECK-NEXT: call @dlas_layer_end(%[[ID0]])
// CHECK: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @dlas_layer_begin(%[[ID1]])
// CHECK-NEXT: call @main_layer1_relu
// CHECK-NEXT: call @dlas_layer_end(%[[ID1]])
// Calls to functions that are not layers are left alone.
// CHECK-NEXT: call @helper
// CHECK-NEXT: return
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @main_layer0_conv2d(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @main_layer1_relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = call @helper(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @main_layer0_conv2d(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlas.layer = "conv_1"} {
  return %x : tensor<4xf32>
}
func.func private @main_layer1_relu(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dlas.layer = "relu_2"} {
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
