// The CPU pipeline end to end: nn -> LLVM dialect -> LLVM IR.
// RUN: dlas-opt %s --dlas-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: dlas-opt %s --dlas-cpu-pipeline | %mlir_translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR
// RUN: dlas-opt %s --dlas-cpu-pipeline="lower-to-llvm=false" | FileCheck %s --check-prefix=LOOPS
// RUN: dlas-opt %s --dlas-cpu-pipeline="emit-c-interface=false" | FileCheck %s --check-prefix=NOCI
// RUN: dlas-opt %s --pass-pipeline="builtin.module(dlas-cpu-pipeline)" | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: nn.
// LLVM-NOT: linalg.
// LLVM-NOT: memref.
// LLVM: llvm.func @main(
// LLVM-SAME: dlas.signature = (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
// LLVM: llvm.call @malloc
// LLVM: llvm.intr.maximum
// LLVM: llvm.func @_mlir_ciface_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)

// IR: define { ptr, ptr, i64, [4 x i64], [4 x i64] } @main(
// IR: fmul float
// IR: fadd float
// IR: define void @_mlir_ciface_main(ptr

// LOOPS: func.func @main(%{{.*}}: memref<1x3x8x8xf32>, %{{.*}}: memref<4x3x3x3xf32>) -> memref<1x4x3x3xf32>
// LOOPS: memref.alloc
// LOOPS: cf.cond_br
// LOOPS-NOT: linalg.
// LOOPS: return

// NOCI-NOT: _mlir_ciface_main
// NOCI-NOT: dlas.signature

func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = nn.relu %0 : tensor<1x4x8x8xf32>
  %2 = nn.max_pool2d %1 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  return %2 : tensor<1x4x3x3xf32>
}
