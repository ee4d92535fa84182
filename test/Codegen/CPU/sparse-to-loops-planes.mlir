// convert-sparse-to-loops: the padded phase planes a copied input becomes,
// in one pass (PhasePlaneCopier): zero rows where a plane row is padding,
// zero columns left and right of those the input has, and between them
// vector copies, each a load of stride x lanes elements and a lane
// shuffle; the last vector of a row loads the input row's last elements
// instead of reading past its end.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32 align-taps=never" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops --canonicalize --cse | FileCheck %s --check-prefix=V3

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 3x3 stride 2, padding 1, 12x40 -> 6x20: 2 x 2 planes of 8 rows (6 and
// the tile's slack) x 21 columns (20 + the column shift). Plane (0, 0)
// reads input rows 2r - 1 (rows 1-6 of the plane) and columns 2q - 1
// (columns 1-20): column 0 is padding, a vector from column 1 of the
// input, and the last vector (plane columns 5-20) would read input
// columns 9-40, past the row: it loads columns 8-39 and keeps the odd
// lanes. Plane (0, 1) reads columns 2q (plane columns 0-19; 20 is
// padding): from 0 and, last, from 8 (8-39 ends at the row's end: even
// lanes). Planes (1, x) read rows 2r (rows 0-5; 6-7 are slack).
// CHECK-LABEL: func.func @planes
// CHECK: %[[X:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x2x2x8x21xf32>
// Plane (0, 0): padding rows 0 and 7, then rows 1-6.
// CHECK: vector.store %[[ZEROS:.*]], %[[P]][%c0, %c0, %c0, %c0, %c0, %c0]
// CHECK: vector.store %[[ZEROS]], %[[P]][%c0, %c0, %c0, %c0, %c7, %c5]
// CHECK: scf.for %[[R:.*]] = %c1 to %c7 step %c1 {
// CHECK:   %[[R2:.*]] = arith.muli %[[R]], %c2
// CHECK:   %[[ROW:.*]] = arith.addi %[[R2]], %c-1
// CHECK:   memref.store %{{.*}}, %[[P]][%c0, %c0, %c0, %c0, %[[R]], %c0]
// CHECK:   %[[A:.*]] = vector.load %[[X]][%c0, %c0, %[[ROW]], %c1] : memref<1x1x12x40xf32>, vector<32xf32>
// CHECK:   %[[AS:.*]] = vector.shuffle %[[A]], %[[A]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:   vector.store %[[AS]], %[[P]][%c0, %c0, %c0, %c0, %[[R]], %c1]
// CHECK:   %[[B:.*]] = vector.load %[[X]][%c0, %c0, %[[ROW]], %c8] : memref<1x1x12x40xf32>, vector<32xf32>
// CHECK:   %[[BS:.*]] = vector.shuffle %[[B]], %[[B]] [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
// CHECK:   vector.store %[[BS]], %[[P]][%c0, %c0, %c0, %c0, %[[R]], %c5]
// CHECK: }
// Plane (0, 1): column 20 is padding.
// CHECK: scf.for %[[R:.*]] = %c1 to %c7 step %c1 {
// CHECK:   memref.store %{{.*}}, %[[P]][%c0, %c0, %c0, %c1, %[[R]], %c20]
// CHECK:   vector.load %[[X]][%c0, %c0, %{{.*}}, %c0] : memref<1x1x12x40xf32>, vector<32xf32>
// CHECK:   vector.load %[[X]][%c0, %c0, %{{.*}}, %c8] : memref<1x1x12x40xf32>, vector<32xf32>
// CHECK:   vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:   vector.store {{.*}}, %[[P]][%c0, %c0, %c0, %c1, %[[R]], %c4]
// CHECK: }
// Planes (1, x): slack rows 6-7, then rows 0-5.
// CHECK: scf.for %{{.*}} = %c6 to %c8 step %c1 {
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1 {
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[P]] restrict writable
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3, 4, 5]] : tensor<1x1x2x2x8x21xf32> into tensor<1x672xf32>
// 8 lanes (AVX2): plane (0, 0)'s 20 columns as vectors at 1 and 9, and
// the last at 13 (input columns 25-40 -> loads 24-39, odd lanes).
// V3-LABEL: func.func @planes
// V3: scf.for
// V3: vector.load {{.*}}, %c1] : memref<1x1x12x40xf32>, vector<16xf32>
// V3: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14]
// V3: vector.load {{.*}}, %c17] : memref<1x1x12x40xf32>, vector<16xf32>
// V3: vector.load {{.*}}, %c24] : memref<1x1x12x40xf32>, vector<16xf32>
// V3: vector.shuffle {{.*}} [1, 3, 5, 7, 9, 11, 13, 15]
// V3: vector.store {{.*}}, %c13] : memref<1x1x2x2x8x21xf32>, vector<8xf32>
func.func @planes(%x: tensor<1x1x12x40xf32>) -> tensor<1x2x6x20xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 4, 8>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2x9xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x1x12x40xf32>, tensor<2x9xf32, #CSR>) -> tensor<1x2x6x20xf32>
  return %y : tensor<1x2x6x20xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// Stride 1, padding 1, rows of 2 x 150 inputs: plane rows 152 wide
