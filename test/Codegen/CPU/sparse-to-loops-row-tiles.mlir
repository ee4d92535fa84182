// convert-sparse-to-loops: row tiles. Where the output rows are whole
// vectors wide but the planes' rows are wider (here 72 outputs in rows of
// 74: a 3x3 layer's two shift columns), tiles stop at each row's end, so
// that no column past the output's is computed and the output (and the
// shortcut) is stored compact: no slice afterwards.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops=shift-taps=never --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --convert-sparse-to-loops="vector-width=16 vector-registers=32 align-taps=never shift-taps=never" --canonicalize --cse | FileCheck %s --check-prefix=FLAT
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops="shift-taps=never weight-chunk-bytes=8" --canonicalize --cse | FileCheck %s --check-prefix=CHUNKED
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops="shift-taps=never weight-chunk-bytes=0" --canonicalize --cse | FileCheck %s
// RUN: not dlas-opt %s --convert-sparse-to-loops="vector-width=8 vector-registers=16 weight-chunk-bytes=-2" 2>&1 | FileCheck %s --check-prefix=BAD

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 8 lanes: a row is 9 vectors, at most 8 per tile (CSR): two tiles per
// row, of 5 and 4 vectors; 4 rows, 8 tiles. Tile t is row t / 2, from
// column 40 * (t mod 2): it reads the planes from 74 * row + column and
// stores (and reads the shortcut) at 72 * row + column. The planes are
// copied in 8 bands, band t from plane row t / 2 (the tile's row), and the
// kernel's iterations are tile-major (8 tiles, then 2 chunks), so that a
// thread reads the rows it copied.
// CHECK-LABEL: func.func @row_tiles
// CHECK: scf.parallel (%[[BAND:.*]]) = (%c0) to (%c8)
// CHECK:   arith.divui %[[BAND]], %c2
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x288xf32>
// CHECK: %[[R:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<1x2x288xf32>
// CHECK: scf.parallel (%[[T:.*]], %{{.*}}) = (%c0, %c0) to (%c8, %c2)
// CHECK:   %[[ROW:.*]] = arith.divui %[[T]], %c2
// CHECK:   %[[J:.*]] = arith.remui %[[T]], %c2
// CHECK:   %[[COL:.*]] = arith.muli %[[J]], %c40
// CHECK:   %[[IN_ROW:.*]] = arith.muli %[[ROW]], %c74
// CHECK:   %[[IN:.*]] = arith.addi %[[IN_ROW]], %[[COL]]
// CHECK:   %[[OUT_ROW:.*]] = arith.muli %[[ROW]], %c72
// CHECK:   %[[AT:.*]] = arith.addi %[[OUT_ROW]], %[[COL]]
// CHECK:   %[[LAST:.*]] = arith.cmpi eq, %[[J]], %c1
// CHECK:   scf.if %[[LAST]] {
// CHECK:     scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK:       arith.addi %{{.*}}, %[[IN]]
// CHECK-COUNT-4: vector.fma
// CHECK:     vector.load %[[R]][%c0, %{{.*}}, %[[AT]]]
// CHECK:     vector.store %{{.*}}, %[[OUT]][%c0, %{{.*}}, %[[AT]]]
// CHECK-NOT: vector.maskedstore
// CHECK:   } else {
// CHECK:     scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: vector.maskedstore
// CHECK: %[[Y:.*]] = bufferization.to_tensor %[[OUT]]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 2, 4, 72]
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[E]]
// Weights of 12 bytes (two values, two 16-bit offsets) in chunks of at
// most 8 bytes: 2 chunks, each over all 8 tiles before the next
// (chunk-major), so that a chunk's weights stay in cache across the tiles;
// the copy's bands stay as they were. (By default the chunks hold half the
// target's L2, 256 KB here: the order above.)
// CHUNKED: memref.global "private" constant @__dlas_sparse_chunks : memref<3xi32> = dense<[0, 1, 2]>
// CHUNKED-LABEL: func.func @row_tiles
// CHUNKED: scf.parallel (%[[BAND:.*]]) = (%c0) to (%c8)
// CHUNKED: scf.parallel (%[[C:.*]], %[[T:.*]]) = (%c0, %c0) to (%c2, %c8)
// CHUNKED:   arith.divui %[[T]], %c2
// BAD: convert-sparse-to-loops: weight-chunk-bytes must be -1 (half the L2), 0 (no limit) or a byte count, not -2
// 16 lanes: 72 is not whole vectors; flat tiles over the 74-wide rows,
// the result sliced.
// FLAT-LABEL: func.func @row_tiles
// FLAT: memref.alloc() {alignment = 64 : i64} : memref<1x2x296xf32>
// FLAT: vector.maskedstore
// FLAT: tensor.extract_slice {{.*}} to tensor<1x2x4x72xf32>
func.func @row_tiles(%x: tensor<1x1x4x72xf32>, %r: tensor<1x2x4x72xf32>) -> tensor<1x2x4x72xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 4, 8>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2x9xf32, #CSR>
  %y = sparse.conv2d %x, %w, residual %r {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x1x4x72xf32>, tensor<2x9xf32, #CSR>, tensor<1x2x4x72xf32>) -> tensor<1x2x4x72xf32>
  return %y : tensor<1x2x4x72xf32>
}
