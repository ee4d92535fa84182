// RUN: dlas-opt %s --dlas-prepare-entry-abi | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: %arg0: tensor<1x8xf32> {bufferization.writable = false}
// CHECK-SAME: attributes {dlas.signature = (tensor<1x8xf32>) -> tensor<1x8xf32>, llvm.emit_c_interface}
func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  return %x : tensor<1x8xf32>
}

// Private functions and declarations keep their ABI.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: llvm.emit_c_interface
func.func private @helper(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  return %x : tensor<1x8xf32>
}
// CHECK: func.func private @external(tensor<2xf32>)
// CHECK-NOT: dlas.signature
func.func private @external(tensor<2xf32>)
