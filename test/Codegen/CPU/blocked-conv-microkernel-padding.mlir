// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32 parallel=false" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32 parallel=false print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32 parallel=false skip-padding-taps=false" | FileCheck %s --check-prefix=OFF

// Taps that read only a padded input's zero border are skipped. The input
// is a zero-filled 9x9 buffer whose interior [1, 8) x [1, 8) a copy fills
// (a bufferized tensor.pad): the filter-row loop runs over the rows the
// tile's output row reaches inside [1, 8) (affine.max/min of the row), and
// the one 7-wide tile of each row, its first column known (0), gets one
// body per filter column, the 16 channels of a block 4 at a time: kw = 0
// without column 0's FMAs (4 x 6 positions x 2 vectors), kw = 1 with all
// 7 columns' (4 x 14), kw = 2 without column 6's.
// CHECK-DAG: #[[BEGIN:.*]] = affine_map<(d0) -> (0, -d0 + 1)>
// CHECK-DAG: #[[END:.*]] = affine_map<(d0) -> (3, -d0 + 8)>
// The interior is one copy of the whole source, and no tile reads the
// border: the kernel reads the source in place, at (row - 1, column - 1),
// and the padded buffer, its fill and the copy are gone.
// CHECK-LABEL: func.func @padded_7x7
// CHECK-NOT: memref<1x2x9x9x16xf32>
// CHECK: memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3, 4]] : memref<1x2x7x7x16xf32> into memref<1568xf32>
// Each channel tile runs its second row first (a full window: the filter
// is read whole and in order), the border rows after it.
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %c1{{(_[0-9]+)?}} : index
// CHECK: %[[ROW:.*]] = arith.remui %[[NEXT]], %c7{{(_[0-9]+)?}} : index
// CHECK: %[[KB:.*]] = affine.max #[[BEGIN]](%[[ROW]])
// CHECK: %[[KE:.*]] = affine.min #[[END]](%[[ROW]])
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args
// CHECK: scf.for %{{.*}} = %[[KB]] to %[[KE]] step %c1{{(_[0-9]+)?}} iter_args
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c16{{(_[0-9]+)?}} step %c4{{(_[0-9]+)?}} iter_args
// CHECK-COUNT-48: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c16{{(_[0-9]+)?}} step %c4{{(_[0-9]+)?}} iter_args
// CHECK-COUNT-56: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c16{{(_[0-9]+)?}} step %c4{{(_[0-9]+)?}} iter_args
// CHECK-COUNT-48: vector.fma
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// CHECK-NOT: memref<1x2x9x9x16xf32>
// PRINT: remark: blocked convolution microkernel 7x32 (rows=7, vectors=2) key 'c32_f32_o7x7_k3x3_s1x1'; init linalg.fill, 0 epilogue op(s) fused; skips taps on the zero border (input rows [1, 8) and columns [1, 8) of 9x9 hold nonzeros)
// Without skipping: one filter-column loop, all taps.
// OFF-LABEL: func.func @padded_7x7
// OFF: linalg.copy
// OFF: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3, 4]] : memref<1x2x9x9x16xf32> into memref<2592xf32>
// OFF-NOT: affine.max
// OFF: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c3{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args
// OFF: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c3{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args
// OFF-COUNT-56: vector.fma
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @padded_7x7(%src: memref<1x2x7x7x16xf32>, %w: memref<2x2x3x3x16x16xf32>) -> memref<1x2x7x7x16xf32> {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x2x9x9x16xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<1x2x9x9x16xf32>)
  %inner = memref.subview %x[0, 0, 1, 1, 0] [1, 2, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x2x9x9x16xf32> to memref<1x2x7x7x16xf32, strided<[2592, 1296, 144, 16, 1], offset: 160>>
  linalg.copy ins(%src : memref<1x2x7x7x16xf32>) outs(%inner : memref<1x2x7x7x16xf32, strided<[2592, 1296, 144, 16, 1], offset: 160>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x7x7x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x7x7x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x2x3x3x16x16xf32>) outs(%y : memref<1x2x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %x : memref<1x2x9x9x16xf32>
  return %y : memref<1x2x7x7x16xf32>
}

// -----

// Stride 2, dilation 2 and a border of 2 rows on top, 2 below, 3 columns
// left, 1 right (the subview's box): input row oh * 2 + kh * 2 in [2, 9),
// so kh in [ceil((2 - 2 * oh) / 2), ceil((9 - 2 * oh) / 2)) within [0, 3).
// CHECK: affine_map<(d0) -> (0, (d0 * -2 + 2) ceildiv 2)>
// CHECK: affine_map<(d0) -> (3, (d0 * -2 + 9) ceildiv 2)>
// CHECK-LABEL: func.func @strided_dilated
// CHECK-NOT: linalg.copy
// CHECK: memref.collapse_shape %arg0
// CHECK: affine.max #{{.*}}(%{{.*}})
// CHECK: affine.min #{{.*}}(%{{.*}})
// PRINT: remark: blocked convolution microkernel 4x16 (rows=4, vectors=1) key 'c16_f16_o4x4_k3x3_s2x2_d2x2'; init linalg.fill, 0 epilogue op(s) fused; skips taps on the zero border (input rows [2, 9) and columns [3, 10) of 11x11 hold nonzeros)
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh * 2 + kh * 2, ow * 2 + kw * 2, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @strided_dilated(%src: memref<1x1x7x7x16xf32>, %w: memref<1x1x3x3x16x16xf32>, %y: memref<1x1x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x1x11x11x16xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<1x1x11x11x16xf32>)
  %inner = memref.subview %x[0, 0, 2, 3, 0] [1, 1, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x1x11x11x16xf32> to memref<1x1x7x7x16xf32, strided<[1936, 1936, 176, 16, 1], offset: 400>>
  linalg.copy ins(%src : memref<1x1x7x7x16xf32>) outs(%inner : memref<1x1x7x7x16xf32, strided<[1936, 1936, 176, 16, 1], offset: 400>>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x4x4x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x11x11x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x4x4x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %x : memref<1x1x11x11x16xf32>
  return
}

// -----

// What the kernel cannot show to be zero it computes: a border filled
// with 1.0, a zero fill after the convolution, an input written whole by
// an op other than the fill, and a function argument.
// CHECK-LABEL: func.func @not_zero
// CHECK-NOT: affine.max
// CHECK-LABEL: func.func @not_zero_last
// PRINT-NOT: skips taps
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @not_zero(%src: memref<1x1x7x7x16xf32>, %w: memref<1x1x3x3x16x16xf32>, %y: memref<1x1x7x7x16xf32>, %other: memref<1x1x9x9x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // A border of ones.
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x1x9x9x16xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<1x1x9x9x16xf32>)
  %inner = memref.subview %x[0, 0, 1, 1, 0] [1, 1, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x1x9x9x16xf32> to memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>
  linalg.copy ins(%src : memref<1x1x7x7x16xf32>) outs(%inner : memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x7x7x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  // Zero-filled, then written whole (not through a subview).
  %x2 = memref.alloc() {alignment = 64 : i64} : memref<1x1x9x9x16xf32>
  linalg.fill ins(%zero : f32) outs(%x2 : memref<1x1x9x9x16xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%other : memref<1x1x9x9x16xf32>) outs(%x2 : memref<1x1x9x9x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %inner2 = memref.subview %x2[0, 0, 1, 1, 0] [1, 1, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x1x9x9x16xf32> to memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>
  linalg.copy ins(%src : memref<1x1x7x7x16xf32>) outs(%inner2 : memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x2, %w : memref<1x1x9x9x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %x : memref<1x1x9x9x16xf32>
  memref.dealloc %x2 : memref<1x1x9x9x16xf32>
  return
}

func.func @not_zero_last(%src: memref<1x1x7x7x16xf32>, %w: memref<1x1x3x3x16x16xf32>, %y: memref<1x1x7x7x16xf32>, %arg: memref<1x1x9x9x16xf32>) {
  %zero = arith.constant 0.0 : f32
  // The zero fill comes after the convolution.
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x1x9x9x16xf32>
  %inner = memref.subview %x[0, 0, 1, 1, 0] [1, 1, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x1x9x9x16xf32> to memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>
  linalg.copy ins(%src : memref<1x1x7x7x16xf32>) outs(%inner : memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x7x7x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.fill ins(%zero : f32) outs(%x : memref<1x1x9x9x16xf32>)
  // A function argument: nothing is known of it.
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%arg, %w : memref<1x1x9x9x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %x : memref<1x1x9x9x16xf32>
  return
}

// -----

// Zero margins the kernel skips but cannot read around: with the column
// tails of 2 rows in one tile (3-wide tiles on 7-wide rows, lines = 2) a
// tile's rows share its filter-row bounds, so it reads the padded buffer;
// a source written after the copy keeps its copy (the buffer holds the
// values from before).
// CHECK-LABEL: func.func @kept_padded
// CHECK: linalg.copy
// CHECK: memref.collapse_shape %{{.*}} : memref<1x1x9x9x16xf32> into memref<1296xf32>
// CHECK: affine.max
// CHECK: linalg.copy
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg0
// CHECK: memref.collapse_shape %{{.*}} : memref<1x1x9x9x16xf32> into memref<1296xf32>
// CHECK: affine.max
// PRINT: remark: blocked convolution microkernel 3x16 (rows=3, vectors=1, lines=2, overridden){{.*}}; skips taps on the zero border (input rows [1, 8) and columns [1, 8) of 9x9 hold nonzeros)
// PRINT: remark: blocked convolution microkernel 7x16 (rows=7, vectors=1){{.*}}; skips taps on the zero border (input rows [1, 8) and columns [1, 8) of 9x9 hold nonzeros)
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @kept_padded(%src: memref<1x1x7x7x16xf32>, %w: memref<1x1x3x3x16x16xf32>, %y: memref<1x1x7x7x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() {alignment = 64 : i64} : memref<1x1x9x9x16xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<1x1x9x9x16xf32>)
  %inner = memref.subview %x[0, 0, 1, 1, 0] [1, 1, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x1x9x9x16xf32> to memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>
  linalg.copy ins(%src : memref<1x1x7x7x16xf32>) outs(%inner : memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x7x7x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x7x7x16xf32>) attrs = {dlas.blocked_conv, dlas.blocked_conv_tiles = {rows = 3, vectors = 1, lines = 2}} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  %x2 = memref.alloc() {alignment = 64 : i64} : memref<1x1x9x9x16xf32>
  linalg.fill ins(%zero : f32) outs(%x2 : memref<1x1x9x9x16xf32>)
  %inner2 = memref.subview %x2[0, 0, 1, 1, 0] [1, 1, 7, 7, 16] [1, 1, 1, 1, 1] : memref<1x1x9x9x16xf32> to memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>
  linalg.copy ins(%src : memref<1x1x7x7x16xf32>) outs(%inner2 : memref<1x1x7x7x16xf32, strided<[1296, 1296, 144, 16, 1], offset: 160>>)
  linalg.fill ins(%zero : f32) outs(%src : memref<1x1x7x7x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x2, %w : memref<1x1x9x9x16xf32>, memref<1x1x3x3x16x16xf32>) outs(%y : memref<1x1x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %x : memref<1x1x9x9x16xf32>
  memref.dealloc %x2 : memref<1x1x9x9x16xf32>
  return
}
