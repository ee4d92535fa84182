// convert-sparse-to-loops with a fused max pool: bands of pooled rows in
// parallel, each band's convolution rows into a scratch buffer of its own,
// pooled from there; only the pool is stored.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 align-taps=never shift-taps=never" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops=shift-taps=never --canonicalize --cse | FileCheck %s --check-prefix=V3

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// ResNet's stem on a 24x24 image: 7x7 s2 p3 -> 12x12, 3x3 s2 p1 pool ->
// 6x6. Rows are 15 wide (12 + the 3 columns of the 7x7 phase planes).
// Smaller bands cost more per pooled row (a row shared with the next
// band computed twice, a narrow last tile): all 6 pooled rows are one band
// (12 rows, 180 positions = 11.25 vectors of 16: one full tile of 8
// vectors and a last one of 4). The scratch has one row per output
// channel of a chunk: a margin of 1 (the pool's left padding), the band's
// positions rounded up to 2 tiles of 128, and room for the last vector of
// windows (16 x 2 + 3): 1 + 256 + 35.
// CHECK-LABEL: func.func @stem
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x3x2x2x24x15xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x6x6xf32>
// CHECK: scf.parallel (%[[CHUNK:.*]]) =
// CHECK:   %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x292xf32>
// The band's tiles: 8 vectors, then 4; FMAs, the ReLU, stores into the
// scratch.
// CHECK:   scf.for
// CHECK:     scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-8: vector.fma
// CHECK:       arith.maximumf
// CHECK:       vector.store {{.*}}, %[[S]]
// CHECK:     scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: vector.fma
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
// Bands of 2 pooled rows (4 rows, 384 positions: 3 full tiles of 128, no
// narrower one, so its tile only runs for a band that needs it) cost as
// little per row as any: 2 bands, in parallel with the images and 2
// chunks. Scratch: 3 tiles and 16 x 2 + 2.
// CHECK-LABEL: func.func @wide
// CHECK: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c2, %c2, %c2)
// CHECK:   memref.alloc() {alignment = 64 : i64} : memref<1x418xf32>
// CHECK:   scf.for
// CHECK:   scf.if
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
