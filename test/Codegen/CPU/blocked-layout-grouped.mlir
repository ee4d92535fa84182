// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --canonicalize --dlas-blocked-layout="block=16 convs-per-conversion=0" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s
// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --canonicalize --dlas-blocked-layout="block=16 convs-per-conversion=0 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --canonicalize --dlas-blocked-layout="block=16 convs-per-conversion=0 grouped=false print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// OFF: remark: stays NCHW: grouped (grouped=false)

// A dense 3x3 convolution, ReLU, then a grouped one (2 groups of 32
// channels: whole 16-channel blocks) and ReLU. Both run blocked: the
// grouped one as GSPC with TI = TO = 16 on the blocked activations viewed
// as [N, G, CPG/16, H, W, 16] (a reshape, no copy); its filter is packed
// at compile time to [G, KPG/16, CPG/16, 3, 3, 16, 16]. The layout
// converts only at the function's edges.
// CHECK-LABEL: func.func @dense_then_grouped
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 3, 4, 2]
// CHECK: linalg.generic {{.*}} attrs = {dlas.blocked_conv}
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4], [5]] {{.*}} into tensor<1x2x2x10x10x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x2x10x10x16xf32>, tensor<2x2x2x3x3x16x16xf32>) outs(%{{.*}} : tensor<1x2x2x8x8x16xf32>) attrs = {dlas.gspc}
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4], [5]] : tensor<1x2x2x8x8x16xf32> into tensor<1x4x8x8x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x64x8x8xf32>
// CHECK-NOT: linalg.conv_2d
// PRINT: remark: 2 convolution(s) blocked, 2 layout conversion(s) left
func.func @dense_then_grouped(%x: tensor<1x32x8x8xf32>) -> tensor<1x64x8x8xf32> {
  %w1 = arith.constant dense<0.25> : tensor<64x32x3x3xf32>
  %w2 = arith.constant dense<0.5> : tensor<64x32x3x3xf32>
  %c = nn.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<64x32x3x3xf32>) -> tensor<1x64x8x8xf32>
  %r = nn.relu %c : tensor<1x64x8x8xf32>
  %g = nn.conv2d %r, %w2 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x8x8xf32>, tensor<64x32x3x3xf32>) -> tensor<1x64x8x8xf32>
  %y = nn.relu %g : tensor<1x64x8x8xf32>
  return %y : tensor<1x64x8x8xf32>
}

// -----

// Groups that are not whole blocks, and one output block per group on a
// plane over 56x56 (16-channel blocks), stay NCHW.
// CHECK-LABEL: func.func @stay_nchw
// CHECK-COUNT-2: linalg.conv_2d_ngchw_gfchw
// PRINT: remark: stays NCHW: grouped: 8 input and 8 output channels per group are not multiples of 16
// PRINT: remark: stays NCHW: grouped: one 16-channel output block per group on a 64x64 plane (> 3136): the flat GEMM wins
func.func @stay_nchw(%x: tensor<1x32x64x64xf32>, %w1: tensor<32x8x3x3xf32>, %w2: tensor<32x16x3x3xf32>) -> tensor<1x32x64x64xf32> {
  %a = nn.conv2d %x, %w1 {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x64x64xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x64x64xf32>
  %b = nn.conv2d %a, %w2 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x64x64xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x64x64xf32>
  return %b : tensor<1x32x64x64xf32>
}

// -----

// One output block per group on a 56x56 plane goes blocked (its kernel
// reads the input in place and skips the border's taps).
// CHECK-LABEL: func.func @one_block_56x56
// CHECK: attrs = {dlas.gspc}
// PRINT-NOT: stays NCHW
// PRINT: remark: 1 convolution(s) blocked
func.func @one_block_56x56(%x: tensor<1x64x56x56xf32>, %w: tensor<64x16x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %a = nn.conv2d %x, %w {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x16x3x3xf32>) -> tensor<1x64x56x56xf32>
  return %a : tensor<1x64x56x56xf32>
}
