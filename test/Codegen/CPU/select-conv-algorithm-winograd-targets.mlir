// The cost model's Winograd rule follows the target: `winograd=auto` (the
// default) and `on` apply it from 64 channels and 16 2x2 tiles, as
// F(4x4,3x3) from 16 4x4 tiles on 8-lane targets (AVX2) and from 32 on
// 16-lane ones (AVX-512), `off` nowhere. The IR is the same on every host:
// only the named target counts.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=znver3 --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true winograd=on print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512ON
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 vector-bits=256" --dlas-select-conv-algorithm="microkernels=true print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true winograd=off print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-cpu-pipeline="target=x86-64-v3 print-conv-algorithms" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: dlas-opt %s --split-input-file --dlas-cpu-pipeline="target=x86-64-v3 winograd=off print-conv-algorithms" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not dlas-opt %s --dlas-select-conv-algorithm="winograd=maybe" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: dlas-select-conv-algorithm: winograd 'maybe' is not one of auto, on, off
// RUN: not dlas-opt %s --dlas-select-conv-algorithm="winograd-tile=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: not dlas-opt %s --dlas-cpu-pipeline="winograd-tile=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTILE6
// BADTILE: dlas-select-conv-algorithm: winograd-tile 3 is not one of 0 (auto), 2, 4
// BADTILE6: dlas-select-conv-algorithm: winograd-tile 6 is not one of 0 (auto), 2, 4
// The tile follows the rule or the option.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true winograd-tile=2 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE2
// TILE2-COUNT-4: Winograd F(2x2,3x3), 2.25x fewer multiplies
// TILE2-NOT: F(4x4

// 64 channels, 14x14 (49 2x2 tiles, 16 4x4 ones: F(4x4) on AVX2, F(2x2)
// on AVX-512).
// AVX2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 8-lane rule): Winograd F(4x4,3x3), 4x fewer multiplies)
// AVX512: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)
// AVX512ON: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)
// OFF: remark: convolution algorithm: flat
func.func @c64_14x14(%x: tensor<1x64x16x16xf32>, %o: tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32> {
  %w = arith.constant dense<0.5> : tensor<96x64x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x64x16x16xf32>, tensor<96x64x3x3xf32>) outs(%o : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  return %0 : tensor<1x96x14x14xf32>
}

// -----

// 128 channels, 16x16 (64 2x2 tiles, 16 4x4 ones): F(4x4) on 8 lanes,
// F(2x2) on 16.
// AVX2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 8-lane rule): Winograd F(4x4,3x3)
// AVX512: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3)
// AVX512ON: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3)
// OFF: remark: convolution algorithm: flat
func.func @c128_16x16(%x: tensor<1x128x18x18xf32>, %o: tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x128x18x18xf32>, tensor<128x128x3x3xf32>) outs(%o : tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32>
  return %0 : tensor<1x128x16x16xf32>
}

// -----

// 64 channels, 7x7: 16 2x2 tiles but 4 4x4 ones (a GEMM 4 columns wide):
// F(2x2); batch 4 makes 16 4x4 tiles: F(4x4) on AVX2, still F(2x2) on
// AVX-512.
// AVX2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 8-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)
// AVX2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 8-lane rule): Winograd F(4x4,3x3), 4x fewer multiplies)
// AVX512-COUNT-2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(2x2,3x3), 2.25x fewer multiplies)
// OFF-COUNT-2: remark: convolution algorithm: flat
func.func @c64_7x7(%x: tensor<1x64x9x9xf32>, %o: tensor<1x64x7x7xf32>,
                   %xb: tensor<4x64x9x9xf32>, %ob: tensor<4x64x7x7xf32>)
    -> (tensor<1x64x7x7xf32>, tensor<4x64x7x7xf32>) {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%xb, %w : tensor<4x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%ob : tensor<4x64x7x7xf32>) -> tensor<4x64x7x7xf32>
  return %0, %1 : tensor<1x64x7x7xf32>, tensor<4x64x7x7xf32>
}

// -----

// Too few output channels (32) or too few tiles (5x5: 9): flat everywhere.
// AVX2-COUNT-2: remark: convolution algorithm: flat
// AVX512-COUNT-2: remark: convolution algorithm: flat
// AVX512ON-COUNT-2: remark: convolution algorithm: flat
func.func @small(%x: tensor<1x128x16x16xf32>, %y: tensor<1x64x7x7xf32>,
                 %o: tensor<1x32x14x14xf32>, %p: tensor<1x64x5x5xf32>)
    -> (tensor<1x32x14x14xf32>, tensor<1x64x5x5xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x128x3x3xf32>
  %v = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x128x16x16xf32>, tensor<32x128x3x3xf32>) outs(%o : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%y, %v : tensor<1x64x7x7xf32>, tensor<64x64x3x3xf32>) outs(%p : tensor<1x64x5x5xf32>) -> tensor<1x64x5x5xf32>
  return %0, %1 : tensor<1x32x14x14xf32>, tensor<1x64x5x5xf32>
}

// -----

// 64 channels, 28x28 (49 4x4 tiles): F(4x4) on both; batch 2 at 16x16
// (32 4x4 tiles over the images) reaches the 16-lane minimum too.
// AVX2-COUNT-2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 8-lane rule): Winograd F(4x4,3x3), 4x fewer multiplies)
// AVX512-COUNT-2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(4x4,3x3), 4x fewer multiplies)
// AVX512ON-COUNT-2: remark: convolution algorithm: winograd (3x3 stride 1, constant filter, >= 64 channels, >= 16 tiles (the 16-lane rule): Winograd F(4x4,3x3), 4x fewer multiplies)
// OFF-COUNT-2: remark: convolution algorithm: flat
func.func @c64_28x28(%x: tensor<1x64x30x30xf32>, %o: tensor<1x64x28x28xf32>,
                     %xb: tensor<2x128x18x18xf32>, %ob: tensor<2x128x16x16xf32>)
    -> (tensor<1x64x28x28xf32>, tensor<2x128x16x16xf32>) {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %v = arith.constant dense<0.5> : tensor<128x128x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x64x30x30xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x28x28xf32>) -> tensor<1x64x28x28xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%xb, %v : tensor<2x128x18x18xf32>, tensor<128x128x3x3xf32>) outs(%ob : tensor<2x128x16x16xf32>) -> tensor<2x128x16x16xf32>
  return %0, %1 : tensor<1x64x28x28xf32>, tensor<2x128x16x16xf32>
}
