// convert-sparse-to-loops with a fused max pool: bands of pooled rows in
// parallel, each band's convolution rows into a scratch buffer of its own,
// pooled from there; only the pool is stored.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops --canonicalize --cse | FileCheck %s --check-prefix=V3

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// ResNet's stem on a 24x24 image: 7x7 s2 p3 -> 12x12, 3x3 s2 p1 pool ->
// 6x6. Rows are 15 wide (12 + the 3 columns of the 7x7 phase planes);
// all 6 pooled rows are one band (13 convolution rows would be needed by
// two bands of 3: the rule wants 8 tiles of 128 per band and gets all
// 12 rows, 180 positions, 2 tiles). The scratch has one row per output
// channel of a chunk: a margin of 1 (the pool's left padding), 2 tiles,
// and room for the last vector of windows (16 x 2 + 3): 1 + 256 + 35.
// CHECK-LABEL: func.func @stem
// CHECK: tensor.pad %arg0 low[0, 0, 3, 3] high[0, 0, 21, 3]
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x6x6xf32>
// CHECK: scf.parallel (%[[CHUNK:.*]]) =
// CHECK:   %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x292xf32>
// The tiles of the band: FMAs, the ReLU, stores into the scratch.
// CHECK:   scf.for
// CHECK-COUNT-8: vector.fma
// CHECK:       arith.maximumf
// CHECK:       vector.store {{.*}}, %[[S]]
// Padding never wins: -inf in the margin and in columns 12-14 of each row.
// CHECK:   scf.for
// CHECK:     memref.store %[[NEGINF:.*]], %[[S]]
// CHECK:     scf.for %{{.*}} = %c0 to %c12
// CHECK:       scf.for %{{.*}} = %c12 to %c15
// CHECK:         memref.store %[[NEGINF]], %[[S]]
// Each pooled row: the window's rows inside the output, 3 columns of
// stride 2 as pairs of loads and an even shuffle; 6 of 16 lanes stored.
// CHECK:     scf.for %{{.*}} = %c0 to %c6
// CHECK:       arith.maxsi
// CHECK:       arith.minsi
// CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// CHECK-COUNT-3: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:       vector.constant_mask [6] : vector<16xi1>
// CHECK:       vector.maskedstore %[[OUT]]
// CHECK: bufferization.to_tensor %[[OUT]]
// CHECK-NOT: tensor.extract_slice
// V3-LABEL: func.func @stem
// V3: memref.alloc() {alignment = 64 : i64} : memref<1x2x6x6xf32>
// V3: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
func.func @stem(%x: tensor<1x3x24x24xf32>) -> tensor<1x2x6x6xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 0, 146>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2x147xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 7, 7>, strides = array<i64: 2, 2>,
                             padding = array<i64: 3, 3, 3, 3>, relu,
                             pool_kernel = array<i64: 3, 3>, pool_strides = array<i64: 2, 2>,
                             pool_padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x24x24xf32>, tensor<2x147xf32, #CSR>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A 1x1 convolution on a wide map (8x96, no padding columns of its own)
// with a 2x2 stride-2 pool: rows 96 wide, no margin, no -inf columns.
// A band's last tile may hold unused positions for at most 1/8 of its
// work: 8 tiles of 128 want 11 rows, so the one band is the whole map (8
// rows, 768 positions, 6 tiles; scratch 768 + 16 * 2 + 2); the images and
// the 2 chunks of output channels are the parallel iterations.
// CHECK-LABEL: func.func @wide
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c2, %c2)
// CHECK:   memref.alloc() {alignment = 64 : i64} : memref<1x802xf32>
// CHECK-NOT: memref.store
// CHECK:   vector.shuffle
// CHECK:   vector.store {{.*}} : memref<2x2x4x48xf32>, vector<16xf32>
// CHECK-NOT: vector.maskedstore
func.func @wide(%x: tensor<2x4x8x96xf32>) -> tensor<2x2x4x48xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 0, 1, 3>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x4xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>,
                             pool_kernel = array<i64: 2, 2>, pool_strides = array<i64: 2, 2>}
      : (tensor<2x4x8x96xf32>, tensor<2x4xf32, #CSR>) -> tensor<2x2x4x48xf32>
  return %y : tensor<2x2x4x48xf32>
}
