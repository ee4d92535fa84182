// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32 parallel=false" | FileCheck %s --check-prefix=SERIAL
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32 print tuning-file=%S/Inputs/tuning.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TUNED

// A 3x3 blocked convolution (2 channel blocks in and out, 11 wide) with a
// fill init and a ReLU after it: one parallel chunk per OpenMP thread over
// (image, channel tile, row) items, 8 + 3 column tiles of 2 vectors whose
// accumulators start at the fill value, loop over channel blocks, filter
// rows, filter columns and the channels of a block (4 unrolled: 4 x 2
// filter loads, 4 x rows broadcasts, 4 x rows x 2 FMAs), then the ReLU on
// the registers and one store per accumulator. The fill, the
// convolution and the ReLU are gone.
// CHECK-LABEL: func.func @relu_chain
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3, 4]] : memref<1x2x7x13x16xf32> into memref<2912xf32>
// CHECK: call @omp_get_max_threads()
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c8{{(_[0-9]+)?}} step %c8{{(_[0-9]+)?}}
// CHECK: %[[ACC:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %c16{{(_[0-9]+)?}} step %c4{{(_[0-9]+)?}} iter_args
// CHECK-COUNT-2: vector.load %{{.*}} : memref<2x2x3x3x16x16xf32>, vector<16xf32>
// CHECK: memref.load %[[FLAT]]
// CHECK-COUNT-2: vector.fma
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK: vector.store %{{.*}} : memref<1x2x5x11x16xf32>, vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.fill
// SERIAL-LABEL: func.func @relu_chain
// SERIAL-NOT: scf.parallel
// SERIAL-NOT: omp_get_max_threads
// SERIAL: vector.fma
// PRINT: remark: blocked convolution microkernel 8x32 (rows=8, vectors=2, lines=2) key 'c32_f32_o5x11_k3x3_s1x1'; init linalg.fill, 1 epilogue op(s) fused
// TUNED: remark: blocked convolution microkernel 4x16 (rows=4, vectors=1, tuned) key 'c32_f32_o5x11_k3x3_s1x1'
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @relu_chain(%x: memref<1x2x7x13x16xf32>, %w: memref<2x2x3x3x16x16xf32>) -> memref<1x2x5x11x16xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x5x11x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x5x11x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x7x13x16xf32>, memref<2x2x3x3x16x16xf32>) outs(%y : memref<1x2x5x11x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  %r = memref.alloc() {alignment = 64 : i64} : memref<1x2x5x11x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x5x11x16xf32>) outs(%r : memref<1x2x5x11x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  }
  memref.dealloc %y : memref<1x2x5x11x16xf32>
  return %r : memref<1x2x5x11x16xf32>
}

// -----

// Strided and dilated, in another loop order (as dlas-vectorizable-loop-order
// leaves it), with a per-channel bias broadcast as init and 3 output
// blocks (one vector per tile): the input is read in place at
// (row * 2 + kh * 2, column * 2 + kw).
// CHECK-LABEL: func.func @strided_bias
// CHECK: vector.load %{{.*}} : memref<3x16xf32>, vector<16xf32>
// CHECK: arith.muli %{{.*}}, %c2{{(_[0-9]+)?}} : index
// CHECK: vector.fma
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: linalg.generic
// PRINT: remark: blocked convolution microkernel 4x16 (rows=4, vectors=1) key 'c16_f48_o3x4_k3x3_s2x2_d2x1'; init linalg.broadcast, 0 epilogue op(s) fused
#in = affine_map<(n, F, oh, ow, C, f, kh, kw, c) -> (n, C, oh * 2 + kh * 2, ow * 2 + kw, c)>
#w = affine_map<(n, F, oh, ow, C, f, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, C, f, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @strided_bias(%x: memref<1x1x11x11x16xf32>, %w: memref<3x1x3x3x16x16xf32>, %b: memref<3x16xf32>, %y: memref<1x3x3x4x16xf32>) {
  linalg.broadcast ins(%b : memref<3x16xf32>) outs(%y : memref<1x3x3x4x16xf32>) dimensions = [0, 2, 3]
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x11x11x16xf32>, memref<3x1x3x3x16x16xf32>) outs(%y : memref<1x3x3x4x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A tile from the per-op attribute wins over the heuristic.
// PRINT: remark: blocked convolution microkernel 2x32 (rows=2, vectors=2, overridden) key 'c16_f32_o2x6_k1x1_s1x1'; init loaded, 0 epilogue op(s) fused
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @attribute(%x: memref<1x1x2x6x16xf32>, %w: memref<2x1x1x1x16x16xf32>, %y: memref<1x2x2x6x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = {rows = 2, vectors = 2}} ins(%x, %w : memref<1x1x2x6x16xf32>, memref<2x1x1x1x16x16xf32>) outs(%y : memref<1x2x2x6x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A blocked depthwise convolution, stride 2: per tap one filter vector and
// a contiguous input vector per column (no broadcast), up to 14 columns.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[DFLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3, 4]] : memref<1x2x9x9x16xf32> into memref<2592xf32>
// CHECK: vector.load %{{.*}} : memref<2x3x3x16xf32>, vector<16xf32>
// CHECK: vector.load %[[DFLAT]][%{{.*}}] : memref<2592xf32>, vector<16xf32>
// CHECK: vector.fma
// CHECK-NOT: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.store
// CHECK-NOT: linalg.generic
// PRINT: remark: blocked depthwise microkernel 4x16 (rows=4, vectors=1) key 'dw_c32_o4x4_k3x3_s2x2'; init loaded, 0 epilogue op(s) fused
#in = affine_map<(n, C, oh, ow, c, kh, kw) -> (n, C, oh * 2 + kh, ow * 2 + kw, c)>
#w = affine_map<(n, C, oh, ow, c, kh, kw) -> (C, kh, kw, c)>
#out = affine_map<(n, C, oh, ow, c, kh, kw) -> (n, C, oh, ow, c)>
func.func @depthwise(%x: memref<1x2x9x9x16xf32>, %w: memref<2x3x3x16xf32>, %y: memref<1x2x4x4x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x3x3x16xf32>) outs(%y : memref<1x2x4x4x16xf32>) attrs = {dlas.blocked_depthwise} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}
