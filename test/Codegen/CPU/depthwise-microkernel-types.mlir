// RUN: dlas-opt %s --split-input-file --dlas-depthwise-microkernel="vector-width=8 vector-registers=16 rows=4 print" --canonicalize -verify-diagnostics | FileCheck %s

// The stencils on narrow types (a depthwise convolution on i8 into i32
// sums and on bf16 into f32, an i8 max pool) and epilogues that write
// another buffer of another type (int8's dequantize into f32, its
// requantize into i8), which the kernel applies in registers before its
// one store.

// An int8 depthwise layer as the int8 policy leaves it after
// bufferization: the input padded with its zero point (-128), i32 sums
// from a zero fill, then dequantize (per-channel scale and zero point) into
// f32, relu6 in place and quantize into i8 for the next layer.
// CHECK-LABEL: func.func @int8_layer
// CHECK-SAME: (%[[X:.*]]: memref<1x4x16x16xi8>,
// The padded copy, the fill and both intermediate buffers are gone: the
// kernel stores i8 only.
// CHECK-NOT: memref<1x4x18x18xi8>
// CHECK: %[[Q:.*]] = memref.alloc() {{.*}} : memref<1x4x16x16xi8>
// CHECK: scf.parallel
// The taps and the pad value widen to f32 once per channel.
// CHECK-COUNT-9: arith.sitofp {{.*}} : i8 to f32
// The left border: a plain load of the row's first 8 bytes, shifted right
// by one lane with the zero point shuffled in (no masked byte load).
// CHECK-NOT: vector.maskedload
// CHECK: %[[ROW:.*]] = vector.load %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c0] : memref<1x4x16x16xi8>, vector<8xi8>
// CHECK: vector.shuffle %[[ROW]], %{{.*}} [8, 0, 1, 2, 3, 4, 5, 6] : vector<8xi8>, vector<8xi8>
// i8 x i8 sums are exact in f32: FMAs on widened vectors.
// CHECK: arith.sitofp {{.*}} : vector<8xi8> to vector<8xf32>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT: arith.muli
// The sums back to i32, then the epilogues' bodies on vectors.
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.subi {{.*}} : vector<8xi32>
// CHECK: arith.sitofp {{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.minimumf
// CHECK: arith.divf
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi8>
// CHECK: vector.store {{.*}}, %[[Q]][{{.*}}] : memref<1x4x16x16xi8>, vector<8xi8>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Q]]

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @int8_layer(%x: memref<1x4x16x16xi8>, %w: memref<4x3x3xi8>, %scale: memref<4xf32>, %zp: memref<4xi32>) -> memref<1x4x16x16xi8> {
  %c0_i32 = arith.constant 0 : i32
  %zero_point = arith.constant -128 : i8
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %s = arith.constant 0.05 : f32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x4x18x18xi8>
  linalg.fill ins(%zero_point : i8) outs(%pad : memref<1x4x18x18xi8>)
  %view = memref.subview %pad[0, 0, 1, 1] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x18x18xi8> to memref<1x4x16x16xi8, strided<[1296, 324, 18, 1], offset: 19>>
  linalg.copy ins(%x : memref<1x4x16x16xi8>) outs(%view : memref<1x4x16x16xi8, strided<[1296, 324, 18, 1], offset: 19>>)
  %acc = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x16xi32>
  linalg.fill ins(%c0_i32 : i32) outs(%acc : memref<1x4x16x16xi32>)
  // expected-remark @+1 {{depthwise microkernel 4x8 (rows=4, vectors=1, overridden) key 'conv_c4_o16x16_k3x3_s1x1' for C=4 16x16 3x3 stride 1x1; padding folded, init linalg.fill, 3 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %w : memref<1x4x18x18xi8>, memref<4x3x3xi8>) outs(%acc : memref<1x4x16x16xi32>) {
  ^bb0(%i: i8, %f: i8, %o: i32):
    %0 = arith.extsi %i : i8 to i32
    %1 = arith.extsi %f : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %o, %2 : i32
    linalg.yield %3 : i32
  }
  memref.dealloc %pad : memref<1x4x18x18xi8>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x16xf32>
  linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %scale, %zp : memref<1x4x16x16xi32>, memref<4xf32>, memref<4xi32>) outs(%y : memref<1x4x16x16xf32>) {
  ^bb0(%a: i32, %sc: f32, %z: i32, %o: f32):
    %0 = arith.subi %a, %z : i32
    %1 = arith.sitofp %0 : i32 to f32
    %2 = arith.mulf %1, %sc : f32
    linalg.yield %2 : f32
  }
  memref.dealloc %acc : memref<1x4x16x16xi32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x16x16xf32>) outs(%y : memref<1x4x16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %0 = arith.maximumf %i, %zero : f32
    %1 = arith.minimumf %0, %six : f32
    linalg.yield %1 : f32
  }
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x16xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x16x16xf32>) outs(%q : memref<1x4x16x16xi8>) {
  ^bb0(%i: f32, %o: i8):
    %0 = arith.divf %i, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %lo : f32
    %3 = arith.maxnumf %2, %lo : f32
    %4 = arith.minnumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  memref.dealloc %y : memref<1x4x16x16xf32>
  return %q : memref<1x4x16x16xi8>
}

