// Kernels whose epilogue adds an i8 skip connection dequantized on the fly
// (dlas-fuse-conversions puts the dequantize into the add's body): an f32
// 1x1 convolution (the GEMM kernel) and an f32 depthwise convolution (layers a policy keeps
// in f32 inside an int8 residual block). Both kernels fold the add, and
// their results equal the plain loops' (microkernels=0) on seeded inputs.
// RUN: rm -rf %t && split-file %s %t
// RUN: dlas-opt %t/dense.mlir --dlas-cpu-pipeline="target=x86-64-v3 print-microkernels=1 lower-to-llvm=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: dlas-opt %t/depthwise.mlir --dlas-cpu-pipeline="target=x86-64-v3 print-microkernels=1 lower-to-llvm=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DW
// RUN: dlas-run %t/dense.mlir --random-inputs --pipeline "builtin.module(dlas-cpu-pipeline{target=x86-64-v3 microkernels=0})" --output-dir %t/dense-loops
// RUN: dlas-run %t/dense.mlir --random-inputs --target x86-64-v3 --expect %t/dense-loops/main_output0.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: dlas-run %t/depthwise.mlir --random-inputs --pipeline "builtin.module(dlas-cpu-pipeline{target=x86-64-v3 microkernels=0})" --output-dir %t/dw-loops
// RUN: dlas-run %t/depthwise.mlir --random-inputs --target x86-64-v3 --expect %t/dw-loops/main_output0.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=SAME
// DENSE-NOT: warning
// DENSE: remark: {{.*}}microkernel {{.*}}1 epilogue op(s) fused
// DW-NOT: warning
// DW: remark: depthwise microkernel {{.*}}2 epilogue op(s) fused
// SAME: PASS
//--- dense.mlir
func.func @main(%x: tensor<1x16x14x14xf32>, %q: tensor<1x16x14x14xi8>) -> tensor<1x16x14x14xf32> {
  %w = arith.constant dense<0.05> : tensor<16x16x1x1xf32>
  %b = arith.constant dense<0.5> : tensor<16xf32>
  %c = nn.conv2d %x, %w, %b : (tensor<1x16x14x14xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>) -> tensor<1x16x14x14xf32>
  %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x16x14x14xi8> to tensor<1x16x14x14xf32>
  %s = nn.add %c, %d : (tensor<1x16x14x14xf32>, tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  return %s : tensor<1x16x14x14xf32>
}
//--- depthwise.mlir
func.func @main(%x: tensor<1x16x14x14xf32>, %q: tensor<1x16x14x14xi8>) -> tensor<1x16x14x14xf32> {
  %w = arith.constant dense<0.05> : tensor<16x1x3x3xf32>
  %c = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 16 : i64} : (tensor<1x16x14x14xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x14x14xf32>
  %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -128>} : tensor<1x16x14x14xi8> to tensor<1x16x14x14xf32>
  %s = nn.add %c, %d : (tensor<1x16x14x14xf32>, tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %r = nn.relu %s : tensor<1x16x14x14xf32>
  return %r : tensor<1x16x14x14xf32>
}
