// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0 pools=false" | FileCheck %s --check-prefix=NOPOOL
// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT

// A max pool that reads a blocked convolution through its ReLU and the
// pool's -inf padding goes blocked with it: the layout propagates through
// the activation and the padding, and the pool becomes a blocked window
// max over [N, C/16, H, W, 16] tagged dlas.blocked_pool, which
// dlas-blocked-conv-microkernel fuses into the convolution's kernel.
// CHECK-DAG: #[[PIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4)>
// CHECK-DAG: #[[PWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6)>
// CHECK-DAG: #[[POUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_relu_pool
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[CONV:.*]] = linalg.generic {{.*}} attrs = {dlas.blocked_conv}
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x1x8x8x16xf32>)
// CHECK: arith.maximumf
// CHECK: %[[PAD:.*]] = tensor.pad %[[RELU]] low[0, 0, 1, 1, 0] high[0, 0, 0, 0, 0]
// CHECK: tensor.yield %[[NINF]]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<1x1x4x4x16xf32>)
// CHECK: %[[POOL:.*]] = linalg.generic {indexing_maps = [#[[PIN]], #[[PWIN]], #[[POUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAD]], %{{.*}} : tensor<1x1x9x9x16xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x1x4x4x16xf32>) attrs = {dlas.blocked_pool}
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[OUT:.*]]: f32):
// CHECK: arith.maximumf %[[OUT]], %[[IN]] : f32
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: return
// NOPOOL-LABEL: func.func @conv_relu_pool
// NOPOOL: linalg.pooling_nchw_max
// NOPOOL-NOT: dlas.blocked_pool
func.func @conv_relu_pool(%x: tensor<1x32x8x8xf32>, %w: tensor<16x32x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<1x32x8x8xf32> to tensor<1x32x10x10xf32>
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<1x32x10x10xf32>, tensor<16x32x3x3xf32>) outs(%init : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %pp = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x9x9xf32>
  %pe = tensor.empty() : tensor<1x16x4x4xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%pp, %win : tensor<1x16x9x9xf32>, tensor<3x3xf32>) outs(%pinit : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %pool : tensor<1x16x4x4xf32>
}

// -----

// The activation has a second reader: the pool stays NCHW (its kernel
// could not fuse; the pre-pool values are needed anyway).
// CHECK-LABEL: func.func @shared_activation
// CHECK: dlas.blocked_conv
// CHECK: linalg.pooling_nchw_max
// CHECK-NOT: dlas.blocked_pool
// PRINT: remark: pool stays NCHW: its input is not a blocked dense convolution (through an activation and a padding)
func.func @shared_activation(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x1x1xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%init : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %pe = tensor.empty() : tensor<1x16x4x4xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%relu, %win : tensor<1x16x8x8xf32>, tensor<2x2xf32>) outs(%pinit : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %pool, %relu : tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>
}

// -----

// A pool of a function argument (no convolution before it) stays NCHW.
// CHECK-LABEL: func.func @lone_pool
// CHECK: linalg.pooling_nchw_max
// PRINT: remark: pool stays NCHW: its input is not a blocked dense convolution
func.func @lone_pool(%x: tensor<1x16x8x8xf32>, %y: tensor<1x16x8x8xf32>, %w: tensor<16x16x1x1xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %w : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%init : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %pe = tensor.empty() : tensor<1x16x4x4xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<1x16x8x8xf32>, tensor<2x2xf32>) outs(%pinit : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %pool, %conv : tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>
}
