// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-depthwise-microkernel="print=true" --verify-diagnostics

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @not_a_dictionary(%x: memref<1x2x6x6xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  // expected-error @+1 {{'dlas.depthwise_tiles' must be a dictionary of integers}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], dlas.depthwise_tiles = [4, 1]} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @unknown_key(%x: memref<1x2x6x6xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  // expected-error @+1 {{'dlas.depthwise_tiles' has unknown key 'cols' (expected rows, vectors)}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], dlas.depthwise_tiles = {cols = 2}} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @not_positive(%x: memref<1x2x6x6xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  // expected-error @+1 {{'dlas.depthwise_tiles' entry 'rows' must be a positive integer}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], dlas.depthwise_tiles = {rows = 0}} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A valid override is taken and reported.
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @override(%x: memref<1x2x6x6xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  // expected-remark @+1 {{depthwise microkernel 3x16 (rows=3, vectors=2, overridden) key 'conv_c2_o4x4_k3x3_s1x1' for C=2 4x4 3x3 stride 1x1; padding none, init loaded, 0 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], dlas.depthwise_tiles = {rows = 3, vectors = 2}} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// NHWC is not this kernel's layout: left alone, with the reason.
#in = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#w = affine_map<(n, oh, ow, c, kh, kw) -> (kh, kw, c)>
#out = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh, ow, c)>
func.func @nhwc(%x: memref<1x6x6x2xf32>, %w: memref<3x3x2xf32>, %y: memref<1x4x4x2xf32>) {
  // expected-remark @+1 {{no depthwise microkernel: filter is not indexed by the output channel (a channel multiplier or a grouped convolution)}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x6x6x2xf32>, memref<3x3x2xf32>) outs(%y : memref<1x4x4x2xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A convolution accumulating f16 in f16 is not a kernel format (f16 into
// f32 is; a max pool of f16 is).
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @f16(%x: memref<1x2x6x6xf16>, %w: memref<2x3x3xf16>, %y: memref<1x2x4x4xf16>) {
  // expected-remark @+1 {{no depthwise microkernel: element types not supported: f32 (or bf16, f16 into f32, i8 into i32) for a convolution, f32, bf16, f16 or i8 for a max pool, f32 for a sum}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x6x6xf16>, memref<2x3x3xf16>) outs(%y : memref<1x2x4x4xf16>) {
  ^bb0(%i: f16, %f: f16, %o: f16):
    %m = arith.mulf %i, %f : f16
    %a = arith.addf %o, %m : f16
    linalg.yield %a : f16
  }
  return
}
