// Constant-mask stores become unmasked pieces of the enabled lanes on
// targets without AVX-512 (and without a target); AVX-512F keeps masked
// stores of 32/64-bit elements, AVX-512BW those of bytes too.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-split-masked-stores | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: dlas-opt %s --dlas-split-masked-stores | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: dlas-opt %s --dlas-attach-target=target=znver3 --dlas-split-masked-stores | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-split-masked-stores | FileCheck %s --check-prefixes=CHECK,KEEP
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v4 features=-avx512bw" --dlas-split-masked-stores | FileCheck %s --check-prefixes=CHECK,NOBW

// A 7-wide row of an 8-lane vector: 4, 2 and 1 lanes.
// CHECK-LABEL: func @row_of_seven
// SPLIT-NOT: vector.maskedstore
// SPLIT: %[[LO:.*]] = vector.extract_strided_slice %[[V:.*]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// SPLIT: vector.store %[[LO]], %{{.*}}[%{{.*}}, %[[J:.*]]] : memref<7x7xf32>, vector<4xf32>
// SPLIT: %[[MID:.*]] = vector.extract_strided_slice %[[V]] {offsets = [4], sizes = [2], strides = [1]} : vector<8xf32> to vector<2xf32>
// SPLIT: %[[C4:.*]] = arith.constant 4 : index
// SPLIT: %[[J4:.*]] = arith.addi %[[J]], %[[C4]] : index
// SPLIT: vector.store %[[MID]], %{{.*}}[%{{.*}}, %[[J4]]] : memref<7x7xf32>, vector<2xf32>
// SPLIT: %[[HI:.*]] = vector.extract_strided_slice %[[V]] {offsets = [6], sizes = [1], strides = [1]} : vector<8xf32> to vector<1xf32>
// SPLIT: %[[C6:.*]] = arith.constant 6 : index
// SPLIT: %[[J6:.*]] = arith.addi %[[J]], %[[C6]] : index
// SPLIT: vector.store %[[HI]], %{{.*}}[%{{.*}}, %[[J6]]] : memref<7x7xf32>, vector<1xf32>
// SPLIT-NOT: vector.store
// KEEP: vector.maskedstore
// KEEP-NOT: vector.store
// NOBW: vector.maskedstore
func.func @row_of_seven(%y: memref<7x7xf32>, %i: index, %j: index, %v: vector<8xf32>) {
  %mask = arith.constant dense<[true, true, true, true, true, true, true, false]> : vector<8xi1>
  vector.maskedstore %y[%i, %j], %mask, %v : memref<7x7xf32>, vector<8xi1>, vector<8xf32>
  return
}

// A run that starts inside the vector (a left edge): lanes 1..7.
// CHECK-LABEL: func @left_edge
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [1], sizes = [4], strides = [1]}
// SPLIT: arith.constant 1 : index
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [5], sizes = [2], strides = [1]}
// SPLIT: arith.constant 5 : index
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [7], sizes = [1], strides = [1]}
// SPLIT: arith.constant 7 : index
// SPLIT-NOT: vector.maskedstore
// KEEP: vector.maskedstore
func.func @left_edge(%y: memref<64xf32>, %j: index, %v: vector<8xf32>) {
  %mask = arith.constant dense<[false, true, true, true, true, true, true, true]> : vector<8xi1>
  vector.maskedstore %y[%j], %mask, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  return
}

// vector.constant_mask and a vector.create_mask of a constant (the GEMM's
// last column tile) are constant masks too.
// CHECK-LABEL: func @mask_ops
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [1], strides = [1]} : vector<8xf32> to vector<1xf32>
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [2], strides = [1]} : vector<8xf32> to vector<2xf32>
// SPLIT: vector.extract_strided_slice %{{.*}} {offsets = [2], sizes = [1], strides = [1]} : vector<8xf32> to vector<1xf32>
// SPLIT-NOT: vector.maskedstore
// KEEP-COUNT-2: vector.maskedstore
func.func @mask_ops(%y: memref<64xf32>, %j: index, %v: vector<8xf32>) {
  %five = vector.constant_mask [5] : vector<8xi1>
  vector.maskedstore %y[%j], %five, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  %c3 = arith.constant 3 : index
  %three = vector.create_mask %c3 : vector<8xi1>
  vector.maskedstore %y[%j], %three, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  return
}

// All lanes: one plain store of the whole vector; no lane: nothing.
// CHECK-LABEL: func @all_or_none
// SPLIT: vector.store %[[V:.*]], %{{.*}}[%{{.*}}] : memref<64xf32>, vector<8xf32>
// SPLIT-NOT: vector.store
// SPLIT-NOT: vector.maskedstore
// KEEP-COUNT-2: vector.maskedstore
func.func @all_or_none(%y: memref<64xf32>, %j: index, %v: vector<8xf32>) {
  %all = arith.constant dense<true> : vector<8xi1>
  vector.maskedstore %y[%j], %all, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  %none = vector.constant_mask [0] : vector<8xi1>
  vector.maskedstore %y[%j], %none, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  return
}

// Bytes: split without AVX-512BW (LLVM would scalarize them), kept with it.
// CHECK-LABEL: func @bytes
// SPLIT: vector<8xi8>
// SPLIT: vector<4xi8>
// SPLIT: vector<1xi8>
// SPLIT-NOT: vector.maskedstore
// KEEP: vector.maskedstore
// NOBW-NOT: vector.maskedstore
// NOBW: vector.store %{{.*}} : memref<64xi8>, vector<8xi8>
func.func @bytes(%y: memref<64xi8>, %j: index, %v: vector<16xi8>) {
  %c13 = arith.constant 13 : index
  %mask = vector.create_mask %c13 : vector<16xi1>
  vector.maskedstore %y[%j], %mask, %v : memref<64xi8>, vector<16xi1>, vector<16xi8>
  return
}

// Not one run, or not a constant: the masked store stays everywhere.
// CHECK-LABEL: func @stays
// CHECK-COUNT-2: vector.maskedstore
// CHECK-NOT: vector.store
func.func @stays(%y: memref<64xf32>, %j: index, %n: index, %v: vector<8xf32>) {
  %gap = arith.constant dense<[true, true, false, true, true, true, true, true]> : vector<8xi1>
  vector.maskedstore %y[%j], %gap, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  %dynamic = vector.create_mask %n : vector<8xi1>
  vector.maskedstore %y[%j], %dynamic, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  return
}
