// dlas-sparsify: dense layers with sparse enough constant weights become
// sparse layers where the calibrated cost model says they win.
// RUN: dlas-opt %s --split-input-file --dlas-sparsify="policy=always min-pool-positions=0" | FileCheck %s --check-prefix=ALWAYS
// RUN: dlas-opt %s --split-input-file --dlas-sparsify="policy=never" | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-sparsify="calibration=%S/Inputs/calibration.json print" 2>&1 | FileCheck %s --check-prefix=V4
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-sparsify="calibration=%S/Inputs/calibration.json print min-pool-positions=25" 2>&1 | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --split-input-file --dlas-sparsify="policy=always fuse-pools=false min-pool-positions=0" | FileCheck %s --check-prefix=UNFUSED
// Small maps (25 positions here) keep their pools apart by default.
// RUN: dlas-opt %s --split-input-file --dlas-sparsify="policy=always" | FileCheck %s --check-prefix=UNFUSED

// 3 of 8 filter rows (as 8 x 4 rows of C*KH*KW) hold one non-zero each:
// density 3/32. The ReLU, the conv's only user, is fused.
// ALWAYS-LABEL: func.func @conv
// ALWAYS: %[[W:.*]] = sparse.constant {coordinates = array<i32: 3, 0, 2>, positions = array<i32: 0, 1, 1, 1, 2, 2, 2, 2, 3>, values = dense<[1.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<3xf32>} : tensor<8x4xf32, #sparse>
// ALWAYS: %[[Y:.*]] = sparse.conv2d %arg0, %[[W]], %{{.*}} {kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, relu, strides = array<i64: 2, 2>}
// ALWAYS-NOT: nn.relu
// ALWAYS: return %[[Y]]
// NEVER-LABEL: func.func @conv
// NEVER: nn.conv2d
// NEVER: nn.relu
// V4: dlas-sparsify: conv2d "conv" 8x4 (conv): density 0.094, stored 0.094 in 1x1 blocks, break-even 0.40 (avx512, calibrated) -> sparse
// V3: dlas-sparsify: conv2d "conv" 8x4 (conv): density 0.094, stored 0.094 in 1x1 blocks, break-even 0.25 (avx2, calibrated) -> sparse
func.func @conv(%x: tensor<1x1x5x5xf32>) -> tensor<1x8x3x3xf32> {
  %w = arith.constant dense<[[[[0.0, 0.0], [0.0, 1.0]]], [[[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]]],
                             [[[-2.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]]],
                             [[[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [3.0, 0.0]]]]> : tensor<8x1x2x2xf32>
  %b = arith.constant dense<1.0> : tensor<8xf32>
  %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>}
      : (tensor<1x1x5x5xf32>, tensor<8x1x2x2xf32>, tensor<8xf32>) -> tensor<1x8x3x3xf32> loc("conv")
  %r = nn.relu %y : tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}

// -----

// Four whole rows of four (4 x 1 blocks): stored 0.5 either way, and the
// 4-row blocks' break-even (0.6 on AVX-512) beats CSR's (0.4); on AVX2
// (0.25 and 0.3) the layer stays dense, decided without compressing it (no
// format stores less than the density). The convolution's result has
// another user besides the ReLU: no fusion.
// V4: dlas-sparsify: conv2d "blocks" 8x4 (conv): density 0.500, stored 0.500 in 4x1 blocks, break-even 0.60 (avx512, calibrated) -> sparse
// V3: dlas-sparsify: conv2d "blocks" 8x4 (conv): density 0.500, at or above every format's break-even (at most 0.30, avx2, calibrated) -> dense
// ALWAYS-LABEL: func.func @blocks
// ALWAYS: sparse.conv2d
// ALWAYS-NOT: relu}
// ALWAYS: nn.relu
func.func @blocks(%x: tensor<1x1x3x3xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32>) {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[1.0, 2.0], [3.0, 4.0]]], [[[1.0, 2.0], [3.0, 4.0]]], [[[1.0, 2.0], [3.0, 4.0]]],
                             [[[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]]]]> : tensor<8x1x2x2xf32>
  %y = nn.conv2d %x, %w : (tensor<1x1x3x3xf32>, tensor<8x1x2x2xf32>) -> tensor<1x8x2x2xf32> loc("blocks")
  %r = nn.relu %y : tensor<1x8x2x2xf32>
  return %y, %r : tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32>
}

