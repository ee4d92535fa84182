// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-blocked-layout="int8=true convs-per-conversion=0" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3 features=+avxvnni" --dlas-blocked-layout="int8=true convs-per-conversion=0" | FileCheck %s --check-prefix=AVXVNNI
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-blocked-layout="convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-blocked-layout="int8=true convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVNNI
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-blocked-layout="int8=true convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni,+amx-tile,+amx-int8" --dlas-blocked-layout="int8=true convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMX

// An int8 convolution (i8 input and constant filter, i32 accumulator) in
// the blocked layout: the filter packed at compile time in k quads,
// [F/16, C/16, Kh, Kw, 4, 16, 4], and a 10-loop generic whose input
// channel is 4 * quad + byte, i8 products widened into i32.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d5, d2 + d6, d3 + d7, d8 * 4 + d9)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d5, d6, d7, d8, d4, d9)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @int8
// CHECK: %[[FILTER:.*]] = arith.constant dense<{{.*}}> : tensor<2x1x3x3x4x16x4xi8>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %[[FILTER]] : tensor<1x1x9x9x16xi8>, tensor<2x1x3x3x4x16x4xi8>) outs(%{{.*}} : tensor<1x2x7x7x16xi32>) attrs = {dlas.blocked_conv}
// CHECK: ^bb0(%[[X:.*]]: i8, %[[WV:.*]]: i8, %[[ACC:.*]]: i32):
// CHECK: %[[XE:.*]] = arith.extsi %[[X]] : i8 to i32
// CHECK: %[[WE:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK: %[[P:.*]] = arith.muli %[[XE]], %[[WE]] : i32
// CHECK: arith.addi %[[ACC]], %[[P]] : i32
// AVX-VNNI (8 lanes): blocks, two quads per block.
// AVXVNNI-LABEL: func.func @int8
// AVXVNNI: arith.constant dense<{{.*}}> : tensor<4x2x3x3x2x8x4xi8>
// AVXVNNI: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x9x9x8xi8>, tensor<4x2x3x3x2x8x4xi8>) outs(%{{.*}} : tensor<1x4x7x7x8xi32>) attrs = {dlas.blocked_conv}
// OFF: remark: stays NCHW: int8 (int8=false)
// NOVNNI: remark: stays NCHW: int8 without vpdpbusd at 16 lanes
// On AMX targets the GEMM on tiles keeps int8 layers.
// AMX: remark: stays NCHW: int8 on AMX tiles (the GEMM kernel's)
// PRINT: remark: 1 convolution(s) blocked
func.func @int8(%x: tensor<1x16x9x9xi8>) -> tensor<1x32x7x7xi32> {
  %w = arith.constant dense<3> : tensor<32x16x3x3xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x32x7x7xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x32x7x7xi32>) -> tensor<1x32x7x7xi32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x9x9xi8>, tensor<32x16x3x3xi8>)
    outs(%init : tensor<1x32x7x7xi32>) -> tensor<1x32x7x7xi32>
  return %y : tensor<1x32x7x7xi32>
}

// -----

// A filter that is not a constant stays NCHW: the quads are packed at
// compile time.
// PRINT: remark: stays NCHW: int8 with a filter that is not a constant
func.func @runtime_filter(%x: tensor<1x16x9x9xi8>, %w: tensor<32x16x3x3xi8>) -> tensor<1x32x7x7xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x32x7x7xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x32x7x7xi32>) -> tensor<1x32x7x7xi32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x9x9xi8>, tensor<32x16x3x3xi8>)
    outs(%init : tensor<1x32x7x7xi32>) -> tensor<1x32x7x7xi32>
  return %y : tensor<1x32x7x7xi32>
}
