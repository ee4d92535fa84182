// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --dlas-grouped-conv-packing="policy=always" --mlir-elide-resource-strings-if-larger=16 | FileCheck %s
// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --dlas-grouped-conv-packing="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --dlas-grouped-conv-packing="policy=never" | FileCheck %s --check-prefix=NEVER
// RUN: dlas-opt %s --split-input-file --convert-nn-to-linalg --dlas-grouped-conv-packing="policy=always ti=2 to=4 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PINNED

// 4 groups of 8 -> 12 channels on the AVX2 target (8 lanes): TI = 8, TO =
// 8, each group's 12 output channels padded to 16. The constant filter
// [4, 12, 8, 3, 3] becomes a packed constant [G, 16/8, 8/8, 3, 3, 8, 8];
// the input [1, 4, 8, 10, 10] is transposed to [1, 4, 1, 10, 10, 8]; the
// bias broadcast is rebuilt on the padded bias; the result is copied back
// in read order and its padded channels dropped.
// CHECK-LABEL: func.func @padded_kpg
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<dlas_gspc_filter> : tensor<4x2x1x3x3x8x8xf32>
// CHECK-DAG: %[[X:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x4x1x8x10x10xf32>) outs(%{{.*}} : tensor<1x4x1x10x10x8xf32>) permutation = [0, 1, 2, 4, 5, 3]
// CHECK-DAG: %[[BIAS:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 4]
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%{{.*}} : tensor<4x2x8xf32>) outs(%{{.*}} : tensor<1x4x2x8x8x8xf32>) dimensions = [0, 3, 4]
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[XMAP:.*]], #[[WMAP:.*]], #[[YMAP:.*]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[W]] : tensor<1x4x1x10x10x8xf32>, tensor<4x2x1x3x3x8x8xf32>) outs(%[[INIT]] : tensor<1x4x2x8x8x8xf32>) attrs = {dlas.gspc = "g{{[^"]*}}"}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[COPY:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<1x4x2x8x8x8xf32>) outs(%{{.*}} : tensor<1x4x2x8x8x8xf32>)
// CHECK: %[[CH:.*]] = tensor.collapse_shape %[[COPY]] {{\[}}[0], [1], [2, 3], [4], [5]] : tensor<1x4x2x8x8x8xf32> into tensor<1x4x16x8x8xf32>
// CHECK: tensor.extract_slice %[[CH]][0, 0, 0, 0, 0] [1, 4, 12, 8, 8] [1, 1, 1, 1, 1]
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw

// AUTO: remark: GSPC: TI = 8, TO = 8 (12 output channels per group fill 8-lane vectors (25% padding)), key 'g4_c32_f48_o8x8_k3x3_s1x1'
// NEVER-LABEL: func.func @padded_kpg
// NEVER: linalg.conv_2d_ngchw_gfchw
// PINNED: remark: GSPC: TI = 2, TO = 4 (pass options), key 'g4_c32_f48_o8x8_k3x3_s1x1'
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
func.func @padded_kpg(%x: tensor<1x32x8x8xf32>, %b: tensor<48xf32>) -> tensor<1x48x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<48x8x3x3xf32>
  %y = nn.conv2d %x, %w, %b {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<48x8x3x3xf32>, tensor<48xf32>) -> tensor<1x48x8x8xf32>
  return %y : tensor<1x48x8x8xf32>
}
}

// -----

// 2 groups of 16 -> 16 channels at 7x7 on AVX-512: auto packs it (whole
// 16-lane vectors, a small plane). A run-time filter is packed by ops: it
// is padded only when KPG needs it (not here), reshaped and transposed to
// [G, KPG/TO, CPG/TI, Kh, Kw, TI, TO]. The fill init is rebuilt.
// CHECK-LABEL: func.func @runtime_filter
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x1x16x1x16x3x3xf32>) outs(%{{.*}} : tensor<2x1x1x3x3x16x16xf32>) permutation = [0, 1, 3, 5, 6, 4, 2]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x1x7x7x16xf32>)
// CHECK: linalg.generic {{.*}} attrs = {dlas.gspc = "g{{[^"]*}}"}
// CHECK-NOT: tensor.extract_slice
// AUTO: remark: GSPC: TI = 16, TO = 16 (16 output channels per group fill 16-lane vectors (0% padding)), key 'g2_c32_f32_o7x7_k3x3_s1x1'
// PINNED: remark: GSPC: TI = 2, TO = 4 (pass options), key 'g2_c32_f32_o7x7_k3x3_s1x1'
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx,+avx2,+fma,+avx512f", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
func.func @runtime_filter(%x: tensor<1x32x7x7xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x7x7xf32> {
  %y = nn.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x7x7xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x7x7xf32>
  return %y : tensor<1x32x7x7xf32>
}
}

