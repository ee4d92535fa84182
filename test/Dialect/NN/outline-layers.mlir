// RUN: dlas-opt %s --split-input-file --dlas-outline-layers | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// The relu consuming the convolution joins its layer.
// CHECK: %[[C:.*]] = call @main_layer0_conv2d(%[[X]]) : (tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// Reshapes only relabel memory: they stay.
// CHECK: %[[F:.*]] = nn.flatten %[[C]]
// CHECK: %[[A:.*]] = call @main_layer1_add(%[[F]])
// CHECK: return %[[A]]

// The filter constant moves into the layer with its op.
// CHECK: func.func private @main_layer0_conv2d(%[[ARG:.*]]: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
// CHECK-SAME: attributes {dlas.layer = "conv_1", passthrough = ["noinline"]}
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[Y:.*]] = nn.conv2d %[[ARG]], %[[W]]
// CHECK-NEXT: %[[R:.*]] = nn.relu %[[Y]]
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @main_layer1_add(%{{.*}}: tensor<1x144xf32>) -> tensor<1x144xf32>

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

// -----

// A residual block's tail: conv, add of the shortcut, relu share a layer;
// the shortcut computed between them becomes an argument. A result with a
// second user ends the chain.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<4x4x1x1xf32>)
// CHECK: %[[S:.*]] = call @residual_layer0_sigmoid(%[[X]])
// CHECK: %[[R:.*]] = call @residual_layer1_conv2d(%[[S]], %[[W]], %[[X]])
// CHECK: %[[C:.*]] = call @residual_layer2_conv2d(%[[R]], %[[W]])
// The add of the tanh and its input joins the tanh's layer.
// CHECK: %[[T:.*]] = call @residual_layer3_tanh(%[[C]])
// CHECK-NEXT: return %[[T]]
// CHECK: func.func private @residual_layer1_conv2d
// CHECK-NEXT: nn.conv2d
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.relu
// CHECK-NEXT: return
func.func @residual(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %s = nn.sigmoid %x : tensor<1x4x6x6xf32>
  %c = nn.conv2d %s, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a = nn.add %c, %x : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = nn.relu %a : tensor<1x4x6x6xf32>
  %c2 = nn.conv2d %r, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %t = nn.tanh %c2 : tensor<1x4x6x6xf32>
  %o = nn.add %t, %c2 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %o : tensor<1x4x6x6xf32>
}

// -----

// A transformer dense layer: the bias add, a division by a constant and
// the GELU join the matmul's layer (its kernel applies them before it
// stores); the softmax does not.
// CHECK-LABEL: func.func @dense_gelu
// CHECK: %[[G:.*]] = call @dense_gelu_layer0_matmul(%arg0)
// CHECK: call @dense_gelu_layer1_softmax(%[[G]])
// CHECK: func.func private @dense_gelu_layer0_matmul
// CHECK: nn.matmul
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.div
// CHECK-NEXT: nn.gelu
// CHECK-NEXT: return
func.func @dense_gelu(%x: tensor<4x8xf32>) -> tensor<4x6xf32> {
  %w = arith.constant dense<1.0> : tensor<8x6xf32>
  %b = arith.constant dense<0.5> : tensor<6xf32>
  %t = arith.constant dense<2.0> : tensor<f32>
  %0 = nn.matmul %x, %w : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %1 = nn.add %0, %b : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %2 = nn.div %1, %t : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  %3 = nn.gelu %2 : tensor<4x6xf32>
  %4 = nn.softmax %3 {axis = 1 : i64} : tensor<4x6xf32>
  return %4 : tensor<4x6xf32>
}

// -----