// -----

// A residual block's last convolution: its only user adds a shortcut of
// its shape, then a ReLU: both fold into the sparse op, which takes the
// add's place (the shortcut, %d, is computed after the convolution). An
// add that broadcasts, or one whose result has another user besides the
// ReLU, is not a shortcut the kernel adds: the ReLU then stays too.
// ALWAYS-LABEL: func.func @residual
// ALWAYS: %[[D:.*]] = nn.conv2d %arg1
// ALWAYS: %[[Y:.*]] = sparse.conv2d %arg0, %{{.*}} residual %[[D]] {kernel_size = array<i64: 1, 1>, relu}
// ALWAYS-NOT: nn.add
// ALWAYS-NOT: nn.relu
// ALWAYS: return %[[Y]]
// NEVER-LABEL: func.func @residual
// NEVER: nn.add
func.func @residual(%x: tensor<1x4x3x3xf32>, %s: tensor<1x4x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %w = arith.constant dense<[[[[0.0]], [[1.0]], [[0.0]], [[0.0]]], [[[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                             [[[2.0]], [[0.0]], [[0.0]], [[0.0]]], [[[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                             [[[0.0]], [[0.0]], [[0.0]], [[3.0]]], [[[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                             [[[0.0]], [[0.0]], [[0.0]], [[0.0]]], [[[0.0]], [[0.0]], [[4.0]], [[0.0]]]]> : tensor<8x4x1x1xf32>
  %wd = arith.constant dense<1.0> : tensor<8x4x1x1xf32>
  %y = nn.conv2d %x, %w : (tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
  %d = nn.conv2d %s, %wd : (tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
  %a = nn.add %d, %y : (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %r = nn.relu %a : tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}

// ALWAYS-LABEL: func.func @not_residual
// ALWAYS: %[[B:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>}
// ALWAYS: nn.add %[[B]], %arg1
// ALWAYS: %[[T:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>}
// ALWAYS: %[[A:.*]] = nn.add %[[T]], %[[T]]
// ALWAYS: %[[S:.*]] = sparse.conv2d %arg0, %{{.*}} residual %arg2 {kernel_size = array<i64: 1, 1>} :
// ALWAYS: nn.relu %[[S]]
func.func @not_residual(%x: tensor<1x4x3x3xf32>, %bias: tensor<8x1x1xf32>, %s: tensor<1x8x3x3xf32>)
    -> (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) {
  %w = arith.constant dense<[[[[0.0]], [[1.0]], [[0.0]], [[0.0]]], [[[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                             [[[2.0]], [[0.0]], [[0.0]], [[0.0]]], [[[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                             [[[0.0]], [[0.0]], [[0.0]], [[3.0]]], [[[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                             [[[0.0]], [[0.0]], [[0.0]], [[0.0]]], [[[0.0]], [[0.0]], [[4.0]], [[0.0]]]]> : tensor<8x4x1x1xf32>
  // A broadcast add.
  %y = nn.conv2d %x, %w : (tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
  %a = nn.add %y, %bias : (tensor<1x8x3x3xf32>, tensor<8x1x1xf32>) -> tensor<1x8x3x3xf32>
  // The convolution's result added to itself.
  %t = nn.conv2d %x, %w : (tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
  %tt = nn.add %t, %t : (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  // The sum has a user besides the ReLU: the add folds, the ReLU stays.
  %u = nn.conv2d %x, %w : (tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
  %us = nn.add %u, %s : (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %ur = nn.relu %us : tensor<1x8x3x3xf32>
  return %a, %tt, %us, %ur : tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>
}

// -----

// Linear layers; and the layers that stay dense, with the reason.
// ALWAYS-LABEL: func.func @linear
// ALWAYS: sparse.linear %arg0, %{{.*}} : (tensor<2x4xf32>, tensor<3x4xf32, #sparse>) -> tensor<2x3xf32>
// ALWAYS: sparse.linear %arg1, %{{.*}} : (tensor<?x4xf32>, tensor<3x4xf32, #sparse>) -> tensor<?x3xf32>
// ALWAYS: nn.linear %arg0, %arg2
// ALWAYS: nn.conv2d {{.*}}layout = #nn<layout nhwc>
// ALWAYS: nn.conv2d %arg4
// V4: dlas-sparsify: linear "fc" 3x4 (linear): density 0.250, stored 0.250 in 1x1 blocks, break-even 0.50 (avx512, calibrated) -> sparse
// V4: dlas-sparsify: linear "dense" 3x4 (linear): dense (no zeros)
// V4: dlas-sparsify: linear "dynamic" 3x4 (linear): density 0.250, stored 0.250 in 1x1 blocks, break-even 0.50 (avx512, calibrated) -> sparse
// V4: dlas-sparsify: linear "argument" 3x4 (linear): dense (weight is not a constant)
// V4: dlas-sparsify: conv2d "nhwc" 2x1 (conv1x1): dense (not NCHW)
// V4: dlas-sparsify: conv2d "spatial" 2x1 (conv1x1): dense (dynamic size)
func.func @linear(%x: tensor<2x4xf32>, %d: tensor<?x4xf32>, %v: tensor<3x4xf32>, %n: tensor<1x2x2x1xf32>, %m: tensor<1x1x?x?xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>, tensor<1x2x2x2xf32>, tensor<1x2x?x?xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 3.0]]> : tensor<3x4xf32>
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32> loc("fc")
  %full = arith.constant dense<1.0> : tensor<3x4xf32>
  %z = nn.linear %x, %full : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32> loc("dense")
  %dyn = nn.linear %d, %w : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x3xf32> loc("dynamic")
  %arg = nn.linear %x, %v : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32> loc("argument")
  %f = arith.constant dense<[[[[1.0]]], [[[0.0]]]]> : tensor<2x1x1x1xf32>
  %c = nn.conv2d %n, %f {layout = #nn<layout nhwc>} : (tensor<1x2x2x1xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32> loc("nhwc")
  %sp = nn.conv2d %m, %f : (tensor<1x1x?x?xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x?x?xf32> loc("spatial")
  return %y, %z, %dyn, %arg, %c, %sp : tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>, tensor<1x2x2x2xf32>, tensor<1x2x?x?xf32>
}

// -----

// A dynamic batch: the residual add, the ReLU and the max pool fold as
// with a static one.
// ALWAYS-LABEL: func.func @dynamic_batch
// ALWAYS: %[[P:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 3, 3>, pool_padding = array<i64: 1, 1, 1, 1>, pool_strides = array<i64: 2, 2>, relu} : (tensor<?x2x5x5xf32>, tensor<4x2xf32, #sparse>) -> tensor<?x4x3x3xf32>
// ALWAYS: %[[R:.*]] = sparse.conv2d %arg0, %{{.*}} residual %arg1 {kernel_size = array<i64: 1, 1>, relu} : (tensor<?x2x5x5xf32>, tensor<4x2xf32, #sparse>, tensor<?x4x5x5xf32>) -> tensor<?x4x5x5xf32>
// ALWAYS: return %[[P]], %[[R]]
func.func @dynamic_batch(%x: tensor<?x2x5x5xf32>, %s: tensor<?x4x5x5xf32>) -> (tensor<?x4x3x3xf32>, tensor<?x4x5x5xf32>) {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[2.0]]], [[[0.0]], [[0.0]]], [[[3.0]], [[-1.0]]]]> : tensor<4x2x1x1xf32>
  %c = nn.conv2d %x, %w : (tensor<?x2x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<?x4x5x5xf32>
  %r = nn.relu %c : tensor<?x4x5x5xf32>
  %p = nn.max_pool2d %r {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x4x5x5xf32>) -> tensor<?x4x3x3xf32>
  %d = nn.conv2d %x, %w : (tensor<?x2x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<?x4x5x5xf32>
  %a = nn.add %d, %s : (tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>) -> tensor<?x4x5x5xf32>
  %ar = nn.relu %a : tensor<?x4x5x5xf32>
  return %p, %ar : tensor<?x4x3x3xf32>, tensor<?x4x5x5xf32>
}

// -----

// A max pool after the ReLU is folded in (ResNet's stem); a ceil-mode
// pool's bottom and right padding grow to the windows it reaches (5x5 ->
// ceil((5 - 2) / 2) + 1 = 3 rows and columns: padding 1 after); pools
// that the kernel cannot take stay (a dilated one, one after a ReLU with
// another user). The statistics count the fused pools.
// ALWAYS-LABEL: func.func @pools
// ALWAYS: %[[A:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 3, 3>, pool_padding = array<i64: 1, 1, 1, 1>, pool_strides = array<i64: 2, 2>, relu} : (tensor<1x2x5x5xf32>, tensor<4x2xf32, #sparse>) -> tensor<1x4x3x3xf32>
// ALWAYS: %[[B:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 2>, pool_padding = array<i64: 0, 0, 1, 1>, pool_strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<4x2xf32, #sparse>) -> tensor<1x4x3x3xf32>
// ALWAYS: %[[C:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2xf32, #sparse>) -> tensor<1x4x5x5xf32>
// ALWAYS: nn.max_pool2d %[[C]] {dilations = array<i64: 2, 2>
// ALWAYS: %[[D:.*]] = sparse.conv2d %arg0, %{{.*}} {kernel_size = array<i64: 1, 1>, relu} : (tensor<1x2x5x5xf32>, tensor<4x2xf32, #sparse>) -> tensor<1x4x5x5xf32>
// ALWAYS: nn.max_pool2d %[[D]]
// ALWAYS-NOT: nn.max_pool2d
// ALWAYS: return %[[A]], %[[B]]
// UNFUSED-LABEL: func.func @pools
// UNFUSED-COUNT-4: nn.max_pool2d
// V3: dlas-sparsify: conv2d "stem" 4x2 (conv1x1): {{.*}} -> sparse + relu + max pool
// V3: dlas-sparsify: conv2d "ceil" 4x2 (conv1x1): {{.*}} -> sparse + max pool
// V3: dlas-sparsify: conv2d "dilated" 4x2 (conv1x1): {{.*}} -> sparse{{$}}
// V3: dlas-sparsify: conv2d "shared" 4x2 (conv1x1): {{.*}} -> sparse + relu{{$}}
func.func @pools(%x: tensor<1x2x5x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x5x5xf32>) {
  %w = arith.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[0.0]]], [[[0.0]], [[0.0]]], [[[0.0]], [[0.0]]]]> : tensor<4x2x1x1xf32>
  %a = nn.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x5x5xf32> loc("stem")
  %ar = nn.relu %a : tensor<1x4x5x5xf32>
  %ap = nn.max_pool2d %ar {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  %b = nn.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x5x5xf32> loc("ceil")
  %bp = nn.max_pool2d %b {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  %c = nn.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x5x5xf32> loc("dilated")
  %cp = nn.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  %d = nn.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x5x5xf32> loc("shared")
  %dr = nn.relu %d : tensor<1x4x5x5xf32>
  %dp = nn.max_pool2d %dr {kernel = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x4x4xf32>
  return %ap, %bp, %cp, %dp, %dr : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x5x5xf32>
}
