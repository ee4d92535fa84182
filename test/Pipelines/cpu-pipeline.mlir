// The CPU pipeline end to end: nn -> LLVM dialect -> LLVM IR.
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v4 | FileCheck %s --check-prefix=LLVM
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v4 | %mlir_translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 lower-to-llvm=false" | FileCheck %s --check-prefix=LOOPS
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 emit-c-interface=false" | FileCheck %s --check-prefix=NOCI
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-cpu-pipeline{target=x86-64-v4})" | FileCheck %s --check-prefix=LLVM
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 outline-layers=false" | FileCheck %s --check-prefix=INLINE
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 min-parallel-iterations=0" | FileCheck %s --check-prefix=THREADS
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 threading=false" | FileCheck %s --check-prefix=NOTHREADS
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 microkernels=false lower-to-llvm=false" | FileCheck %s --check-prefix=NOMICRO
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 print-microkernels" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v3 print-decisions" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECIDE
// The target reaches the LLVM functions; the kernels use its vector width.
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v4 | FileCheck %s --check-prefix=V4
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v3 | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v3 | %mlir_translate --mlir-to-llvmir | FileCheck %s --check-prefix=V3IR
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 target-vector-bits=256" | FileCheck %s --check-prefix=V4Y
// A module's own target wins over the default (host), not over a named one.
// RUN: dlas-opt %s --dlas-attach-target=target=znver3 --dlas-cpu-pipeline | FileCheck %s --check-prefix=KEEP
// RUN: dlas-opt %s --dlas-attach-target=target=znver3 --dlas-cpu-pipeline=target=x86-64-v4 | FileCheck %s --check-prefix=V4
// RUN: not dlas-opt %s --dlas-cpu-pipeline=target=pentium9 2>&1 | FileCheck %s --check-prefix=BADTARGET

// V4: llvm.target_triple = "x86_64-unknown-linux-gnu"
// V4-NOT: dlas.target
// V4: llvm.func @main_layer0_conv2d
// V4-SAME: target_cpu = "x86-64-v4"
// V4-SAME: target_features = #llvm.target_features<["+sse4.2", "+avx", "+avx2", "+fma", "+f16c", "+avx512f", "+avx512dq", "+avx512bw", "+avx512vl", "-avx512vnni"
// V4: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// V3: llvm.func @main_layer0_conv2d
// V3-SAME: target_cpu = "x86-64-v3"
// V3-SAME: "+fma", "+f16c", "-avx512f"
// V3: llvm.intr.fmuladd({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// V3IR: define {{.*}} @main_layer0_conv2d({{.*}} #[[ATTRS:[0-9]+]]
// V3IR: attributes #[[ATTRS]] = {{{.*}}"target-cpu"="x86-64-v3" "target-features"="+sse4.2,+avx,+avx2,+fma,+f16c,-avx512f
// V4Y: llvm.intr.fmuladd({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// KEEP: target_cpu = "znver3"
// BADTARGET: unknown target 'pentium9'

// NOMICRO-NOT: vector.fma
// (8x8: rows of half a 16-lane vector, so the compact flat form: N = 64.)
// PRINT: remark: microkernel {{[0-9]+}}x{{[0-9]+}} (m0={{[0-9]+}}, vectors={{[0-9]+}}, kc={{[0-9]+}}, mc={{[0-9]+}}) key 'm4_n64_k27' for M=4 N=64 K=27, A packed at run time

// LLVM-NOT: nn.
// LLVM-NOT: linalg.
// LLVM-NOT: memref.
// LLVM: llvm.func @main(
// LLVM-SAME: dlas.signature = (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
// The relu joins the convolution's layer.
// LLVM: llvm.call @main_layer0_conv2d(
// LLVM-NOT: relu
// LLVM: llvm.call @main_layer1_max_pool2d(
// LLVM: llvm.func @_mlir_ciface_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// Each layer is a function LLVM may not inline.
// LLVM: llvm.func @main_layer0_conv2d({{.*}}passthrough = ["noinline"]
// LLVM: llvm.call @malloc
// LLVM: llvm.intr.maximum
// LLVM: llvm.func @main_layer1_max_pool2d(

// IR: define { ptr, ptr, i64, [4 x i64], [4 x i64] } @main(
// IR: define void @_mlir_ciface_main(ptr
// IR: ; Function Attrs: noinline
// IR-NEXT: define {{.*}} @main_layer0_conv2d(
// The convolution runs as a vector microkernel.
// IR: call <{{[0-9]+}} x float> @llvm.fmuladd.v{{[0-9]+}}f32(

// LOOPS: func.func @main(%{{.*}}: memref<1x3x8x8xf32>, %{{.*}}: memref<4x3x3x3xf32>) -> memref<1x4x3x3xf32>
// LOOPS: memref.alloc
// LOOPS: cf.cond_br
// LOOPS: vector.fma
// LOOPS-NOT: linalg.
// LOOPS: return

// Each layer's outermost parallel loop runs on OpenMP threads (at
// min-parallel-iterations=0, however small).
// THREADS: llvm.func @main_layer0_conv2d(
// THREADS: omp.parallel
// THREADS: omp.wsloop
// THREADS: llvm.func @main_layer1_max_pool2d(
// THREADS: omp.parallel
// NOTHREADS-NOT: omp.

// INLINE-NOT: layer
// INLINE: llvm.intr.maximum

// NOCI-NOT: _mlir_ciface_main
// NOCI-NOT: dlas.signature

// The decisions, made on tensors for the pinned target (AVX2: 8 lanes, 16
// registers); the flat convolution's rows of 8 are whole vectors, so it
// computes the 64 outputs alone (compact), B read in place.
// DECIDE: remark: gemm microkernel {{[0-9]+}}x{{[0-9]+}} ({{[0-9]+}} rows of {{[0-9]+}} 8-lane vectors, {{.*}}B read in place) from the cost model for 16 vector registers, key 'm4_n64_k27'; 'f32' inputs, 'f32' accumulators; init fill, 0 epilogue op(s) fused
// DECIDE: remark: max_pool microkernel {{[0-9]+}}x8 {{.*}}key 'max_c4_o3x3_k3x3_s2x2'
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = nn.relu %0 : tensor<1x4x8x8xf32>
  %2 = nn.max_pool2d %1 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  return %2 : tensor<1x4x3x3xf32>
}
