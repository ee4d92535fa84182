// dlas-winograd-transforms: Winograd F(2x2,3x3)'s and F(4x4,3x3)'s marked
// input and output transforms (written by dlas-select-conv-algorithm) as
// one vector pass each, on buffers.
// RUN: dlas-opt %s --split-input-file --dlas-winograd-transforms --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-winograd-transforms="parallel=false" | FileCheck %s --check-prefix=SERIAL

// Input: 2 x 10 tiles per channel (x 6 x 22, bf16, widened as loaded): a
// block of 8 tiles, then one of 2. Each of the 4 input rows is two loads
// of 16 elements (columns 2j.. and 2j + 2..) split into even and odd
// lanes (vector.deinterleave) and B^T applied along it (4 additions); then
// B^T along the columns (4 additions per column, each result
// stored as computed: t = 0, 4, 8, 12, then 1, ...): 32 additions and 16 stores. The
// zero fill of V is dropped: the transform stores rather than adds.
// CHECK-LABEL: func.func @input
// CHECK: %[[V:.*]] = memref.alloc() : memref<16x1x2x2x10xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%[[C:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK:   scf.for %[[I:.*]] = %c0 to %c2 step %c1
// CHECK:     %[[ROW:.*]] = arith.muli %[[I]], %c2
// CHECK:     %[[A:.*]] = vector.load %arg0[%c0, %[[C]], %[[ROW]], %c0] : memref<1x2x6x22xbf16>, vector<16xbf16>
// CHECK:     %[[AW:.*]] = arith.extf %[[A]] : vector<16xbf16> to vector<16xf32>
// CHECK:     %[[EVEN:.*]], %[[ODD:.*]] = vector.deinterleave %[[AW]] : vector<16xf32> -> vector<8xf32>
// CHECK:     vector.load %arg0[%c0, %[[C]], %[[ROW]], %c2] : memref<1x2x6x22xbf16>, vector<16xbf16>
// CHECK-COUNT-17: arith.{{(add|sub)}}f {{.*}} : vector<8xf32>
// CHECK-NOT: vector.fma
// CHECK:     vector.store %{{.*}}, %[[V]][%c0, %c0, %[[C]], %[[I]], %c0] : memref<16x1x2x2x10xf32>, vector<8xf32>
// CHECK:     vector.store %{{.*}}, %[[V]][%c4, %c0, %[[C]], %[[I]], %c0] : memref<16x1x2x2x10xf32>, vector<8xf32>
// CHECK-COUNT-13: vector.store
// CHECK:     vector.store %{{.*}}, %[[V]][%c15, %c0, %[[C]], %[[I]], %c0] : memref<16x1x2x2x10xf32>, vector<8xf32>
// The last 2 tiles: loads of 4 elements from column 16 and 18.
// CHECK:     vector.load %arg0[%c0, %[[C]], %[[ROW]], %c16] : memref<1x2x6x22xbf16>, vector<4xbf16>
// CHECK:     vector.load %arg0[%c0, %[[C]], %[[ROW]], %c18] : memref<1x2x6x22xbf16>, vector<4xbf16>
// CHECK:     vector.store %{{.*}}, %[[V]][%c15, %c0, %[[C]], %[[I]], %c8] : memref<16x1x2x2x10xf32>, vector<2xf32>
// CHECK-NOT: linalg.generic
// SERIAL-LABEL: func.func @input
// SERIAL-NOT: scf.parallel
// SERIAL: scf.for
#in_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3 * 2 + d5, d4 * 2 + d6)>
#in_t = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d6)>
#in_v = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
#out_m = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d0, d1, d2, d4)>
#out_a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6)>
#out_y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func @input(%x: memref<1x2x6x22xbf16>, %t: memref<16x4x4xf32>) -> memref<16x1x2x2x10xf32> {
  %zero = arith.constant 0.0 : f32
  %v = memref.alloc() : memref<16x1x2x2x10xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<16x1x2x2x10xf32>)
  linalg.generic {indexing_maps = [#in_x, #in_t, #in_v], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %t : memref<1x2x6x22xbf16>, memref<16x4x4xf32>) outs(%v : memref<16x1x2x2x10xf32>) attrs = {dlas.winograd_input} {
  ^bb0(%a: bf16, %b: f32, %c: f32):
    %e = arith.extf %a : bf16 to f32
    %m = arith.mulf %e, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return %v : memref<16x1x2x2x10xf32>
}

// -----

#out_m = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d0, d1, d2, d4)>
#out_a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6)>
#out_y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Output: the init is a bias broadcast (folded: the transform adds bias[f]
// instead of loading) and a ReLU reads the result (fused: applied before
// the store, into the ReLU's output; the result buffer is never written).
// The bias is loaded once per channel. Per block: 16 loads of M, A^T M A,
// each output row's two columns interleaved into 16 values.
// CHECK-LABEL: func.func @output
// CHECK-NOT: linalg.broadcast
// CHECK: %[[R:.*]] = memref.alloc() : memref<1x2x4x20xf32>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[R]] {{\[\[}}0], [1], [2, 3], [4]] output_shape [1, 2, 2, 2, 20]
// CHECK: scf.parallel (%[[F:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK:   %[[B:.*]] = memref.load %arg2[%[[F]]] : memref<2xf32>
// CHECK:   scf.for %[[I:.*]] = %c0 to %c2 step %c1
// CHECK-COUNT-16: vector.load %arg0{{.*}} : memref<16x1x2x2x10xf32>, vector<8xf32>
// CHECK:     %[[Y0:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<8xf32> -> vector<16xf32>
// CHECK:     %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<16xf32>
// CHECK:     %[[S:.*]] = arith.addf %[[Y0]], %[[BV]]
// CHECK:     %[[RELU:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<16xf32>
// CHECK:     vector.store %[[RELU]], %[[ROWS]][%c0, %[[F]], %[[I]], %c0, %c0] : memref<1x2x2x2x20xf32>, vector<16xf32>
// CHECK:     vector.store %{{.*}}, %[[ROWS]][%c0, %[[F]], %[[I]], %c1, %c0] : memref<1x2x2x2x20xf32>, vector<16xf32>
// CHECK:     vector.store %{{.*}}, %[[ROWS]][%c0, %[[F]], %[[I]], %c0, %c16] : memref<1x2x2x2x20xf32>, vector<4xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @output(%m: memref<16x1x2x2x10xf32>, %a: memref<2x2x16xf32>, %bias: memref<2xf32>) -> memref<1x2x4x20xf32> {
  %y = memref.alloc() : memref<1x2x4x20xf32>
  linalg.broadcast ins(%bias : memref<2xf32>) outs(%y : memref<1x2x4x20xf32>) dimensions = [0, 2, 3]
  %y6 = memref.expand_shape %y [[0], [1], [2, 3], [4, 5]] output_shape [1, 2, 2, 2, 10, 2] : memref<1x2x4x20xf32> into memref<1x2x2x2x10x2xf32>
  linalg.generic {indexing_maps = [#out_m, #out_a, #out_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%m, %a : memref<16x1x2x2x10xf32>, memref<2x2x16xf32>) outs(%y6 : memref<1x2x2x2x10x2xf32>) attrs = {dlas.winograd_output} {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %mul = arith.mulf %p, %q : f32
    %s = arith.addf %c, %mul : f32
    linalg.yield %s : f32
  }
  %r = memref.alloc() : memref<1x2x4x20xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x2x4x20xf32>) outs(%r : memref<1x2x4x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %mx = arith.maximumf %in, %z : f32
    linalg.yield %mx : f32
  }
  return %r : memref<1x2x4x20xf32>
}

