// dlas-gpu-map-kernels folds a reduction's prologue (the op that fills its
// output) and epilogue (the elementwise op that reads it) into its kernel.
// RUN: dlas-opt %s --dlas-gpu-map-kernels | FileCheck %s
// RUN: dlas-opt %s --dlas-gpu-map-kernels=fuse=false | FileCheck %s --check-prefix=APART
// RUN: dlas-opt %s --dlas-gpu-map-kernels --canonicalize --cse | FileCheck %s --check-prefix=CONV

#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>} {

// Bias, matmul and ReLU: one kernel. The accumulator starts at the bias,
// the ReLU runs on the final value, and only the ReLU's output is stored
// (the matmul's buffer is only freed).
// CHECK-LABEL: func.func @dense_relu
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: %[[B:.*]] = memref.load %arg2[
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[B]])
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]]
// CHECK-NOT: memref.store %[[SUM]]
// CHECK: memref.store %[[RELU]], %arg3
// CHECK-NOT: scf.parallel
// CHECK: memref.dealloc
// APART-LABEL: func.func @dense_relu
// APART-COUNT-6: scf.parallel
func.func @dense_relu(%a: memref<64x32xf32>, %w: memref<32x48xf32>, %bias: memref<48xf32>, %out: memref<64x48xf32>) {
  %acc = memref.alloc() : memref<64x48xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<48xf32>) outs(%acc : memref<64x48xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.matmul ins(%a, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%acc : memref<64x48xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<64x48xf32>) outs(%out : memref<64x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  }
  memref.dealloc %acc : memref<64x48xf32>
  return
}

// A residual add as the epilogue, and a matmul output that is returned too:
// both are stored.
// CHECK-LABEL: func.func @residual
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: memref.store %[[SUM]], %[[ACC:.*]][
// CHECK: %[[RES:.*]] = memref.load %arg2[
// CHECK: %[[ADD:.*]] = arith.addf %[[SUM]], %[[RES]]
// CHECK: memref.store %[[ADD]], %arg3[
// CHECK-NOT: scf.parallel
// CHECK: return %[[ACC]]
func.func @residual(%a: memref<64x32xf32>, %w: memref<32x48xf32>, %skip: memref<64x48xf32>, %out: memref<64x48xf32>) -> memref<64x48xf32> {
  %acc = memref.alloc() : memref<64x48xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x48xf32>)
  linalg.matmul ins(%a, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%acc : memref<64x48xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %skip : memref<64x48xf32>, memref<64x48xf32>) outs(%out : memref<64x48xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %r = arith.addf %x, %s : f32
    linalg.yield %r : f32
  }
  return %acc : memref<64x48xf32>
}

// Not partners: an elementwise op that reads the output through a
// transpose, and a fill of another buffer.
// CHECK-LABEL: func.func @not_partners
// CHECK-COUNT-6: scf.parallel
func.func @not_partners(%a: memref<48x48xf32>, %w: memref<48x48xf32>, %other: memref<48x48xf32>, %out: memref<48x48xf32>) {
  %acc = memref.alloc() : memref<48x48xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%other : memref<48x48xf32>)
  linalg.matmul ins(%a, %w : memref<48x48xf32>, memref<48x48xf32>) outs(%acc : memref<48x48xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<48x48xf32>) outs(%out : memref<48x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %acc : memref<48x48xf32>
  return
}

// A padded input (tensor.pad, bufferized: fill, copy into a subview) is
// read from its source with a bounds check: no fill, copy or buffer left.
// CHECK-LABEL: func.func @padded
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: %[[IN:.*]] = arith.cmpi ult
// CHECK: %[[X:.*]] = memref.load %arg0[
// CHECK: arith.select %{{.*}}, %[[X]], %{{.*}} : f32
// CHECK-NOT: scf.parallel
// CHECK-NOT: memref.dealloc
// APART-LABEL: func.func @padded
// APART-COUNT-6: scf.parallel
func.func @padded(%x: memref<1x4x6x6xf32>, %w: memref<8x4x3x3xf32>, %out: memref<1x8x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x8x8xf32>)
  %sv = memref.subview %p[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.copy ins(%x : memref<1x4x6x6xf32>) outs(%sv : memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : memref<1x4x8x8xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x6x6xf32>)
  memref.dealloc %p : memref<1x4x8x8xf32>
  return
}

// Buffer reuse: the source is written again (here it becomes the reader's
// output) after the copy, so the padded copy stays.
// CHECK-LABEL: func.func @source_reused
// CHECK: memref.alloc
// CHECK-COUNT-6: scf.parallel
func.func @source_reused(%x: memref<1x4x6x6xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %p = memref.alloc() : memref<1x4x8x8xf32>
  linalg.fill ins(%ninf : f32) outs(%p : memref<1x4x8x8xf32>)
  %sv = memref.subview %p[0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1] : memref<1x4x8x8xf32> to memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>
  linalg.copy ins(%x : memref<1x4x6x6xf32>) outs(%sv : memref<1x4x6x6xf32, strided<[256, 64, 8, 1], offset: 9>>)
  %window = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %window : memref<1x4x8x8xf32>, memref<3x3xf32>) outs(%x : memref<1x4x6x6xf32>)
  memref.dealloc %p : memref<1x4x8x8xf32>
  memref.dealloc %window : memref<3x3xf32>
  return
}

