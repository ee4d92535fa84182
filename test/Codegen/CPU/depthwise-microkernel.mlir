// RUN: dlas-opt %s --split-input-file --dlas-depthwise-microkernel="vector-width=16 vector-registers=32 rows=4" --canonicalize | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-depthwise-microkernel="vector-width=16 vector-registers=32 rows=4 fuse=false" --canonicalize | FileCheck %s --check-prefix=NOFUSE
// RUN: dlas-opt %s --split-input-file --dlas-depthwise-microkernel="vector-width=16 vector-registers=32 parallel=false" | FileCheck %s --check-prefix=SERIAL
// RUN: dlas-opt %s --split-input-file --dlas-depthwise-microkernel="vector-width=16 vector-registers=32 rows=4 row-major=false" --canonicalize | FileCheck %s

// A padded 3x3 depthwise convolution with bias and relu6, as one-shot
// bufferization leaves it: the padding buffer, the bias broadcast and the
// relu6 pass all fold into one stencil per channel.
// CHECK-LABEL: func.func @padded_bias_relu6
// CHECK-SAME: (%[[X:.*]]: memref<1x8x20x20xf32>, %[[W:.*]]: memref<8x3x3xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK-NOT: memref<1x8x22x22xf32>
// CHECK-NOT: linalg.broadcast
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<1x8x20x20xf32>
// CHECK: scf.parallel (%[[C:.*]]) =
// The taps are broadcast once per channel, the bias is the start value.
// CHECK-COUNT-9: vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK: %[[BIAS:.*]] = memref.load %[[B]][%[[C]]]
// CHECK: %[[INIT:.*]] = vector.broadcast %[[BIAS]]
// The left border reads column -1 masked (lane 0 is padding).
// CHECK: vector.maskedload %[[X]][%{{.*}}, %[[C]], %{{.*}}, %c-1]
// CHECK: vector.fma {{.*}}, %[[INIT]] : vector<16xf32>
// relu6 on the accumulators, then the one store.
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: arith.minimumf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, %[[Y]]
// Rows whose input rows are all inside run in a loop.
// CHECK: scf.for
// The column tail (20 = 16 + 4) stores 4 lanes.
// CHECK: vector.maskedstore %[[Y]]{{.*}}, %{{.*}} : memref<1x8x20x20xf32>, vector<16xi1>, vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]

// Without fusion the kernel reads the padded buffer and the output.
// NOFUSE-LABEL: func.func @padded_bias_relu6
// NOFUSE: memref.alloc() {{.*}} : memref<1x8x22x22xf32>
// NOFUSE: linalg.broadcast
// NOFUSE: scf.parallel
// NOFUSE: vector.load %{{.*}} : memref<1x8x22x22xf32>, vector<16xf32>
// NOFUSE: linalg.generic