// -----

// The same layer at 28x28: auto leaves it to the flat GEMM (its 16
// output channels per group are one 16-lane vector). Strides and
// dilations carry into the packed convolution's input map.
// (The maps print before the function.)
// CHECK: #{{.*}} = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 * 2 + d7 * 2, d4 * 2 + d8 * 2, d9)>
// CHECK-LABEL: func.func @large_plane
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x1x59x59x16xf32>, tensor<2x1x1x3x3x16x16xf32>) outs(%{{.*}} : tensor<1x2x1x28x28x16xf32>) attrs = {dlas.gspc = "g{{[^"]*}}"}
// AUTO: remark: grouped convolution stays for dlas-select-conv-algorithm: one 16-lane output vector per group on a 28x28 plane (> 196): the flat GEMM wins
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx,+avx2,+fma,+avx512f", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
func.func @large_plane(%x: tensor<1x32x59x59xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x28x28xf32> {
  %y = nn.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x32x59x59xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x28x28xf32>
  return %y : tensor<1x32x28x28xf32>
}
}

// -----

// 8 output channels per group on AVX-512: a 16-lane tile would be half
// padding, so auto leaves the layer to the flat GEMM (always packs it with
// 8-lane vectors).
// CHECK-LABEL: func.func @narrow_groups
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x1x8x8x8xf32>) attrs = {dlas.gspc = "g{{[^"]*}}"}
// AUTO: remark: grouped convolution stays for dlas-select-conv-algorithm: 8 output channels per group fill no 16-lane vector: the flat GEMM vectorizes along the image
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx,+avx2,+fma,+avx512f", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
func.func @narrow_groups(%x: tensor<1x32x8x8xf32>, %w: tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %y = nn.conv2d %x, %w {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %y : tensor<1x32x8x8xf32>
}
}

// -----

// 8-lane targets pack larger planes (up to 1024 positions, measured by
// dlas-tune on x86-64-v3): a 28x28 layer with 16 output channels per group
// is GSPC there, a 56x56 one stays with the flat GEMM.
// CHECK-LABEL: func.func @avx2_planes
// AUTO: remark: GSPC: TI = 8, TO = 8 (16 output channels per group fill 8-lane vectors (0% padding)), key 'g2_c32_f32_o28x28_k3x3_s1x1'
// AUTO: remark: grouped convolution stays for dlas-select-conv-algorithm: output plane 56x56 > 1024
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
func.func @avx2_planes(%x: tensor<1x32x28x28xf32>, %w: tensor<32x16x3x3xf32>, %x2: tensor<1x32x56x56xf32>) -> (tensor<1x32x28x28xf32>, tensor<1x32x56x56xf32>) {
  %y = nn.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x28x28xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x28x28xf32>
  %y2 = nn.conv2d %x2, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x56x56xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x56x56xf32>
  return %y, %y2 : tensor<1x32x28x28xf32>, tensor<1x32x56x56xf32>
}
}

// -----

// 8-lane targets pack planes up to 32x32, but a group of one output vector
// only up to 14x14 (its register tile is one vector wide; measured on
// Zen 3: the flat GEMM wins at 28x28 and 32x32); two vectors per group
// pack at 32x32.
// AUTO: remark: grouped convolution stays for dlas-select-conv-algorithm: one 8-lane output vector per group on a 32x32 plane (> 196): the flat GEMM wins
// AUTO: remark: GSPC: TI = 8, TO = 8 (16 output channels per group fill 8-lane vectors (0% padding)), key 'g2_c32_f32_o32x32_k3x3_s1x1'
// AUTO: remark: GSPC: TI = 8, TO = 8 (8 output channels per group fill 8-lane vectors (0% padding)), key 'g4_c32_f32_o14x14_k3x3_s1x1'
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
func.func @one_vector_groups(%x: tensor<1x32x32x32xf32>, %w4: tensor<32x8x3x3xf32>, %w2: tensor<32x16x3x3xf32>, %s: tensor<1x32x14x14xf32>) -> (tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>, tensor<1x32x14x14xf32>) {
  %a = nn.conv2d %x, %w4 {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x32x32xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x32x32xf32>
  %b = nn.conv2d %x, %w2 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x32x32xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x32x32xf32>
  %c = nn.conv2d %s, %w4 {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x14x14xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x14x14xf32>
  return %a, %b, %c : tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>, tensor<1x32x14x14xf32>
}
}
