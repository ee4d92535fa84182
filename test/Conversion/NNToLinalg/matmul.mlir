// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func @matmul
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[Z]] : tensor<4x16xf32>)
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = nn.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @batch_matmul
// CHECK: linalg.batch_matmul ins(%arg0, %arg1 : tensor<2x4x8xf32>, tensor<2x8x16xf32>)
func.func @batch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = nn.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// The bias initialises the accumulator; the weight is transposed to K x O.
// CHECK-LABEL: func @linear
// CHECK: %[[WT:.*]] = linalg.transpose ins(%arg1 : tensor<10x512xf32>) outs(%{{.*}} : tensor<512x10xf32>) permutation = [1, 0]
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x512xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[DIM]]) : tensor<?x10xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<10xf32>) outs(%[[E]] : tensor<?x10xf32>) dimensions = [0]
// CHECK: linalg.matmul ins(%arg0, %[[WT]] : tensor<?x512xf32>, tensor<512x10xf32>) outs(%[[B]] : tensor<?x10xf32>)
func.func @linear(%x: tensor<?x512xf32>, %w: tensor<10x512xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  %0 = nn.linear %x, %w, %b : (tensor<?x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// A constant weight is transposed at compile time, not on every call.
// CHECK-LABEL: func @linear_constant_weight
// CHECK: %[[WT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul ins(%arg0, %[[WT]] : tensor<2x3xf32>, tensor<3x2xf32>)
func.func @linear_constant_weight(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = nn.linear %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Dynamic sizes that must agree (batch and contraction) are checked at run
// time.
// CHECK-LABEL: func @batch_matmul_dynamic
// CHECK: %[[A:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[B:.*]] = tensor.dim %arg1, %c1
// CHECK: %[[K:.*]] = arith.cmpi eq, %[[A]], %[[B]] : index
// CHECK: cf.assert %[[K]], "nn.batch_matmul: operand sizes that must be equal differ at run time"
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[M:.*]] = tensor.dim %arg1, %c0
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[N]], %[[M]] : index
// CHECK: cf.assert %[[SAME]]
// CHECK: linalg.batch_matmul
func.func @batch_matmul_dynamic(%a: tensor<?x4x?xf32>, %b: tensor<?x?x5xf32>) -> tensor<?x4x5xf32> {
  %0 = nn.batch_matmul %a, %b : (tensor<?x4x?xf32>, tensor<?x?x5xf32>) -> tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}
