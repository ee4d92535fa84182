// Repeated layers (same shapes, other weights) share one kernel function in
// the CPU pipeline; with dedupe-layers=false each keeps its own.
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 lower-to-llvm=false" | FileCheck %s
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 lower-to-llvm=false dedupe-layers=false" | FileCheck %s --check-prefix=APART
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v4 | FileCheck %s --check-prefix=LLVM

func.func @main(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w0 = arith.constant dense<0.5> : tensor<16x16x3x3xf32>
  %w1 = arith.constant dense<0.25> : tensor<16x16x3x3xf32>
  %w2 = arith.constant dense<0.125> : tensor<16x16x3x3xf32>
  %w3 = arith.constant dense<0.0625> : tensor<16x16x1x1xf32>
  %0 = nn.conv2d %x, %w0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = nn.conv2d %0, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %2 = nn.conv2d %1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %3 = nn.conv2d %2, %w3 : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %3 : tensor<1x16x8x8xf32>
}

// CHECK-LABEL: func.func @main
// CHECK: %[[W1:.*]] = memref.get_global @dlas_packed :
// CHECK: call @[[F:main_layer[0-9]+_conv2d]](%{{.*}}, %[[W1]])
// CHECK: %[[W2:.*]] = memref.get_global @dlas_packed_0 :
// CHECK: call @[[F]](%{{.*}}, %[[W2]])
// CHECK: %[[W3:.*]] = memref.get_global @dlas_packed_1 :
// CHECK: call @[[F]](%{{.*}}, %[[W3]])
// CHECK: call @[[ONE:main_layer[0-9]+_conv2d]](%{{[^,]*}}) :
// CHECK: func.func private @[[F]](%{{.*}}: memref<1x16x8x8xf32>, %{{.*}}: memref<1x4x144x4xf32>)
// CHECK-SAME: dlas.layer = "{{.*}}:12:8; {{.*}}:13:8; {{.*}}:14:8"
// CHECK-NOT: memref.get_global
// CHECK: func.func private @[[ONE]](%{{.*}}: memref<1x16x8x8xf32>) -> memref<1x16x8x8xf32>
// CHECK: memref.get_global @dlas_packed_2
// CHECK-NOT: func.func private @main_layer

// APART-COUNT-4: call @main_layer{{[0-9]+}}_conv2d(%{{[^,]*}}) :
// APART-COUNT-4: func.func private @main_layer{{[0-9]+}}_conv2d

// LLVM-COUNT-2: llvm.func @main_layer{{[0-9]+}}_conv2d
// LLVM-NOT: llvm.func @main_layer{{[0-9]+}}_conv2d
