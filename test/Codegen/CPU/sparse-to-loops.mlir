// convert-sparse-to-loops: the direct sparse kernels, for a pinned vector
// width and register count (the same IR on every machine).
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 slab-channels=1 narrow-taps=never" | FileCheck %s --check-prefix=SLABS
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never" | FileCheck %s --check-prefix=NOPOS
// Weights baked into the code (bake-limit, for measurement: docs/Sparse.md).
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 bake-limit=64 narrow-taps=never" | FileCheck %s --check-prefix=BAKE

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A padded 3x3 convolution, 2 -> 4 channels, 5x5: the input is copied
// (padding; rows narrower than a vector: element by element,
// sparse-to-loops-planes.mlir has the vector copies) into planes 7 wide
// (5 + 2) and 10 rows, enough that the last
// tap of a 48-position tile (3 vectors of 16) stays in its plane: full
// loads; the last (only) tile's third vector stores only the lanes before
// the 35th output, and the 2 extra columns per row are sliced away
// afterwards.
// Offsets: (0,0,2) -> 2; (1,2,2) -> 70 + 2 * 7 + 2 = 86; (0,1,2) -> 9.
// The row positions are in the slab starts (below): no global of their own.
// NOPOS-NOT: __dlas_sparse_positions
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[2, 0, 86, 9]> {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_values : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_chunks : memref<5xi32> = dense<[0, 1, 2, 3, 4]> {alignment = 64 : i64}
// One slab: per row its start and end.
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_slabs : memref<8xi32> = dense<[0, 1, 1, 3, 3, 3, 3, 4]> {alignment = 64 : i64}
// A slab per input channel (9 columns): per row the first block of each
// and the end; after the first slab the accumulators start from the
// stored partial sums, and the ReLU waits for the last.
// SLABS-DAG: memref.global "private" constant @__dlas_sparse_slabs : memref<12xi32> = dense<[0, 1, 1, 1, 2, 3, 3, 3, 3, 3, 4, 4]> {alignment = 64 : i64}
// SLABS-LABEL: func.func @conv
// SLABS: scf.if
// SLABS: vector.broadcast
// SLABS: } else {
// SLABS-COUNT-2: vector.load {{.*}} : memref<1x4x35xf32>
// SLABS: vector.maskedload {{.*}} : memref<1x4x35xf32>
// SLABS: arith.maximumf
// SLABS: arith.select
// CHECK-LABEL: func.func @conv
// CHECK: %[[IN:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK: %[[PLANES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x10x7xf32>
// CHECK: scf.parallel
// CHECK: memref.load %[[IN]]
// CHECK: memref.store {{.*}}, %[[PLANES]]
// CHECK: %[[P:.*]] = bufferization.to_tensor %[[PLANES]] restrict writable
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1, 2, 3, 4, 5]] : tensor<1x2x1x1x10x7xf32> into tensor<1x140xf32>
// CHECK: %[[X:.*]] = bufferization.to_buffer %[[FLAT]] read_only
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x35xf32>
// CHECK: scf.parallel
// CHECK:   scf.if
// CHECK:     scf.for
// CHECK:       scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NOT:     vector.maskedload %[[X]]
// CHECK-COUNT-3: vector.load %[[X]]
// CHECK:         vector.broadcast
// CHECK-COUNT-3: vector.fma
// CHECK:       arith.maximumf
// CHECK:       vector.maskedstore %[[OUT]]
// CHECK:   } else {
// CHECK-COUNT-3: vector.load %[[X]]
// CHECK:       vector.store {{.*}}, %[[OUT]]
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: %[[E:.*]] = tensor.expand_shape %[[T]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 4, 5, 7]
// CHECK: %[[R:.*]] = tensor.extract_slice %[[E]][0, 0, 0, 0] [1, 4, 5, 5] [1, 1, 1, 1]
// CHECK: return %[[R]]
// AVX2: 8 lanes, 5 vectors cover 40 >= 35 positions.
// V3-LABEL: func.func @conv
// V3: memref.alloc() {alignment = 64 : i64} : memref<1x4x35xf32>
// V3: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// Baked: one case per (row, slab) slot with stored blocks (rows 0, 1 and
// 3 of 1 slab: slots 0, 2, 6; row 2 is empty and takes the default), the
// values immediates, the input read at constant offsets from the tile.
// BAKE-LABEL: func.func @conv
// BAKE: scf.index_switch %{{.*}} -> vector<16xf32>, vector<16xf32>, vector<16xf32>
// BAKE: case 0 {
// BAKE: arith.constant dense<1.000000e+00> : vector<16xf32>
// BAKE-COUNT-3: vector.fma
// BAKE: case 2 {
// BAKE: dense<2.000000e+00>
// BAKE: dense<3.000000e+00>
// BAKE: case 6 {
// BAKE: dense<4.000000e+00>
// BAKE: default {
// BAKE: arith.maximumf
func.func @conv(%x: tensor<1x2x5x5xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3, 3, 4>, coordinates = array<i32: 2, 0, 17, 5>,
                        values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4x18xf32, #CSR>
  %y = sparse.conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, relu}
      : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

#BSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 2 : dense, d1 : compressed, d0 mod 2 : dense)}>

