// convert-sparse-to-loops{narrow-taps}: on a 16-lane target a map too
// narrow for register shifts (a 7x7 map's padded rows of 9 would become
// 16) runs on 8-lane vectors over a column-shifted copy of the input per
// tap column, each copy's rows OW rounded up to 8: every load is aligned.
// `auto` takes it where the weight is at most 20% dense (denser weights
// read most of the tripled input per row).
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=never" --canonicalize --cse | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=always" --canonicalize --cse | FileCheck %s --check-prefix=ALWAYS
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops="narrow-taps=always" --canonicalize --cse | FileCheck %s --check-prefix=V3
// RUN: not dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 narrow-taps=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 2 of 18 weights stored (11%). Rows of 8 columns, 9 plane rows (56
// outputs and the taps' two rows of slack): planes of 72 elements, three
// copies per channel. Tap (c, ky, kx) reads copy kx at (c * 3 + kx) * 72
// + ky * 8: (c 0, ky 0, kx 1) 72 and (c 1, ky 2, kx 2) 376.
// CHECK-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[72, 376]>
// CHECK-LABEL: func.func @narrow
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x3x9x8xf32>
// CHECK: scf.parallel (%[[C:.*]]) =
// Copy 0 holds the padded rows (X's column 0 at column 1), copy 1 X's
// columns from column 0, copy 2 from X's column 1 (zeros from column 6).
// CHECK: %[[X0:.*]] = tensor.extract %{{.*}}[%c0, %[[C]], %{{.*}}, %c0] : tensor<1x2x7x7xf32>
// CHECK: memref.store %[[X0]], %[[P]][%c0, %[[C]], %c0, %c0, %c0, %{{.*}}, %c1]
// CHECK: %[[X1:.*]] = tensor.extract %{{.*}}[%c0, %[[C]], %{{.*}}, %c0] : tensor<1x2x7x7xf32>
// CHECK: memref.store %[[X1]], %[[P]][%c0, %[[C]], %c0, %c0, %c1, %{{.*}}, %c0]
// CHECK: memref.store %{{.*}}, %[[P]][%c0, %[[C]], %c0, %c0, %c2, %{{.*}}, %c7]
// CHECK: %[[X2:.*]] = tensor.extract %{{.*}}[%c0, %[[C]], %{{.*}}, %c1] : tensor<1x2x7x7xf32>
// CHECK: memref.store %[[X2]], %[[P]][%c0, %[[C]], %c0, %c0, %c2, %{{.*}}, %c0]
// The kernel: 7 vectors of 8 lanes, one per output row.
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x56xf32>
// CHECK-COUNT-7: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: vector<16xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 2, 7, 8] : tensor<1x2x56xf32> into tensor<1x2x7x8xf32>
// Without: planes of 10 rows of 9, offsets c * 90 + ky * 9 + kx.
// NEVER-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[1, 110]>
// NEVER: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x10x9xf32>
// NEVER: vector<16xf32>
// 8 lanes (AVX2) have no half width of 8 lanes: unaligned rows of 9 there.
// V3-LABEL: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi16> = dense<[1, 110]>
// V3-NOT: vector<4xf32>
// BAD: convert-sparse-to-loops: narrow-taps must be auto, always or never, not 'sometimes'
func.func @narrow(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x7x7xf32> {
  %d = arith.constant dense<[[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]]> : tensor<2x18xf32>
  %w = sparse.pack %d : tensor<2x18xf32> -> tensor<2x18xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x7x7xf32>, tensor<2x18xf32, #CSR>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 9 of 36 stored (25%): auto keeps the 16-lane tiles; `always` narrows.
// CHECK-LABEL: func.func @dense_enough
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x10x9xf32>
// CHECK: vector<16xf32>
// ALWAYS-LABEL: func.func @dense_enough
// ALWAYS: memref.alloc() {alignment = 64 : i64} : memref<1x2x1x1x3x9x8xf32>
// ALWAYS-NOT: vector<16xf32>
func.func @dense_enough(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x7x7xf32> {
  %d = arith.constant dense<[[1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0]]> : tensor<2x18xf32>
  %w = sparse.pack %d : tensor<2x18xf32> -> tensor<2x18xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x7x7xf32>, tensor<2x18xf32, #CSR>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A 14x14 map's rows of 16 are whole vectors: register shifts, not narrow
// taps (auto); a 1x1 layer has no tap off the grid (even `always`).
// CHECK-LABEL: func.func @wide_and_pointwise
// CHECK-NOT: vector<8xf32>
// CHECK: return
// ALWAYS-LABEL: func.func @wide_and_pointwise
// ALWAYS: memref<1x2x1x1x3x{{[0-9]+}}x16xf32>
// ALWAYS: return
func.func @wide_and_pointwise(%x: tensor<1x2x14x14xf32>) -> tensor<1x2x14x14xf32> {
  %d = arith.constant dense<[[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]]> : tensor<2x18xf32>
  %w = sparse.pack %d : tensor<2x18xf32> -> tensor<2x18xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x14x14xf32>, tensor<2x18xf32, #CSR>) -> tensor<1x2x14x14xf32>
  %e = arith.constant dense<[[0.0, 1.0], [3.0, 0.0]]> : tensor<2x2xf32>
  %v = sparse.pack %e : tensor<2x2xf32> -> tensor<2x2xf32, #CSR>
  %z = sparse.conv2d %y, %v {kernel_size = array<i64: 1, 1>}
      : (tensor<1x2x14x14xf32>, tensor<2x2xf32, #CSR>) -> tensor<1x2x14x14xf32>
  return %z : tensor<1x2x14x14xf32>
}
