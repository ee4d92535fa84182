// RUN: dlas-opt %s -dlas-dedupe-layers -split-input-file | FileCheck %s

// Two layers that differ only in the weights they read share @l1; each call
// passes its own layer's weights (and bias), in the order @l1 reads them.
memref.global "private" constant @w1 : memref<4xf32> = dense<1.0>
memref.global "private" constant @w2 : memref<4xf32> = dense<2.0>
memref.global "private" constant @b1 : memref<4xf32> = dense<3.0>
memref.global "private" constant @b2 : memref<4xf32> = dense<4.0>
func.func private @l1(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "a"} {
  %w = memref.get_global @w1 : memref<4xf32>
  %b = memref.get_global @b1 : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  linalg.add ins(%x, %w : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  linalg.add ins(%y, %b : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return %y : memref<4xf32>
}
func.func private @l2(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "b"} {
  %w = memref.get_global @w2 : memref<4xf32>
  %b = memref.get_global @b2 : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  linalg.add ins(%x, %w : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  linalg.add ins(%y, %b : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return %y : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %0 = call @l1(%x) : (memref<4xf32>) -> memref<4xf32>
  %1 = call @l2(%0) : (memref<4xf32>) -> memref<4xf32>
  return %1 : memref<4xf32>
}
// CHECK-LABEL: func.func private @l1
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[W:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK-SAME: dlas.layer = "a; b"
// CHECK-NOT: memref.get_global
// CHECK: linalg.add ins(%[[X]], %[[W]] :
// CHECK: linalg.add ins(%{{.*}}, %[[B]] :
// CHECK-NOT: func.func private @l2
// CHECK-LABEL: func.func @main
// CHECK: %[[W1:.*]] = memref.get_global @w1
// CHECK: %[[B1:.*]] = memref.get_global @b1
// CHECK: %[[R1:.*]] = call @l1(%{{.*}}, %[[W1]], %[[B1]])
// CHECK: %[[W2:.*]] = memref.get_global @w2
// CHECK: %[[B2:.*]] = memref.get_global @b2
// CHECK: call @l1(%[[R1]], %[[W2]], %[[B2]])

// -----

// A layer that reads one weight twice is not the same function as one that
// reads two weights; a layer of another shape neither; a layer without twin
// keeps its globals.
memref.global "private" constant @w1 : memref<4xf32> = dense<1.0>
memref.global "private" constant @w2 : memref<4xf32> = dense<2.0>
memref.global "private" constant @w3 : memref<4xf32> = dense<3.0>
memref.global "private" constant @v : memref<8xf32> = dense<3.0>
func.func private @twice(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "a"} {
  %w = memref.get_global @w1 : memref<4xf32>
  %b = memref.get_global @w1 : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  linalg.add ins(%x, %w : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  linalg.add ins(%y, %b : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return %y : memref<4xf32>
}
func.func private @two(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "b"} {
  %w = memref.get_global @w2 : memref<4xf32>
  %b = memref.get_global @w3 : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  linalg.add ins(%x, %w : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  linalg.add ins(%y, %b : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return %y : memref<4xf32>
}
func.func private @wide(%x: memref<8xf32>) -> memref<8xf32> attributes {dlas.layer = "c"} {
  %w = memref.get_global @v : memref<8xf32>
  %y = memref.alloc() : memref<8xf32>
  linalg.add ins(%x, %w : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  return %y : memref<8xf32>
}
func.func @main(%x: memref<4xf32>, %z: memref<8xf32>) -> (memref<4xf32>, memref<8xf32>) {
  %0 = call @twice(%x) : (memref<4xf32>) -> memref<4xf32>
  %1 = call @two(%0) : (memref<4xf32>) -> memref<4xf32>
  %2 = call @wide(%z) : (memref<8xf32>) -> memref<8xf32>
  return %1, %2 : memref<4xf32>, memref<8xf32>
}
// CHECK-LABEL: func.func private @twice(%{{.*}}: memref<4xf32>) -> memref<4xf32>
// CHECK-SAME: dlas.layer = "a"
// CHECK-COUNT-2: memref.get_global @w1
// CHECK-LABEL: func.func private @two(%{{.*}}: memref<4xf32>) -> memref<4xf32>
// CHECK: memref.get_global @w2
// CHECK: memref.get_global @w3
// CHECK-LABEL: func.func private @wide(%{{.*}}: memref<8xf32>) -> memref<8xf32>
// CHECK: memref.get_global @v
// CHECK-LABEL: func.func @main
// CHECK: call @twice(%{{[^,]*}}) :
// CHECK: call @two(%{{[^,]*}}) :
// CHECK: call @wide(%{{[^,]*}}) :

// -----

// Mutable globals are state, not weights: layers reading different ones
// stay apart. Public functions and functions that are not layers are left
// alone even when identical.
memref.global "private" @s1 : memref<4xf32> = dense<1.0>
memref.global "private" @s2 : memref<4xf32> = dense<2.0>
func.func private @m1(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "a"} {
  %s = memref.get_global @s1 : memref<4xf32>
  linalg.add ins(%x, %s : memref<4xf32>, memref<4xf32>) outs(%s : memref<4xf32>)
  return %s : memref<4xf32>
}
func.func private @m2(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "b"} {
  %s = memref.get_global @s2 : memref<4xf32>
  linalg.add ins(%x, %s : memref<4xf32>, memref<4xf32>) outs(%s : memref<4xf32>)
  return %s : memref<4xf32>
}
func.func @p1(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "c"} {
  return %x : memref<4xf32>
}
func.func @p2(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "d"} {
  return %x : memref<4xf32>
}
func.func private @n1(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func private @n2(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %0 = call @m1(%x) : (memref<4xf32>) -> memref<4xf32>
  %1 = call @m2(%0) : (memref<4xf32>) -> memref<4xf32>
  %2 = call @p1(%1) : (memref<4xf32>) -> memref<4xf32>
  %3 = call @p2(%2) : (memref<4xf32>) -> memref<4xf32>
  %4 = call @n1(%3) : (memref<4xf32>) -> memref<4xf32>
  %5 = call @n2(%4) : (memref<4xf32>) -> memref<4xf32>
  return %5 : memref<4xf32>
}
// CHECK-LABEL: func.func private @m1
// CHECK-LABEL: func.func private @m2
// CHECK-LABEL: func.func @p1
// CHECK-LABEL: func.func @p2
// CHECK-LABEL: func.func private @n1
// CHECK-LABEL: func.func private @n2
// CHECK-LABEL: func.func @main
// CHECK: call @m1
// CHECK: call @m2
// CHECK: call @p1
// CHECK: call @p2
// CHECK: call @n1
// CHECK: call @n2

// -----

// Identical layers with nested regions and no globals merge into one; the
// region's block arguments are matched too (a loop whose body differs stays).
func.func private @loop1(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<4xf32>
  }
  return %x : memref<4xf32>
}
func.func private @loop2(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<4xf32>
  }
  return %x : memref<4xf32>
}
func.func private @loop3(%x: memref<4xf32>) -> memref<4xf32> attributes {dlas.layer = "c"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %x[%i] : memref<4xf32>
  }
  return %x : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %0 = call @loop1(%x) : (memref<4xf32>) -> memref<4xf32>
  %1 = call @loop2(%0) : (memref<4xf32>) -> memref<4xf32>
  %2 = call @loop3(%1) : (memref<4xf32>) -> memref<4xf32>
  return %2 : memref<4xf32>
}
// CHECK-LABEL: func.func private @loop1(%{{.*}}: memref<4xf32>) -> memref<4xf32>
// CHECK-SAME: dlas.layer = "a; b"
// CHECK-NOT: func.func private @loop2
// CHECK-LABEL: func.func private @loop3
// CHECK: arith.mulf
// CHECK-LABEL: func.func @main
// CHECK: call @loop1
// CHECK: call @loop1
// CHECK: call @loop3