// Two producers of one add: the first takes the add (and the relu); the
// second stays alone and feeds the first's layer, whose call moves to where
// the relu was.
// CHECK-LABEL: func.func @two_producers
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<4x4x1x1xf32>)
// CHECK: %[[C2:.*]] = call @two_producers_layer1_conv2d(%[[X]], %[[W]])
// CHECK: %[[R:.*]] = call @two_producers_layer0_conv2d(%[[X]], %[[W]], %[[C2]])
// CHECK: return %[[R]]
// CHECK: func.func private @two_producers_layer0_conv2d
// CHECK-NEXT: nn.conv2d
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.relu
// CHECK: func.func private @two_producers_layer1_conv2d
// CHECK-NEXT: nn.conv2d
// CHECK-NEXT: return
func.func @two_producers(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %c1 = nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %c2 = nn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %a = nn.add %c1, %c2 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = nn.relu %a : tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

// An int8 layer's dequantize (i32 accumulator to f32) and the ops after it
// join the layer: the GEMM kernel applies them all before it stores. The
// quantize of the input is a layer of its own.
// CHECK-LABEL: func.func @int8
// CHECK: call @int8_layer0_quantize
// CHECK: call @int8_layer1_conv2d
// CHECK-NOT: call
// CHECK-LABEL: func.func private @int8_layer1_conv2d
// CHECK: nn.conv2d
// CHECK: nn.dequantize
// CHECK: nn.relu
// CHECK: return
func.func @int8(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<1> : tensor<4x4x1x1xi8>
  %q = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: 0>} : tensor<1x4x8x8xf32> to tensor<1x4x8x8xi8>
  %c = nn.conv2d %q, %w : (tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>) -> tensor<1x4x8x8xi32>
  %d = nn.dequantize %c {scales = array<f32: 0.01, 0.01, 0.02, 0.02>, zero_points = array<i64: 0, 1, 2, 3>} : tensor<1x4x8x8xi32> to tensor<1x4x8x8xf32>
  %r = nn.relu %d : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// A max pool of a convolution that may run blocked (dense, f32, channels
// multiples of 8) joins the convolution's layer after its activation, so
// that the blocked kernel can fuse it; the stem-like convolution with 3
// input channels cannot be blocked and keeps its pool apart.
// CHECK-LABEL: func.func @pools
// CHECK: %[[S:.*]] = call @pools_layer0_conv2d(%{{.*}}) : (tensor<1x3x8x8xf32>) -> tensor<1x16x8x8xf32>
// CHECK: %[[P0:.*]] = call @pools_layer1_max_pool2d(%[[S]])
// CHECK: %[[P1:.*]] = call @pools_layer2_conv2d(%[[P0]]) : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
// CHECK: return %[[P1]]
// CHECK: func.func private @pools_layer2_conv2d
// CHECK: nn.conv2d
// CHECK-NEXT: nn.relu
// CHECK-NEXT: %[[P:.*]] = nn.max_pool2d
// CHECK-NEXT: return %[[P]]
func.func @pools(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x2x2xf32> {
  %w0 = arith.constant dense<1.0> : tensor<16x3x3x3xf32>
  %w1 = arith.constant dense<1.0> : tensor<16x16x3x3xf32>
  %c0 = nn.conv2d %x, %w0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  %r0 = nn.relu %c0 : tensor<1x16x8x8xf32>
  %p0 = nn.max_pool2d %r0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  %c1 = nn.conv2d %p0, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x4x4xf32>
  %r1 = nn.relu %c1 : tensor<1x16x4x4xf32>
  %p1 = nn.max_pool2d %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
  return %p1 : tensor<1x16x2x2xf32>
}

// -----

// A constant pad read only by a convolution joins the convolution's layer
// (named after it), where the kernel folds it: int8 pads a convolution's
// input with the zero point explicitly. A pad read twice, or an edge pad,
// stays a layer of its own (here an edge pad read twice).
// CHECK-LABEL: func.func @pad_prologue
// CHECK: %[[A:.*]] = call @pad_prologue_layer0_conv2d(%arg0)
// CHECK: %[[P:.*]] = call @pad_prologue_layer1_pad(%[[A]])
// CHECK: call @pad_prologue_layer2_conv2d(%[[P]])
// CHECK: call @pad_prologue_layer3_add(%[[P]])
// CHECK: func.func private @pad_prologue_layer0_conv2d(%{{.*}}: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi32>
// CHECK-SAME: dlas.layer = "dw"
// CHECK: nn.pad
// CHECK-NEXT: nn.conv2d
// CHECK: func.func private @pad_prologue_layer1_pad
// CHECK-SAME: dlas.layer = "edge"
// CHECK: func.func private @pad_prologue_layer2_conv2d(%{{.*}}: tensor<1x2x8x8xi32>)
// CHECK-NOT: nn.pad
// CHECK: return
func.func @pad_prologue(%x: tensor<1x2x4x4xi8>) -> (tensor<1x2x6x6xi32>, tensor<1x2x8x8xi32>) {
  %w = arith.constant dense<1> : tensor<2x1x3x3xi8>
  %w32 = arith.constant dense<1> : tensor<2x1x3x3xi32>
  %p = nn.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -128.0 : f64} : (tensor<1x2x4x4xi8>) -> tensor<1x2x6x6xi8> loc("zero_point")
  %0 = nn.conv2d %p, %w {groups = 2 : i64} : (tensor<1x2x6x6xi8>, tensor<2x1x3x3xi8>) -> tensor<1x2x4x4xi32> loc("dw")
  %e = nn.pad %0 {pads = array<i64: 0, 0, 2, 2, 0, 0, 2, 2>, mode = #nn<pad_mode edge>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x8x8xi32> loc("edge")
  %1 = nn.conv2d %e, %w32 {groups = 2 : i64} : (tensor<1x2x8x8xi32>, tensor<2x1x3x3xi32>) -> tensor<1x2x6x6xi32>
  %2 = nn.add %e, %e : (tensor<1x2x8x8xi32>, tensor<1x2x8x8xi32>) -> tensor<1x2x8x8xi32>
  return %1, %2 : tensor<1x2x6x6xi32>, tensor<1x2x8x8xi32>
}

// -----

// An int8 residual add reading its skip connection as the dequantize of an
// i8 tensor (dlas-quantize-residuals): the dequantize joins the add's
// layer, which takes the i8 tensor as an argument, instead of a layer of
// its own storing f32. A dequantize read twice stays apart.
// CHECK-LABEL: func.func @dequantized_skip
// CHECK: %[[L:.*]] = call @dequantized_skip_layer0_conv2d(%arg0)
// CHECK: %[[D:.*]] = call @dequantized_skip_layer1_dequantize(%[[L]])
// CHECK: call @dequantized_skip_layer2_add(%[[D]])
// CHECK: func.func private @dequantized_skip_layer0_conv2d(%{{.*}}: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xi8>
// CHECK: nn.conv2d
// CHECK-NEXT: nn.dequantize %{{.*}} : tensor<1x8x4x4xi32>
// CHECK-NEXT: nn.dequantize %{{.*}} : tensor<1x8x4x4xi8>
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.quantize
// CHECK: func.func private @dequantized_skip_layer1_dequantize
// CHECK-NEXT: nn.dequantize
// CHECK-NEXT: return
func.func @dequantized_skip(%q: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xf32> {
  %w = arith.constant dense<1> : tensor<8x8x1x1xi8>
  %c = nn.conv2d %q, %w : (tensor<1x8x4x4xi8>, tensor<8x8x1x1xi8>) -> tensor<1x8x4x4xi32>
  %y = nn.dequantize %c {scales = array<f32: 0.001>, zero_points = array<i64: 0>} : tensor<1x8x4x4xi32> to tensor<1x8x4x4xf32>
  %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x8x4x4xi8> to tensor<1x8x4x4xf32>
  %s = nn.add %y, %d : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = nn.relu %s : tensor<1x8x4x4xf32>
  %q2 = nn.quantize %r {scales = array<f32: 0.03>, zero_points = array<i64: -128>} : tensor<1x8x4x4xf32> to tensor<1x8x4x4xi8>
  %d2 = nn.dequantize %q2 {scales = array<f32: 0.03>, zero_points = array<i64: -128>} : tensor<1x8x4x4xi8> to tensor<1x8x4x4xf32>
  %t = nn.add %d2, %d2 : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %t : tensor<1x8x4x4xf32>
}
