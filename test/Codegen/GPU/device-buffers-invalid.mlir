// What dlas-gpu-device-buffers refuses: host code that would touch device
// memory, stack buffers, strided entry buffers.
// RUN: dlas-opt %s --split-input-file --dlas-gpu-device-buffers --verify-diagnostics

func.func @host_load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op would read or write a device buffer's elements on the host; the GPU pipeline runs every computation in a kernel}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func @host_linalg(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'linalg.copy' op would read or write a device buffer's elements on the host}}
  linalg.copy ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

func.func private @stack() {
  // expected-error @+1 {{a stack buffer in host code cannot hold device data; the GPU pipeline needs heap buffers (memref.alloc)}}
  %a = memref.alloca() : memref<4xf32>
  return
}

// -----

// expected-error @+1 {{argument #0 has a strided layout; the GPU entry copies contiguous buffers only}}
func.func @strided(%x: memref<4xf32, strided<[2]>>) {
  return
}