// -----

// The sums start from a loaded i32 output (no fill): they are not known
// to stay within f32's exact integers, so the kernel multiplies in i32.
// CHECK-LABEL: func.func @int8_loaded_init
// CHECK: arith.extsi {{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.muli {{.*}} : vector<8xi32>
// CHECK: arith.addi {{.*}} : vector<8xi32>
// CHECK-NOT: vector.fma
// CHECK: vector.store {{.*}} : memref<1x2x8x8xi32>, vector<8xi32>
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @int8_loaded_init(%x: memref<1x2x10x10xi8>, %w: memref<2x3x3xi8>, %y: memref<1x2x8x8xi32>) {
  // expected-remark @+1 {{init loaded, 0 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x10x10xi8>, memref<2x3x3xi8>) outs(%y : memref<1x2x8x8xi32>) {
  ^bb0(%i: i8, %f: i8, %o: i32):
    %0 = arith.extsi %i : i8 to i32
    %1 = arith.extsi %f : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %o, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// An i8 max pool 3x3 stride 2 padded with -128 (the identity of a signed
// max): rows wholly in the padding are skipped, the maxima are maxsi.
// CHECK-LABEL: func.func @int8_max_pool
// CHECK: scf.parallel
// CHECK: arith.maxsi {{.*}} : vector<8xi8>
// CHECK-NOT: arith.maximumf
// CHECK: vector.store {{.*}} : memref<1x2x8x8xi8>, vector<8xi8>
// CHECK-NOT: linalg.generic
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#win = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @int8_max_pool(%x: memref<1x2x16x16xi8>, %window: memref<3x3xi8>) -> memref<1x2x8x8xi8> {
  %least = arith.constant -128 : i8
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x2x18x18xi8>
  linalg.fill ins(%least : i8) outs(%pad : memref<1x2x18x18xi8>)
  %view = memref.subview %pad[0, 0, 1, 1] [1, 2, 16, 16] [1, 1, 1, 1] : memref<1x2x18x18xi8> to memref<1x2x16x16xi8, strided<[648, 324, 18, 1], offset: 19>>
  linalg.copy ins(%x : memref<1x2x16x16xi8>) outs(%view : memref<1x2x16x16xi8, strided<[648, 324, 18, 1], offset: 19>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xi8>
  linalg.fill ins(%least : i8) outs(%y : memref<1x2x8x8xi8>)
  // expected-remark @+1 {{max-pool microkernel}}
  linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %window : memref<1x2x18x18xi8>, memref<3x3xi8>) outs(%y : memref<1x2x8x8xi8>) {
  ^bb0(%i: i8, %unused: i8, %o: i8):
    %0 = arith.maxsi %o, %i : i8
    linalg.yield %0 : i8
  }
  memref.dealloc %pad : memref<1x2x18x18xi8>
  return %y : memref<1x2x8x8xi8>
}

// -----

