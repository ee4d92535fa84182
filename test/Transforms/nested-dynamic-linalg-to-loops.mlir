// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-nested-dynamic-linalg-to-loops))" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(dlas-nested-dynamic-linalg-to-loops,convert-linalg-to-affine-loops))" | FileCheck %s --check-prefix=AFFINE

// A recurrence over a state of run-time batch (an LSTM's time loop): the
// copy and the elementwise op inside the scf.for read sizes of the loop's
// iteration argument, which are no valid affine dims; they become scf
// loops. The copy at the top of the function stays linalg (the affine
// lowering takes it).
// CHECK-LABEL: func.func @time_loop
// CHECK: linalg.copy ins(%{{.*}} : memref<?x20xf32>) outs(%[[H0:.*]] : memref<?x20xf32>)
// CHECK: scf.for %{{.*}} iter_args(%[[H:.*]] = %[[H0]])
// CHECK: memref.alloc
// CHECK: %[[N:.*]] = memref.dim %[[H]], %{{.*}}
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK:   scf.for %{{.*}} = %{{.*}} to %c20 step
// CHECK:     memref.load %[[H]][
// CHECK:     math.tanh
// CHECK:     memref.store
// CHECK-NOT: linalg.generic
// CHECK: scf.yield
// AFFINE-LABEL: func.func @time_loop
// AFFINE: affine.for
// AFFINE: scf.for
// AFFINE: scf.for
// AFFINE-NOT: affine.for
// AFFINE: scf.yield
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @time_loop(%x: memref<?x20xf32>) -> memref<?x20xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c11 = arith.constant 11 : index
  %n0 = memref.dim %x, %c0 : memref<?x20xf32>
  %h0 = memref.alloc(%n0) : memref<?x20xf32>
  linalg.copy ins(%x : memref<?x20xf32>) outs(%h0 : memref<?x20xf32>)
  %r = scf.for %t = %c0 to %c11 step %c1 iter_args(%h = %h0) -> (memref<?x20xf32>) {
    %n = memref.dim %h, %c0 : memref<?x20xf32>
    %next = memref.alloc(%n) : memref<?x20xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : memref<?x20xf32>) outs(%next : memref<?x20xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = math.tanh %in : f32
      linalg.yield %y : f32
    }
    scf.yield %next : memref<?x20xf32>
  }
  return %r : memref<?x20xf32>
}

// -----

// Static shapes inside a loop, and tensors, are left alone.
// CHECK-LABEL: func.func @static_in_loop
// CHECK: scf.for
// CHECK: linalg.copy
// CHECK-LABEL: func.func @tensors_in_loop
// CHECK: scf.for
// CHECK: linalg.copy
func.func @static_in_loop(%x: memref<4x20xf32>, %y: memref<4x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %t = %c0 to %c3 step %c1 {
    linalg.copy ins(%x : memref<4x20xf32>) outs(%y : memref<4x20xf32>)
  }
  return
}
func.func @tensors_in_loop(%x: tensor<?x20xf32>, %y: tensor<?x20xf32>) -> tensor<?x20xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %y) -> (tensor<?x20xf32>) {
    %c = linalg.copy ins(%x : tensor<?x20xf32>) outs(%acc : tensor<?x20xf32>) -> tensor<?x20xf32>
    scf.yield %c : tensor<?x20xf32>
  }
  return %r : tensor<?x20xf32>
}
