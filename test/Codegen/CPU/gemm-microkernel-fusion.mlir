// Neighbours folded into dlas-gemm-microkernel: C's init and the elementwise
// chain that consumes C.
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 parallel=false" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 parallel=false tiles=0,0,8,0" | FileCheck %s --check-prefix=KBLOCKS
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 fuse=false" | FileCheck %s --check-prefix=NOFUSE

#wmap = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
#xmap = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#ymap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// A 1x1 convolution as bufferized from nn: bias broadcast into the 4-d
// output, the GEMM on its collapsed view, relu6 into a second buffer. The
// kernel starts from the bias, clamps in registers and stores into the
// relu6's buffer once; the first buffer is left unused.
// CHECK-LABEL: func @pointwise_bias_relu6
// CHECK-SAME: (%[[X:.*]]: memref<1x32x784xf32>, %[[W:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<64xf32>)
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x64x28x28xf32>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0], [1], [2, 3]]
// CHECK-NOT: linalg.broadcast
// CHECK: memref.load %[[B]]
// CHECK: vector.broadcast
// CHECK: vector.fma
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: arith.minimumf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, %[[VIEW]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
// KBLOCKS-LABEL: func @pointwise_bias_relu6
// The first k block starts from the bias, later ones from C; the clamp runs
// on the last block, which stores into the relu6's buffer.
// KBLOCKS: arith.cmpi eq
// KBLOCKS: scf.if {{.*}} -> (vector<16xf32>
// KBLOCKS: memref.load %arg2
// KBLOCKS: } else {
// KBLOCKS: vector.load
// KBLOCKS: vector.fma
// KBLOCKS: scf.if
// KBLOCKS: arith.maximumf {{.*}} : vector<16xf32>
// KBLOCKS: vector.store
// KBLOCKS: } else {
// KBLOCKS: vector.store
// PRINT: remark: microkernel {{.*}} for M=64 N=784 K=32, A packed at run time; init linalg.broadcast, 1 epilogue op(s) fused
// NOFUSE-LABEL: func @pointwise_bias_relu6
// NOFUSE: linalg.broadcast
// NOFUSE: vector.fma
// NOFUSE: linalg.generic
func.func @pointwise_bias_relu6(%x: memref<1x32x784xf32>, %w: memref<64x32xf32>, %b: memref<64xf32>) -> memref<1x64x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x64x28x28xf32>
  %acc = memref.alloc() {alignment = 64 : i64} : memref<1x64x28x28xf32>
  linalg.broadcast ins(%b : memref<64xf32>) outs(%acc : memref<1x64x28x28xf32>) dimensions = [0, 2, 3]
  %c = memref.collapse_shape %acc [[0], [1], [2, 3]] : memref<1x64x28x28xf32> into memref<1x64x784xf32>
  linalg.generic {indexing_maps = [#wmap, #xmap, #ymap], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %x : memref<64x32xf32>, memref<1x32x784xf32>) outs(%c : memref<1x64x784xf32>) {
  ^bb0(%in: f32, %in_1: f32, %o: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x64x28x28xf32>) outs(%out : memref<1x64x28x28xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    %1 = arith.minimumf %0, %six : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %acc : memref<1x64x28x28xf32>
  return %out : memref<1x64x28x28xf32>
}

// -----

#wmap = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
#xmap = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#ymap = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// A residual add reads another same-shaped buffer at the stored positions
// (through a collapsed view of it), then relu, both in place.
// CHECK-LABEL: func @residual_add_relu
// CHECK-SAME: %[[RES:[a-z0-9]+]]: memref<2x16x7x9xf32>
// CHECK: %[[RVIEW:.*]] = memref.collapse_shape %[[RES]] {{\[}}[0], [1], [2, 3]]
// CHECK: vector.fma
// CHECK: vector.maskedload %[[RVIEW]]
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.maskedstore
// CHECK-NOT: linalg.generic
// PRINT: remark: microkernel {{.*}} for M=16 N=63 K=32, {{.*}}; init linalg.fill, 2 epilogue op(s) fused
func.func @residual_add_relu(%x: memref<2x32x63xf32>, %w: memref<16x32xf32>, %res: memref<2x16x7x9xf32>) -> memref<2x16x7x9xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<2x16x7x9xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x16x7x9xf32>)
  %c = memref.collapse_shape %acc [[0], [1], [2, 3]] : memref<2x16x7x9xf32> into memref<2x16x63xf32>
  linalg.generic {indexing_maps = [#wmap, #xmap, #ymap], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %x : memref<16x32xf32>, memref<2x32x63xf32>) outs(%c : memref<2x16x63xf32>) {
  ^bb0(%in: f32, %in_1: f32, %o: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %res : memref<2x16x7x9xf32>, memref<2x16x7x9xf32>) outs(%acc : memref<2x16x7x9xf32>) {
  ^bb0(%in: f32, %r: f32, %o: f32):
    %0 = arith.addf %in, %r : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<2x16x7x9xf32>) outs(%acc : memref<2x16x7x9xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return %acc : memref<2x16x7x9xf32>
}

// -----

// A linear layer: the bias runs along n (a vector load), tanh after it.
// CHECK-LABEL: func @linear_bias_tanh
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<50xf32>
// CHECK: vector.maskedload %[[BIAS]]
// CHECK: vector.fma
// CHECK: math.tanh {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.
func.func @linear_bias_tanh(%x: memref<5x300xf32>, %w: memref<300x50xf32>, %bias: memref<50xf32>) -> memref<5x50xf32> {
  %acc = memref.alloc() {alignment = 64 : i64} : memref<5x50xf32>
  linalg.broadcast ins(%bias : memref<50xf32>) outs(%acc : memref<5x50xf32>) dimensions = [0]
  linalg.matmul ins(%x, %w : memref<5x300xf32>, memref<300x50xf32>) outs(%acc : memref<5x50xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<5x50xf32>) outs(%acc : memref<5x50xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  }
  return %acc : memref<5x50xf32>
}

// -----

// Refused: the pre-activation is read again after relu wrote a second
// buffer, so C must keep its values; relu stays a separate op.
// CHECK-LABEL: func @preactivation_reused
// CHECK: vector.fma
// CHECK: linalg.generic
// CHECK: linalg.generic
// PRINT: remark: microkernel {{.*}} for M=8 N=32 K=8, {{.*}}; init linalg.fill, 0 epilogue op(s) fused
func.func @preactivation_reused(%a: memref<8x8xf32>, %b: memref<8x32xf32>) -> memref<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<8x32xf32>
  %act = memref.alloc() {alignment = 64 : i64} : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x32xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x32xf32>) outs(%acc : memref<8x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<8x32xf32>) outs(%act : memref<8x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%act, %acc : memref<8x32xf32>, memref<8x32xf32>) outs(%act : memref<8x32xf32>) {
  ^bb0(%in: f32, %p: f32, %o: f32):
    %0 = arith.mulf %in, %p : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %acc : memref<8x32xf32>
  return %act : memref<8x32xf32>
}

// -----

// Refused: an op between the contraction and the activation writes memory
// the chain cannot see through, so the chain stops there.
// CHECK-LABEL: func @chain_stops_at_memory_write
// CHECK: vector.fma
// CHECK: memref.store
// CHECK: linalg.generic
// PRINT: remark: microkernel {{.*}} for M=8 N=32 K=8, {{.*}}; init loaded, 0 epilogue op(s) fused
func.func @chain_stops_at_memory_write(%a: memref<8x8xf32>, %b: memref<8x32xf32>, %acc: memref<8x32xf32>, %flag: memref<1xf32>) {
  %zero = arith.constant 0.0 : f32
  %i = arith.constant 0 : index
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x32xf32>) outs(%acc : memref<8x32xf32>)
  memref.store %zero, %flag[%i] : memref<1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<8x32xf32>) outs(%acc : memref<8x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A flat convolution's padded init: the padded-width output is zero-filled,
// then the bias broadcast (in the real output) is copied into its first OW
// columns. The dropped columns are never read, so the kernel starts every
// column from the bias: the fill, the copy and the broadcast (overwritten
// by the activation before anyone reads it) all go.
#fx = affine_map<(n, f, p, c, kh, kw) -> (n, c, p + kh * 6 + kw)>
#fw = affine_map<(n, f, p, c, kh, kw) -> (f, c, kh, kw)>
#fy = affine_map<(n, f, p, c, kh, kw) -> (n, f, p)>
#fid = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @flat_padded_init
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<8xf32>
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.map
// CHECK: memref.load %[[BIAS]]
// CHECK: vector.fma
// CHECK: linalg.generic
// PRINT: remark: microkernel {{.*}} for M=8 N=24 K=36, {{.*}}; init linalg.map, 0 epilogue op(s) fused
func.func @flat_padded_init(%x: memref<1x4x42xf32>, %w: memref<8x4x3x3xf32>, %bias: memref<8xf32>) -> memref<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x8x4x4xf32>
  linalg.broadcast ins(%bias : memref<8xf32>) outs(%out : memref<1x8x4x4xf32>) dimensions = [0, 2, 3]
  %wide = memref.alloc() {alignment = 64 : i64} : memref<1x8x4x6xf32>
  linalg.map outs(%wide : memref<1x8x4x6xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %view = memref.subview %wide[0, 0, 0, 0] [1, 8, 4, 4] [1, 1, 1, 1] : memref<1x8x4x6xf32> to memref<1x8x4x4xf32, strided<[192, 24, 6, 1]>>
  linalg.copy ins(%out : memref<1x8x4x4xf32>) outs(%view : memref<1x8x4x4xf32, strided<[192, 24, 6, 1]>>)
  %c = memref.collapse_shape %wide [[0], [1], [2, 3]] : memref<1x8x4x6xf32> into memref<1x8x24xf32>
  linalg.generic {indexing_maps = [#fx, #fw, #fy], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x4x42xf32>, memref<8x4x3x3xf32>) outs(%c : memref<1x8x24xf32>) {
  ^bb0(%in: f32, %f: f32, %o: f32):
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#fid, #fid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%view : memref<1x8x4x4xf32, strided<[192, 24, 6, 1]>>) outs(%out : memref<1x8x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %wide : memref<1x8x4x6xf32>
  return %out : memref<1x8x4x4xf32>
}

// -----

// A grouped flat convolution (2 groups of 16 channels, 4x4 output computed
// without padded columns): C is a collapse of an expand_shape of the bias
// broadcast's [N, C, H, W] buffer. The kernel starts from the bias read as
// [G, C/G] (an expand_shape of it made before the kernel); the broadcast
// goes away.
#gin = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d3, d4 + (d4 floordiv 4) * 2 + d5 * 6 + d6)>
#gw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3, d5, d6)>
#gout = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func @grouped_flat_bias
// CHECK-SAME: %[[B:[a-z0-9]+]]: memref<32xf32>
// CHECK-NOT: linalg.broadcast
// CHECK: %[[BIAS:.*]] = memref.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [2, 16] : memref<32xf32> into memref<2x16xf32>
// CHECK: memref.load %[[BIAS]]
// CHECK: vector.fma
// PRINT: key 'b2_m16_n16_k144' {{.*}} init linalg.broadcast
func.func @grouped_flat_bias(%x: memref<1x2x16x36xf32>, %w: memref<2x16x16x3x3xf32>, %b: memref<32xf32>) -> memref<1x32x4x4xf32> {
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x32x4x4xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%out : memref<1x32x4x4xf32>) dimensions = [0, 2, 3]
  %e = memref.expand_shape %out [[0], [1, 2], [3], [4]] output_shape [1, 2, 16, 4, 4] : memref<1x32x4x4xf32> into memref<1x2x16x4x4xf32>
  %c = memref.collapse_shape %e [[0], [1], [2], [3, 4]] : memref<1x2x16x4x4xf32> into memref<1x2x16x16xf32>
  linalg.generic {indexing_maps = [#gin, #gw, #gout], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x16x36xf32>, memref<2x16x16x3x3xf32>) outs(%c : memref<1x2x16x16xf32>) {
  ^bb0(%in: f32, %wv: f32, %acc: f32):
    %m = arith.mulf %in, %wv : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return %out : memref<1x32x4x4xf32>
}

// -----

// The padded flat form of a grouped convolution: X, the bias broadcast, is
// copied into the padded output through an expand_shape into groups. The
// kernel starts from the bias read as [G, C/G]; the fill, the copy and the
// broadcast (its buffer is next overwritten) go away.
#pin = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d3, d4 + d5 * 6 + d6)>
#pw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d3, d5, d6)>
#pout = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4)>
#pid = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @grouped_padded_flat_bias
// CHECK-SAME: %[[B:[a-z0-9]+]]: memref<32xf32>
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: linalg.copy
// CHECK: memref.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [2, 16] : memref<32xf32> into memref<2x16xf32>
// CHECK: vector.fma
// PRINT: key 'b2_m16_n24_k144' {{.*}} init linalg.fill
func.func @grouped_padded_flat_bias(%x: memref<1x2x16x42xf32>, %w: memref<2x16x16x3x3xf32>, %b: memref<32xf32>, %r: memref<1x32x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %bias = memref.alloc() {alignment = 64 : i64} : memref<1x32x4x4xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%bias : memref<1x32x4x4xf32>) dimensions = [0, 2, 3]
  %be = memref.expand_shape %bias [[0], [1, 2], [3], [4]] output_shape [1, 2, 16, 4, 4] : memref<1x32x4x4xf32> into memref<1x2x16x4x4xf32>
  %full = memref.alloc() {alignment = 64 : i64} : memref<1x2x16x4x6xf32>
  linalg.fill ins(%zero : f32) outs(%full : memref<1x2x16x4x6xf32>)
  %view = memref.subview %full[0, 0, 0, 0, 0] [1, 2, 16, 4, 4] [1, 1, 1, 1, 1] : memref<1x2x16x4x6xf32> to memref<1x2x16x4x4xf32, strided<[768, 384, 24, 6, 1]>>
  linalg.copy ins(%be : memref<1x2x16x4x4xf32>) outs(%view : memref<1x2x16x4x4xf32, strided<[768, 384, 24, 6, 1]>>)
  %c = memref.collapse_shape %full [[0], [1], [2], [3, 4]] : memref<1x2x16x4x6xf32> into memref<1x2x16x24xf32>
  linalg.generic {indexing_maps = [#pin, #pw, #pout], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x16x42xf32>, memref<2x16x16x3x3xf32>) outs(%c : memref<1x2x16x24xf32>) {
  ^bb0(%in: f32, %wv: f32, %acc: f32):
    %m = arith.mulf %in, %wv : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %cv = memref.collapse_shape %view [[0], [1, 2], [3], [4]] : memref<1x2x16x4x4xf32, strided<[768, 384, 24, 6, 1]>> into memref<1x32x4x4xf32, strided<[768, 24, 6, 1]>>
  linalg.generic {indexing_maps = [#pid, #pid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cv : memref<1x32x4x4xf32, strided<[768, 24, 6, 1]>>) outs(%bias : memref<1x32x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  }
  memref.copy %bias, %r : memref<1x32x4x4xf32> to memref<1x32x4x4xf32>
  return
}
