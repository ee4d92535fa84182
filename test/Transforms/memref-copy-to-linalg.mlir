// RUN: dlas-opt %s --dlas-memref-copy-to-linalg | FileCheck %s

// CHECK-LABEL: func @strided_copy
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%arg0 : memref<4x4xf32, strided<[8, 1]>>) outs(%arg1 : memref<4x4xf32>)
func.func @strided_copy(%a: memref<4x4xf32, strided<[8, 1]>>, %b: memref<4x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  return
}
