// Options dlas-mixed-precision refuses, each with a message naming it.
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=fp8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=bf16 keep-f32=first-conv,stem" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=bf16 max-weight-error=nan" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not dlas-run %s --random-inputs --precision=int4 2>&1 | FileCheck %s --check-prefix=TOOL

// UNKNOWN: error: dlas-mixed-precision: unknown policy 'fp8' (f32, bf16, fp16, int8 or auto)
// KIND: error: dlas-mixed-precision: unknown keep-f32 kind 'stem' (first-conv, classifier, softmax, depthwise or none)
// BUDGET: error: dlas-mixed-precision: max-weight-error must be a number, got nan
// TOOL: error: dlas-mixed-precision: unknown policy 'int4'
// TOOL: dlas-run: error: compilation pipeline failed
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