// An in-place epilogue (the ReLU writes the matmul's own buffer, as
// bufferization often makes it): one kernel, storing only the ReLU's value.
// CHECK-LABEL: func.func @in_place
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]]
// CHECK-NOT: memref.store %[[SUM]]
// CHECK: memref.store %[[RELU]], %arg2[
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @in_place(%a: memref<64x32xf32>, %w: memref<32x48xf32>, %acc: memref<64x48xf32>) {
  linalg.matmul ins(%a, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%acc : memref<64x48xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<64x48xf32>) outs(%acc : memref<64x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  }
  return
}

// An NCHW convolution runs its loops as (n, oh, f, ow) (the output channel
// next to the innermost, gpuLoopOrder), yet its bias prologue and ReLU
// epilogue are indexed (n, f, oh, ow): they are emitted at the kernel's
// loop values permuted back. Four output channels a thread (rows of the
// register tile) share each input load.
// CONV-LABEL: func.func @conv_nchw
// CONV: scf.parallel
// CONV: %[[OH:.*]] = arith.remsi %{{.*}}, %c8
// CONV: %[[N:.*]] = arith.divsi %{{.*}}, %c8
// CONV: %[[F0:.*]] = arith.minui %{{.*}}, %c15
// CONV: %[[F1:.*]] = arith.minui %{{.*}}, %c15
// CONV: %[[F2:.*]] = arith.minui %{{.*}}, %c15
// CONV: %[[F3:.*]] = arith.minui %{{.*}}, %c15
// CONV: %[[OW:.*]] = arith.minui %{{.*}}, %c7
// CONV: %[[B0:.*]] = memref.load %arg2[%[[F0]]]
// CONV: scf.for {{.*}} iter_args(%{{.*}} = %[[B0]],
// CONV: %[[X:.*]] = memref.load %arg0[%[[N]],
// CONV-NEXT: %[[W0:.*]] = memref.load %arg1[%[[F0]],
// CONV-NEXT: arith.mulf %[[X]], %[[W0]]
// CONV-NEXT: arith.addf
// CONV-NEXT: %[[W1:.*]] = memref.load %arg1[%[[F1]],
// CONV-NEXT: arith.mulf %[[X]], %[[W1]]
// CONV-NOT: memref.load %arg0
// CONV: scf.yield
// CONV: arith.maximumf
// CONV-NEXT: memref.store %{{.*}}, %arg3[%[[N]], %[[F0]], %[[OH]], %[[OW]]]
// CONV: memref.store %{{.*}}, %arg3[%[[N]], %[[F1]], %[[OH]], %[[OW]]]
// CONV-NOT: scf.parallel
// APART-LABEL: func.func @conv_nchw
// APART-COUNT-6: scf.parallel
func.func @conv_nchw(%x: memref<2x8x10x10xf32>, %w: memref<16x8x3x3xf32>, %bias: memref<16xf32>, %out: memref<2x16x8x8xf32>) {
  %acc = memref.alloc() : memref<2x16x8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<16xf32>) outs(%acc : memref<2x16x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.conv_2d_nchw_fchw {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [2, 8], outputs = [4, 1], key = "k", source = cost_model>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<2x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%acc : memref<2x16x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (n, f, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<2x16x8x8xf32>) outs(%out : memref<2x16x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  }
  memref.dealloc %acc : memref<2x16x8x8xf32>
  return
}

// Split in 2 chunks of the input channels, the convolution's output is
// complete only after both chunks' atomic additions: its bias (the start
// value) and its ReLU stay kernels of their own, before and after it.
// CONV-LABEL: func.func @conv_split
// CHECK-LABEL: func.func @conv_split
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[ACC:.*]][
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[ACC]][
// CHECK: scf.parallel
// CHECK: memref.load %[[ACC]][
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %arg3[
func.func @conv_split(%x: memref<2x8x10x10xf32>, %w: memref<16x8x3x3xf32>, %bias: memref<16xf32>, %out: memref<2x16x8x8xf32>) {
  %acc = memref.alloc() : memref<2x16x8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<16xf32>) outs(%acc : memref<2x16x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.conv_2d_nchw_fchw {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [2, 8], outputs = [4, 1], split = 2, key = "k", source = cost_model>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<2x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%acc : memref<2x16x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (n, f, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<2x16x8x8xf32>) outs(%out : memref<2x16x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  }
  memref.dealloc %acc : memref<2x16x8x8xf32>
  return
}

}