// bf16 and f16 max pools (3x3 stride 1, padded with -inf, the ReLU after
// them folded): the rows widen into f32 on load, the maxima are f32, and
// each result narrows once (exactly: it is one of the inputs) before the
// epilogue, which computes in the pool's type as its body does.
// CHECK-LABEL: func.func @bf16_max_pool
// CHECK: scf.parallel
// CHECK: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: arith.maximumf {{.*}} : vector<8xbf16>
// CHECK: vector.store {{.*}} : memref<1x2x8x8xbf16>, vector<8xbf16>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @f16_max_pool
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>
// CHECK-NOT: linalg.generic
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#win = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @bf16_max_pool(%x: memref<1x2x8x8xbf16>, %window: memref<3x3xbf16>) -> memref<1x2x8x8xbf16> {
  %least = arith.constant 0xFF80 : bf16
  %zero = arith.constant 0.0 : bf16
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x2x10x10xbf16>
  linalg.fill ins(%least : bf16) outs(%pad : memref<1x2x10x10xbf16>)
  %view = memref.subview %pad[0, 0, 1, 1] [1, 2, 8, 8] [1, 1, 1, 1] : memref<1x2x10x10xbf16> to memref<1x2x8x8xbf16, strided<[200, 100, 10, 1], offset: 11>>
  linalg.copy ins(%x : memref<1x2x8x8xbf16>) outs(%view : memref<1x2x8x8xbf16, strided<[200, 100, 10, 1], offset: 11>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xbf16>
  linalg.fill ins(%least : bf16) outs(%y : memref<1x2x8x8xbf16>)
  // expected-remark @+1 {{max-pool microkernel}}
  linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %window : memref<1x2x10x10xbf16>, memref<3x3xbf16>) outs(%y : memref<1x2x8x8xbf16>) {
  ^bb0(%i: bf16, %unused: bf16, %o: bf16):
    %0 = arith.maximumf %o, %i : bf16
    linalg.yield %0 : bf16
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x8x8xbf16>) outs(%y : memref<1x2x8x8xbf16>) {
  ^bb0(%i: bf16, %o: bf16):
    %0 = arith.maximumf %i, %zero : bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %pad : memref<1x2x10x10xbf16>
  return %y : memref<1x2x8x8xbf16>
}
func.func @f16_max_pool(%x: memref<1x2x10x10xf16>, %window: memref<3x3xf16>) -> memref<1x2x8x8xf16> {
  %least = arith.constant 0xFC00 : f16
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xf16>
  linalg.fill ins(%least : f16) outs(%y : memref<1x2x8x8xf16>)
  // expected-remark @+1 {{max-pool microkernel}}
  linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %window : memref<1x2x10x10xf16>, memref<3x3xf16>) outs(%y : memref<1x2x8x8xf16>) {
  ^bb0(%i: f16, %unused: f16, %o: f16):
    %0 = arith.maximumf %o, %i : f16
    linalg.yield %0 : f16
  }
  return %y : memref<1x2x8x8xf16>
}

// -----

// An f32 depthwise convolution before an int8 layer: its relu6 and the
// quantize of the next layer's input fold (the quantize writes another
// buffer, of i8); before, the kernel folded the relu6 alone and the
// quantize ran as a loop of its own over the f32 output.
// CHECK-LABEL: func.func @f32_then_quantize
// CHECK: %[[Q:.*]] = memref.alloc() {{.*}} : memref<1x2x8x8xi8>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi8>
// CHECK: vector.store {{.*}}, %[[Q]]
// CHECK-NOT: linalg.generic
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @f32_then_quantize(%x: memref<1x2x10x10xf32>, %w: memref<2x3x3xf32>) -> memref<1x2x8x8xi8> {
  %zero = arith.constant 0.0 : f32
  %s = arith.constant 0.05 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x8x8xf32>)
  // expected-remark @+1 {{init linalg.fill, 2 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x10x10xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x8x8xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x8x8xf32>) outs(%y : memref<1x2x8x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %0 = arith.maximumf %i, %zero : f32
    linalg.yield %0 : f32
  }
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x8x8xf32>) outs(%q : memref<1x2x8x8xi8>) {
  ^bb0(%i: f32, %o: i8):
    %0 = arith.divf %i, %s : f32
    %1 = arith.fptosi %0 : f32 to i8
    linalg.yield %1 : i8
  }
  memref.dealloc %y : memref<1x2x8x8xf32>
  return %q : memref<1x2x8x8xi8>
}

// -----

