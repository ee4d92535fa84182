// An int8 layer through the CPU pipeline on a VNNI target: the convolution
// runs on vpdpbusd and the GEMM kernel applies the dequantize (i32 to f32,
// per-channel scale and zero point) and the ReLU in registers before it
// stores: both run on the accumulator vectors, no loop of their own (no
// scalar conversion anywhere).
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 target-features=+avx512vnni lower-to-llvm=0" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s
// The constant weights are packed in k quads at compile time (32 rows in
// 8 panels of 4, 144 = 16 x 9 k values in 36 quads), their row sums a
// constant too: no packing loop at run time.
// CHECK-DAG: memref.global "private" constant @dlas_packed : memref<1x8x36x16xi8>
// CHECK-DAG: memref.global "private" constant @dlas_row_sums : memref<32xi32>
// CHECK-NOT: vector.from_elements {{.*}} : vector<4xi8>
// CHECK-NOT: arith.sitofp %{{.*}} : i32 to f32
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK: arith.sitofp %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK-NOT: arith.sitofp %{{.*}} : i32 to f32
func.func @main(%x: tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<3> : tensor<32x16x3x3xi8>
  %q = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: 0>} : tensor<1x16x8x8xf32> to tensor<1x16x8x8xi8>
  %c = nn.conv2d %q, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi32>
  %d = nn.dequantize %c {scales = array<f32: 0.001>, zero_points = array<i64: 7>} : tensor<1x32x8x8xi32> to tensor<1x32x8x8xf32>
  %r = nn.relu %d : tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}
