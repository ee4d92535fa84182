// convert-sparse-to-loops on a dynamic batch: the image loop and the
// buffers take the batch from the input at run time; every other size,
// and so every offset, is fixed at compile time as for a static batch.
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=8 vector-registers=16" | FileCheck %s

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A padded 3x3 convolution with a shortcut: the phase planes and the
// output are allocated with the run-time batch, both parallel loops run to
// it, and the shortcut (padded to the planes' width) and the result keep
// `?` through the reshapes; the slice takes the batch from the result.
// CHECK-LABEL: func.func @conv
// CHECK: %[[IN:.*]] = bufferization.to_buffer %arg0 read_only : tensor<?x2x5x5xf32> to memref<?x2x5x5xf32>
// CHECK: %[[N:.*]] = memref.dim %[[IN]], %c0
// CHECK: %[[PLANES:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x2x1x1x{{[0-9]+}}x7xf32>
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[N]], %c1, %c2)
// CHECK: tensor.collapse_shape {{.*}} into tensor<?x{{[0-9]+}}xf32>
// CHECK: tensor.pad %arg1 low[0, 0, 0, 0] high[0, 0, 0, 2]
// CHECK: tensor.collapse_shape {{.*}} : tensor<?x4x5x7xf32> into tensor<?x4x35xf32>
// CHECK: %[[X:.*]] = bufferization.to_buffer {{.*}} : tensor<?x{{[0-9]+}}xf32> to memref<?x{{[0-9]+}}xf32>
// CHECK: %[[XN:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[OUT:.*]] = memref.alloc(%[[XN]]) {alignment = 64 : i64} : memref<?x4x35xf32>
// CHECK: %[[ON:.*]] = memref.dim %[[OUT]], %c0
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[ON]],
// CHECK: tensor.expand_shape {{.*}} : tensor<?x4x35xf32> into tensor<?x4x5x7xf32>
// CHECK: %[[RN:.*]] = tensor.dim
// CHECK: tensor.extract_slice {{.*}}[0, 0, 0, 0] [%[[RN]], 4, 5, 5] [1, 1, 1, 1] : tensor<?x4x5x7xf32> to tensor<?x4x5x5xf32>
func.func @conv(%x: tensor<?x2x5x5xf32>, %r: tensor<?x4x5x5xf32>) -> tensor<?x4x5x5xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 1, 3, 4>, coordinates = array<i32: 2, 2, 17, 5>,
                        values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4x18xf32, #CSR>
  %y = sparse.conv2d %x, %w residual %r {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, relu}
      : (tensor<?x2x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<?x4x5x5xf32>) -> tensor<?x4x5x5xf32>
  return %y : tensor<?x4x5x5xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// Row tiles (a 16-wide output: 2 vectors of 8) and a fused max pool: the
// image loop runs to the output's batch.
// CHECK-LABEL: func.func @row_tiles
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x48xf32>
// CHECK: %[[N:.*]] = memref.dim %[[OUT]], %c0
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[N]],
// CHECK-LABEL: func.func @pool
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x4x4xf32>
// CHECK: %[[N:.*]] = memref.dim %[[OUT]], %c0
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[N]],
func.func @row_tiles(%x: tensor<?x1x3x16xf32>) -> tensor<?x2x3x16xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 4, 0>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2x9xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<?x1x3x16xf32>, tensor<2x9xf32, #CSR>) -> tensor<?x2x3x16xf32>
  return %y : tensor<?x2x3x16xf32>
}
func.func @pool(%x: tensor<?x1x8x8xf32>) -> tensor<?x2x4x4xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 0, 0>,
                        values = dense<[1.0, -2.0]> : tensor<2xf32>} : tensor<2x1xf32, #CSR>
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, relu, pool_kernel = array<i64: 2, 2>, pool_strides = array<i64: 2, 2>}
      : (tensor<?x1x8x8xf32>, tensor<2x1xf32, #CSR>) -> tensor<?x2x4x4xf32>
  return %y : tensor<?x2x4x4xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// A linear layer: one sparse matrix-vector product per row of x, read in
// place (no transpose): offsets are the columns themselves (a static
// batch of 3 would be the position, offsets column * 3), one image per
// row, its inputs gathered (sparse-to-loops-offsets.mlir).
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<3xi16> = dense<[1, 0, 3]>
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.transpose
// CHECK: %[[X:.*]] = bufferization.to_buffer %arg0 read_only : tensor<?x4xf32> to memref<?x4xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3x1xf32>
// CHECK: %[[N:.*]] = memref.dim %[[OUT]], %c0
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[N]],
// CHECK: vector.gather %[[X]]{{.*}} : memref<?x4xf32>, vector<8xi32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0], [1, 2]] : tensor<?x3x1xf32> into tensor<?x3xf32>
// CHECK-NOT: linalg.transpose
func.func @linear(%x: tensor<?x4xf32>) -> tensor<?x3xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1, 1, 3>, coordinates = array<i32: 1, 0, 3>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3x4xf32, #CSR>
  %y = sparse.linear %x, %w : (tensor<?x4xf32>, tensor<3x4xf32, #CSR>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
