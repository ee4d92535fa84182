// convert-sparse-to-loops stores a layer's input offsets in 16 bits where
// every one fits (below 65536), zero-extended as they are read (16-bit
// offsets from 32768 up are negative as i16), and in 32 bits otherwise or
// with narrow-offsets=false. A tile of one position in CSR (a batch-1
// linear layer) takes a row's non-zeros a vector at a time: offsets and
// values loaded as vectors, the inputs gathered, the last group masked,
// the lanes summed (gather=false: one 1-lane FMA per non-zero).
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=8 vector-registers=16" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=8 vector-registers=16 narrow-offsets=false" | FileCheck %s --check-prefix=WIDE
// RUN: dlas-opt %s --split-input-file --convert-sparse-to-loops="vector-width=8 vector-registers=16 gather=false" | FileCheck %s --check-prefix=NOGATHER

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// Batch 1, 40000 features: the offsets are the columns, the largest
// 39999 (as an i16: -25537).
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<3xi16> = dense<[5, -25537, 0]>
// CHECK-LABEL: func.func @narrow
// CHECK: %[[X:.*]] = bufferization.to_buffer %arg0
// CHECK: scf.for {{.*}} step %c8 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK:   %[[O:.*]] = vector.load %{{.*}} : memref<3xi16>, vector<8xi16>
// CHECK:   %[[O32:.*]] = arith.extui %[[O]] : vector<8xi16> to vector<8xi32>
// CHECK:   %[[W:.*]] = vector.load %{{.*}} : memref<3xf32>, vector<8xf32>
// CHECK:   %[[G:.*]] = vector.gather %[[X]][%{{.*}}, %{{.*}}] [%[[O32]]]
// CHECK:   vector.fma %[[W]], %[[G]]
// CHECK: %[[M:.*]] = vector.create_mask %{{.*}} : vector<8xi1>
// CHECK: vector.maskedload %{{.*}}, %[[M]], %{{.*}} : memref<3xi16>, vector<8xi1>, vector<8xi16> into vector<8xi16>
// CHECK: vector.gather %[[X]]{{.*}}, %[[M]]
// CHECK: vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// WIDE-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<3xi32> = dense<[5, 39999, 0]>
// WIDE-LABEL: func.func @narrow
// WIDE-NOT: arith.extui
// WIDE: %[[O:.*]] = vector.load %{{.*}} : memref<3xi32>, vector<8xi32>
// WIDE: vector.gather {{.*}} [%[[O]]]
// NOGATHER-LABEL: func.func @narrow
// NOGATHER-NOT: vector.gather
// NOGATHER: %[[OFFSET:.*]] = memref.load %{{.*}} : memref<3xi16>
// NOGATHER: arith.index_castui %[[OFFSET]] : i16 to index
// NOGATHER: vector.fma {{.*}} : vector<1xf32>
func.func @narrow(%x: tensor<1x40000xf32>) -> tensor<1x2xf32> {
  %w = sparse.constant {positions = array<i32: 0, 2, 3>, coordinates = array<i32: 5, 39999, 0>,
                        values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<2x40000xf32, #CSR>
  %y = sparse.linear %x, %w : (tensor<1x40000xf32>, tensor<2x40000xf32, #CSR>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>

// Batch 16: offsets are column * 16, the largest 4100 * 16 = 65600: all
// 32-bit; 16 positions, so no gathers.
// CHECK-DAG: memref.global "private" constant @__dlas_sparse_offsets : memref<2xi32> = dense<[16, 65600]>
// CHECK-LABEL: func.func @wide
// CHECK-NOT: vector.gather
// CHECK: %[[OFFSET:.*]] = memref.load %{{.*}} : memref<2xi32>
// CHECK: arith.index_cast %[[OFFSET]] : i32 to index
func.func @wide(%x: tensor<16x4101xf32>) -> tensor<16x1xf32> {
  %w = sparse.constant {positions = array<i32: 0, 2>, coordinates = array<i32: 1, 4100>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<1x4101xf32, #CSR>
  %y = sparse.linear %x, %w : (tensor<16x4101xf32>, tensor<1x4101xf32, #CSR>) -> tensor<16x1xf32>
  return %y : tensor<16x1xf32>
}

// -----

#BSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 2 : dense, d1 : compressed, d0 mod 2 : dense)}>

// 2x1 blocks at batch 1: one 1-lane FMA per stored block and row, no
// gathers (they take CSR only).
// CHECK-LABEL: func.func @blocks
// CHECK-NOT: vector.gather
// CHECK: vector.fma {{.*}} : vector<1xf32>
func.func @blocks(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %w = sparse.constant {positions = array<i32: 0, 1>, coordinates = array<i32: 3>,
                        values = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2x8xf32, #BSR>
  %y = sparse.linear %x, %w : (tensor<1x8xf32>, tensor<2x8xf32, #BSR>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
