// Without avx512bf16 (x86-64-v3, x86-64-v4, or no target) bf16 arithmetic
// runs in f32 and the conversions become bit operations; with it
// (sapphirerapids, znver4) the conversions stay for LLVM's vcvtneps2bf16.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-cpu-legalize-bf16 | FileCheck %s --check-prefix=SOFT
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-cpu-legalize-bf16 | FileCheck %s --check-prefix=SOFT
// RUN: dlas-opt %s --dlas-cpu-legalize-bf16 | FileCheck %s --check-prefix=SOFT
// RUN: dlas-opt %s --dlas-attach-target=target=sapphirerapids --dlas-cpu-legalize-bf16 | FileCheck %s --check-prefix=HARD
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-cpu-legalize-bf16 | FileCheck %s --check-prefix=HARD

// SOFT-LABEL: func @round
// SOFT-NOT: arith.truncf
// SOFT: arith.shrui
// SOFT: arith.trunci %{{.*}} : vector<16xi32> to vector<16xi16>
// SOFT: arith.bitcast %{{.*}} : vector<16xi16> to vector<16xbf16>
// HARD-LABEL: func @round
// HARD: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
func.func @round(%x: vector<16xf32>) -> vector<16xbf16> {
  %0 = arith.truncf %x : vector<16xf32> to vector<16xbf16>
  return %0 : vector<16xbf16>
}

// SOFT-LABEL: func @add
// SOFT-NOT: arith.addf %{{.*}} : bf16
// SOFT: arith.addf %{{.*}} : f32
// HARD-LABEL: func @add
// HARD: arith.addf %{{.*}} : bf16
func.func @add(%a: bf16, %b: bf16) -> bf16 {
  %0 = arith.addf %a, %b : bf16
  return %0 : bf16
}

// An f32-only module is left as it is.
// SOFT-LABEL: func @f32_only
// SOFT: arith.addf %{{.*}} : f32
func.func @f32_only(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}

// On the LLVM dialect, on every target: masked loads and stores of bf16 and
// f16 vectors move i16 bit patterns.
// SOFT-LABEL: llvm.func @masked
// SOFT: %[[PASS:.*]] = llvm.bitcast %{{.*}} : vector<8xbf16> to vector<8xi16>
// SOFT: %[[RAW:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[PASS]] {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi16>) -> vector<8xi16>
// SOFT: %[[V:.*]] = llvm.bitcast %[[RAW]] : vector<8xi16> to vector<8xbf16>
// SOFT: %[[BITS:.*]] = llvm.bitcast %{{.*}} : vector<8xf16> to vector<8xi16>
// SOFT: llvm.intr.masked.store %[[BITS]], %{{.*}}, %{{.*}} {alignment = 2 : i32} : vector<8xi16>, vector<8xi1> into !llvm.ptr
// HARD-LABEL: llvm.func @masked
// HARD: llvm.intr.masked.load {{.*}} -> vector<8xi16>
llvm.func @masked(%p: !llvm.ptr, %m: vector<8xi1>, %z: vector<8xbf16>, %h: vector<8xf16>) -> vector<8xbf16> {
  %0 = llvm.intr.masked.load %p, %m, %z {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xbf16>) -> vector<8xbf16>
  llvm.intr.masked.store %h, %p, %m {alignment = 2 : i32} : vector<8xf16>, vector<8xi1> into !llvm.ptr
  llvm.return %0 : vector<8xbf16>
}
