// Two residual blocks under the int8 policy: each add reads its skip
// connection as the i8 tensor the next convolution quantizes
// (dlas-quantize-residuals, pipeline option int8-residuals, default on),
// so every layer stores i8 from its GEMM epilogue, each add's layer takes
// that i8 tensor and dequantizes it as the epilogue loads it
// (dlas-fuse-conversions), and no quantize layer or f32 activation is left
// between the layers. With int8-residuals=0 the block outputs are stored
// in f32 and quantized by layers of their own.
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 precision=int8 calibration=%S/Inputs/int8-residual-calibration.json keep-f32=none lower-to-llvm=0" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 precision=int8 calibration=%S/Inputs/int8-residual-calibration.json keep-f32=none int8-residuals=0 lower-to-llvm=0" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @main
// CHECK: %[[Q:.*]] = call @main_layer0_quantize(%arg0)
// CHECK: %[[X:.*]] = call @main_layer1_conv2d(%[[Q]]) : (memref<1x16x8x8xi8>) -> memref<1x16x8x8xi8>
// CHECK: %[[Y:.*]] = call @main_layer2_conv2d(%[[X]]) : (memref<1x16x8x8xi8>) -> memref<1x16x8x8xi8>
// CHECK: call @main_layer3_conv2d(%[[Y]]) : (memref<1x16x8x8xi8>) -> memref<1x16x8x8xf32>
// CHECK-NOT: call @main_layer
// The second layer's epilogue: dequantize the accumulator, add the i8
// skip connection (its own input) dequantized, ReLU, requantize, store i8.
// CHECK-LABEL: func.func private @main_layer2_conv2d(%arg0: memref<1x16x8x8xi8>)
// CHECK: arith.sitofp %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: vector.load %{{.*}} : memref<1x16x64xi8>, vector<8xi8>
// CHECK: arith.extsi %{{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: math.roundeven
// CHECK: vector.store %{{.*}} : memref<1x16x64xi8>, vector<8xi8>
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK-LABEL: func.func private @main_layer3_conv2d
// CHECK-NOT: func.func private @main_layer{{[0-9]+}}_{{quantize|dequantize|add}}
// OFF: call @main_layer1_conv2d({{.*}}) : (memref<1x16x8x8xi8>) -> memref<1x16x8x8xf32>
// OFF: call @main_layer{{[0-9]+}}_quantize
// OFF: : (memref<1x16x8x8xi8>, memref<1x16x8x8xf32>) -> memref<1x16x8x8xf32>
func.func @main(%a: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w0 = arith.constant dense<0.1> : tensor<16x16x1x1xf32>
  %w1 = arith.constant dense<0.2> : tensor<16x16x1x1xf32>
  %w2 = arith.constant dense<0.3> : tensor<16x16x1x1xf32>
  %c0 = nn.conv2d %a, %w0 : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %x = nn.relu %c0 : tensor<1x16x8x8xf32>
  %c1 = nn.conv2d %x, %w1 : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %s1 = nn.add %c1, %x : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %y = nn.relu %s1 : tensor<1x16x8x8xf32>
  %c2 = nn.conv2d %y, %w2 : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %s2 = nn.add %c2, %y : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %s2 : tensor<1x16x8x8xf32>
}
