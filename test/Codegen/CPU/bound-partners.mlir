// Fusion partners bound on tensors reach the kernels through bufferization:
// dlas-cpu-select-lowering tags them, one-shot bufferization keeps the tags
// on fills, broadcasts and generics, and each kernel folds its own group's
// ops: a bias broadcast and ReLU, one fill shared by two GEMMs (privatized
// first), a flat convolution's padded bias init (the pad made a tagged
// fill), and a depthwise convolution's padded input, init and ReLU. No
// kernel finds fewer partners than decided (no warning) and none of the
// folded ops is left.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-cpu-select-lowering --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-deallocation-pipeline --convert-bufferization-to-memref --canonicalize --dlas-memref-copy-to-linalg --dlas-gemm-microkernel="decided-only print" --dlas-depthwise-microkernel="decided-only print" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: FileCheck %s --input-file=%t.mlir
// The same on x86-64-v3.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-cpu-select-lowering --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-deallocation-pipeline --convert-bufferization-to-memref --canonicalize --dlas-memref-copy-to-linalg --dlas-gemm-microkernel="decided-only print" --dlas-depthwise-microkernel="decided-only print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning

// REMARK: remark: microkernel {{.*}} key 'm200_n170_k300' {{.*}}; init linalg.broadcast, 1 epilogue op(s) fused
// REMARK: remark: microkernel {{.*}} key 'm16_n64_k32' {{.*}}; init linalg.fill, 0 epilogue op(s) fused
// REMARK: remark: microkernel {{.*}} key 'm16_n64_k32' {{.*}}; init linalg.fill, 0 epilogue op(s) fused
// REMARK: remark: microkernel {{.*}} key 'm8_n32_k32' {{.*}}; init linalg.fill, 0 epilogue op(s) fused
// REMARK: remark: depthwise microkernel {{.*}}; padding folded, init linalg.fill, 1 epilogue op(s) fused

// CHECK-LABEL: func @gemm_bias_relu
// CHECK-NOT: linalg.
// CHECK: return
// CHECK-LABEL: func @shared_fill
// CHECK-NOT: linalg.
// CHECK: return
// The bias broadcast into the unpadded init stays (the kernel reads it),
// the crop's copy is the only other linalg op.
// CHECK-LABEL: func @padded_init
// CHECK: linalg.broadcast
// CHECK-NOT: linalg.fill
// CHECK: linalg.copy
// CHECK-NOT: linalg.
// CHECK: return
// CHECK-LABEL: func @depthwise
// CHECK-NOT: linalg.
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @gemm_bias_relu(%a: tensor<200x300xf32>, %b: tensor<300x170xf32>, %bias: tensor<170xf32>) -> tensor<200x170xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<200x170xf32>
  %init = linalg.broadcast ins(%bias : tensor<170xf32>) outs(%empty : tensor<200x170xf32>) dimensions = [0]
  %mm = linalg.matmul ins(%a, %b : tensor<200x300xf32>, tensor<300x170xf32>) outs(%init : tensor<200x170xf32>) -> tensor<200x170xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<200x170xf32>) outs(%empty : tensor<200x170xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<200x170xf32>
  return %relu : tensor<200x170xf32>
}
func.func @shared_fill(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<32x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m1, %m2 : tensor<16x64xf32>, tensor<16x64xf32>
}
func.func @padded_init(%a: tensor<1x8x32xf32>, %b: tensor<1x32x32xf32>, %bias: tensor<8xf32>) -> tensor<1x8x4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x4x6xf32>
  %init = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%empty : tensor<1x8x4x6xf32>) dimensions = [0, 2, 3]
  %padded = tensor.pad %init low[0, 0, 0, 0] high[0, 0, 0, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x4x6xf32> to tensor<1x8x4x8xf32>
  %flat = tensor.collapse_shape %padded [[0], [1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<1x8x32xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<1x8x32xf32>, tensor<1x32x32xf32>) outs(%flat : tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %r = tensor.expand_shape %mm [[0], [1], [2, 3]] output_shape [1, 8, 4, 8] : tensor<1x8x32xf32> into tensor<1x8x4x8xf32>
  %crop = tensor.extract_slice %r[0, 0, 0, 0] [1, 8, 4, 6] [1, 1, 1, 1] : tensor<1x8x4x8xf32> to tensor<1x8x4x6xf32>
  return %crop : tensor<1x8x4x6xf32>
}
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @depthwise(%x: tensor<1x4x7x7xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x7x7xf32> to tensor<1x4x9x9xf32>
  %empty = tensor.empty() : tensor<1x4x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x4x9x9xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x7x7xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x7x7xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x4x7x7xf32>) outs(%empty : tensor<1x4x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x7x7xf32>
  return %relu : tensor<1x4x7x7xf32>
}
