// RUN: dlas-opt %s --pass-pipeline="builtin.module(func.func(dlas-collapse-contiguous-loops))" --mlir-print-local-scope | FileCheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#win = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>
#id3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A quantize on a 14x14 map: one loop over all 1568 elements.
// CHECK-LABEL: func.func @elementwise
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<1x8x14x14xf32> into memref<1568xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<1x8x14x14xi8> into memref<1568xi8>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}}ins(%{{.*}} : memref<1568xf32>) outs(%{{.*}} : memref<1568xi8>)
// CHECK: arith.divf
func.func @elementwise(%x: memref<1x8x14x14xf32>, %y: memref<1x8x14x14xi8>) {
  %s = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x8x14x14xf32>) outs(%y : memref<1x8x14x14xi8>) {
  ^bb0(%in: f32, %out: i8):
    %d = arith.divf %in, %s : f32
    %q = arith.fptosi %d : f32 to i8
    linalg.yield %q : i8
  }
  return
}

// A per-channel operand keeps the channel loop apart: (n), (c), (h * w).
// CHECK-LABEL: func.func @per_channel
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<1x8x14x14xf32> into memref<1x8x196xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<1x8x196xf32>, memref<8xf32>)
func.func @per_channel(%x: memref<1x8x14x14xf32>, %c: memref<8xf32>, %y: memref<1x8x14x14xf32>) {
  linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %c : memref<1x8x14x14xf32>, memref<8xf32>) outs(%y : memref<1x8x14x14xf32>) {
  ^bb0(%in: f32, %scale: f32, %out: f32):
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  }
  return
}

// Named ops are generalized first.
// CHECK-LABEL: func.func @fill
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<2x7x7xf32> into memref<98xf32>
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : memref<98xf32>)
// CHECK-NOT: linalg.fill
func.func @fill(%y: memref<2x7x7xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%y : memref<2x7x7xf32>)
  return
}

// Parallel loops merge with parallel ones, reductions with reductions.
// CHECK-LABEL: func.func @reduction
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : memref<1x64x7x7xf32> into memref<64x49xf32>
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @reduction(%x: memref<1x64x7x7xf32>, %y: memref<1x64xf32>) {
  linalg.generic {indexing_maps = [#id4, #nc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<1x64x7x7xf32>) outs(%y : memref<1x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  return
}

// A strided view (a padded map's interior) is not collapsed.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: collapse_shape
// CHECK: linalg.copy
func.func @strided(%x: memref<1x8x16x16xf32>, %y: memref<1x8x14x14xf32>) {
  %v = memref.subview %x[0, 0, 1, 1] [1, 8, 14, 14] [1, 1, 1, 1] : memref<1x8x16x16xf32> to memref<1x8x14x14xf32, strided<[2048, 256, 16, 1], offset: 17>>
  linalg.copy ins(%v : memref<1x8x14x14xf32, strided<[2048, 256, 16, 1], offset: 17>>) outs(%y : memref<1x8x14x14xf32>)
  return
}

// Windows (d2 + d3) are not projected permutations: left alone.
// CHECK-LABEL: func.func @window
// CHECK-NOT: collapse_shape
// CHECK: affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>
func.func @window(%x: memref<1x8x16xf32>, %y: memref<1x8x14x3xf32>) {
  linalg.generic {indexing_maps = [#win, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x8x16xf32>) outs(%y : memref<1x8x14x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// linalg.index would need a delinearization per element: left alone.
// CHECK-LABEL: func.func @index
// CHECK-NOT: collapse_shape
// CHECK: linalg.index 1
func.func @index(%y: memref<4x4xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<4x4xindex>) {
  ^bb0(%out: index):
    %i = linalg.index 1 : index
    linalg.yield %i : index
  }
  return
}

// Only buffers: on tensors the kernel passes have not run yet.
// CHECK-LABEL: func.func @tensors
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic
func.func @tensors(%x: tensor<2x7x7xf32>) -> tensor<2x7x7xf32> {
  %e = tensor.empty() : tensor<2x7x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x7x7xf32>) outs(%e : tensor<2x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x7x7xf32>
  return %r : tensor<2x7x7xf32>
}
