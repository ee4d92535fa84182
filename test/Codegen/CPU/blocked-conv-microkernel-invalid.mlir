// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="vector-width=16 vector-registers=32" --verify-diagnostics

#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @not_a_dictionary(%x: memref<1x1x2x6x16xf32>, %w: memref<2x1x1x1x16x16xf32>, %y: memref<1x2x2x6x16xf32>) {
  // expected-error @+1 {{'dlas.blocked_conv_tiles' must be a dictionary of integers}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = [4, 1]} ins(%x, %w : memref<1x1x2x6x16xf32>, memref<2x1x1x1x16x16xf32>) outs(%y : memref<1x2x2x6x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @unknown_key(%x: memref<1x1x2x6x16xf32>, %w: memref<2x1x1x1x16x16xf32>, %y: memref<1x2x2x6x16xf32>) {
  // expected-error @+1 {{'dlas.blocked_conv_tiles' has unknown key 'm0' (expected rows, vectors, lines)}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = {m0 = 4}} ins(%x, %w : memref<1x1x2x6x16xf32>, memref<2x1x1x1x16x16xf32>) outs(%y : memref<1x2x2x6x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @not_positive(%x: memref<1x1x2x6x16xf32>, %w: memref<2x1x1x1x16x16xf32>, %y: memref<1x2x2x6x16xf32>) {
  // expected-error @+1 {{'dlas.blocked_conv_tiles' entry 'rows' must be a positive integer}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = {rows = 0}} ins(%x, %w : memref<1x1x2x6x16xf32>, memref<2x1x1x1x16x16xf32>) outs(%y : memref<1x2x2x6x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @lines_not_positive(%x: memref<1x1x2x6x16xf32>, %w: memref<2x1x1x1x16x16xf32>, %y: memref<1x2x2x6x16xf32>) {
  // expected-error @+1 {{'dlas.blocked_conv_tiles' entry 'lines' must be a positive integer}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = {lines = 0}} ins(%x, %w : memref<1x1x2x6x16xf32>, memref<2x1x1x1x16x16xf32>) outs(%y : memref<1x2x2x6x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @vectors_not_dividing(%x: memref<1x1x2x6x16xf32>, %w: memref<3x1x1x1x16x16xf32>, %y: memref<1x3x2x6x16xf32>) {
  // expected-error @+1 {{'dlas.blocked_conv_tiles' vectors = 2 does not divide the 3 output-channel blocks}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"], dlas.blocked_conv_tiles = {vectors = 2}} ins(%x, %w : memref<1x1x2x6x16xf32>, memref<3x1x1x1x16x16xf32>) outs(%y : memref<1x3x2x6x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Blocks of 8 channels do not fit 16-lane vectors: the op is left alone,
// and being tagged as a blocked convolution, says why.
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @block_not_vector(%x: memref<1x1x2x6x8xf32>, %w: memref<2x1x1x1x8x8xf32>, %y: memref<1x2x2x6x8xf32>) {
  // expected-remark @+1 {{no blocked convolution microkernel: the channel blocks are not one vector wide}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x2x6x8xf32>, memref<2x1x1x1x8x8xf32>) outs(%y : memref<1x2x2x6x8xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A window that is not oh*sh + kh*dh (here oh - kh) is no blocked
// convolution.
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh - kh + 2, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
func.func @not_a_window(%x: memref<1x1x4x6x16xf32>, %w: memref<2x1x3x1x16x16xf32>, %y: memref<1x2x2x6x16xf32>) {
  // expected-remark @+1 {{no blocked convolution microkernel: input rows/columns are not oh*sh + kh*dh, ow*sw + kw*dw}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x4x6x16xf32>, memref<2x1x3x1x16x16xf32>) outs(%y : memref<1x2x2x6x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}
