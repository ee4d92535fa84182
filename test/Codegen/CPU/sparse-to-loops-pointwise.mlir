// convert-sparse-to-loops: a 1x1 stride-1 unpadded convolution whose map
// is one tile that is not whole vectors of a 16-lane target (ResNet-50's
// 7x7 maps) runs on the 1 x HW map: input and shortcut collapsed to one
// row, that row copied whole vectors wide (49 -> 64: every channel's plane
// on the vector grid, so every load is aligned), the result expanded back.
// Larger maps (several tiles), a 1x1 map and 8-lane targets keep their
// layout.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=16 vector-registers=32" --canonicalize --cse | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --convert-sparse-to-loops --canonicalize --cse | FileCheck %s --check-prefix=V3

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// Input channel c's row starts at c * 64: the taps' offsets are 64, 0,
// 128 (weights (0, 1), (1, 0), (1, 2)); 4 vectors per output channel.
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<3xi16> = dense<[64, 0, 128]>
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x7x7xf32>, %[[R:.*]]: tensor<?x2x7x7xf32>)
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : tensor<?x3x7x7xf32> into tensor<?x3x49xf32>
// CHECK: %[[XR:.*]] = tensor.expand_shape %[[XC]] {{.*}} : tensor<?x3x49xf32> into tensor<?x3x1x49xf32>
// CHECK: %[[RC:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1], [2, 3]] : tensor<?x2x7x7xf32> into tensor<?x2x49xf32>
// CHECK: %[[RR:.*]] = tensor.expand_shape %[[RC]] {{.*}} : tensor<?x2x49xf32> into tensor<?x2x1x49xf32>
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[XR]] read_only
// CHECK: %[[P:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3x1x1x1x64xf32>
// CHECK: scf.parallel (%[[N:.*]], %[[C:.*]]) =
// Columns 49-63 zeroed, then the row as vectors at 0, 16, 32 and 33.
// CHECK: memref.store %{{.*}}, %[[P]][%[[N]], %[[C]], %c0, %c0, %c0, %c49]
// CHECK: memref.store %{{.*}}, %[[P]][%[[N]], %[[C]], %c0, %c0, %c0, %c63]
// CHECK: vector.load %[[XB]][%[[N]], %[[C]], %c0, %c0] : memref<?x3x1x49xf32>, vector<16xf32>
// CHECK: vector.load %[[XB]][%[[N]], %[[C]], %c0, %c16]
// CHECK: vector.load %[[XB]][%[[N]], %[[C]], %c0, %c32]
// CHECK: vector.load %[[XB]][%[[N]], %[[C]], %c0, %c33]
// CHECK: vector.store %{{.*}}, %[[P]][%[[N]], %[[C]], %c0, %c0, %c0, %c33]
// CHECK: tensor.pad %[[RR]] low[0, 0, 0, 0] high[0, 0, 0, 15]
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
// CHECK: %[[OUT:.*]] = tensor.expand_shape %{{.*}} : tensor<?x2x64xf32> into tensor<?x2x1x64xf32>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][0, 0, 0, 0] [%{{.*}}, 2, 1, 49] [1, 1, 1, 1]
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[SLICE]] {{\[\[}}0], [1], [2, 3]] : tensor<?x2x1x49xf32> into tensor<?x2x49xf32>
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[ROWS]] {{.*}} : tensor<?x2x49xf32> into tensor<?x2x7x7xf32>
// CHECK: return %[[Y]]
// 8 lanes: 7 rows of 7 (the map as it is, copied to planes of 8 rows).
// V3-LABEL: func.func @pointwise
// V3-NOT: tensor<?x3x1x49xf32>
// V3: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3x1x1x8x7xf32>
func.func @pointwise(%x: tensor<?x3x7x7xf32>, %r: tensor<?x2x7x7xf32>) -> tensor<?x2x7x7xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 1, 0, 2>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x3xf32, #CSR>
  %y = sparse.conv2d %x, %w, residual %r {kernel_size = array<i64: 1, 1>, relu}
      : (tensor<?x3x7x7xf32>, tensor<2x3xf32, #CSR>, tensor<?x2x7x7xf32>) -> tensor<?x2x7x7xf32>
  return %y : tensor<?x2x7x7xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 14x14 (196 positions, several tiles): read in place from the input.
// CHECK-LABEL: func.func @several_tiles
// CHECK-NOT: tensor.expand_shape
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<1x3x14x14xf32> into tensor<1x588xf32>
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x3x
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x2x196xf32>
func.func @several_tiles(%x: tensor<1x3x14x14xf32>) -> tensor<1x2x14x14xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 1, 0, 2>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x3xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>}
      : (tensor<1x3x14x14xf32>, tensor<2x3xf32, #CSR>) -> tensor<1x2x14x14xf32>
  return %y : tensor<1x2x14x14xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// 4x8 (32 positions, whole vectors) and stride 2: unchanged.
// CHECK-LABEL: func.func @whole_vectors
// CHECK-NOT: tensor<1x3x1x32xf32>
// CHECK: return
// CHECK-LABEL: func.func @strided
// CHECK-NOT: tensor.expand_shape %{{.*}} : tensor<1x3x{{[0-9]+}}xf32> into tensor<1x3x1x
// CHECK: return
func.func @whole_vectors(%x: tensor<1x3x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 1, 0, 2>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x3xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>}
      : (tensor<1x3x4x8xf32>, tensor<2x3xf32, #CSR>) -> tensor<1x2x4x8xf32>
  return %y : tensor<1x2x4x8xf32>
}
func.func @strided(%x: tensor<1x3x13x13xf32>) -> tensor<1x2x7x7xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 1, 0, 2>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x3xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<1x3x13x13xf32>, tensor<2x3xf32, #CSR>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A 1x1 map (a squeeze-excitation block's): one position, read in place
// as a gathered dot product, not copied into a row of 16.
// CHECK-LABEL: func.func @one_position
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<2x37x
// CHECK: vector.gather
// CHECK: return
func.func @one_position(%x: tensor<2x37x1x1xf32>) -> tensor<2x12x1x1xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3>, coordinates = array<i32: 1, 0, 2>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<12x37xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>}
      : (tensor<2x37x1x1xf32>, tensor<12x37xf32, #CSR>) -> tensor<2x12x1x1xf32>
  return %y : tensor<2x12x1x1xf32>
}
