// RUN: dlas-opt %s | FileCheck %s
// RUN: dlas-opt %s | dlas-opt | FileCheck %s
// RUN: dlas-opt %s --mlir-print-op-generic | dlas-opt | FileCheck %s

// CHECK-LABEL: func @convs
func.func @convs(%x: tensor<?x32x56x56xf32>, %w: tensor<64x32x3x3xf32>, %b: tensor<64xf32>,
                 %dw: tensor<32x1x3x3xf32>, %gw: tensor<64x8x3x3xf32>,
                 %xh: tensor<1x56x56x32xf32>, %tw: tensor<32x16x4x4xf32>,
                 %qx: tensor<1x8x4x4xi8>, %qw: tensor<8x8x1x1xi8>,
                 %hx: tensor<1x8x4x4xf16>, %hw: tensor<8x8x1x1xf16>,
                 %bx: tensor<1x8x4x4xbf16>, %bw: tensor<8x8x1x1xbf16>) {
  // CHECK: nn.conv2d %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x32x56x56xf32>, tensor<64x32x3x3xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  %0 = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x32x56x56xf32>, tensor<64x32x3x3xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  // CHECK: nn.conv2d {{.*}} {dilations = array<i64: 2, 2>, groups = 32 : i64, padding = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>}
  %1 = nn.conv2d %x, %dw {strides = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 32 : i64} : (tensor<?x32x56x56xf32>, tensor<32x1x3x3xf32>) -> tensor<?x32x28x28xf32>
  // CHECK: nn.conv2d {{.*}} {groups = 4 : i64, padding = array<i64: 0, 1, 2, 1>}
  %2 = nn.conv2d %x, %gw {groups = 4 : i64, padding = array<i64: 0, 1, 2, 1>} : (tensor<?x32x56x56xf32>, tensor<64x8x3x3xf32>) -> tensor<?x64x56x56xf32>
  // CHECK: nn.conv2d {{.*}} {layout = #nn<layout nhwc>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x56x56x32xf32>, tensor<64x32x3x3xf32>) -> tensor<1x56x56x64xf32>
  %3 = nn.conv2d %xh, %w {padding = array<i64: 1, 1, 1, 1>, layout = #nn<layout nhwc>} : (tensor<1x56x56x32xf32>, tensor<64x32x3x3xf32>) -> tensor<1x56x56x64xf32>
  // CHECK: nn.conv_transpose2d {{.*}} {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x32x56x56xf32>, tensor<32x16x4x4xf32>) -> tensor<?x16x113x113xf32>
  %4 = nn.conv_transpose2d %x, %tw {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<?x32x56x56xf32>, tensor<32x16x4x4xf32>) -> tensor<?x16x113x113xf32>
  // CHECK: nn.conv2d {{.*}} : (tensor<1x8x4x4xi8>, tensor<8x8x1x1xi8>) -> tensor<1x8x4x4xi32>
  %5 = nn.conv2d %qx, %qw : (tensor<1x8x4x4xi8>, tensor<8x8x1x1xi8>) -> tensor<1x8x4x4xi32>
  // CHECK: nn.conv2d {{.*}} -> tensor<1x8x4x4xf16>
  %6 = nn.conv2d %hx, %hw : (tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<1x8x4x4xf16>
  // CHECK: nn.conv2d {{.*}} -> tensor<1x8x4x4xbf16>
  %7 = nn.conv2d %bx, %bw : (tensor<1x8x4x4xbf16>, tensor<8x8x1x1xbf16>) -> tensor<1x8x4x4xbf16>
  return
}

// CHECK-LABEL: func @conv3d
func.func @conv3d(%x: tensor<?x3x8x112x112xf32>, %w: tensor<64x3x3x7x7xf32>, %b: tensor<64xf32>,
                  %dw: tensor<16x1x3x3x3xbf16>, %hx: tensor<1x16x4x9x9xbf16>) {
  // CHECK: nn.conv3d %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 1, 3, 3, 1, 3, 3>, strides = array<i64: 1, 2, 2>} : (tensor<?x3x8x112x112xf32>, tensor<64x3x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x8x56x56xf32>
  %0 = nn.conv3d %x, %w, %b {strides = array<i64: 1, 2, 2>, padding = array<i64: 1, 3, 3, 1, 3, 3>} : (tensor<?x3x8x112x112xf32>, tensor<64x3x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x8x56x56xf32>
  // CHECK: nn.conv3d {{.*}} {dilations = array<i64: 2, 1, 1>, groups = 16 : i64, padding = array<i64: 2, 0, 1, 0, 1, 0>} : (tensor<1x16x4x9x9xbf16>, tensor<16x1x3x3x3xbf16>) -> tensor<1x16x2x8x8xbf16>
  %1 = nn.conv3d %hx, %dw {dilations = array<i64: 2, 1, 1>, groups = 16 : i64, padding = array<i64: 2, 0, 1, 0, 1, 0>} : (tensor<1x16x4x9x9xbf16>, tensor<16x1x3x3x3xbf16>) -> tensor<1x16x2x8x8xbf16>
  return
}

// CHECK-LABEL: func @products
func.func @products(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %ba: tensor<2x4x8xf32>,
                    %bb: tensor<2x8x16xf32>, %x: tensor<?x512xf32>, %w: tensor<10x512xf32>,
                    %bias: tensor<10xf32>) {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %0 = nn.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // CHECK: nn.batch_matmul
  %1 = nn.batch_matmul %ba, %bb : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: nn.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %2 = nn.linear %x, %w, %bias : (tensor<?x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  // CHECK: nn.linear %{{.*}}, %{{.*}} : (tensor<?x512xf32>, tensor<10x512xf32>) -> tensor<?x10xf32>
  %3 = nn.linear %x, %w : (tensor<?x512xf32>, tensor<10x512xf32>) -> tensor<?x10xf32>
  return
}

// CHECK-LABEL: func @norm_and_pool
func.func @norm_and_pool(%x: tensor<1x8x9x9xf32>, %p: tensor<8xf32>, %pa: tensor<8x9x9xf32>,
                         %xh: tensor<1x9x9x8xf32>) {
  // CHECK: nn.batch_norm {{.*}} {epsilon = 1.000000e-03 : f64}
  %0 = nn.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f64} : (tensor<1x8x9x9xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: nn.batch_norm {{.*}} {mode = #nn<batch_norm_mode per_activation>}
  %1 = nn.batch_norm %x, %pa, %pa, %pa, %pa {mode = #nn<batch_norm_mode per_activation>} : (tensor<1x8x9x9xf32>, tensor<8x9x9xf32>, tensor<8x9x9xf32>, tensor<8x9x9xf32>, tensor<8x9x9xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: nn.max_pool2d {{.*}} {ceil_mode = true, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
  %2 = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
  // CHECK: nn.avg_pool2d {{.*}} {count_include_pad = false, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
  %3 = nn.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = false} : (tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: nn.global_avg_pool2d %{{.*}} : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  %4 = nn.global_avg_pool2d %x : (tensor<1x8x9x9xf32>) -> tensor<1x8x1x1xf32>
  // CHECK: nn.max_pool2d {{.*}}layout = #nn<layout nhwc>{{.*}} -> tensor<1x4x4x8xf32>
  %5 = nn.max_pool2d %xh {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = #nn<layout nhwc>} : (tensor<1x9x9x8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// CHECK-LABEL: func @activations
func.func @activations(%x: tensor<2x10xf32>, %i: tensor<4xi32>) {
  // CHECK: nn.relu %{{.*}} : tensor<2x10xf32>
  %0 = nn.relu %x : tensor<2x10xf32>
  // CHECK: nn.relu %{{.*}} : tensor<4xi32>
  %1 = nn.relu %i : tensor<4xi32>
  // CHECK: nn.relu6
  %2 = nn.relu6 %x : tensor<2x10xf32>
  // CHECK: nn.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
  %3 = nn.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x10xf32>
  // CHECK: nn.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f64}
  %4 = nn.leaky_relu %x {alpha = 0.2 : f64} : tensor<2x10xf32>
  // CHECK: nn.sigmoid
  %5 = nn.sigmoid %x : tensor<2x10xf32>
  // CHECK: nn.tanh
  %6 = nn.tanh %x : tensor<2x10xf32>
  // CHECK: nn.gelu %{{.*}} : tensor<2x10xf32>
  %7 = nn.gelu %x : tensor<2x10xf32>
  // CHECK: nn.gelu %{{.*}} {approximate = #nn<gelu_approximation tanh>}
  %8 = nn.gelu %x {approximate = #nn<gelu_approximation tanh>} : tensor<2x10xf32>
  // CHECK: nn.silu
  %9 = nn.silu %x : tensor<2x10xf32>
  // CHECK: nn.softmax %{{.*}} : tensor<2x10xf32>
  %10 = nn.softmax %x : tensor<2x10xf32>
  // CHECK: nn.log_softmax %{{.*}} {axis = 0 : i64}
  %11 = nn.log_softmax %x {axis = 0 : i64} : tensor<2x10xf32>
  return
}

// CHECK-LABEL: func @more_unary
func.func @more_unary(%x: tensor<2x10xf32>) {
  // CHECK: nn.exp
  %0 = nn.exp %x : tensor<2x10xf32>
  // CHECK: nn.log
  %1 = nn.log %x : tensor<2x10xf32>
  // CHECK: nn.sqrt
  %2 = nn.sqrt %x : tensor<2x10xf32>
  // CHECK: nn.abs
  %3 = nn.abs %x : tensor<2x10xf32>
  // CHECK: nn.neg
  %4 = nn.neg %x : tensor<2x10xf32>
  // CHECK: nn.erf
  %5 = nn.erf %x : tensor<2x10xf32>
  // CHECK: nn.reciprocal
  %6 = nn.reciprocal %x : tensor<2x10xf32>
  // CHECK: nn.floor
  %7 = nn.floor %x : tensor<2x10xf32>
  // CHECK: nn.ceil
  %8 = nn.ceil %x : tensor<2x10xf32>
  // CHECK: nn.round
  %9 = nn.round %x : tensor<2x10xf32>
  // CHECK: nn.sin
  %10 = nn.sin %x : tensor<2x10xf32>
  // CHECK: nn.cos
  %11 = nn.cos %x : tensor<2x10xf32>
  // CHECK: nn.softplus
  %12 = nn.softplus %x : tensor<2x10xf32>
  // CHECK: nn.softsign
  %13 = nn.softsign %x : tensor<2x10xf32>
  // CHECK: nn.hard_swish
  %14 = nn.hard_swish %x : tensor<2x10xf32>
  // CHECK: nn.mish
  %15 = nn.mish %x : tensor<2x10xf32>
  // CHECK: nn.hard_sigmoid %{{.*}} {alpha = 2.000000e-01 : f64, beta = 5.000000e-01 : f64}
  %16 = nn.hard_sigmoid %x {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<2x10xf32>
  // CHECK: nn.elu %{{.*}} {alpha = 1.000000e+00 : f64}
  %17 = nn.elu %x {alpha = 1.0 : f64} : tensor<2x10xf32>
  // CHECK: nn.selu %{{.*}} {alpha = 1.500000e+00 : f64, gamma = 2.000000e+00 : f64}
  %18 = nn.selu %x {alpha = 1.5 : f64, gamma = 2.0 : f64} : tensor<2x10xf32>
  // CHECK: nn.pow %{{.*}}, %{{.*}} : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %e = arith.constant dense<2.0> : tensor<10xf32>
  %19 = nn.pow %x, %e : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  // CHECK: nn.tan
  %20 = nn.tan %x : tensor<2x10xf32>
  // CHECK: nn.asin
  %21 = nn.asin %x : tensor<2x10xf32>
  // CHECK: nn.acos
  %22 = nn.acos %x : tensor<2x10xf32>
  // CHECK: nn.atan
  %23 = nn.atan %x : tensor<2x10xf32>
  // CHECK: nn.sinh
  %24 = nn.sinh %x : tensor<2x10xf32>
  // CHECK: nn.cosh
  %25 = nn.cosh %x : tensor<2x10xf32>
  // CHECK: nn.asinh
  %26 = nn.asinh %x : tensor<2x10xf32>
  // CHECK: nn.acosh
  %27 = nn.acosh %x : tensor<2x10xf32>
  // CHECK: nn.atanh
  %28 = nn.atanh %x : tensor<2x10xf32>
  // CHECK: nn.sign %{{.*}} : tensor<2x10xf32>
  %29 = nn.sign %x : tensor<2x10xf32>
  return
}

// CHECK-LABEL: func @cumsum
// CHECK: nn.cumsum %{{.*}} {axis = 1 : i64} : tensor<2x?xf32>
// CHECK: nn.cumsum %{{.*}} {axis = -1 : i64, exclusive = true, reverse = true} : tensor<3xi64>
func.func @cumsum(%x: tensor<2x?xf32>, %i: tensor<3xi64>) -> (tensor<2x?xf32>, tensor<3xi64>) {
  %0 = nn.cumsum %x {axis = 1 : i64} : tensor<2x?xf32>
  %1 = nn.cumsum %i {axis = -1 : i64, exclusive = true, reverse = true} : tensor<3xi64>
  return %0, %1 : tensor<2x?xf32>, tensor<3xi64>
}

// Sign is defined on integers too.
// CHECK-LABEL: func @sign_int
// CHECK: nn.sign %{{.*}} : tensor<3xi8>
func.func @sign_int(%x: tensor<3xi8>) -> tensor<3xi8> {
  %0 = nn.sign %x : tensor<3xi8>
  return %0 : tensor<3xi8>
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<1x8x4x4xf32>, %b: tensor<8x1x1xf32>, %c: tensor<?x8xi32>, %d: tensor<8xi32>) {
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %0 = nn.add %a, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: nn.sub
  %1 = nn.sub %b, %a : (tensor<8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: nn.mul
  %2 = nn.mul %c, %d : (tensor<?x8xi32>, tensor<8xi32>) -> tensor<?x8xi32>
  // CHECK: nn.div
  %3 = nn.div %a, %a : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: nn.max
  %4 = nn.max %a, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  // CHECK: nn.min
  %5 = nn.min %a, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return
}

// CHECK-LABEL: func @shapes
func.func @shapes(%a: tensor<1x8x4x4xf32>, %b: tensor<1x4x4x4xf32>, %n: tensor<?x512x1x1xf32>) {
  // CHECK: nn.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32>
  %0 = nn.concat %a, %b {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32>
  // CHECK: nn.reshape %{{.*}} {shape = array<i64: 1, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %1 = nn.reshape %a {shape = array<i64: 1, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  // CHECK: nn.reshape %{{.*}} {shape = array<i64: -1, 512>} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
  %2 = nn.reshape %n {shape = array<i64: -1, 512>} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
  // CHECK: nn.flatten %{{.*}} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
  %3 = nn.flatten %n {axis = 1 : i64} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
  // CHECK: nn.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %4 = nn.transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  // CHECK: nn.pad %{{.*}} {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 2>, value = 1.000000e+00 : f64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x6x8xf32>
  %5 = nn.pad %a {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 2>, value = 1.0 : f64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x6x8xf32>
  // CHECK: nn.resize %{{.*}} {mode = #nn<resize_mode bilinear>, scales = array<f64: 2.000000e+00, 2.000000e+00>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  %6 = nn.resize %a {mode = #nn<resize_mode bilinear>, scales = array<f64: 2.0, 2.0>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: nn.slice %{{.*}} sizes(%{{.*}}, %{{.*}}) {offsets = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 8, -1, -1>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x4xf32>, index, index) -> tensor<1x8x?x?xf32>
  %two = arith.constant 2 : index
  %sliced = nn.slice %a sizes(%two, %two) {offsets = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 8, -1, -1>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x4xf32>, index, index) -> tensor<1x8x?x?xf32>
  // CHECK: nn.resize %{{.*}} sizes(%{{.*}}) {sizes = array<i64: -1, 5>} : (tensor<1x8x4x4xf32>, index) -> tensor<1x8x?x5xf32>
  %rows = arith.constant 7 : index
  %runtime = nn.resize %a sizes(%rows) {sizes = array<i64: -1, 5>} : (tensor<1x8x4x4xf32>, index) -> tensor<1x8x?x5xf32>
  // CHECK: nn.resize %{{.*}} {sizes = array<i64: 3, 5>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x3x5xf32>
  %7 = nn.resize %a {sizes = array<i64: 3, 5>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x3x5xf32>
  // CHECK: nn.resize %{{.*}} {coordinates = #nn<resize_coordinates align_corners>, cubic_coeff_a = -5.000000e-01 : f64, exclude_outside = true, mode = #nn<resize_mode bicubic>, sizes = array<i64: 7, 7>}
  %8 = nn.resize %a {mode = #nn<resize_mode bicubic>, coordinates = #nn<resize_coordinates align_corners>, cubic_coeff_a = -0.5, exclude_outside = true, sizes = array<i64: 7, 7>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x7x7xf32>
  // CHECK: nn.resize %{{.*}} {coordinates = #nn<resize_coordinates half_pixel>, nearest_mode = #nn<nearest_rounding round_prefer_ceil>, sizes = array<i64: 7, 7>}
  %9 = nn.resize %a {coordinates = #nn<resize_coordinates half_pixel>, nearest_mode = #nn<nearest_rounding round_prefer_ceil>, sizes = array<i64: 7, 7>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x7x7xf32>
  return
}

// CHECK-LABEL: func @slice
func.func @slice(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // CHECK: nn.slice %{{.*}} {offsets = array<i64: 0, 7>, sizes = array<i64: 2, 4>, steps = array<i64: 1, -2>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  %0 = nn.slice %x {offsets = array<i64: 0, 7>, sizes = array<i64: 2, 4>, steps = array<i64: 1, -2>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Run-time sizes (a dynamic batch read by ONNX Shape): -1 entries of
// `shape`, one `sizes` operand each; size -1 of nn.slice keeps a whole
// dynamic dimension.
// CHECK-LABEL: func @run_time_sizes
func.func @run_time_sizes(%x: tensor<17x?x32xf32>, %c: tensor<1x1x32xf32>, %n: index, %n4: index) -> (tensor<17x?x8xf32>, tensor<?x1x32xf32>, tensor<17x?x8xf32>) {
  // CHECK: nn.reshape %{{.*}} sizes(%{{.*}}) {shape = array<i64: 17, -1, 8>} : (tensor<17x?x32xf32>, index) -> tensor<17x?x8xf32>
  %0 = nn.reshape %x sizes(%n4) {shape = array<i64: 17, -1, 8>} : (tensor<17x?x32xf32>, index) -> tensor<17x?x8xf32>
  // CHECK: nn.broadcast_to %{{.*}} sizes(%{{.*}}) {shape = array<i64: -1, 1, 1>} : (tensor<1x1x32xf32>, index) -> tensor<?x1x32xf32>
  %1 = nn.broadcast_to %c sizes(%n) {shape = array<i64: -1, 1, 1>} : (tensor<1x1x32xf32>, index) -> tensor<?x1x32xf32>
  // CHECK: nn.slice %{{.*}} {offsets = array<i64: 0, 0, 8>, sizes = array<i64: 17, -1, 8>, steps = array<i64: 1, 1, 1>} : (tensor<17x?x32xf32>) -> tensor<17x?x8xf32>
  %2 = nn.slice %x {offsets = array<i64: 0, 0, 8>, sizes = array<i64: 17, -1, 8>, steps = array<i64: 1, 1, 1>} : (tensor<17x?x32xf32>) -> tensor<17x?x8xf32>
  return %0, %1, %2 : tensor<17x?x8xf32>, tensor<?x1x32xf32>, tensor<17x?x8xf32>
}

// CHECK-LABEL: func @broadcast_to
func.func @broadcast_to(%x: tensor<3x1xf32>, %d: tensor<?x1xf32>) -> (tensor<2x3x4xf32>, tensor<?x5xf32>) {
  // CHECK: nn.broadcast_to %{{.*}} {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %0 = nn.broadcast_to %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // A dynamic size is kept where the target says 1.
  // CHECK: nn.broadcast_to %{{.*}} {shape = array<i64: 1, 5>} : (tensor<?x1xf32>) -> tensor<?x5xf32>
  %1 = nn.broadcast_to %d {shape = array<i64: 1, 5>} : (tensor<?x1xf32>) -> tensor<?x5xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<?x5xf32>
}

// CHECK-LABEL: func @arg_reduce
func.func @arg_reduce(%x: tensor<2x10xf32>) -> (tensor<2xi64>, tensor<1x10xi64>) {
  // CHECK: nn.arg_max %{{.*}} {axis = 1 : i64, keepdims = false} : (tensor<2x10xf32>) -> tensor<2xi64>
  %0 = nn.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<2x10xf32>) -> tensor<2xi64>
  // CHECK: nn.arg_min %{{.*}} {axis = -2 : i64, select_last_index = true} : (tensor<2x10xf32>) -> tensor<1x10xi64>
  %1 = nn.arg_min %x {axis = -2 : i64, select_last_index = true} : (tensor<2x10xf32>) -> tensor<1x10xi64>
  return %0, %1 : tensor<2xi64>, tensor<1x10xi64>
}

// CHECK-LABEL: func @reduce
func.func @reduce(%x: tensor<2x8x4xf32>) -> (tensor<2x1x4xf32>, tensor<8xf32>) {
  // CHECK: nn.reduce %{{.*}} {axes = array<i64: 1>, kind = #nn<reduce_kind mean>} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
  %0 = nn.reduce %x {kind = #nn<reduce_kind mean>, axes = array<i64: 1>, keepdims = true} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: nn.reduce %{{.*}} {axes = array<i64: 0, -1>, keepdims = false, kind = #nn<reduce_kind log_sum_exp>} : (tensor<2x8x4xf32>) -> tensor<8xf32>
  %1 = nn.reduce %x {kind = #nn<reduce_kind log_sum_exp>, axes = array<i64: 0, -1>, keepdims = false} : (tensor<2x8x4xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<2x1x4xf32>, tensor<8xf32>
}

// CHECK-LABEL: func @recurrent
func.func @recurrent(%x: tensor<5x2x8xf32>, %w4: tensor<2x64x8xf32>, %r4: tensor<2x64x16xf32>,
                     %b4: tensor<2x128xf32>, %h: tensor<2x2x16xf32>, %c: tensor<2x2x16xf32>,
                     %lens: tensor<2xi32>, %p: tensor<2x48xf32>,
                     %w3: tensor<1x48x8xf32>, %r3: tensor<1x48x16xf32>, %b3: tensor<1x96xf32>,
                     %h1: tensor<1x2x16xf32>, %w1: tensor<1x16x8xf32>, %r1: tensor<1x16x16xf32>,
                     %b1: tensor<1x32xf32>, %xd: tensor<?x?x8xf32>) {
  // CHECK: nn.lstm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lengths %{{.*}} peepholes %{{.*}} {clip = 3.000000e+00 : f64, direction = #nn<rnn_direction bidirectional>, input_forget = true}
  %0:3 = nn.lstm %x, %w4, %r4, %b4, %h, %c lengths %lens peepholes %p
      {direction = #nn<rnn_direction bidirectional>, clip = 3.0 : f64, input_forget = true}
      : (tensor<5x2x8xf32>, tensor<2x64x8xf32>, tensor<2x64x16xf32>, tensor<2x128xf32>,
         tensor<2x2x16xf32>, tensor<2x2x16xf32>, tensor<2xi32>, tensor<2x48xf32>)
      -> (tensor<5x2x2x16xf32>, tensor<2x2x16xf32>, tensor<2x2x16xf32>)
  // CHECK: nn.gru {{.*}} {activation_alpha = array<f64: 2.000000e-01, 1.000000e+00>, activation_beta = array<f64: 5.000000e-01, 0.000000e+00>, activations = [#nn<rnn_activation hard_sigmoid>, #nn<rnn_activation affine>], direction = #nn<rnn_direction reverse>, linear_before_reset = true}
  %1:2 = nn.gru %x, %w3, %r3, %b3, %h1
      {direction = #nn<rnn_direction reverse>, linear_before_reset = true,
       activations = [#nn<rnn_activation hard_sigmoid>, #nn<rnn_activation affine>],
       activation_alpha = array<f64: 0.2, 1.0>, activation_beta = array<f64: 0.5, 0.0>}
      : (tensor<5x2x8xf32>, tensor<1x48x8xf32>, tensor<1x48x16xf32>, tensor<1x96xf32>,
         tensor<1x2x16xf32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  // CHECK: nn.rnn %{{.*}} lengths %{{.*}} : (tensor<5x2x8xf32>, {{.*}}, tensor<2xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  %2:2 = nn.rnn %x, %w1, %r1, %b1, %h1 lengths %lens
      : (tensor<5x2x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>,
         tensor<1x2x16xf32>, tensor<2xi32>) -> (tensor<5x1x2x16xf32>, tensor<1x2x16xf32>)
  // Dynamic sequence length and batch.
  // CHECK: nn.rnn {{.*}} -> (tensor<?x1x2x16xf32>, tensor<1x2x16xf32>)
  %3:2 = nn.rnn %xd, %w1, %r1, %b1, %h1
      : (tensor<?x?x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>, tensor<1x32xf32>,
         tensor<1x2x16xf32>) -> (tensor<?x1x2x16xf32>, tensor<1x2x16xf32>)
  return
}

// CHECK-LABEL: func @gathers
func.func @gathers(%table: tensor<1000x64xf32>, %ids: tensor<2x5xi64>, %x: tensor<3x?xf32>, %i: tensor<3x2xi32>) {
  // CHECK: nn.gather %{{.*}}, %{{.*}} : (tensor<1000x64xf32>, tensor<2x5xi64>) -> tensor<2x5x64xf32>
  %0 = nn.gather %table, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<2x5xi64>) -> tensor<2x5x64xf32>
  // CHECK: nn.gather %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<1000x64xf32>, tensor<2x5xi64>) -> tensor<1000x2x5xf32>
  %1 = nn.gather %table, %ids {axis = -1 : i64} : (tensor<1000x64xf32>, tensor<2x5xi64>) -> tensor<1000x2x5xf32>
  // CHECK: nn.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x?xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>
  %2 = nn.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x?xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>
  return
}

// Typed run-time values: comparisons, logic, select, casts, mod, top_k, and
// the f64 / i1 / i16 / i64 element types of arithmetic and data movement.
// CHECK-LABEL: func @typed_values
func.func @typed_values(%x: tensor<3x4xf32>, %y: tensor<4xf32>, %i: tensor<3x4xi64>,
                        %h: tensor<4xi16>, %d: tensor<3x4xf64>, %m: tensor<3x4xi1>,
                        %n: tensor<1xi1>) {
  // CHECK: nn.compare %{{.*}}, %{{.*}} {predicate = #nn<compare_predicate lt>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %0 = nn.compare %x, %y {predicate = #nn<compare_predicate lt>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  // CHECK: nn.compare {{.*}} {predicate = #nn<compare_predicate ge>} : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi1>
  %1 = nn.compare %i, %i {predicate = #nn<compare_predicate ge>} : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi1>
  // CHECK: nn.logical {{.*}} {kind = #nn<logical_kind xor>} : (tensor<3x4xi1>, tensor<1xi1>) -> tensor<3x4xi1>
  %2 = nn.logical %m, %n {kind = #nn<logical_kind xor>} : (tensor<3x4xi1>, tensor<1xi1>) -> tensor<3x4xi1>
  // CHECK: nn.not %{{.*}} : tensor<3x4xi1>
  %3 = nn.not %2 : tensor<3x4xi1>
  // CHECK: nn.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %4 = nn.select %3, %x, %y : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: nn.select {{.*}} : (tensor<1xi1>, tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  %5 = nn.select %n, %m, %0 : (tensor<1xi1>, tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  // CHECK: nn.cast %{{.*}} : tensor<3x4xf32> to tensor<3x4xi64>
  %6 = nn.cast %x : tensor<3x4xf32> to tensor<3x4xi64>
  // CHECK: nn.cast %{{.*}} : tensor<3x4xi1> to tensor<3x4xf64>
  %7 = nn.cast %5 : tensor<3x4xi1> to tensor<3x4xf64>
  // CHECK: nn.mod {{.*}} : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi64>
  %8 = nn.mod %6, %i : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi64>
  // CHECK: nn.mod {{.*}} {fmod = true} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %9 = nn.mod %7, %d {fmod = true} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  // CHECK: nn.top_k %{{.*}} {k = 2 : i64} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  %10:2 = nn.top_k %x {k = 2 : i64} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  // CHECK: nn.top_k %{{.*}} {axis = 0 : i64, k = 3 : i64, largest = false} : (tensor<3x4xi64>) -> (tensor<3x4xi64>, tensor<3x4xi64>)
  %11:2 = nn.top_k %i {k = 3 : i64, axis = 0 : i64, largest = false} : (tensor<3x4xi64>) -> (tensor<3x4xi64>, tensor<3x4xi64>)
  // CHECK: nn.max {{.*}} : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  %12 = nn.max %h, %h : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  // CHECK: nn.add {{.*}} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %13 = nn.add %d, %9 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  // CHECK: nn.transpose {{.*}} : (tensor<3x4xi1>) -> tensor<4x3xi1>
  %14 = nn.transpose %m {perm = array<i64: 1, 0>} : (tensor<3x4xi1>) -> tensor<4x3xi1>
  // CHECK: nn.concat {{.*}} : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<6x4xi64>
  %15 = nn.concat %i, %8 {axis = 0 : i64} : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<6x4xi64>
  return
}

// CHECK-LABEL: func @pad_modes
func.func @pad_modes(%x: tensor<1x3x4x4xf32>) {
  // CHECK: nn.pad %{{.*}} {mode = #nn<pad_mode reflect>, pads = array<i64: 0, 0, 1, 3, 0, 0, 2, 0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x7x7xf32>
  %0 = nn.pad %x {pads = array<i64: 0, 0, 1, 3, 0, 0, 2, 0>, mode = #nn<pad_mode reflect>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x7x7xf32>
  // CHECK: nn.pad %{{.*}} {mode = #nn<pad_mode edge>, pads = array<i64: 0, 0, 5, 0, 0, 0, 0, 9>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x9x13xf32>
  %1 = nn.pad %x {pads = array<i64: 0, 0, 5, 0, 0, 0, 0, 9>, mode = #nn<pad_mode edge>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x9x13xf32>
  return
}

// CHECK-LABEL: func @max_pool_with_indices
func.func @max_pool_with_indices(%x: tensor<2x3x9x8xf32>) {
  // CHECK: nn.max_pool2d_with_indices %{{.*}} {ceil_mode = true, column_major = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x9x8xf32>) -> (tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>)
  %y, %i = nn.max_pool2d_with_indices %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true, column_major = true} : (tensor<2x3x9x8xf32>) -> (tensor<2x3x5x5xf32>, tensor<2x3x5x5xi64>)
  return
}

// CHECK-LABEL: func @resize_crop
func.func @resize_crop(%x: tensor<1x2x5x6xf32>) {
  // CHECK: nn.resize %{{.*}} {coordinates = #nn<resize_coordinates tf_crop_and_resize>, extrapolation_value = 2.500000e+00 : f64, mode = #nn<resize_mode bilinear>, roi = array<f64: 2.000000e-01, -3.000000e-01, 1.100000e+00, 9.000000e-01>, sizes = array<i64: 4, 7>} : (tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32>
  %0 = nn.resize %x {mode = #nn<resize_mode bilinear>, coordinates = #nn<resize_coordinates tf_crop_and_resize>, roi = array<f64: 0.2, -0.3, 1.1, 0.9>, extrapolation_value = 2.5 : f64, sizes = array<i64: 4, 7>} : (tensor<1x2x5x6xf32>) -> tensor<1x2x4x7xf32>
  return
}

// CHECK-LABEL: func @quantization
func.func @quantization(%x: tensor<1x2x3x3xf32>, %acc: tensor<1x2x3x3xi32>) {
  // CHECK: nn.quantize %{{.*}} {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -128>} : tensor<1x2x3x3xf32> to tensor<1x2x3x3xi8>
  %q = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : tensor<1x2x3x3xf32> to tensor<1x2x3x3xi8>
  // CHECK: nn.dequantize %{{.*}} {scales = array<f32: 5.000000e-02>, zero_points = array<i64: -128>} : tensor<1x2x3x3xi8> to tensor<1x2x3x3xf32>
  %d = nn.dequantize %q {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : tensor<1x2x3x3xi8> to tensor<1x2x3x3xf32>
  // CHECK: nn.dequantize %{{.*}} {scales = array<f32: 1.000000e-03, 2.000000e-03>, zero_points = array<i64: 40, -12>} : tensor<1x2x3x3xi32> to tensor<1x2x3x3xf32>
  %e = nn.dequantize %acc {scales = array<f32: 1.0e-3, 2.0e-3>, zero_points = array<i64: 40, -12>, axis = 1 : i64} : tensor<1x2x3x3xi32> to tensor<1x2x3x3xf32>
  // CHECK: nn.quantize %{{.*}} {axis = -1 : i64, scales = array<f32: 1.000000e+00, 5.000000e-01, 2.500000e-01>, zero_points = array<i64: 0, 1, 2>}
  %p = nn.quantize %x {scales = array<f32: 1.0, 0.5, 0.25>, zero_points = array<i64: 0, 1, 2>, axis = -1 : i64} : tensor<1x2x3x3xf32> to tensor<1x2x3x3xi8>
  return
}

// CHECK-LABEL: func @layer_norms
// CHECK: nn.layer_norm %arg0 : (tensor<?x197x768xf32>) -> tensor<?x197x768xf32>
// CHECK: nn.layer_norm %arg0 scale %arg1 bias %arg1 {axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<?x197x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x197x768xf32>
// CHECK: nn.layer_norm %arg2 bias %arg3 {axis = -2 : i64} : (tensor<1x4x5x6xbf16>, tensor<5x6xbf16>) -> tensor<1x4x5x6xbf16>
func.func @layer_norms(%x: tensor<?x197x768xf32>, %g: tensor<768xf32>, %h: tensor<1x4x5x6xbf16>, %b: tensor<5x6xbf16>) -> (tensor<?x197x768xf32>, tensor<?x197x768xf32>, tensor<1x4x5x6xbf16>) {
  %0 = nn.layer_norm %x : (tensor<?x197x768xf32>) -> tensor<?x197x768xf32>
  %1 = nn.layer_norm %x scale %g bias %g {axis = 2 : i64, epsilon = 1.0e-6 : f64} : (tensor<?x197x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x197x768xf32>
  %2 = nn.layer_norm %h bias %b {axis = -2 : i64} : (tensor<1x4x5x6xbf16>, tensor<5x6xbf16>) -> tensor<1x4x5x6xbf16>
  return %0, %1, %2 : tensor<?x197x768xf32>, tensor<?x197x768xf32>, tensor<1x4x5x6xbf16>
}
