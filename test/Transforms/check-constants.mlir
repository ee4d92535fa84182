// RUN: dlas-opt %s --split-input-file --dlas-check-constants --verify-diagnostics | FileCheck %s
// RUN: not dlas-opt %s --split-input-file --dlas-cpu-pipeline=target=x86-64-v3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// A pass that reads weights at compile time, run alone on a short blob,
// leaves it unread (packing at run time) instead of reading past it.
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32" 2>/dev/null | FileCheck %s --check-prefix=NOCRASH

// A blob of the right size passes unchanged.
// CHECK-LABEL: func @whole
// CHECK: dense_resource<whole> : tensor<2x2xf32>
func.func @whole() -> tensor<2x2xf32> {
  %w = arith.constant dense_resource<whole> : tensor<2x2xf32>
  return %w : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      whole: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// PIPELINE: error: dense_resource 'short' of type 'tensor<2x2xf32>' holds 12 bytes, where its type needs 16
func.func @short() -> tensor<2x2xf32> {
  // expected-error @+1 {{dense_resource 'short' of type 'tensor<2x2xf32>' holds 12 bytes, where its type needs 16}}
  %w = arith.constant dense_resource<short> : tensor<2x2xf32>
  return %w : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F0000004000004040"
    }
  }
#-}

// -----

// A blob longer than its type is as wrong as a short one.
func.func @long() -> tensor<2xi8> {
  // expected-error @+1 {{dense_resource 'long' of type 'tensor<2xi8>' holds 3 bytes, where its type needs 2}}
  %w = arith.constant dense_resource<long> : tensor<2xi8>
  return %w : tensor<2xi8>
}
{-#
  dialect_resources: {
    builtin: {
      long: "0x01000000010203"
    }
  }
#-}

// -----

// IR printed with --mlir-elide-resource-strings-if-larger keeps the
// handle and drops the data.
func.func @elided() -> tensor<4xf32> {
  // expected-error @+1 {{dense_resource '__elided__' of type 'tensor<4xf32>' has no data (was it printed elided?)}}
  %w = arith.constant dense_resource<__elided__> : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

// Global initial values are checked as constants are.
// expected-error @+1 {{dense_resource 'g' of type 'tensor<4xf32>' holds 4 bytes, where its type needs 16}}
memref.global "private" constant @g : memref<4xf32> = dense_resource<g>
{-#
  dialect_resources: {
    builtin: {
      g: "0x040000000000803F"
    }
  }
#-}

// -----

// Elements narrower than a byte have no byte count DLAS checks.
func.func @bits() -> tensor<8xi1> {
  // expected-error @+1 {{dense_resource 'b' has type 'tensor<8xi1>', whose bytes DLAS cannot count}}
  %w = arith.constant dense_resource<b> : tensor<8xi1>
  return %w : tensor<8xi1>
}
{-#
  dialect_resources: {
    builtin: {
      b: "0x01000000FF"
    }
  }
#-}

// -----

// NOCRASH-LABEL: func @matmul
// NOCRASH: memref.get_global @wb : memref<8x4xf32>
// NOCRASH-NOT: memref.get_global @{{.*}}packed
func.func @matmul(%a: memref<4x8xf32>, %c: memref<4x4xf32>) {
  %b = memref.get_global @wb : memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
// expected-error @+1 {{dense_resource 'wb' of type 'tensor<8x4xf32>' holds 8 bytes, where its type needs 128}}
memref.global "private" constant @wb : memref<8x4xf32> = dense_resource<wb>
{-#
  dialect_resources: {
    builtin: {
      wb: "0x040000000000803F00000040"
    }
  }
#-}
