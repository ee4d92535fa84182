// RUN: dlas-opt %s | dlas-opt | FileCheck %s
// Round trip of the target attribute.

// CHECK: module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
  // Other dlas.* attributes belong to the passes that read them.
  // CHECK: func.func @f() attributes {dlas.layer = "x"}
  func.func @f() attributes {dlas.layer = "x"} {
    return
  }
}
