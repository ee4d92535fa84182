// Two int8 layers back to back, as QDQ models give them: the first one's
// dequantize, ReLU and requantization for the second are its GEMM kernel's
// epilogue. The kernel stores i8 (vector<16xi8>), no f32 activation is
// stored between the layers, and no quantize loop of its own is left.
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 target-features=+avx512vnni lower-to-llvm=0" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s
// CHECK-LABEL: func.func private @main_layer{{[0-9]+}}_conv2d
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: arith.sitofp %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK: math.roundeven %{{.*}} : vector<16xf32>
// CHECK: vector.store %{{.*}} : memref<{{.*}}xi8>, vector<16xi8>
// CHECK-NOT: func.func private @main_layer{{[0-9]+}}_quantize
func.func @main(%q: tensor<1x16x8x8xi8>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<3> : tensor<32x16x1x1xi8>
  %c = nn.conv2d %q, %w : (tensor<1x16x8x8xi8>, tensor<32x16x1x1xi8>) -> tensor<1x32x8x8xi32>
  %d = nn.dequantize %c {scales = array<f32: 0.001>, zero_points = array<i64: 7>} : tensor<1x32x8x8xi32> to tensor<1x32x8x8xf32>
  %r = nn.relu %d : tensor<1x32x8x8xf32>
  %q2 = nn.quantize %r {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x32x8x8xf32> to tensor<1x32x8x8xi8>
  %w2 = arith.constant dense<2> : tensor<32x32x1x1xi8>
  %c2 = nn.conv2d %q2, %w2 : (tensor<1x32x8x8xi8>, tensor<32x32x1x1xi8>) -> tensor<1x32x8x8xi32>
  %d2 = nn.dequantize %c2 {scales = array<f32: 0.001>, zero_points = array<i64: 0>} : tensor<1x32x8x8xi32> to tensor<1x32x8x8xf32>
  return %d2 : tensor<1x32x8x8xf32>
}
