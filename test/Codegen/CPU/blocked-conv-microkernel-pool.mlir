// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="fuse-pools=false" | FileCheck %s --check-prefix=UNFUSED
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT

// conv 3x3 + bias + ReLU, then a 3x3/2 max pool with padding 1 (its
// -inf-filled padded copy), as dlas-blocked-layout and bufferization leave
// them: the pool fuses into the convolution's kernel. Each pooled row
// computes the convolution rows its window needs into a ring of
// (3 - 1) + 1 rows plus a padding row, [vectors, 4, padded width 9, 16],
// filled with -inf once per thread, takes the window maxima from the ring
// and stores only the pooled values: the 8x8 activation, its padded copy
// and the pool's fill are gone.
// CHECK-LABEL: func.func @conv_relu_pool
// CHECK-NOT: memref<1x2x8x8x16xf32>
// CHECK-NOT: memref<1x2x9x9x16xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x4x4x16xf32>
// CHECK: scf.parallel
// CHECK: %[[RING:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x9x16xf32>
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NINF]] : f32) outs(%[[RING]] : memref<2x4x9x16xf32>)
// CHECK: scf.for %[[PR:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: vector.fma
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[RING]]
// CHECK: arith.select
// CHECK: vector.load %[[RING]]
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}, %[[PR]], %{{.*}}, %{{.*}}]
// CHECK: memref.dealloc %[[RING]]
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.fill
// CHECK: return %[[OUT]]
// UNFUSED-LABEL: func.func @conv_relu_pool
// UNFUSED: linalg.copy
// UNFUSED: linalg.generic {{.*}} attrs = {dlas.blocked_pool}
// PRINT: remark: fused max pool 3x3 stride 2x2 (padding 1, 1): only the pooled values are stored
// PRINT: remark: blocked convolution microkernel 8x32 (rows=8, vectors=2)
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d6, d2 + d7, d3 + d8, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d6, d7, d8, d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d5)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @__constant_2x1x3x3x16x16xf32 : memref<2x1x3x3x16x16xf32> = dense<0.00999999977> {alignment = 64 : i64}
  memref.global "private" constant @__constant_2x16xf32 : memref<2x16xf32> = dense<1.000000e-01> {alignment = 64 : i64}
  func.func @conv_relu_pool(%arg0: memref<1x1x8x8x16xf32>) -> memref<1x2x4x4x16xf32> attributes {dlas.signature = (tensor<1x1x8x8x16xf32>) -> tensor<1x2x4x4x16xf32>, llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %0 = memref.get_global @__constant_2x16xf32 : memref<2x16xf32>
    %1 = memref.get_global @__constant_2x1x3x3x16x16xf32 : memref<2x1x3x3x16x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x10x10x16xf32>
    linalg.map outs(%alloc : memref<1x1x10x10x16xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview = memref.subview %alloc[0, 0, 1, 1, 0] [1, 1, 8, 8, 16] [1, 1, 1, 1, 1] : memref<1x1x10x10x16xf32> to memref<1x1x8x8x16xf32, strided<[1600, 1600, 160, 16, 1], offset: 176>>
    linalg.copy ins(%arg0 : memref<1x1x8x8x16xf32>) outs(%subview : memref<1x1x8x8x16xf32, strided<[1600, 1600, 160, 16, 1], offset: 176>>)
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8x16xf32>
    linalg.broadcast ins(%0 : memref<2x16xf32>) outs(%alloc_1 : memref<1x2x8x8x16xf32>) dimensions = [0, 2, 3] 
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc, %1 : memref<1x1x10x10x16xf32>, memref<2x1x3x3x16x16xf32>) outs(%alloc_1 : memref<1x2x8x8x16xf32>) attrs =  {dlas.blocked_conv} {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %2 = arith.mulf %in, %in_6 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%alloc_1 : memref<1x2x8x8x16xf32>) outs(%alloc_1 : memref<1x2x8x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.maximumf %in, %cst : f32
      linalg.yield %2 : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x2x9x9x16xf32>
    linalg.map outs(%alloc_2 : memref<1x2x9x9x16xf32>)
      (%init: f32) {
        linalg.yield %cst_0 : f32
      }
    %subview_3 = memref.subview %alloc_2[0, 0, 1, 1, 0] [1, 2, 8, 8, 16] [1, 1, 1, 1, 1] : memref<1x2x9x9x16xf32> to memref<1x2x8x8x16xf32, strided<[2592, 1296, 144, 16, 1], offset: 160>>
    linalg.copy ins(%alloc_1 : memref<1x2x8x8x16xf32>) outs(%subview_3 : memref<1x2x8x8x16xf32, strided<[2592, 1296, 144, 16, 1], offset: 160>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x3xf32>
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<1x2x4x4x16xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_5 : memref<1x2x4x4x16xf32>)
    linalg.generic {indexing_maps = [#map4, #map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%alloc_2, %alloc_4 : memref<1x2x9x9x16xf32>, memref<3x3xf32>) outs(%alloc_5 : memref<1x2x4x4x16xf32>) attrs =  {dlas.blocked_pool} {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %2 = arith.maximumf %out, %in : f32
      linalg.yield %2 : f32
    }
    memref.dealloc %alloc : memref<1x1x10x10x16xf32>
    memref.dealloc %alloc_1 : memref<1x2x8x8x16xf32>
    memref.dealloc %alloc_2 : memref<1x2x9x9x16xf32>
    memref.dealloc %alloc_4 : memref<3x3xf32>
    return %alloc_5 : memref<1x2x4x4x16xf32>
  }
}

// -----

// The activation is also a result: the pool does not fuse (the kernel
// stores the activation, the pool reads it back), and says why.
// CHECK-LABEL: func.func @activation_returned
// CHECK: linalg.generic {{.*}} attrs = {dlas.blocked_pool}
// PRINT: remark: max pool not fused: the final values have readers besides the pool
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d6, d2 + d7, d3 + d8, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d6, d7, d8, d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d5)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @__constant_2x1x3x3x16x16xf32 : memref<2x1x3x3x16x16xf32> = dense<0.00999999977> {alignment = 64 : i64}
  memref.global "private" constant @__constant_2x16xf32 : memref<2x16xf32> = dense<1.000000e-01> {alignment = 64 : i64}
  func.func @activation_returned(%arg0: memref<1x1x8x8x16xf32>) -> (memref<1x2x4x4x16xf32>, memref<1x2x8x8x16xf32>) attributes {dlas.signature = (tensor<1x1x8x8x16xf32>) -> (tensor<1x2x4x4x16xf32>, tensor<1x2x8x8x16xf32>), llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %0 = memref.get_global @__constant_2x16xf32 : memref<2x16xf32>
    %1 = memref.get_global @__constant_2x1x3x3x16x16xf32 : memref<2x1x3x3x16x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x10x10x16xf32>
    linalg.map outs(%alloc : memref<1x1x10x10x16xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview = memref.subview %alloc[0, 0, 1, 1, 0] [1, 1, 8, 8, 16] [1, 1, 1, 1, 1] : memref<1x1x10x10x16xf32> to memref<1x1x8x8x16xf32, strided<[1600, 1600, 160, 16, 1], offset: 176>>
    linalg.copy ins(%arg0 : memref<1x1x8x8x16xf32>) outs(%subview : memref<1x1x8x8x16xf32, strided<[1600, 1600, 160, 16, 1], offset: 176>>)
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8x16xf32>
    linalg.broadcast ins(%0 : memref<2x16xf32>) outs(%alloc_1 : memref<1x2x8x8x16xf32>) dimensions = [0, 2, 3] 
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc, %1 : memref<1x1x10x10x16xf32>, memref<2x1x3x3x16x16xf32>) outs(%alloc_1 : memref<1x2x8x8x16xf32>) attrs =  {dlas.blocked_conv} {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %2 = arith.mulf %in, %in_6 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%alloc_1 : memref<1x2x8x8x16xf32>) outs(%alloc_1 : memref<1x2x8x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.maximumf %in, %cst : f32
      linalg.yield %2 : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x2x9x9x16xf32>
    linalg.map outs(%alloc_2 : memref<1x2x9x9x16xf32>)
      (%init: f32) {
        linalg.yield %cst_0 : f32
      }
    %subview_3 = memref.subview %alloc_2[0, 0, 1, 1, 0] [1, 2, 8, 8, 16] [1, 1, 1, 1, 1] : memref<1x2x9x9x16xf32> to memref<1x2x8x8x16xf32, strided<[2592, 1296, 144, 16, 1], offset: 160>>
    linalg.copy ins(%alloc_1 : memref<1x2x8x8x16xf32>) outs(%subview_3 : memref<1x2x8x8x16xf32, strided<[2592, 1296, 144, 16, 1], offset: 160>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<3x3xf32>
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<1x2x4x4x16xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_5 : memref<1x2x4x4x16xf32>)
    linalg.generic {indexing_maps = [#map4, #map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%alloc_2, %alloc_4 : memref<1x2x9x9x16xf32>, memref<3x3xf32>) outs(%alloc_5 : memref<1x2x4x4x16xf32>) attrs =  {dlas.blocked_pool} {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %2 = arith.maximumf %out, %in : f32
      linalg.yield %2 : f32
    }
    memref.dealloc %alloc : memref<1x1x10x10x16xf32>
    memref.dealloc %alloc_2 : memref<1x2x9x9x16xf32>
    memref.dealloc %alloc_4 : memref<3x3xf32>
    return %alloc_5, %alloc_1 : memref<1x2x4x4x16xf32>, memref<1x2x8x8x16xf32>
  }
}
