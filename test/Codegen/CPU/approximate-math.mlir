// RUN: dlas-opt %s --dlas-cpu-approximate-math --split-input-file | FileCheck %s
// RUN: dlas-opt %s --dlas-cpu-approximate-math=ops=sin --split-input-file | FileCheck %s --check-prefix=SIN
// RUN: not dlas-opt %s --dlas-cpu-approximate-math=ops=exp,gamma 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v3 --split-input-file | FileCheck %s --check-prefix=PIPELINE
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 approximate-math=false" --split-input-file | FileCheck %s --check-prefix=LIBM

// The default set: no call left, f32 arithmetic the vectorizer takes.
// CHECK-LABEL: func.func @hot_functions
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.log
// CHECK: math.fma
// sin keeps libm's accuracy unless asked for.
// CHECK: math.sin
// CHECK-NOT: math.expm1
// CHECK: return
// SIN-LABEL: func.func @hot_functions
// SIN: math.exp
// SIN: math.tanh
// SIN: math.erf
// SIN-NOT: math.sin
// UNKNOWN: dlas-cpu-approximate-math: no approximation of 'math.gamma'
// PIPELINE-NOT: llvm.call @erff
// PIPELINE-NOT: llvm.intr.tanh
// PIPELINE-NOT: llvm.intr.exp
// PIPELINE-NOT: llvm.intr.log
// LIBM-DAG: llvm.call @erff
// LIBM-DAG: llvm.intr.tanh
// LIBM-DAG: llvm.intr.exp
// LIBM-DAG: llvm.intr.log
func.func @hot_functions(%x: vector<8xf32>, %m: memref<8xf32>) {
  %a = math.exp %x : vector<8xf32>
  %b = math.tanh %a : vector<8xf32>
  %c = math.erf %b : vector<8xf32>
  %d = math.log %c : vector<8xf32>
  %e = math.log1p %d : vector<8xf32>
  %f = math.expm1 %e : vector<8xf32>
  %g = math.log2 %f : vector<8xf32>
  %h = math.sin %g : vector<8xf32>
  %c0 = arith.constant 0 : index
  vector.store %h, %m[%c0] : memref<8xf32>, vector<8xf32>
  return
}

// -----

// Constant powers: multiplies, a division, square roots; any other
// exponent stays a pow.
// CHECK-LABEL: func.func @powers
// CHECK-SAME: (%[[X:.*]]: f32,
// CHECK: arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: arith.mulf %[[X]], %[[SQUARE]]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[X]]
// CHECK: math.sqrt %[[X]]
// CHECK: math.rsqrt %[[X]]
// CHECK: math.powf %[[X]], %{{.*}} : f32
// PIPELINE-LABEL: llvm.func @powers
// PIPELINE-NOT: llvm.intr.pow
// PIPELINE: llvm.intr.pow
// PIPELINE-NOT: llvm.intr.pow
func.func @powers(%x: f32, %m: memref<6xf32>) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %minus_one = arith.constant -1.0 : f32
  %half = arith.constant 0.5 : f32
  %minus_half = arith.constant -0.5 : f32
  %other = arith.constant 1.7 : f32
  %a = math.powf %x, %two : f32
  %b = math.powf %x, %three : f32
  %c = math.powf %x, %minus_one : f32
  %d = math.powf %x, %half : f32
  %e = math.powf %x, %minus_half : f32
  %f = math.powf %x, %other : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  memref.store %a, %m[%c0] : memref<6xf32>
  memref.store %b, %m[%c1] : memref<6xf32>
  memref.store %c, %m[%c2] : memref<6xf32>
  memref.store %d, %m[%c3] : memref<6xf32>
  memref.store %e, %m[%c4] : memref<6xf32>
  memref.store %f, %m[%c5] : memref<6xf32>
  return
}

// -----

// bf16 and f16 are computed in f32 between extf and truncf.
// CHECK-LABEL: func.func @half_floats
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK-NOT: math.exp
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK-NOT: math.erf
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
func.func @half_floats(%x: vector<8xbf16>, %y: vector<8xf16>, %m: memref<8xbf16>, %n: memref<8xf16>) {
  %a = math.exp %x : vector<8xbf16>
  %b = math.erf %y : vector<8xf16>
  %c0 = arith.constant 0 : index
  vector.store %a, %m[%c0] : memref<8xbf16>, vector<8xbf16>
  vector.store %b, %n[%c0] : memref<8xf16>, vector<8xf16>
  return
}