// SERIAL-LABEL: func.func @padded_bias_relu6
// SERIAL-NOT: scf.parallel
// SERIAL: scf.for
// SERIAL-NOT: scf.parallel

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @padded_bias_relu6(%x: memref<1x8x20x20xf32>, %w: memref<8x3x3xf32>, %b: memref<8xf32>) -> memref<1x8x20x20xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %pad = memref.alloc() {alignment = 64 : i64} : memref<1x8x22x22xf32>
  linalg.map outs(%pad : memref<1x8x22x22xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %view = memref.subview %pad[0, 0, 1, 1] [1, 8, 20, 20] [1, 1, 1, 1] : memref<1x8x22x22xf32> to memref<1x8x20x20xf32, strided<[3872, 484, 22, 1], offset: 23>>
  linalg.copy ins(%x : memref<1x8x20x20xf32>) outs(%view : memref<1x8x20x20xf32, strided<[3872, 484, 22, 1], offset: 23>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x20x20xf32>
  linalg.broadcast ins(%b : memref<8xf32>) outs(%y : memref<1x8x20x20xf32>) dimensions = [0, 2, 3]
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%pad, %w : memref<1x8x22x22xf32>, memref<8x3x3xf32>) outs(%y : memref<1x8x20x20xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x8x20x20xf32>) outs(%y : memref<1x8x20x20xf32>) {
  ^bb0(%i: f32, %o: f32):
    %0 = arith.maximumf %i, %zero : f32
    %1 = arith.minimumf %0, %six : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %pad : memref<1x8x22x22xf32>
  return %y : memref<1x8x20x20xf32>
}

// -----

// Stride 2 without padding, the output filled with zero: a tap reads
// two vectors (masked: the 15 columns end inside them) and keeps every
// other lane. Taps kw 0 and 1 share one load of the row (the even and the
// odd lanes of it); kw 2 loads its own, two columns on. The 7-wide output
// rows take 8-lane vectors on this 16-lane target (the max pool below
// keeps 16 lanes for its 10-wide rows).
// CHECK-LABEL: func.func @stride2
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel
// CHECK: %[[ROW:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %{{.*}}, %c0, %c0], {{.*}} : memref<2x4x15x15xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.shuffle %[[ROW]], %[[ROW]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.maskedload
// CHECK: vector.shuffle %[[ROW]], %[[ROW]] [1, 3, 5, 7, 9, 11, 13, 15] : vector<16xf32>, vector<16xf32>
// CHECK: %[[KW2:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %{{.*}}, %c0, %c2], {{.*}} : memref<2x4x15x15xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.shuffle %[[KW2]], %[[KW2]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK: vector.maskedstore {{.*}} : memref<2x4x7x7xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NOT: linalg.generic
#s2in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#s2w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#s2out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @stride2(%x: memref<2x4x15x15xf32>, %w: memref<4x3x3xf32>, %y: memref<2x4x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x4x7x7xf32>)
  linalg.generic {indexing_maps = [#s2in, #s2w, #s2out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<2x4x15x15xf32>, memref<4x3x3xf32>) outs(%y : memref<2x4x7x7xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// The output was written by something else first: the kernel starts from
// the stored values (masked past the last column).
// CHECK-LABEL: func.func @accumulate
// CHECK: vector.maskedload %{{.*}}[{{.*}}], {{.*}} : memref<1x2x6x6xf32>, vector<8xi1>, vector<8xf32>
// CHECK: vector.fma
#ain = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh * 2, ow + kw * 2)>
#aw = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#aout = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @accumulate(%x: memref<1x2x10x10xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x6x6xf32>) {
  linalg.generic {indexing_maps = [#ain, #aw, #aout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x2x10x10xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x6x6xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A max pool (ResNet's 3x3 stride-2 stem pool) is the same stencil with
// max instead of fma: the -inf padding buffer and the -inf fill fold in,
// and the window operand (shape only) is never read.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: memref<1x4x20x20xf32>)
// The padding's -inf is the pass-through of the border loads (max with
// the -inf init folds away).
// CHECK: arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: scf.parallel
// CHECK: vector.{{(masked)?}}load %[[X]]
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK-NOT: linalg.copy
func.func @max_pool(%x: memref<1x4x20x20xf32>) -> memref<1x4x10x10xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x4x21x21xf32>
  linalg.fill ins(%ninf : f32) outs(%padded : memref<1x4x21x21xf32>)
  %view = memref.subview %padded[0, 0, 1, 1] [1, 4, 20, 20] [1, 1, 1, 1] : memref<1x4x21x21xf32> to memref<1x4x20x20xf32, strided<[1764, 441, 21, 1], offset: 22>>
  linalg.copy ins(%x : memref<1x4x20x20xf32>) outs(%view : memref<1x4x20x20xf32, strided<[1764, 441, 21, 1], offset: 22>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x4x10x10xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x4x10x10xf32>)
  %window = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %window : memref<1x4x21x21xf32>, memref<3x3xf32>) outs(%y : memref<1x4x10x10xf32>)
  memref.dealloc %padded : memref<1x4x21x21xf32>
  memref.dealloc %window : memref<3x3xf32>
  return %y : memref<1x4x10x10xf32>
}

// -----

// A sum pool (the sum of an average pool) adds the taps (8-lane vectors:
// the output rows are 4 wide).
// CHECK-LABEL: func.func @sum_pool
// CHECK: vector.maskedload %arg0
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: linalg.pooling_nchw_sum
func.func @sum_pool(%x: memref<1x2x8x8xf32>, %window: memref<2x2xf32>, %y: memref<1x2x4x4xf32>) {
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %window : memref<1x2x8x8xf32>, memref<2x2xf32>) outs(%y : memref<1x2x4x4xf32>)
  return
}
