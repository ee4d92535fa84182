// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=8 vector-registers=16 parallel=false" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=8 vector-registers=16 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=8 vector-registers=32 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE

// Shared column tails (`lines`). A 7x7 output of a 3x1 window on 16
// registers of 8 lanes:
// full tiles of 6 columns x 2 vectors (12 accumulators) leave a 1-column
// tail per row; the tails of 6 rows share one tile of 6 positions (12
// accumulators). Work items are bands of 6 rows, then 1: the short last
// band has its own code (its own 1-position tail tile). In a full band
// each row runs its full tile, then one tile reads the 6 tail positions
// at constant offsets from its first input element: one input row apart
// (7 columns x 8 channels = 56): 56, 112, 168, 224, 280; it stores rows
// 0-5 of column 6, both channel blocks.
// CHECK-LABEL: func.func @seven_wide
// CHECK: %[[FLAT:.*]] = memref.collapse_shape
// CHECK: scf.for %[[ITEM:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[FIRST:.*]] = arith.muli %[[BAND:.*]], %c6 : index
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[BAND]], %c1 : index
// CHECK: scf.if %[[LAST]] {
// CHECK: :12 = scf.for
// CHECK: :2 = scf.for
// CHECK: } else {
// CHECK: scf.for %[[L:.*]] = %c0 to %c6 step %c1 {
// CHECK: arith.addi %[[FIRST]], %[[L]] : index
// CHECK: :12 = scf.for
// CHECK: %[[R1:.*]] = arith.addi %[[FIRST]], %c1 : index
// CHECK: %[[R5:.*]] = arith.addi %[[FIRST]], %c5 : index
// CHECK: %[[TAIL:.*]]:12 = scf.for
// CHECK: memref.load %[[FLAT]][%[[AT:[0-9]+]]]
// CHECK: arith.addi %[[AT]], %c56 : index
// CHECK: arith.addi %[[AT]], %c112 : index
// CHECK: arith.addi %[[AT]], %c168 : index
// CHECK: arith.addi %[[AT]], %c224 : index
// CHECK: arith.addi %[[AT]], %c280 : index
// CHECK-COUNT-12: vector.fma
// CHECK: vector.store %[[TAIL]]#0, %arg2[%{{.*}}, %{{.*}}, %[[FIRST]], %c6, %c0]
// CHECK: vector.store %[[TAIL]]#2, %arg2[%{{.*}}, %{{.*}}, %[[R1]], %c6, %c0]
// CHECK: vector.store %[[TAIL]]#10, %arg2[%{{.*}}, %{{.*}}, %[[R5]], %c6, %c0]
// PRINT: remark: blocked convolution microkernel 6x16 (rows=6, vectors=2, lines=6) key 'c16_f16_o7x7_k3x1_s1x1'
// On 32 registers, 7 columns are one tile: no tail.
// WIDE: remark: blocked convolution microkernel 7x16 (rows=7, vectors=2) key 'c16_f16_o7x7_k3x1_s1x1'
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @seven_wide(%x: memref<1x2x9x7x8xf32>, %w: memref<2x2x3x1x8x8xf32>, %y: memref<1x2x7x7x8xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x7x8xf32>, memref<2x2x3x1x8x8xf32>) outs(%y : memref<1x2x7x7x8xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Stride 2 and an override: the tails of 2 rows (4 columns of 2 each)
// share a tile; the second row's input starts 2 input rows further (2 x
// 13 x 8 = 208), its columns 2 apart (16). The 4 rows make 2 bands.
// CHECK-LABEL: func.func @strided_override
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: arith.addi %[[AT:[0-9]+]], %c208 : index
// CHECK: arith.addi %[[AT]], %c224 : index
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}, %{{.*}}, %c4, %c0]
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}, %{{.*}}, %c5, %c0]
// PRINT: remark: blocked convolution microkernel 4x8 (rows=4, vectors=1, lines=2, overridden) key 'c8_f8_o4x6_k3x3_s2x2'
// WIDE: remark: blocked convolution microkernel 4x8 (rows=4, vectors=1, lines=2, overridden)
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh * 2 + kh, ow * 2 + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @strided_override(%x: memref<1x1x9x13x8xf32>, %w: memref<1x1x3x3x8x8xf32>, %y: memref<1x1x4x6x8xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = {rows = 4, lines = 2}} ins(%x, %w : memref<1x1x9x13x8xf32>, memref<1x1x3x3x8x8xf32>) outs(%y : memref<1x1x4x6x8xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A 3x3 window on rows up to 28 wide (16 registers): balanced tiles of at
// most 5 columns, one row each (no shared tails), which a kernel can
// read a padded input's source around: 7 = 4 + 3.
// PRINT: remark: blocked convolution microkernel 4x16 (rows=4, vectors=2) key 'c16_f16_o7x7_k3x3_s1x1'
// WIDE: remark: blocked convolution microkernel 7x16 (rows=7, vectors=2) key 'c16_f16_o7x7_k3x3_s1x1'
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @balanced(%x: memref<1x2x9x9x8xf32>, %w: memref<2x2x3x3x8x8xf32>, %y: memref<1x2x7x7x8xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x8xf32>, memref<2x2x3x3x8x8xf32>) outs(%y : memref<1x2x7x7x8xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}