// The f32 output is read again after the quantize (returned): the kernel
// must store it, so the out-of-place quantize does not fold; the in-place
// relu does.
// CHECK-LABEL: func.func @output_still_read
// CHECK: vector.store {{.*}} : memref<1x2x8x8xf32>, vector<8xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<1x2x8x8xi8>)
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @output_still_read(%x: memref<1x2x10x10xf32>, %w: memref<2x3x3xf32>) -> (memref<1x2x8x8xf32>, memref<1x2x8x8xi8>) {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x8x8xf32>)
  // expected-remark @+1 {{init linalg.fill, 1 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x10x10xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x8x8xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x8x8xf32>) outs(%y : memref<1x2x8x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %0 = arith.maximumf %i, %zero : f32
    linalg.yield %0 : f32
  }
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x8x8xf32>) outs(%q : memref<1x2x8x8xi8>) {
  ^bb0(%i: f32, %o: i8):
    %0 = arith.fptosi %i : f32 to i8
    linalg.yield %0 : i8
  }
  return %y, %q : memref<1x2x8x8xf32>, memref<1x2x8x8xi8>
}

// -----

// bf16 operands widen into f32 sums (the mixed-precision policy's bf16
// depthwise layers): taps and rows by arith.extf, the left border by a
// plain load shuffled with the zero padding (no masked 16-bit loads).
// CHECK-LABEL: func.func @bf16_into_f32
// CHECK-COUNT-9: arith.extf {{.*}} : bf16 to f32
// CHECK: vector.load {{.*}} : memref<1x2x8x8xbf16>, vector<8xbf16>
// CHECK: vector.shuffle {{.*}} [8, 0, 1, 2, 3, 4, 5, 6] : vector<8xbf16>, vector<8xbf16>
// CHECK: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: vector.store {{.*}} : memref<1x2x8x8xf32>, vector<8xf32>
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @bf16_into_f32(%x: memref<1x2x8x8xbf16>, %w: memref<2x3x3xbf16>) -> memref<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x2x10x10xbf16>
  linalg.fill ins(%zero_bf16 : bf16) outs(%pad : memref<1x2x10x10xbf16>)
  %view = memref.subview %pad[0, 0, 1, 1] [1, 2, 8, 8] [1, 1, 1, 1] : memref<1x2x10x10xbf16> to memref<1x2x8x8xbf16, strided<[200, 100, 10, 1], offset: 11>>
  linalg.copy ins(%x : memref<1x2x8x8xbf16>) outs(%view : memref<1x2x8x8xbf16, strided<[200, 100, 10, 1], offset: 11>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x8x8xf32>)
  // expected-remark @+1 {{padding folded, init linalg.fill, 0 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %w : memref<1x2x10x10xbf16>, memref<2x3x3xbf16>) outs(%y : memref<1x2x8x8xf32>) {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %0 = arith.extf %i : bf16 to f32
    %1 = arith.extf %f : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %pad : memref<1x2x10x10xbf16>
  return %y : memref<1x2x8x8xf32>
}

// -----

// The i32 sums start from a per-channel broadcast (no bound known at
// compile time): i32 multiplies, the start loaded per channel.
// CHECK-LABEL: func.func @int8_broadcast_init
// CHECK: memref.load %{{.*}} : memref<2xi32>
// CHECK: arith.muli {{.*}} : vector<8xi32>
// CHECK-NOT: vector.fma
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @int8_broadcast_init(%x: memref<1x2x10x10xi8>, %w: memref<2x3x3xi8>, %start: memref<2xi32>) -> memref<1x2x8x8xi32> {
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xi32>
  linalg.broadcast ins(%start : memref<2xi32>) outs(%y : memref<1x2x8x8xi32>) dimensions = [0, 2, 3]
  // expected-remark @+1 {{init linalg.broadcast, 0 epilogue op(s) fused}}
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x10x10xi8>, memref<2x3x3xi8>) outs(%y : memref<1x2x8x8xi32>) {
  ^bb0(%i: i8, %f: i8, %o: i32):
    %0 = arith.extsi %i : i8 to i32
    %1 = arith.extsi %f : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %o, %2 : i32
    linalg.yield %3 : i32
  }
  return %y : memref<1x2x8x8xi32>
}
