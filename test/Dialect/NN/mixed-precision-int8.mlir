// dlas-mixed-precision{policy=int8}: static post-training quantization from
// a calibration file (Inputs/int8-calibration.json).
// RUN: dlas-opt %s --split-input-file --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-calibration.json keep-f32=none print" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-calibration.json print" | FileCheck %s --check-prefix=GUARD
// RUN: dlas-opt %s --split-input-file --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-calibration.json keep-f32=none max-weight-error=1e-4 print" | FileCheck %s --check-prefix=BUDGET
// RUN: dlas-opt %s --split-input-file --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-calibration.json keep-f32=first-conv,depthwise print" | FileCheck %s --check-prefix=NAMED
// On a target whose int8 GEMM multiplies on vpmaddubsw (AVX2, no VNNI),
// dense convolutions get 7-bit weights (max |w| / 63) and linear layers
// and matmuls keep 8; with VNNI all keep 8, as without a target.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-calibration.json keep-f32=none print" | FileCheck %s --check-prefix=PAIRS
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3 features=+avxvnni" --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-calibration.json keep-f32=none print" | FileCheck %s

// A non-negative input range [0, 2]: scale 2/255, zero point -128. The
// padding becomes an explicit nn.pad with -128 (the value that stands for
// 0) and the convolution runs unpadded on i8 into i32; the dequantize takes
// scale s_x * s_w[c] and zero point -128 * sum(w_q[c]) - bias[c] / scale.
// Weights: channel 0 is 127 * [1, 0, ...] (s_w = 1/127 of 1.0), channel 1
// holds 0.5 and -0.5 (q = 127, -127, sum 0).
// CHECK: dlas-mixed-precision: conv2d weight 2x1x3x3: int8 (weight error 3.73e-09, input scale 7.843e-03 zero point -128)
// CHECK-LABEL: func @conv_unsigned
// CHECK: %[[Q:.*]] = nn.quantize %arg0 {scales = array<f32: 0.00784313772>, zero_points = array<i64: -128>} : tensor<1x1x4x4xf32> to tensor<1x1x4x4xi8>
// CHECK: %[[P:.*]] = nn.pad %[[Q]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -1.280000e+02 : f64} : (tensor<1x1x4x4xi8>) -> tensor<1x1x6x6xi8>
// CHECK: %[[W:.*]] = arith.constant dense_resource<w_i8> : tensor<2x1x3x3xi8>
// CHECK: %[[ACC:.*]] = nn.conv2d %[[P]], %[[W]] : (tensor<1x1x6x6xi8>, tensor<2x1x3x3xi8>) -> tensor<1x2x4x4xi32>
// CHECK: %[[Y:.*]] = nn.dequantize %[[ACC]] {scales = array<f32: 6.17569895E-5, 3.08784947E-5>, zero_points = array<i64: -16256, 0>} : tensor<1x2x4x4xi32> to tensor<1x2x4x4xf32>
// CHECK: nn.relu %[[Y]]
// CHECK: w_i8: "0x010000007F00000000000000007F8100000000000000"
// Channel 0 is 63 * [1, 0, ...] with s_w = 1/63, channel 1 63 and -63.
// PAIRS: dlas-mixed-precision: conv2d weight 2x1x3x3: int8 (7-bit weights, weight error 5.77e-08, input scale 7.843e-03 zero point -128)
// PAIRS-LABEL: func @conv_unsigned
// PAIRS: nn.dequantize %{{.*}} {scales = array<f32: 1.24494254E-4, 6.22471271E-5>, zero_points = array<i64: -8064, 0>}
// PAIRS: w_i8: "0x010000003F00000000000000003FC100000000000000"
func.func @conv_unsigned(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense_resource<w> : tensor<2x1x3x3xf32>
  %y = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %y : tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000000000000000000000000000000000000000000000000000000000000000000003F000000BF00000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// A signed range [-1.28, 1.27]: scale 0.01, zero point 0, so 0
// pads as itself and the convolution keeps its padding; the bias (0.5,
// -0.25) is in the zero points, in accumulator units: -0.5 / (0.01 / 127)
// and 0.25 / (0.01 * 0.5 / 127).
// CHECK-LABEL: func @conv_signed
// CHECK: nn.quantize %arg0 {scales = array<f32: 0.00999999977>, zero_points = array<i64: 0>}
// CHECK-NOT: nn.pad
// CHECK: nn.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<2x1x3x3xi8>) -> tensor<1x2x4x4xi32>
// CHECK: nn.dequantize %{{.*}} {scales = array<f32: 7.87401586E-5, 3.93700793E-5>, zero_points = array<i64: -6350, 6350>}
func.func @conv_signed(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense_resource<w> : tensor<2x1x3x3xf32>
  %b = arith.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %y = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000000000000000000000000000000000000000000000000000000000000000000003F000000BF00000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// Linear: rows of the weight are the channels. Range [-1, 3]: scale
// 4/255, zero point round(-128 + 63.75) = -64. Row sums 127 - 50 = 77 and
// 127: zero points -64 * 77 and -64 * 127 (no bias).
// CHECK-LABEL: func @linear
// CHECK: nn.quantize %arg0 {scales = array<f32: 0.0156862754>, zero_points = array<i64: -64>} : tensor<3x2xf32> to tensor<3x2xi8>
// CHECK: nn.linear %{{.*}}, %{{.*}} : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: nn.dequantize %{{.*}} {scales = array<f32: 1.56862749E-4, 6.17569895E-5>, zero_points = array<i64: -4928, -8128>} : tensor<3x2xi32> to tensor<3x2xf32>
// PAIRS: dlas-mixed-precision: linear weight 2x2: int8 (weight error
// PAIRS-LABEL: func @linear
// PAIRS: nn.dequantize %{{.*}} {scales = array<f32: 1.56862749E-4, 6.17569895E-5>, zero_points = array<i64: -4928, -8128>}
func.func @linear(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.27, -0.5], [0.5, 0.0]]> : tensor<2x2xf32>
  %y = nn.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Matmul with a constant K x N right-hand side: the channels are its
// columns, the i8 constant keeps the K x N layout.
// CHECK-LABEL: func @matmul
// CHECK: %[[W:.*]] = arith.constant dense_resource<int8_weight> : tensor<2x2xi8>
// CHECK: nn.matmul %{{.*}}, %[[W]] : (tensor<3x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi32>
// CHECK: nn.dequantize %{{.*}} {scales = array<f32: 1.23513979E-4, 6.17569895E-5>, zero_points = array<i64: 0, 0>}
// CHECK: int8_weight: "0x010000007F7F8181"
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 0.5], [-1.0, -0.5]]> : tensor<2x2xf32>
  %y = nn.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// The guard (default: first convolution and classifier in f32); a weight
