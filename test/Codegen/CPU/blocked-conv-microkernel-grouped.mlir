// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 gspc=always lower-to-llvm=false print-microkernels" 2>&1 | FileCheck %s

// A GSPC convolution with 8 output channels per group on AVX-512: the
// blocked convolution kernel builds it with 8-lane vectors (narrower than
// the target's 16), a 6-column tile (the row's width), the work items
// over (image, group, channel tile, row) and the bias broadcast folded
// into the accumulators.
// CHECK: remark: GSPC grouped convolution microkernel 6x8 (rows=6, vectors=1) key 'g4_c32_f32_o6x6_k3x3_s1x1'; init linalg.broadcast
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT: linalg.generic {{.*}}dlas.gspc
func.func @gspc(%x: tensor<1x32x6x6xf32>, %w: tensor<32x8x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x6x6xf32> {
  %y = nn.conv2d %x, %w, %b {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x8x3x3xf32>, tensor<32xf32>) -> tensor<1x32x6x6xf32>
  return %y : tensor<1x32x6x6xf32>
}
