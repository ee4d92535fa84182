// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0 max-width=8" | FileCheck %s --check-prefix=NARROW
// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECIDE
// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-blocked-layout="block=16 convs-per-conversion=0 depthwise=true" | FileCheck %s --check-prefix=DEPTHWISE

// One convolution: the input is packed to NCHW16c (expand_shape +
// transpose), the constant filter is packed at compile time, the bias
// broadcast is rebuilt in blocked form, and the result is unpacked by a
// copy that walks the blocked source in order into the result viewed as
// [N, C/16, 16, H, W].
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7 * 2, d8)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[ID5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[UNPACK:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d2, d3)>
// CHECK-LABEL: func.func @single
// CHECK: %[[FILTER:.*]] = arith.constant dense<{{.*}}> : tensor<2x1x3x3x16x16xf32>
// CHECK: %[[XE:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 1, 16, 11, 11]
// CHECK: %[[XB:.*]] = linalg.transpose ins(%[[XE]] : tensor<1x1x16x11x11xf32>) outs(%{{.*}} : tensor<1x1x11x11x16xf32>) permutation = [0, 1, 3, 4, 2]
// CHECK: %[[BIAS:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%[[BIAS]] : tensor<2x16xf32>) outs(%{{.*}} : tensor<1x2x5x4x16xf32>) dimensions = [0, 2, 3]
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%[[XB]], %[[FILTER]] : tensor<1x1x11x11x16xf32>, tensor<2x1x3x3x16x16xf32>) outs(%[[INIT]] : tensor<1x2x5x4x16xf32>) attrs = {dlas.blocked_conv}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[U:.*]] = linalg.generic {indexing_maps = [#[[ID5]], #[[UNPACK]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[Y]] : tensor<1x2x5x4x16xf32>) outs(%{{.*}} : tensor<1x2x16x5x4xf32>)
// CHECK: tensor.collapse_shape %[[U]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x16x5x4xf32> into tensor<1x32x5x4xf32>
// NARROW-LABEL: func.func @single
// NARROW: linalg.generic {{.*}}dlas.blocked_conv
// DECIDE: remark: stays NCHW: 2 layout conversion(s) would remain for 1 blocked convolution(s) (at most 1 per 4)
// PRINT: remark: 1 convolution(s) blocked, 2 layout conversion(s) left
func.func @single(%x: tensor<1x16x11x11xf32>, %b: tensor<32xf32>) -> tensor<1x32x5x4xf32> {
  %w = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %e = tensor.empty() : tensor<1x32x5x4xf32>
  %init = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x5x4xf32>) dimensions = [0, 2, 3]
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x11x11xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<1x32x5x4xf32>) -> tensor<1x32x5x4xf32>
  return %y : tensor<1x32x5x4xf32>
}

// -----

