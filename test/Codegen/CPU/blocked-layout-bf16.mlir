// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-blocked-layout="bf16=true convs-per-conversion=0" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-blocked-layout="convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-blocked-layout="bf16=true convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODOT
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16" --dlas-blocked-layout="bf16=true convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512bf16,+amx-tile,+amx-bf16" --dlas-blocked-layout="bf16=true convs-per-conversion=0 print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMX

// A bf16 convolution (bf16 input and constant filter, f32 accumulator) in
// the blocked layout: the filter packed at compile time in k pairs,
// [F/16, C/16, Kh, Kw, 8, 16, 2], and a 10-loop generic whose input
// channel is 2 * pair + element, bf16 products widened into f32.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7, d8 * 2 + d9)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d5, d6, d7, d8, d4, d9)>
// CHECK-LABEL: func.func @bf16
// CHECK: %[[FILTER:.*]] = arith.constant dense<{{.*}}> : tensor<2x2x3x3x8x16x2xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %[[FILTER]] : tensor<1x2x9x9x16xbf16>, tensor<2x2x3x3x8x16x2xbf16>) outs(%{{.*}} : tensor<1x2x4x4x16xf32>) attrs = {dlas.blocked_conv}
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[WV:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK: %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: %[[WE:.*]] = arith.extf %[[WV]] : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[XE]], %[[WE]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
// OFF: remark: stays NCHW: bf16 (bf16=false)
// NODOT: remark: stays NCHW: bf16 without vdpbf16ps at 16 lanes
// On AMX targets the GEMM on tiles keeps bf16 layers.
// AMX: remark: stays NCHW: bf16 on AMX tiles (the GEMM kernel's)
// PRINT: remark: 1 convolution(s) blocked
func.func @bf16(%x: tensor<1x32x9x9xbf16>) -> tensor<1x32x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x9x9xbf16>, tensor<32x32x3x3xbf16>)
    outs(%init : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %y : tensor<1x32x4x4xf32>
}

// -----

// PRINT: remark: stays NCHW: bf16 with a filter that is not a constant
func.func @runtime_filter(%x: tensor<1x32x9x9xbf16>, %w: tensor<32x32x3x3xbf16>) -> tensor<1x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x32x9x9xbf16>, tensor<32x32x3x3xbf16>)
    outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %y : tensor<1x32x7x7xf32>
}