// Stride 2: the 8x8 input (no padding) is split into 2 x 2 phase planes
// of 4 x 4 so that every tap reads a contiguous run; 16 outputs, one
// exact tile, no masks. 2 x 1 blocks: each input vector feeds two rows'
// accumulators.
// CHECK-LABEL: func.func @strided_blocks
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x1x2x2x4x4xf32>
// CHECK-NOT: scf.if
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: vector.load
// CHECK-COUNT-2: vector.fma
// CHECK-NOT: arith.maximumf
func.func @strided_blocks(%x: tensor<1x1x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %d = arith.constant dense<[[[[1.0, 0.0], [0.0, 2.0]]], [[[3.0, 0.0], [0.0, 0.0]]]]> : tensor<2x1x2x2xf32>
  %w = sparse.pack %d : tensor<2x1x2x2xf32> -> tensor<2x4xf32, #BSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x1x8x8xf32>, tensor<2x4xf32, #BSR>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A linear layer with a batch of 3 (fewer than the 16 lanes): the batch is
// the flat position of 1-lane vectors; x is transposed, the result back.
// Three 1-lane accumulators are too few chains for the FMA's latency: two
// interleaved sets take the row's stored blocks in pairs, are added, and
// an odd last block goes into the sum.
// CHECK-LABEL: func.func @linear
// CHECK: linalg.transpose ins(%arg0 : tensor<3x4xf32>) {{.*}} permutation = [1, 0]
// CHECK: %[[ODD:.*]] = arith.remui %{{.*}}, %[[TWO:.*]] : index
// CHECK: %[[PAIRED:.*]] = arith.subi %[[END:.*]], %[[ODD]]
// CHECK: %[[SETS:.*]]:6 = scf.for %{{.*}} = %{{.*}} to %[[PAIRED]] step %[[TWO]] iter_args({{.*}}) -> (vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>)
// CHECK-COUNT-6: vector.fma
// CHECK: %[[S0:.*]] = arith.addf %[[SETS]]#0, %[[SETS]]#3
// CHECK: arith.addf %[[SETS]]#1, %[[SETS]]#4
// CHECK: arith.addf %[[SETS]]#2, %[[SETS]]#5
// CHECK: scf.for %{{.*}} = %[[PAIRED]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %[[S0]], {{.*}}) -> (vector<1xf32>, vector<1xf32>, vector<1xf32>)
// CHECK: linalg.transpose ins({{.*}} : tensor<2x3xf32>) {{.*}} permutation = [1, 0]
func.func @linear(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = sparse.constant {positions = array<i32: 0, 2, 3>, coordinates = array<i32: 0, 3, 1>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x4xf32, #CSR>
  %y = sparse.linear %x, %w : (tensor<3x4xf32>, tensor<2x4xf32, #CSR>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// An unpadded stride-1 1x1 convolution reads its input in place (no copy)
// and writes 13 x 13 = 169 outputs straight into the result's memory: a
// full tile of 128 (8 vectors of 16), then a last tile of the 3 vectors
// its 41 positions need, whose third loads 9 lanes (masked at the input's
// end) and stores 9 (masked at the 169 outputs). (On a 7x7 map, one
// masked tile, the input is copied with slack rows instead.)
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2, 3]] : tensor<1x3x13x13xf32> into tensor<1x507xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x169xf32>
// CHECK: scf.if
// CHECK:   scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-COUNT-2: vector.load %{{.*}} : memref<1x507xf32>, vector<16xf32>
// CHECK:     vector.maskedload
// CHECK-COUNT-3: vector.fma
// CHECK-COUNT-2: vector.store
// CHECK:   vector.maskedstore
// CHECK: } else {
// CHECK:   scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: vector.maskedload
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 2, 13, 13]
// CHECK-NOT: tensor.extract_slice
func.func @in_place(%x: tensor<1x3x13x13xf32>) -> tensor<1x2x13x13xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 2, 0, 1>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x3xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>} : (tensor<1x3x13x13xf32>, tensor<2x3xf32, #CSR>) -> tensor<1x2x13x13xf32>
  return %y : tensor<1x2x13x13xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A residual: read at the output's positions and added after the last FMA,
// before the ReLU. A 3x3 padded layer's output rows are two columns wider
// than the result: the shortcut is padded to them first.
// CHECK-LABEL: func.func @residual
// CHECK: %[[R:.*]] = tensor.pad %arg1 low[0, 0, 0, 0] high[0, 0, 0, 2]
// CHECK: %[[RF:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1], [2, 3]] : tensor<1x2x6x8xf32> into tensor<1x2x48xf32>
// CHECK: %[[RB:.*]] = bufferization.to_buffer %[[RF]]
// CHECK: scf.for
// CHECK: vector.fma
// CHECK: %[[SHORTCUT:.*]] = vector.{{(masked)?}}load %[[RB]]
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[SHORTCUT]] : vector<16xf32>
// CHECK: arith.maximumf %[[SUM]]
// SLABS-LABEL: func.func @residual
// SLABS: arith.addf
// SLABS: arith.select
// SLABS: arith.maximumf
func.func @residual(%x: tensor<1x3x6x6xf32>, %r: tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 2, 0, 26>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x27xf32, #CSR>
  %y = sparse.conv2d %x, %w residual %r {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, relu}
      : (tensor<1x3x6x6xf32>, tensor<2x27xf32, #CSR>, tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// An empty batch computes nothing: an empty tensor, no kernel.
// CHECK-LABEL: func.func @empty_batch
// CHECK-NOT: scf.parallel
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x2xf32>
// CHECK: return %[[E]]
func.func @empty_batch(%x: tensor<0x3xf32>) -> tensor<0x2xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 2, 0, 1>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x3xf32, #CSR>
  %y = sparse.linear %x, %w : (tensor<0x3xf32>, tensor<2x3xf32, #CSR>) -> tensor<0x2xf32>
  return %y : tensor<0x2xf32>
}