// (160 with register shifts) whose 150 input columns are copied by a loop
// over 9 vectors of 16 (no shuffle) and a last one at plane column 135
// (input column 134), in parallel over images, bands and channels. The
// kernel has 7 tiles of 128 positions, so the copy has 7 bands, band b
// starting at plane row min(b * 128 / 160, 8), the last ending at row 8;
// each band zeroes its rows above row 1 and from row 6 on, and copies
// those between. The kernel's iterations are tile-major.
// CHECK-LABEL: func.func @wide
// CHECK: scf.parallel (%[[N:.*]], %[[B:.*]], %[[C:.*]]) = (%c0, %c0, %c0) to (%c2, %c7, %c3)
// CHECK: %[[SCALED:.*]] = arith.muli %[[B]], %c128
// CHECK: %[[ROW:.*]] = arith.divui %[[SCALED]], %c160
// CHECK: %[[BEGIN:.*]] = arith.minsi %[[ROW]], %c8
// CHECK: %[[NEXT:.*]] = arith.addi %[[B]], %c1
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[NEXT]], %c7
// CHECK: %[[NEXT_SCALED:.*]] = arith.muli %[[NEXT]], %c128
// CHECK: %[[NEXT_ROW:.*]] = arith.divui %[[NEXT_SCALED]], %c160
// CHECK: %[[NEXT_BEGIN:.*]] = arith.minsi %[[NEXT_ROW]], %c8
// CHECK: %[[END:.*]] = arith.select %[[LAST]], %c8, %[[NEXT_BEGIN]]
// CHECK: %[[TOP:.*]] = arith.minsi %[[END]], %c1
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %[[TOP]] step %c1 {
// CHECK: %[[BOTTOM:.*]] = arith.maxsi %[[BEGIN]], %c6
// CHECK: scf.for %{{.*}} = %[[BOTTOM]] to %[[END]] step %c1 {
// CHECK: %[[FIRST:.*]] = arith.maxsi %[[BEGIN]], %c1
// CHECK: %[[STOP:.*]] = arith.minsi %[[END]], %c6
// CHECK: scf.for %[[R:.*]] = %[[FIRST]] to %[[STOP]] step %c1 {
// CHECK:   scf.for %[[Q:.*]] = %c1 to %c145 step %c16 {
// CHECK:     %[[COL:.*]] = arith.addi %[[Q]], %c-1
// CHECK:     %[[V:.*]] = vector.load %{{.*}}[%[[N]], %[[C]], %{{.*}}, %[[COL]]] : memref<2x3x5x150xf32>, vector<16xf32>
// CHECK-NOT: vector.shuffle
// CHECK:     vector.store %[[V]], %{{.*}}[%[[N]], %[[C]], %c0, %c0, %[[R]], %[[Q]]]
// CHECK:   }
// CHECK:   vector.load %{{.*}}[%[[N]], %[[C]], %{{.*}}, %c134] : memref<2x3x5x150xf32>, vector<16xf32>
// CHECK: scf.parallel (%{{.*}}, %[[TILE:.*]], %[[CHUNK:.*]]) = (%c0, %c0, %c0) to (%c2, %c7, %c2)
// CHECK:   arith.muli %[[TILE]], %c128
// CHECK:   arith.cmpi eq, %[[TILE]], %c6
// CHECK:   memref.load %{{.*}}[%[[CHUNK]]] : memref<3xi32>
func.func @wide(%x: tensor<2x3x5x150xf32>) -> tensor<2x2x5x150xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 4, 20>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2x27xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<2x3x5x150xf32>, tensor<2x27xf32, #CSR>) -> tensor<2x2x5x150xf32>
  return %y : tensor<2x2x5x150xf32>
}
