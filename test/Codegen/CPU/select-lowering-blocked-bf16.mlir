// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-cpu-select-lowering | FileCheck %s

// bf16 blocked convolutions (vdpbf16ps) take 4x4 register tiles, except
// where 4 columns leave a tail on a padded input: the rows would then
// share tail tiles, which read the padded copy, so rows up to 28 wide
// take balanced 4-vector tiles of at most 5 columns, each one row's
// (lines = 1: 14 = 5 + 5 + 4, 7 = 4 + 3), and the kernel reads the
// unpadded source in place. A padded 58-wide map, which no 2-vector tile
// splits either, keeps its 4x4 tiles (Integration/blocked-layout.test,
// BF16-4X4).

#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 2 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
// CHECK-LABEL: func @padded_14_wide
// CHECK: #dlas.microkernel<kind = blocked_conv, rows = 5, vectors = 4, lanes = 16, input = bf16, acc = f32{{.*}}key = "bf16_c16_f64_o14x14_k3x3_s1x1"
func.func @padded_14_wide(%x: tensor<1x1x14x14x16xbf16>, %w: tensor<4x1x3x3x8x16x2xbf16>) -> tensor<1x4x14x14x16xf32> {
  %zero = arith.constant 0.0 : f32
  %pad = arith.constant 0.0 : bf16
  %padded = tensor.pad %x low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %pad : bf16
  } : tensor<1x1x14x14x16xbf16> to tensor<1x1x16x16x16xbf16>
  %empty = tensor.empty() : tensor<1x4x14x14x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x14x14x16xf32>) -> tensor<1x4x14x14x16xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x1x16x16x16xbf16>, tensor<4x1x3x3x8x16x2xbf16>) outs(%init : tensor<1x4x14x14x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %fe = arith.extf %f : bf16 to f32
    %m = arith.mulf %ie, %fe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x14x14x16xf32>
  return %y : tensor<1x4x14x14x16xf32>
}

// -----

// The same map without padding: nothing to copy, 4x4 tiles whose tails
// two rows share.
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 2 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
// CHECK-LABEL: func @unpadded_14_wide
// CHECK: #dlas.microkernel<kind = blocked_conv, rows = 4, vectors = 4, lines = 2, lanes = 16, input = bf16, acc = f32{{.*}}key = "bf16_c16_f64_o14x14_k3x3_s1x1"
func.func @unpadded_14_wide(%x: tensor<1x1x16x16x16xbf16>, %w: tensor<4x1x3x3x8x16x2xbf16>) -> tensor<1x4x14x14x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x4x14x14x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x14x14x16xf32>) -> tensor<1x4x14x14x16xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x1x16x16x16xbf16>, tensor<4x1x3x3x8x16x2xbf16>) outs(%init : tensor<1x4x14x14x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %fe = arith.extf %f : bf16 to f32
    %m = arith.mulf %ie, %fe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x14x14x16xf32>
  return %y : tensor<1x4x14x14x16xf32>
}

// -----

// Padded, but 4 columns split the 8-wide rows: 4x4 tiles, each one
// row's.
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 2 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
// CHECK-LABEL: func @padded_8_wide
// CHECK: #dlas.microkernel<kind = blocked_conv, rows = 4, vectors = 4, lanes = 16, input = bf16, acc = f32{{.*}}key = "bf16_c16_f64_o8x8_k3x3_s1x1"
func.func @padded_8_wide(%x: tensor<1x1x8x8x16xbf16>, %w: tensor<4x1x3x3x8x16x2xbf16>) -> tensor<1x4x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %pad = arith.constant 0.0 : bf16
  %padded = tensor.pad %x low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %pad : bf16
  } : tensor<1x1x8x8x16xbf16> to tensor<1x1x10x10x16xbf16>
  %empty = tensor.empty() : tensor<1x4x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x8x8x16xf32>) -> tensor<1x4x8x8x16xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x1x10x10x16xbf16>, tensor<4x1x3x3x8x16x2xbf16>) outs(%init : tensor<1x4x8x8x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %fe = arith.extf %f : bf16 to f32
    %m = arith.mulf %ie, %fe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8x16xf32>
  return %y : tensor<1x4x8x8x16xf32>
}

// -----

// Padded and 7 wide: 4 + 3 columns of 4 vectors, each tile one row's
// (no shared tails: no `lines`).
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 2 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
// CHECK-LABEL: func @padded_7_wide
// CHECK: #dlas.microkernel<kind = blocked_conv, rows = 4, vectors = 4, lanes = 16, input = bf16, acc = f32{{.*}}key = "bf16_c16_f64_o7x7_k3x3_s1x1"
func.func @padded_7_wide(%x: tensor<1x1x7x7x16xbf16>, %w: tensor<4x1x3x3x8x16x2xbf16>) -> tensor<1x4x7x7x16xf32> {
  %zero = arith.constant 0.0 : f32
  %pad = arith.constant 0.0 : bf16
  %padded = tensor.pad %x low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %pad : bf16
  } : tensor<1x1x7x7x16xbf16> to tensor<1x1x9x9x16xbf16>
  %empty = tensor.empty() : tensor<1x4x7x7x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x7x7x16xf32>) -> tensor<1x4x7x7x16xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x1x9x9x16xbf16>, tensor<4x1x3x3x8x16x2xbf16>) outs(%init : tensor<1x4x7x7x16xf32>) attrs = {dlas.blocked_conv} {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %fe = arith.extf %f : bf16 to f32
    %m = arith.mulf %ie, %fe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x7x7x16xf32>
  return %y : tensor<1x4x7x7x16xf32>
}
