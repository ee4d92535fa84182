// dlas-gpu-device-buffers: buffers live on the device; the public entry
// copies its arguments in and its results out; constants are uploaded once
// through the runtime's cache.
// RUN: dlas-opt %s --dlas-gpu-map-kernels --convert-parallel-loops-to-gpu --dlas-gpu-device-buffers | FileCheck %s

module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>} {
  memref.global "private" constant @weights : memref<4x8xf32> = dense<1.0>

  // CHECK-LABEL: func.func @main(
  // CHECK-SAME: %[[X:.*]]: memref<4x8xf32>) -> memref<4x8xf32>
  // CHECK: %[[DX:.*]] = gpu.alloc () : memref<4x8xf32>
  // CHECK: gpu.memcpy %[[DX]], %[[X]] : memref<4x8xf32>, memref<4x8xf32>
  // CHECK: %[[W:.*]] = memref.get_global @weights : memref<4x8xf32>
  // CHECK: %[[U:.*]] = memref.cast %[[W]] : memref<4x8xf32> to memref<*xf32>
  // CHECK: %[[BYTES:.*]] = arith.constant 128 : i64
  // CHECK: %[[DU:.*]] = call @dlas_gpu_constant_f32(%[[U]], %[[BYTES]]) : (memref<*xf32>, i64) -> memref<*xf32>
  // CHECK: %[[DW:.*]] = memref.cast %[[DU]] : memref<*xf32> to memref<4x8xf32>
  // CHECK: %[[OUT:.*]] = gpu.alloc () : memref<4x8xf32>
  // CHECK: %[[TMP:.*]] = gpu.alloc () : memref<4x8xf32>
  // CHECK: gpu.launch
  // CHECK: memref.load %[[DX]]
  // CHECK: memref.load %[[DW]]
  // CHECK: gpu.launch
  // CHECK: gpu.dealloc %[[TMP]] : memref<4x8xf32>
  // CHECK: %[[HOST:.*]] = memref.alloc() : memref<4x8xf32>
  // CHECK: gpu.memcpy %[[HOST]], %[[OUT]] : memref<4x8xf32>, memref<4x8xf32>
  // CHECK: gpu.dealloc %[[OUT]] : memref<4x8xf32>
  // CHECK: gpu.dealloc %[[DX]] : memref<4x8xf32>
  // CHECK: return %[[HOST]] : memref<4x8xf32>
  func.func @main(%x: memref<4x8xf32>) -> memref<4x8xf32> {
    %w = memref.get_global @weights : memref<4x8xf32>
    %out = memref.alloc() : memref<4x8xf32>
    %tmp = memref.alloc() : memref<4x8xf32>
    linalg.add ins(%x, %w : memref<4x8xf32>, memref<4x8xf32>) outs(%tmp : memref<4x8xf32>)
    linalg.mul ins(%tmp, %tmp : memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>)
    memref.dealloc %tmp : memref<4x8xf32>
    return %out : memref<4x8xf32>
  }

  // Private functions take and return device buffers: no copies.
  // CHECK-LABEL: func.func private @helper(
  // CHECK-NOT: gpu.memcpy
  // CHECK: gpu.alloc
  // CHECK-NOT: gpu.memcpy
  // CHECK: return
  func.func private @helper(%x: memref<4x8xf32>) -> memref<4x8xf32> {
    %out = memref.alloc() : memref<4x8xf32>
    linalg.copy ins(%x : memref<4x8xf32>) outs(%out : memref<4x8xf32>)
    return %out : memref<4x8xf32>
  }

  // A result that is a view of an input is copied out, and the input's
  // device copy freed once.
  // CHECK-LABEL: func.func @view(
  // CHECK: %[[DV:.*]] = gpu.alloc () : memref<4x8xf32>
  // CHECK: %[[E:.*]] = memref.expand_shape %[[DV]]
  // CHECK: %[[H:.*]] = memref.alloc() : memref<2x2x8xf32>
  // CHECK: gpu.memcpy %[[H]], %[[E]]
  // CHECK-NEXT: gpu.dealloc %[[DV]] : memref<4x8xf32>
  // CHECK-NEXT: return %[[H]]
  func.func @view(%x: memref<4x8xf32>) -> memref<2x2x8xf32> {
    %e = memref.expand_shape %x [[0, 1], [2]] output_shape [2, 2, 8] : memref<4x8xf32> into memref<2x2x8xf32>
    return %e : memref<2x2x8xf32>
  }

  // The upload function, declared once per element type.
  // CHECK: func.func private @dlas_gpu_constant_f32(memref<*xf32>, i64) -> memref<*xf32>
}