// -----

#out_m = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d0, d1, d2, d4)>
#out_a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6)>
#out_y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>

// Into a buffer it does not own (an argument): loaded and added into, in
// blocks of 2 and 1 tiles (3 per row).
// CHECK-LABEL: func.func @output_into_argument
// CHECK: %[[ROWS:.*]] = memref.collapse_shape %arg2 {{\[\[}}0], [1], [2], [3], [4, 5]] : memref<1x2x2x2x3x2xf32> into memref<1x2x2x2x6xf32>
// CHECK: %[[Y:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<2xf32> -> vector<4xf32>
// CHECK: %[[OLD:.*]] = vector.load %[[ROWS]][%c0, %{{.*}}, %{{.*}}, %c0, %c0] : memref<1x2x2x2x6xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[Y]], %[[OLD]]
// CHECK: vector.store %[[SUM]], %[[ROWS]][%c0, %{{.*}}, %{{.*}}, %c0, %c0]
// CHECK: vector.interleave %{{.*}}, %{{.*}} : vector<1xf32> -> vector<2xf32>
// CHECK: vector.store %{{.*}}, %[[ROWS]][%c0, %{{.*}}, %{{.*}}, %c1, %c4] : memref<1x2x2x2x6xf32>, vector<2xf32>
func.func @output_into_argument(%m: memref<16x1x2x2x3xf32>, %a: memref<2x2x16xf32>, %y6: memref<1x2x2x2x3x2xf32>) {
  linalg.generic {indexing_maps = [#out_m, #out_a, #out_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%m, %a : memref<16x1x2x2x3xf32>, memref<2x2x16xf32>) outs(%y6 : memref<1x2x2x2x3x2xf32>) attrs = {dlas.winograd_output} {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %mul = arith.mulf %p, %q : f32
    %s = arith.addf %c, %mul : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3 * 2 + d5, d4 * 2 + d6)>
#in_t = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d6)>
#in_v = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>

// Refused: an input 24 wide for 10 tiles (not 2 x 10 + 2): the generic
// stays (a correct loop nest).
// CHECK-LABEL: func.func @mismatched
// CHECK: linalg.generic {{.*}} attrs = {dlas.winograd_input}
func.func @mismatched(%x: memref<1x2x6x24xf32>, %t: memref<16x4x4xf32>, %v: memref<16x1x2x2x10xf32>) {
  linalg.generic {indexing_maps = [#in_x, #in_t, #in_v], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %t : memref<1x2x6x24xf32>, memref<16x4x4xf32>) outs(%v : memref<16x1x2x2x10xf32>) attrs = {dlas.winograd_input} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3 * 4 + d5, d4 * 4 + d6)>
#in_t = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d6)>
#in_v = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>

// F(4x4,3x3) input (V's 36 positions): 2 x 6 tiles per channel of
// x 10 x 26 (4 x 6 + 2): a block of 4 tiles, then one of 2. Each of the 6
// rows: a load of 16 elements at column 4j (phases 0-3: d0-d3) and one at
// 4j + 2 (phases 2-3: d4, d5), each split by three deinterleaves; B^T's
// 4 and 5 as FMAs with splats; 36 stores, the last at t = 35.
// CHECK-LABEL: func.func @input_f4
// CHECK: %[[V:.*]] = memref.alloc() : memref<36x1x2x2x6xf32>
// CHECK: scf.parallel (%[[C:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK:   scf.for %[[I:.*]] = %c0 to %c2 step %c1
// CHECK:     %[[ROW:.*]] = arith.muli %[[I]], %c4
// CHECK:     %[[A:.*]] = vector.load %arg0[%c0, %[[C]], %[[ROW]], %c0] : memref<1x2x10x26xf32>, vector<16xf32>
// CHECK:     %[[E:.*]], %[[O:.*]] = vector.deinterleave %[[A]] : vector<16xf32> -> vector<8xf32>
// CHECK:     vector.deinterleave %[[E]] : vector<8xf32> -> vector<4xf32>
// CHECK:     vector.deinterleave %[[O]] : vector<8xf32> -> vector<4xf32>
// CHECK:     vector.load %arg0[%c0, %[[C]], %[[ROW]], %c2] : memref<1x2x10x26xf32>, vector<16xf32>
// CHECK:     vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:     vector.store %{{.*}}, %[[V]][%c0, %c0, %[[C]], %[[I]], %c0] : memref<36x1x2x2x6xf32>, vector<4xf32>
// CHECK-COUNT-34: vector.store {{.*}} : memref<36x1x2x2x6xf32>, vector<4xf32>
// CHECK:     vector.store %{{.*}}, %[[V]][%c35, %c0, %[[C]], %[[I]], %c0] : memref<36x1x2x2x6xf32>, vector<4xf32>
// The last 2 tiles: loads of 8 elements from column 16 and 18.
// CHECK:     vector.load %arg0[%c0, %[[C]], %[[ROW]], %c16] : memref<1x2x10x26xf32>, vector<8xf32>
// CHECK:     vector.load %arg0[%c0, %[[C]], %[[ROW]], %c18] : memref<1x2x10x26xf32>, vector<8xf32>
// CHECK:     vector.store %{{.*}}, %[[V]][%c35, %c0, %[[C]], %[[I]], %c4] : memref<36x1x2x2x6xf32>, vector<2xf32>
// CHECK-NOT: linalg.generic
func.func @input_f4(%x: memref<1x2x10x26xf32>, %t: memref<36x6x6xf32>) -> memref<36x1x2x2x6xf32> {
  %zero = arith.constant 0.0 : f32
  %v = memref.alloc() : memref<36x1x2x2x6xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<36x1x2x2x6xf32>)
  linalg.generic {indexing_maps = [#in_x, #in_t, #in_v], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %t : memref<1x2x10x26xf32>, memref<36x6x6xf32>) outs(%v : memref<36x1x2x2x6xf32>) attrs = {dlas.winograd_input} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return %v : memref<36x1x2x2x6xf32>
}

// -----

#out_m = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d0, d1, d2, d4)>
#out_a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6)>
#out_y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// F(4x4,3x3) output: 36 products loaded per block, A^T (its 2, 4 and 8 as
// FMAs), each output row's 4 columns interleaved by a tree of three
// vector.interleave (lane 4t + q = column q of tile t), the bias added and
// the ReLU applied before the store into the ReLU's output.
// CHECK-LABEL: func.func @output_f4
// CHECK-NOT: linalg.broadcast
// CHECK: %[[R:.*]] = memref.alloc() : memref<1x2x8x24xf32>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[R]] {{\[\[}}0], [1], [2, 3], [4]] output_shape [1, 2, 2, 4, 24]
// CHECK: scf.parallel (%[[F:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK:   %[[B:.*]] = memref.load %arg2[%[[F]]] : memref<2xf32>
// CHECK:   scf.for %[[I:.*]] = %c0 to %c2 step %c1
// CHECK-COUNT-36: vector.load %arg0{{.*}} : memref<36x1x2x2x6xf32>, vector<4xf32>
// CHECK:     vector.fma
// CHECK:     %[[E:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// CHECK:     %[[O:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// CHECK:     %[[Y0:.*]] = vector.interleave %[[E]], %[[O]] : vector<8xf32> -> vector<16xf32>
// CHECK:     %[[S:.*]] = arith.addf %[[Y0]], %{{.*}} : vector<16xf32>
// CHECK:     %[[RELU:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<16xf32>
// CHECK:     vector.store %[[RELU]], %[[ROWS]][%c0, %[[F]], %[[I]], %c0, %c0] : memref<1x2x2x4x24xf32>, vector<16xf32>
// CHECK:     vector.store %{{.*}}, %[[ROWS]][%c0, %[[F]], %[[I]], %c1, %c0] : memref<1x2x2x4x24xf32>, vector<16xf32>
// CHECK:     vector.store %{{.*}}, %[[ROWS]][%c0, %[[F]], %[[I]], %c2, %c0] : memref<1x2x2x4x24xf32>, vector<16xf32>
// CHECK:     vector.store %{{.*}}, %[[ROWS]][%c0, %[[F]], %[[I]], %c3, %c0] : memref<1x2x2x4x24xf32>, vector<16xf32>
// CHECK:     vector.store %{{.*}}, %[[ROWS]][%c0, %[[F]], %[[I]], %c3, %c16] : memref<1x2x2x4x24xf32>, vector<8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @output_f4(%m: memref<36x1x2x2x6xf32>, %a: memref<4x4x36xf32>, %bias: memref<2xf32>) -> memref<1x2x8x24xf32> {
  %y = memref.alloc() : memref<1x2x8x24xf32>
  linalg.broadcast ins(%bias : memref<2xf32>) outs(%y : memref<1x2x8x24xf32>) dimensions = [0, 2, 3]
  %y6 = memref.expand_shape %y [[0], [1], [2, 3], [4, 5]] output_shape [1, 2, 2, 4, 6, 4] : memref<1x2x8x24xf32> into memref<1x2x2x4x6x4xf32>
  linalg.generic {indexing_maps = [#out_m, #out_a, #out_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%m, %a : memref<36x1x2x2x6xf32>, memref<4x4x36xf32>) outs(%y6 : memref<1x2x2x4x6x4xf32>) attrs = {dlas.winograd_output} {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %mul = arith.mulf %p, %q : f32
    %s = arith.addf %c, %mul : f32
    linalg.yield %s : f32
  }
  %r = memref.alloc() : memref<1x2x8x24xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x2x8x24xf32>) outs(%r : memref<1x2x8x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %mx = arith.maximumf %in, %z : f32
    linalg.yield %mx : f32
  }
  return %r : memref<1x2x8x24xf32>
}

// -----

#in_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3 * 4 + d5, d4 * 4 + d6)>
#in_t = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d6)>
#in_v = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>

// Refused: 25 transform positions (neither F(2x2)'s 16 nor F(4x4)'s 36).
// CHECK-LABEL: func.func @unknown_tile
// CHECK: linalg.generic {{.*}} attrs = {dlas.winograd_input}
func.func @unknown_tile(%x: memref<1x2x10x26xf32>, %t: memref<25x5x5xf32>, %v: memref<25x1x2x2x6xf32>) {
  linalg.generic {indexing_maps = [#in_x, #in_t, #in_v], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %t : memref<1x2x10x26xf32>, memref<25x5x5xf32>) outs(%v : memref<25x1x2x2x6xf32>) attrs = {dlas.winograd_input} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}
