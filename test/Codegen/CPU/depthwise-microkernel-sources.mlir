// RUN: dlas-opt %s --split-input-file --dlas-depthwise-microkernel="vector-width=8 vector-registers=16" --canonicalize | FileCheck %s

// What the stencil kernel reads: its input, or, where it folds the padding
// buffer, the buffer the padded one was copied from (and the pad value
// outside it). That fold holds only while the copied-from buffer still
// holds the copied values when the kernel runs. Either may be a strided
// view whose rows are unit-stride.

// A stride-1 pool whose output reuses the buffer the padded input was
// copied from (how bufferization places conv -> relu -> max pool 3x3/1):
// the -inf init fill overwrites %y before the pool runs, so the pool must
// read the padded copy, which stays.
// CHECK-LABEL: func.func @output_reuses_source
// CHECK-SAME: (%[[X:.*]]: memref<1x8x12x12xf32>)
// CHECK: %[[P:.*]] = memref.alloc() {{.*}} : memref<1x8x14x14xf32>
// CHECK: linalg.fill {{.*}} outs(%[[P]]
// CHECK: linalg.copy ins(%[[Y:.*]] : memref<1x8x12x12xf32>)
// CHECK: scf.parallel
// CHECK: vector.{{(masked)?}}load %[[P]]
// CHECK-NOT: vector.{{(masked)?}}load %[[Y]]
// CHECK: arith.maximumf
func.func @output_reuses_source(%x: memref<1x8x12x12xf32>) -> memref<1x8x12x12xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x12x12xf32>
  linalg.copy ins(%x : memref<1x8x12x12xf32>) outs(%y : memref<1x8x12x12xf32>)
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x8x14x14xf32>
  linalg.fill ins(%ninf : f32) outs(%padded : memref<1x8x14x14xf32>)
  %view = memref.subview %padded[0, 0, 1, 1] [1, 8, 12, 12] [1, 1, 1, 1] : memref<1x8x14x14xf32> to memref<1x8x12x12xf32, strided<[1568, 196, 14, 1], offset: 15>>
  linalg.copy ins(%y : memref<1x8x12x12xf32>) outs(%view : memref<1x8x12x12xf32, strided<[1568, 196, 14, 1], offset: 15>>)
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x8x12x12xf32>)
  %window = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %window : memref<1x8x14x14xf32>, memref<3x3xf32>) outs(%y : memref<1x8x12x12xf32>)
  memref.dealloc %padded : memref<1x8x14x14xf32>
  memref.dealloc %window : memref<3x3xf32>
  return %y : memref<1x8x12x12xf32>
}

// -----

