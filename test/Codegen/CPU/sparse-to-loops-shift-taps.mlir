// convert-sparse-to-loops{shift-taps}: register shifts. A tap kx columns
// right of the output reads its tile kx elements off the vector grid, and
// every such load of a full tile splits a cache line. With register
// shifts (auto, the default) the planes' rows are whole vectors, each
// row's stored blocks of a slab come grouped by column shift s (the
// values and offsets reordered at compile time; the slab array holds
// each group's start), group s reads its taps s elements early (on the
// grid) over one vector more than the tile, and its sums enter the
// accumulators shifted left by s lanes (a shuffle of two vectors).
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never shift-taps=never" --canonicalize --cse | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never shift-taps=always" --canonicalize --cse | FileCheck %s --check-prefix=ALWAYS
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops --canonicalize --cse | FileCheck %s --check-prefix=V3
// RUN: not dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 shift-taps=maybe" 2>&1 | FileCheck %s --check-prefix=BAD

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 3x3, padding 1, 2 channels of 6x14: rows of 14 + 2 = 16 columns (whole
// vectors already), 9 plane rows (6 vectors of outputs, 2 rows of taps
// and the shift groups' extra vector), planes of 144. Row 0 holds (c 0,
// ky 0, kx 0) = 1 and (c 1, ky 2, kx 1) = 2, row 1 (c 0, ky 1, kx 2) = 3
// and (c 1, ky 1, kx 1) = 4. Grouped by kx: row 0 [1 | 2 | -], row 1
// [- | 4 | 3]; offsets c * 144 + ky * 16 (without kx); per row the
// starts of groups 0, 1, 2 and the row's end.
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_slabs : memref<8xi32> = dense<[0, 1, 2, 2, 2, 2, 3, 4]>
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_values : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 4.000000e+00, 3.000000e+00]>
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[0, 176, 160, 16]>
// CHECK-LABEL: func.func @shifted
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x9x16xf32>
// Group 0 into the tile's 6 accumulators, groups 1 and 2 over 7 vectors
// from zero, each shifted into the sums.
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[G1:.*]]:7 = scf.for
// CHECK: vector.shuffle %[[G1]]#0, %[[G1]]#1 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] : vector<16xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[G1]]#5, %[[G1]]#6 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
// CHECK: %[[G2:.*]]:7 = scf.for
// CHECK: vector.shuffle %[[G2]]#0, %[[G2]]#1 [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
// Without (`never`): one group, taps at c * 144 + ky * 16 + kx, in
// column order; planes of 9 rows there too (the taps' 2 columns of slack).
// NEVER-DAG: memref.global "private" constant @__dlas_sparse_slabs : memref<4xi32> = dense<[0, 2, 2, 4]>
// NEVER-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[0, 177, 18, 161]>
// NEVER-LABEL: func.func @shifted
// NEVER-NOT: vector.shuffle
// 8 lanes (AVX2): the same groups; planes of 9 rows (the last tile reads
// only the vectors its 96 outputs need: 12 of 8), 144 elements; shuffles
// of 8 lanes.
// V3-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[0, 176, 160, 16]>
// V3-LABEL: func.func @shifted
// V3: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x9x16xf32>
// V3: vector.shuffle %{{.*}}, %{{.*}} [1, 2, 3, 4, 5, 6, 7, 8] : vector<8xf32>, vector<8xf32>
// V3: vector.shuffle %{{.*}}, %{{.*}} [2, 3, 4, 5, 6, 7, 8, 9] : vector<8xf32>, vector<8xf32>
// BAD: convert-sparse-to-loops: shift-taps must be auto, always or never, not 'maybe'
func.func @shifted(%x: tensor<1x2x6x14xf32>) -> tensor<1x2x6x14xf32> {
  %d = arith.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x18xf32>
  %w = sparse.pack %d : tensor<2x18xf32> -> tensor<2x18xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x6x14xf32>, tensor<2x18xf32, #CSR>) -> tensor<1x2x6x14xf32>
  return %y : tensor<1x2x6x14xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// Stride 2: phase planes (row phase, column phase) of 8 rows x 16
// (15 + 1 columns), 128 elements each. Tap kx reads column phase kx % 2
// at column shift kx / 2: kx 0 and 1 are group 0, kx 2 group 1. Row 0:
// (ky 0, kx 2) = 1 in group 1 at phase (0, 0); (ky 1, kx 1) = 2 in group 0
// at phase (1, 1), offset 3 * 128. Row 1: (ky 0, kx 0) = 5 and (ky 2, kx
// 1) = 6 (phase (0, 1), row 1: 128 + 16) in group 0, (ky 2, kx 2) = 7 in
// group 1 at 16.
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_slabs : memref<6xi32> = dense<[0, 1, 2, 2, 4, 5]>
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_values : memref<5xf32> = dense<[2.000000e+00, 1.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]>
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<5xi16> = dense<[384, 0, 0, 144, 16]>
// CHECK-LABEL: func.func @strided
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x1x2x2x8x16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
// CHECK-NOT: vector.shuffle %{{.*}}, %{{.*}} [2,
// CHECK: return
func.func @strided(%x: tensor<1x1x12x30xf32>) -> tensor<1x2x6x15xf32> {
  %d = arith.constant dense<[[0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0],
                              [5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0, 7.0]]> : tensor<2x9xf32>
  %w = sparse.pack %d : tensor<2x9xf32> -> tensor<2x9xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x1x12x30xf32>, tensor<2x9xf32, #CSR>) -> tensor<1x2x6x15xf32>
  return %y : tensor<1x2x6x15xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A 7x7 map: rows of 9 columns would become 16 (1.8x the positions), so
// auto keeps them unshifted (taps at ky * 9 + kx); `always` rounds them
// up and shifts.
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[1, 19]>
// CHECK-LABEL: func.func @small_map
// CHECK-NOT: vector.shuffle
// CHECK: return
// ALWAYS-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[0, 32]>
// ALWAYS-LABEL: func.func @small_map
// ALWAYS: memref.alloc() {alignment = 64 : i64} : memref<1x2x112xf32>
// ALWAYS: vector.shuffle
func.func @small_map(%x: tensor<1x1x7x7xf32>) -> tensor<1x2x7x7xf32> {
  %d = arith.constant dense<[[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]]> : tensor<2x9xf32>
  %w = sparse.pack %d : tensor<2x9xf32> -> tensor<2x9xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x1x7x7xf32>, tensor<2x9xf32, #CSR>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

#BSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 floordiv 2 : compressed, d1 mod 2 : dense)}>

// Blocks two columns wide hold two taps of different shifts: no register
// shifts, even with `always`.
// ALWAYS-LABEL: func.func @wide_blocks
// ALWAYS-NOT: vector.shuffle
// ALWAYS: return
func.func @wide_blocks(%x: tensor<1x2x6x14xf32>) -> tensor<1x2x6x14xf32> {
  %d = arith.constant dense<[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x18xf32>
  %w = sparse.pack %d : tensor<2x18xf32> -> tensor<2x18xf32, #BSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x6x14xf32>, tensor<2x18xf32, #BSR>) -> tensor<1x2x6x14xf32>
  return %y : tensor<1x2x6x14xf32>
}