// Two convolutions (constant filters) with a ReLU and a padding between
// them: the unpack of
// the first and the pack of the second meet and fold, so the activation,
// the pad and the second convolution run blocked; only the function's
// input and result convert.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.transpose
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}}dlas.blocked_conv
// CHECK-NOT: linalg.transpose
// CHECK: arith.maximumf
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK: } : tensor<1x2x8x8x16xf32> to tensor<1x2x10x10x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}}dlas.blocked_conv
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x8x8x16xf32>) outs(%{{.*}} : tensor<1x1x16x8x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return
// PRINT: remark: 2 convolution(s) blocked, 2 layout conversion(s) left
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @chain(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.25> : tensor<32x16x1x1xf32>
  %w2 = arith.constant dense<0.5> : tensor<16x32x3x3xf32>
  %e1 = tensor.empty() : tensor<1x32x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) outs(%f1 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c1 : tensor<1x32x8x8xf32>) outs(%e1 : tensor<1x32x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x8x8xf32> to tensor<1x32x10x10xf32>
  %e2 = tensor.empty() : tensor<1x16x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w2 : tensor<1x32x10x10xf32>, tensor<16x32x3x3xf32>) outs(%f2 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %c2 : tensor<1x16x8x8xf32>
}

// -----

// Layer functions (dlas-outline-layers) take and return the blocked
// layout: their packs and unpacks move into the caller, where they fold.
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = call @layer0(%{{.*}}) : (tensor<1x1x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK: %[[B:.*]] = call @layer1(%[[A]]) : (tensor<1x2x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : tensor<1x1x6x6x16xf32>)
// CHECK-LABEL: func.func private @layer0(%{{.*}}: tensor<1x1x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return
// CHECK-LABEL: func.func private @layer1(%{{.*}}: tensor<1x2x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @main(%x: tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %a = call @layer0(%x) : (tensor<1x16x6x6xf32>) -> tensor<1x32x6x6xf32>
  %b = call @layer1(%a) : (tensor<1x32x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %b : tensor<1x16x6x6xf32>
}
func.func private @layer0(%x: tensor<1x16x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<32x16x1x1xf32>
  %e = tensor.empty() : tensor<1x32x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x6x6xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  return %y : tensor<1x32x6x6xf32>
}
func.func private @layer1(%x: tensor<1x32x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<16x32x1x1xf32>
  %e = tensor.empty() : tensor<1x16x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x6x6xf32>, tensor<16x32x1x1xf32>) outs(%f : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %y : tensor<1x16x6x6xf32>
}

// -----

// Convolutions without a blocked form stay NCHW and say why.
// CHECK-LABEL: func.func @refused
// CHECK-NOT: dlas.blocked_conv
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: dlas.blocked_conv
// NARROW-LABEL: func.func @refused
// NARROW-NOT: dlas.blocked_conv
// PRINT: remark: stays NCHW: 3 input channels are not a multiple of 16
// PRINT: remark: stays NCHW: 24 output channels are not a multiple of 16
// PRINT: remark: stays NCHW: dynamic shape
func.func @refused(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %x2: tensor<1x16x8x8xf32>, %w2: tensor<24x16x1x1xf32>, %x3: tensor<?x16x8x8xf32>, %w3: tensor<16x16x1x1xf32>, %i3: tensor<?x16x8x8xf32>) -> (tensor<1x16x6x6xf32>, tensor<1x24x8x8xf32>, tensor<?x16x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %e2 = tensor.empty() : tensor<1x24x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %y2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x2, %w2 : tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) outs(%f2 : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %y3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x3, %w3 : tensor<?x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%i3 : tensor<?x16x8x8xf32>) -> tensor<?x16x8x8xf32>
  return %y, %y2, %y3 : tensor<1x16x6x6xf32>, tensor<1x24x8x8xf32>, tensor<?x16x8x8xf32>
}

// -----

// max-width leaves wider convolutions in NCHW.
// CHECK-LABEL: func.func @wide
// CHECK: dlas.blocked_conv
// NARROW-LABEL: func.func @wide
// NARROW-NOT: dlas.blocked_conv
// NARROW: linalg.conv_2d_nchw_fchw
func.func @wide(%x: tensor<1x16x4x12xf32>, %w: tensor<16x16x1x1xf32>) -> tensor<1x16x4x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x12xf32>) -> tensor<1x16x4x12xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x4x12xf32>, tensor<16x16x1x1xf32>) outs(%f : tensor<1x16x4x12xf32>) -> tensor<1x16x4x12xf32>
  return %y : tensor<1x16x4x12xf32>
}

// -----

// A depthwise convolution: its constant filter is packed to
// [C/16, Kh, Kw, 16] at compile time and it runs as a blocked depthwise
// generic (a channel vector per output position).
// DEPTHWISE-DAG: #[[DIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4)>
// DEPTHWISE-DAG: #[[DW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
// DEPTHWISE-DAG: #[[DOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// DEPTHWISE-LABEL: func.func @depthwise
// DEPTHWISE: %[[DF:.*]] = arith.constant dense<{{.*}}> : tensor<2x3x3x16xf32>
// DEPTHWISE: linalg.generic {indexing_maps = [#[[DIN]], #[[DW]], #[[DOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[DF]] : tensor<1x2x9x9x16xf32>, tensor<2x3x3x16xf32>) outs(%{{.*}} : tensor<1x2x4x4x16xf32>) attrs = {dlas.blocked_depthwise}
// By default it stays NCHW.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// PRINT: remark: stays NCHW: depthwise (depthwise=false)
func.func @depthwise(%x: tensor<1x32x9x9xf32>) -> tensor<1x32x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<32x3x3xf32>
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x9x9xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %y : tensor<1x32x4x4xf32>
}
