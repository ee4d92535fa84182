// Two int8 layers with a max pool between them, as QDQ models and the int8
// policy give them (quantize after the pool): dlas-hoist-quantize moves the
// quantize above the pool, so the first layer's GEMM epilogue stores i8,
// the pool is the stencil kernel on i8 (signed maxima, the -128 padding
// folded) and no f32 activation or quantize loop is left between them.
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 lower-to-llvm=0" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s
// CHECK-LABEL: func.func private @main_layer0_conv2d
// CHECK: math.roundeven %{{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<{{.*}}xi8>, vector<8xi8>
// CHECK-LABEL: func.func private @main_layer1_max_pool2d
// CHECK-SAME: memref<1x32x16x16xi8
// CHECK: arith.maxsi %{{.*}} : vector<8xi8>
// CHECK-NOT: arith.maximumf
// CHECK: vector.store %{{.*}} : memref<1x32x8x8xi8>, vector<8xi8>
// CHECK-LABEL: func.func private @main_layer2_conv2d
// CHECK-SAME: memref<1x32x8x8xi8
// CHECK-NOT: func.func private @main_layer{{[0-9]+}}_quantize
func.func @main(%q: tensor<1x16x16x16xi8>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<3> : tensor<32x16x1x1xi8>
  %c = nn.conv2d %q, %w : (tensor<1x16x16x16xi8>, tensor<32x16x1x1xi8>) -> tensor<1x32x16x16xi32>
  %d = nn.dequantize %c {scales = array<f32: 0.001>, zero_points = array<i64: 7>} : tensor<1x32x16x16xi32> to tensor<1x32x16x16xf32>
  %r = nn.relu %d : tensor<1x32x16x16xf32>
  %p = nn.max_pool2d %r {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x32x16x16xf32>) -> tensor<1x32x8x8xf32>
  %q2 = nn.quantize %p {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x32x8x8xf32> to tensor<1x32x8x8xi8>
  %w2 = arith.constant dense<2> : tensor<32x32x1x1xi8>
  %c2 = nn.conv2d %q2, %w2 : (tensor<1x32x8x8xi8>, tensor<32x32x1x1xi8>) -> tensor<1x32x8x8xi32>
  %d2 = nn.dequantize %c2 {scales = array<f32: 0.001>, zero_points = array<i64: 0>} : tensor<1x32x8x8xi32> to tensor<1x32x8x8xf32>
  return %d2 : tensor<1x32x8x8xf32>
}
