// A compact flat convolution (output p = oh * OW + ow reads input
// p + (p floordiv OW) * (Wp - OW) + tap): where OW is a multiple of the
// vector width, each column vector of B lies in one output row and loads
// as a plain vector; otherwise one masked load per row it touches.
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=8 vector-registers=16 parallel=false" | FileCheck %s

#in8 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + (d2 floordiv 8) * 2 + d4 * 10 + d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// CHECK-LABEL: func @rows_of_8
// CHECK-NOT: vector.maskedload
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x4x100xf32>, vector<8xf32>
// CHECK-NOT: vector.maskedload
// CHECK: vector.fma
func.func @rows_of_8(%x: memref<1x4x100xf32>, %w: memref<8x4x3x3xf32>, %o: memref<1x8x64xf32>) {
  linalg.generic {indexing_maps = [#in8, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x4x100xf32>, memref<8x4x3x3xf32>) outs(%o : memref<1x8x64xf32>) {
  ^bb0(%in: f32, %wv: f32, %acc: f32):
    %m = arith.mulf %in, %wv : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in12 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d2 + (d2 floordiv 12) * 2 + d4 * 14 + d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// CHECK-LABEL: func @rows_of_12
// CHECK: vector.maskedload %arg0
func.func @rows_of_12(%x: memref<1x4x196xf32>, %w: memref<8x4x3x3xf32>, %o: memref<1x8x144xf32>) {
  linalg.generic {indexing_maps = [#in12, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x4x196xf32>, memref<8x4x3x3xf32>) outs(%o : memref<1x8x144xf32>) {
  ^bb0(%in: f32, %wv: f32, %acc: f32):
    %m = arith.mulf %in, %wv : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
