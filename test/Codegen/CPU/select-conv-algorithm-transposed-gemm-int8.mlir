// dlas-select-conv-algorithm{transposed-gemm} on int8 convolutions: where
// the target has vpdpbusd (AVX512-VNNI for 16 lanes, AVX-VNNI for 8), a
// batch-1 i8 x i8 -> i32 convolution on a small plane runs as the
// transposed GEMM like a float one, and its dequantization (per-channel
// scales and zero-point sums: extra operands read by the channel) moves
// before the copy back to NCHW, read by F on [P, F]. Without vpdpbusd it
// stays in NCHW: the pair kernel (vpmaddubsw) needs its s8 operand, the
// activations there, known at compile time.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true" | FileCheck %s --check-prefix=NOVNNI
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 features=+avx512vnni" --dlas-select-conv-algorithm="microkernels=true transposed-gemm=false" | FileCheck %s --check-prefix=NOVNNI

// CHECK-DAG: #[[PF:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[F:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @dequantized_7x7
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x7x7xi8>, %[[S:.*]]: tensor<16xf32>, %[[Z:.*]]: tensor<16xi32>)
// CHECK: %[[WT:.*]] = arith.constant dense<{{.*}}> : tensor<8x16xi8>
// CHECK: %[[XT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x8x49xi8> into tensor<8x49xi8>
// CHECK: %[[YT:.*]] = linalg.generic {{.*}} ins(%[[XT]], %[[WT]] : tensor<8x49xi8>, tensor<8x16xi8>) outs(%{{.*}} : tensor<49x16xi32>)
// CHECK: arith.extsi
// CHECK: %[[DQ:.*]] = linalg.generic {indexing_maps = [#[[PF]], #[[F]], #[[F]], #[[PF]]], {{.*}}} ins(%[[YT]], %[[S]], %[[Z]] : tensor<49x16xi32>, tensor<16xf32>, tensor<16xi32>) outs(%{{.*}} : tensor<49x16xf32>)
// CHECK: arith.subi
// CHECK: arith.sitofp
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[DQ]] {{\[\[}}0, 1], [2]] output_shape [7, 7, 16]
// CHECK: %[[NCHW:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<7x7x16xf32>) outs(%{{.*}} : tensor<1x16x7x7xf32>)
// CHECK: return %[[NCHW]]
// NOVNNI-LABEL: func @dequantized_7x7
// NOVNNI-NOT: tensor<49x16xi32>
// NOVNNI: return
func.func @dequantized_7x7(%x: tensor<1x8x7x7xi8>, %s: tensor<16xf32>, %z: tensor<16xi32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<3> : tensor<16x8x1x1xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x16x7x7xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x7x7xi8>, tensor<16x8x1x1xi8>) outs(%init : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  %e2 = tensor.empty() : tensor<1x16x7x7xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %s, %z : tensor<1x16x7x7xi32>, tensor<16xf32>, tensor<16xi32>) outs(%e2 : tensor<1x16x7x7xf32>) {
  ^bb0(%in: i32, %scale: f32, %zp: i32, %out: f32):
    %d = arith.subi %in, %zp : i32
    %f = arith.sitofp %d : i32 to f32
    %m = arith.mulf %f, %scale : f32
    linalg.yield %m : f32
  } -> tensor<1x16x7x7xf32>
  return %1 : tensor<1x16x7x7xf32>
}

// -----

// An epilogue operand read per position (not per channel) keeps the
// epilogue after the copy back; the GEMM still runs transposed.
// CHECK-LABEL: func @per_position_operand
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<49x16xi32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<7x7x16xi32>) outs(%{{.*}} : tensor<1x16x7x7xi32>)
// CHECK: arith.addi
// CHECK: return
func.func @per_position_operand(%x: tensor<1x8x7x7xi8>, %r: tensor<7x7xi32>) -> tensor<1x16x7x7xi32> {
  %w = arith.constant dense<3> : tensor<16x8x1x1xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x16x7x7xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x7x7xi8>, tensor<16x8x1x1xi8>) outs(%init : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  %e2 = tensor.empty() : tensor<1x16x7x7xi32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %r : tensor<1x16x7x7xi32>, tensor<7x7xi32>) outs(%e2 : tensor<1x16x7x7xi32>) {
  ^bb0(%in: i32, %p: i32, %out: i32):
    %a = arith.addi %in, %p : i32
    linalg.yield %a : i32
  } -> tensor<1x16x7x7xi32>
  return %1 : tensor<1x16x7x7xi32>
}

// -----

// A per-channel operand made after the convolution cannot move before it:
// the epilogue stays after the copy back.
// CHECK-LABEL: func @late_per_channel
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<49x16xi32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<7x7x16xi32>) outs(%{{.*}} : tensor<1x16x7x7xi32>)
// CHECK: arith.addi
// CHECK: return
func.func @late_per_channel(%x: tensor<1x8x7x7xi8>, %b: tensor<16xi32>) -> tensor<1x16x7x7xi32> {
  %w = arith.constant dense<3> : tensor<16x8x1x1xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x16x7x7xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x7x7xi8>, tensor<16x8x1x1xi8>) outs(%init : tensor<1x16x7x7xi32>) -> tensor<1x16x7x7xi32>
  %eb = tensor.empty() : tensor<16xi32>
  %late = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<16xi32>) outs(%eb : tensor<16xi32>) {
  ^bb0(%in: i32, %out: i32):
    %t = arith.addi %in, %in : i32
    linalg.yield %t : i32
  } -> tensor<16xi32>
  %e2 = tensor.empty() : tensor<1x16x7x7xi32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %late : tensor<1x16x7x7xi32>, tensor<16xi32>) outs(%e2 : tensor<1x16x7x7xi32>) {
  ^bb0(%in: i32, %p: i32, %out: i32):
    %a = arith.addi %in, %p : i32
    linalg.yield %a : i32
  } -> tensor<1x16x7x7xi32>
  return %1 : tensor<1x16x7x7xi32>
}
