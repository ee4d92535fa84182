// Slices at loop-dependent offsets (as tiling by the transform dialect
// leaves them) reach the LLVM stage as subviews with dynamic offsets;
// expanding them computes the offsets with affine.apply, which the
// pipeline lowers too. The module must translate to LLVM IR and run.
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v3 | FileCheck %s
// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v3 | %mlir_translate --mlir-to-llvmir > /dev/null
// RUN: %python %S/Inputs/rowsum.py %t
// RUN: dlas-run %s --target x86-64-v3 --input %t/a.npy --expect %t/expected.npy | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: llvm.func @main
// CHECK-NOT: affine.apply
// CHECK-NOT: unrealized_conversion_cast
// EXEC: PASS
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // Row i of the result: row i of %a times (i + 1).
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %e) -> tensor<4x8xf32> {
    %row = tensor.extract_slice %a[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
    %v = vector.transfer_read %row[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x8xf32>, vector<1x8xf32>
    %ip1 = arith.addi %i, %c1 : index
    %k = arith.index_cast %ip1 : index to i32
    %kf = arith.sitofp %k : i32 to f32
    %kv = vector.broadcast %kf : f32 to vector<1x8xf32>
    %w = arith.mulf %v, %kv : vector<1x8xf32>
    %out = tensor.extract_slice %acc[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
    %wr = vector.transfer_write %w, %out[%c0, %c0] {in_bounds = [true, true]} : vector<1x8xf32>, tensor<1x8xf32>
    %next = tensor.insert_slice %wr into %acc[%i, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<4x8xf32>
    scf.yield %next : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
