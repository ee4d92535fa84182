// The CPU pipeline's tail stores per target: a 7x7 depthwise plane's rows
// (7 lanes of 8) and a 1x1 convolution's last column tile (N = 49) store
// their partial vectors as plain pieces on x86-64-v3 and znver3 (vmaskmovps
// stores are slow there), under a k-mask on x86-64-v4 and znver4.
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v3 | FileCheck %s --check-prefix=PIECES
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=znver3 | FileCheck %s --check-prefix=PIECES
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v4 | FileCheck %s --check-prefix=MASKED
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=znver4 | FileCheck %s --check-prefix=MASKED

// PIECES-LABEL: llvm.func @main_layer0_conv2d
// PIECES-NOT: llvm.intr.masked.store
// PIECES: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr
// PIECES: llvm.store %{{.*}} : vector<2xf32>, !llvm.ptr
// PIECES: llvm.store %{{.*}} : vector<1xf32>, !llvm.ptr
// PIECES-LABEL: llvm.func @main_layer1_conv2d
// PIECES-NOT: llvm.intr.masked.store
// PIECES: llvm.store %{{.*}} : vector<1xf32>, !llvm.ptr
// PIECES-NOT: llvm.intr.masked.store

// MASKED-LABEL: llvm.func @main_layer0_conv2d
// MASKED: llvm.intr.masked.store
// MASKED-LABEL: llvm.func @main_layer1_conv2d
// MASKED: llvm.intr.masked.store
func.func @main(%x: tensor<1x16x7x7xf32>) -> tensor<1x24x7x7xf32> {
  %dw = arith.constant dense<0.5> : tensor<16x1x3x3xf32>
  %pw = arith.constant dense<0.25> : tensor<24x16x1x1xf32>
  %0 = nn.conv2d %x, %dw {padding = array<i64: 1, 1, 1, 1>, groups = 16 : i64}
      : (tensor<1x16x7x7xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x7x7xf32>
  %1 = nn.conv2d %0, %pw : (tensor<1x16x7x7xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x7x7xf32>
  return %1 : tensor<1x24x7x7xf32>
}
