// convert-sparse-to-loops{align-taps}: on 16-lane targets a tap off the
// vector grid (a column shift kx, a row of a plane not a whole number of
// vectors wide) makes every load of a full tile split a cache line. With
// aligned taps the planes' rows (OW's columns) are rounded up to whole
// vectors and each plane is followed by copies of itself shifted left by
// 1, ..., colShift columns, so tap (c, ky, kx) reads copy kx at offset
// ky * rowWidth: every offset is a multiple of the lanes.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never align-taps=auto shift-taps=never" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never shift-taps=never" --canonicalize --cse | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never align-taps=always shift-taps=never" --canonicalize --cse | FileCheck %s --check-prefix=ALWAYS
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops="align-taps=auto shift-taps=never" --canonicalize --cse | FileCheck %s --check-prefix=V3
// RUN: not dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 align-taps=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 3x3, padding 1, 2 channels of 6x14: rows of 14 columns rounded up to 16,
// 8 plane rows (6 vectors of outputs and the taps' two rows of slack; the
// copies need no column slack), planes of 128 elements, three copies each.
// Row 0 holds (c 0, ky 0, kx 0) and (c 1, ky 2, kx 1), row 1 (c 0, ky 1,
// kx 2) and (c 1, ky 1, kx 1): offsets (c * 3 + kx) * 128 + ky * 16.
// CHECK-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[0, 544, 272, 528]>
// CHECK-LABEL: func.func @aligned
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x3x8x16xf32>
// CHECK: scf.parallel (%[[C:.*]]) =
// Copy 0 holds the padded rows (X's column 0 at column 1), copy 1 X's
// columns from column 0 and zeros from column 14, copy 2 from X's column
// 1, zeros from column 13: each copy row by row from X.
// CHECK: %[[X0:.*]] = tensor.extract %{{.*}}[%c0, %[[C]], %{{.*}}, %c0]
// CHECK: memref.store %[[X0]], %[[P]][%c0, %[[C]], %c0, %c0, %c0, %{{.*}}, %c1]
// CHECK: memref.store %{{.*}}, %[[P]][%c0, %[[C]], %c0, %c0, %c1, %{{.*}}, %c14]
// CHECK: %[[X1:.*]] = tensor.extract %{{.*}}[%c0, %[[C]], %{{.*}}, %c0]
// CHECK: memref.store %[[X1]], %[[P]][%c0, %[[C]], %c0, %c0, %c1, %{{.*}}, %c0]
// CHECK: memref.store %{{.*}}, %[[P]][%c0, %[[C]], %c0, %c0, %c2, %{{.*}}, %c13]
// CHECK: %[[X2:.*]] = tensor.extract %{{.*}}[%c0, %[[C]], %{{.*}}, %c1]
// CHECK: memref.store %[[X2]], %[[P]][%c0, %[[C]], %c0, %c0, %c2, %{{.*}}, %c0]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3, 4, 5, 6]] : tensor<1x2x1x1x3x8x16xf32> into tensor<1x768xf32>
// Without (`never`, the default): one plane per channel, offsets c * 144
// + ky * 16 + kx.
// NEVER-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[0, 177, 18, 161]>
// NEVER: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x9x16xf32>
// NEVER-NOT: memref.collapse_shape
// 8 lanes (AVX2): auto leaves them unaligned (planes of 9 rows there too:
// the 6 output rows' 96 positions, whole vectors of 8, and the taps'
// slack; offsets c * 144 + ky * 16 + kx).
// V3-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<4xi16> = dense<[0, 177, 18, 161]>
// V3: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x9x16xf32>
// BAD: convert-sparse-to-loops: align-taps must be auto, always or never, not 'sometimes'
func.func @aligned(%x: tensor<1x2x6x14xf32>) -> tensor<1x2x6x14xf32> {
  %d = arith.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x18xf32>
  %w = sparse.pack %d : tensor<2x18xf32> -> tensor<2x18xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x6x14xf32>, tensor<2x18xf32, #CSR>) -> tensor<1x2x6x14xf32>
  return %y : tensor<1x2x6x14xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A 7x7 map: rows of 9 columns would become 16 (1.8x the positions), so
// auto keeps them: taps (ky 0, kx 1) and (ky 2, kx 1) at ky * 9 + kx.
// `always` rounds them up (16-column rows, planes of 9 rows: 144
// elements) and reads copy kx at (c * 3 + kx) * 144 + ky * 16, computing
// 7 rows of 16 outputs.
// CHECK-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[1, 19]>
// CHECK-LABEL: func.func @small_map
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x1x1x1x10x9xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x63xf32>
// ALWAYS-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[144, 176]>
// ALWAYS-LABEL: func.func @small_map
// ALWAYS: memref.alloc() {alignment = 64 : i64} : memref<1x1x1x1x3x9x16xf32>
// ALWAYS: memref.alloc() {alignment = 64 : i64} : memref<1x2x112xf32>
func.func @small_map(%x: tensor<1x1x7x7xf32>) -> tensor<1x2x7x7xf32> {
  %d = arith.constant dense<[[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]]> : tensor<2x9xf32>
  %w = sparse.pack %d : tensor<2x9xf32> -> tensor<2x9xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x1x7x7xf32>, tensor<2x9xf32, #CSR>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}
