// RUN: dlas-opt %s --split-input-file --dlas-target-to-llvm | FileCheck %s

// CHECK: module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"}
// CHECK: llvm.func @f() attributes {target_cpu = "znver3", target_features = #llvm.target_features<["+sse4.2", "+avx", "+avx2", "+fma", "+f16c", "-avx512f", "-avx512dq", "-avx512bw", "-avx512vl", "-avx512vnni", "-avx512bf16", "-avx512fp16", "-avxvnni", "-amx-tile", "-amx-bf16", "-amx-int8"]>}
// Declarations are left alone.
// CHECK: llvm.func @g()
// CHECK-NOT: target_cpu
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+sse4.2,+avx,+avx2,+fma,+f16c", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
  llvm.func @f() {
    llvm.return
  }
  llvm.func @g()
}

// -----

// Without a target nothing changes.
// CHECK: module {
// CHECK: llvm.func @h() {
module {
  llvm.func @h() {
    llvm.return
  }
}
