// RUN: dlas-opt %s --dlas-vectorize-reductions -verify-diagnostics

// The vector width comes from the target: without one (and without
// vector-width) the pass stops.
// expected-error @below {{no target: set the module's 'dlas.target' (dlas-attach-target, dlas-cpu-pipeline{target=...}) or give vector-width}}
module {
  func.func @row_sum(%x: memref<4x20xf32>, %y: memref<4xf32>) {
    return
  }
}