// The source written through a view of it between the copy and the
// depthwise convolution: the padding stays.
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @source_written_through_view
// CHECK: %[[P:.*]] = memref.alloc() {{.*}} : memref<1x8x18x18xf32>
// CHECK: linalg.copy
// CHECK: linalg.fill
// CHECK: scf.parallel
// CHECK: vector.{{(masked)?}}load %[[P]]
// CHECK: vector.fma
func.func @source_written_through_view(%x: memref<1x8x16x16xf32>, %w: memref<8x3x3xf32>, %y: memref<1x8x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x8x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%padded : memref<1x8x18x18xf32>)
  %view = memref.subview %padded[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.copy ins(%x : memref<1x8x16x16xf32>) outs(%view : memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>)
  %x0 = memref.subview %x[0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1] : memref<1x8x16x16xf32> to memref<1x1x16x16xf32, strided<[2048, 256, 16, 1]>>
  linalg.fill ins(%one : f32) outs(%x0 : memref<1x1x16x16xf32, strided<[2048, 256, 16, 1]>>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%padded, %w : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%y : memref<1x8x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %padded : memref<1x8x18x18xf32>
  return
}

// -----

// Reads of the source between the copy and the kernel change nothing: the
// padding folds (the kernel reads %x, no padded buffer is left).
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @source_read_between
// CHECK-SAME: (%[[X:[^:]*]]: memref<1x8x16x16xf32>
// CHECK-NOT: memref<1x8x18x18xf32>
// CHECK: linalg.copy ins(%[[X]] : memref<1x8x16x16xf32>) outs(%[[Z:[^ ]*]] :
// CHECK: scf.parallel
// CHECK: vector.{{(masked)?}}load %[[X]]
// CHECK: vector.fma
func.func @source_read_between(%x: memref<1x8x16x16xf32>, %w: memref<8x3x3xf32>, %y: memref<1x8x16x16xf32>, %z: memref<1x8x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x8x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%padded : memref<1x8x18x18xf32>)
  %view = memref.subview %padded[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.copy ins(%x : memref<1x8x16x16xf32>) outs(%view : memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>)
  linalg.copy ins(%x : memref<1x8x16x16xf32>) outs(%z : memref<1x8x16x16xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%padded, %w : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%y : memref<1x8x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  memref.dealloc %padded : memref<1x8x18x18xf32>
  return
}

// -----

// A source whose rows are unit-stride but not contiguous (the OW columns
// of a padded-width flat convolution's result): the padding still folds,
// the kernel reads the strided view.
// CHECK-LABEL: func.func @strided_source
// CHECK-SAME: (%[[X:[^:]*]]: memref<1x8x12x14xf32>
// CHECK-NOT: memref<1x8x14x14xf32>
// CHECK: %[[V:.*]] = memref.subview %[[X]][0, 0, 0, 0] [1, 8, 12, 12] [1, 1, 1, 1]
// CHECK: scf.parallel
// CHECK: vector.{{(masked)?}}load %[[V]]{{.*}}strided<[1344, 168, 14, 1]>>
// CHECK: arith.maximumf
func.func @strided_source(%x: memref<1x8x12x14xf32>) -> memref<1x8x6x6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %view_x = memref.subview %x[0, 0, 0, 0] [1, 8, 12, 12] [1, 1, 1, 1] : memref<1x8x12x14xf32> to memref<1x8x12x12xf32, strided<[1344, 168, 14, 1]>>
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x8x14x14xf32>
  linalg.fill ins(%ninf : f32) outs(%padded : memref<1x8x14x14xf32>)
  %view = memref.subview %padded[0, 0, 1, 1] [1, 8, 12, 12] [1, 1, 1, 1] : memref<1x8x14x14xf32> to memref<1x8x12x12xf32, strided<[1568, 196, 14, 1], offset: 15>>
  linalg.copy ins(%view_x : memref<1x8x12x12xf32, strided<[1344, 168, 14, 1]>>) outs(%view : memref<1x8x12x12xf32, strided<[1568, 196, 14, 1], offset: 15>>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x6x6xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x8x6x6xf32>)
  %window = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %window : memref<1x8x14x14xf32>, memref<3x3xf32>) outs(%y : memref<1x8x6x6xf32>)
  memref.dealloc %padded : memref<1x8x14x14xf32>
  memref.dealloc %window : memref<3x3xf32>
  return %y : memref<1x8x6x6xf32>
}

// -----

// An unpadded pool reading such a view directly.
// CHECK-LABEL: func.func @strided_input
// CHECK-SAME: (%[[X:[^:]*]]: memref<1x8x9x29xf32>
// CHECK: %[[V:.*]] = memref.subview %[[X]]
// CHECK: scf.parallel
// CHECK: vector.{{(masked)?}}load %[[V]]{{.*}}strided<[2088, 261, 29, 1]>>
// CHECK-NOT: linalg.pooling_nchw_max
func.func @strided_input(%x: memref<1x8x9x29xf32>, %y: memref<1x8x4x13xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %view_x = memref.subview %x[0, 0, 0, 0] [1, 8, 9, 27] [1, 1, 1, 1] : memref<1x8x9x29xf32> to memref<1x8x9x27xf32, strided<[2088, 261, 29, 1]>>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x8x4x13xf32>)
  %window = memref.alloc() : memref<2x2xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%view_x, %window : memref<1x8x9x27xf32, strided<[2088, 261, 29, 1]>>, memref<2x2xf32>) outs(%y : memref<1x8x4x13xf32>)
  memref.dealloc %window : memref<2x2xf32>
  return
}

// -----

// Rows that are not unit-stride (every other column) are not read in
// place: the stencil is left to the loops.
// CHECK-LABEL: func.func @column_strided_input
// CHECK: linalg.pooling_nchw_max
func.func @column_strided_input(%x: memref<1x8x9x54xf32>, %y: memref<1x8x4x13xf32>) {
  %view_x = memref.subview %x[0, 0, 0, 0] [1, 8, 9, 27] [1, 1, 1, 2] : memref<1x8x9x54xf32> to memref<1x8x9x27xf32, strided<[3888, 486, 54, 2]>>
  %window = memref.alloc() : memref<2x2xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%view_x, %window : memref<1x8x9x27xf32, strided<[3888, 486, 54, 2]>>, memref<2x2xf32>) outs(%y : memref<1x8x4x13xf32>)
  memref.dealloc %window : memref<2x2xf32>
  return
}
