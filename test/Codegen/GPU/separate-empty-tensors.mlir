// dlas-gpu-separate-empty-tensors: every use of a tensor.empty gets its
// own, so that bufferization gives each its own buffer.
// RUN: dlas-opt %s --dlas-gpu-separate-empty-tensors | FileCheck %s
// RUN: dlas-opt %s --dlas-gpu-separate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUFFERS

// CHECK-LABEL: func.func @shared
// CHECK-COUNT-2: tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%[[E:[0-9]+]] :
// CHECK-NOT: outs(%[[E]] :
// CHECK: linalg.broadcast ins(%arg1 : tensor<8xf32>) outs(
// CHECK: return
// BUFFERS-LABEL: func.func @shared
// BUFFERS-COUNT-2: memref.alloc() {{.*}}: memref<4x8xf32>
func.func @shared(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %x = linalg.broadcast ins(%a : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %y = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  return %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// Dynamic sizes are reused.
// CHECK-LABEL: func.func @dynamic
// CHECK-COUNT-2: tensor.empty(%arg1) : tensor<?xf32>
// CHECK-NOT: tensor.empty
// CHECK: linalg.copy ins(%arg0 : tensor<?xf32>) outs(%[[E:[0-9]+]] :
// CHECK-NOT: outs(%[[E]] :
// CHECK: linalg.copy
// CHECK: return
func.func @dynamic(%a: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %x = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %y = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %x, %y : tensor<?xf32>, tensor<?xf32>
}
