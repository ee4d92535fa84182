// dlas-prune: magnitude pruning of constant conv/linear weights.
// RUN: dlas-opt %s --dlas-prune="sparsity=0.5" | FileCheck %s
// RUN: dlas-opt %s --dlas-prune="sparsity=0.5 structure=block-2x1" | FileCheck %s --check-prefix=BLOCK
// RUN: dlas-opt %s --dlas-prune="structure=2:4" | FileCheck %s --check-prefix=NM
// RUN: dlas-opt %s --dlas-prune="sparsity=0.5 report" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: dlas-opt %s --dlas-prune="sparsity=0.5 structure=block-3x1 report" -o /dev/null | FileCheck %s --check-prefix=SKIP
// RUN: dlas-opt %s --dlas-prune="sparsity=0.5 min-elements=9 report" -o /dev/null | FileCheck %s --check-prefix=SMALL
// RUN: not dlas-opt %s --dlas-prune="structure=4x1" 2>&1 | FileCheck %s --check-prefix=BAD-STRUCTURE
// RUN: not dlas-opt %s --dlas-prune="structure=3:2" 2>&1 | FileCheck %s --check-prefix=BAD-STRUCTURE
// RUN: not dlas-opt %s --dlas-prune="sparsity=1.5" 2>&1 | FileCheck %s --check-prefix=BAD-SPARSITY
// BAD-STRUCTURE: error: dlas-prune: structure '{{.*}}' is none of unstructured, block-RxC (e.g. block-4x1), N:M (e.g. 2:4)
// BAD-SPARSITY: error: dlas-prune: sparsity 1.500000e+00 is outside [0, 1]

// The four smallest magnitudes of eight become zero, whatever their sign;
// the pruned constant keeps its (inline) form.
// CHECK-LABEL: func.func @linear
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 6.000000e+00, 0.000000e+00], [-3.000000e+00, -7.000000e+00, 0.000000e+00, 5.000000e+00]]> : tensor<2x4xf32>
// CHECK-NEXT: nn.linear %arg0, %[[W]]
// 2x1 blocks ranked by L1 norm (columns: 4, 9, 6.25, 5.5): the two
// smallest go.
// BLOCK-LABEL: func.func @linear
// BLOCK: arith.constant dense<{{\[}}[0.000000e+00, -2.000000e+00, 6.000000e+00, 0.000000e+00], [0.000000e+00, -7.000000e+00, 2.500000e-01, 0.000000e+00]]>
// 2:4 keeps the two largest of every four.
// NM-LABEL: func.func @linear
// NM: arith.constant dense<{{\[}}[0.000000e+00, -2.000000e+00, 6.000000e+00, 0.000000e+00], [0.000000e+00, -7.000000e+00, 0.000000e+00, 5.000000e+00]]>
// REPORT: dlas-prune: linear "fc" 2x4: 50.0% zeros (unstructured)
// REPORT: dlas-prune: conv2d "conv" 2x1x2x2: 50.0% zeros (unstructured)
// SKIP: dlas-prune: linear "fc" 2x4: left dense (the 2x4 matrix is no multiple of the block)
// SKIP: dlas-prune: conv2d "conv" 2x1x2x2: left dense (the 2x4 matrix is no multiple of the block)
// SMALL: dlas-prune: linear "fc" 2x4: left dense (fewer than 9 elements)
func.func @linear(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[1.0, -2.0, 6.0, 0.5], [-3.0, -7.0, 0.25, 5.0]]> : tensor<2x4xf32>
  %y = nn.linear %x, %w : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32> loc("fc")
  return %y : tensor<1x2xf32>
}

// A weight that is no constant is left alone; a filter is pruned as its
// F x (C * KH * KW) matrix.
// CHECK-LABEL: func.func @conv
// CHECK: nn.conv2d %arg0, %arg1
// CHECK: arith.constant dense<{{\[}}[{{\[}}[0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00]]], [{{\[}}[-5.000000e+00, 6.000000e+00], [7.000000e+00, -8.000000e+00]]]]>
// BLOCK-LABEL: func.func @conv
// BLOCK: nn.conv2d %arg0, %arg1
// BLOCK: arith.constant dense<{{\[}}[{{\[}}[0.000000e+00, 0.000000e+00], [3.000000e+00, 4.000000e+00]]], [{{\[}}[0.000000e+00, 0.000000e+00], [7.000000e+00, -8.000000e+00]]]]>
func.func @conv(%x: tensor<1x1x3x3xf32>, %w: tensor<2x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %y = nn.conv2d %x, %w : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[-5.0, 6.0], [7.0, -8.0]]]]> : tensor<2x1x2x2xf32>
  %z = nn.conv2d %x, %c : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32> loc("conv")
  return %y, %z : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