// that is not a constant is not a quantizable layer at all.
// GUARD: dlas-mixed-precision: conv2d "stem" weight 2x1x3x3: f32 (first convolution)
// GUARD: dlas-mixed-precision: conv2d "body" weight 2x2x1x1: int8 (weight error
// GUARD: dlas-mixed-precision: linear "fc" weight 2x8: f32 (classifier)
// GUARD-LABEL: func @guarded
// GUARD: nn.conv2d %arg0, %{{.*}} {padding = {{.*}}} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
// GUARD: nn.conv2d {{.*}} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>) -> tensor<1x2x4x4xi32>
// GUARD: nn.conv2d %{{.*}}, %arg1 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
// GUARD: nn.linear {{.*}} : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<1x2xf32>
// BUDGET: dlas-mixed-precision: conv2d "body" weight 2x2x1x1: f32 (weight error {{.*}} > max-weight-error)
func.func @guarded(%x: tensor<1x1x4x4xf32>, %v: tensor<2x2x1x1xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense_resource<w> : tensor<2x1x3x3xf32>
  %w2 = arith.constant dense<[[[[0.3]], [[-0.7]]], [[[0.11]], [[0.9]]]]> : tensor<2x2x1x1xf32>
  %fc = arith.constant dense<0.125> : tensor<2x8xf32>
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> loc("stem")
  %1 = nn.conv2d %0, %w2 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("body")
  %2 = nn.conv2d %1, %v : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %3 = nn.global_avg_pool2d %2 : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %4 = nn.flatten %3 {axis = 1 : i64} : (tensor<1x2x1x1xf32>) -> tensor<1x2xf32>
  %5 = nn.reshape %4 {shape = array<i64: 1, 2>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %6 = nn.broadcast_to %5 {shape = array<i64: 4, 2>} : (tensor<1x2xf32>) -> tensor<4x2xf32>
  %7 = nn.reshape %6 {shape = array<i64: 1, 8>} : (tensor<4x2xf32>) -> tensor<1x8xf32>
  %8 = nn.linear %7, %fc : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<1x2xf32> loc("fc")
  return %8 : tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000000000000000000000000000000000000000000000000000000000000000000003F000000BF00000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// Depthwise convolutions: int8 (the stencil's i8 kernel) when keep-f32
// leaves them out, f32 under the int8 policy's default guard (measured
// slower in int8 on AVX2: docs/MixedPrecision.md), and f32 when named.
// CHECK: dlas-mixed-precision: conv2d "dw" weight 2x1x3x3: int8 (weight error
// CHECK-LABEL: func @depthwise
// CHECK: nn.conv2d {{.*}} {groups = 2 : i64} : (tensor<1x2x4x4xi8>, tensor<2x1x3x3xi8>) -> tensor<1x2x2x2xi32>
// GUARD: dlas-mixed-precision: conv2d "dw" weight 2x1x3x3: f32 (depthwise)
// GUARD-LABEL: func @depthwise
// GUARD: nn.conv2d {{.*}} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32>
// NAMED: dlas-mixed-precision: conv2d "pw" weight 2x2x1x1: f32 (first convolution)
// NAMED: dlas-mixed-precision: conv2d "dw" weight 2x1x3x3: f32 (depthwise)
func.func @depthwise(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %pw = arith.constant dense<[[[[0.3]], [[-0.7]]], [[[0.11]], [[0.9]]]]> : tensor<2x2x1x1xf32>
  %dw = arith.constant dense<[[[[0.5, -0.25, 0.125], [1.0, -1.0, 0.75], [0.0, 0.5, -0.5]]], [[[0.2, 0.4, -0.6], [0.8, -0.1, 0.3], [-0.9, 0.7, 0.05]]]]> : tensor<2x1x3x3xf32>
  %0 = nn.conv2d %x, %pw : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("pw")
  %1 = nn.conv2d %0, %dw {groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32> loc("dw")
  return %1 : tensor<1x2x2x2xf32>
}
