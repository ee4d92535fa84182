// The GEMM tile where B is read in place (flat convolutions' shifted rows)
// on a 16-register target leaves three vector registers free for the B
// loads LLVM schedules ahead (a full 4x24 tile spilled a B vector every k
// step); B in packed panels, and 32-register targets, keep the full
// budget.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-select-conv-algorithm="microkernels=true" --dlas-cpu-select-lowering | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-select-conv-algorithm="microkernels=true" --dlas-cpu-select-lowering | FileCheck %s --check-prefix=V4

// V3-LABEL: func @flat_dense
// V3: #dlas.microkernel<kind = gemm, rows = 3, vectors = 3, lanes = 8, {{.*}} key = "m80_n3136_k360"
// V4-LABEL: func @flat_dense
// V4: #dlas.microkernel<kind = gemm, rows = 9, vectors = 3, lanes = 16, {{.*}} key = "m80_n3136_k360"
// V3-LABEL: func @flat_groups_of_4
// V3: #dlas.microkernel<kind = gemm, rows = 4, vectors = 2, lanes = 8, {{.*}} key = "b16_m4_n3136_k36"
// V4-LABEL: func @flat_groups_of_4
// V4: #dlas.microkernel<kind = gemm, rows = 4, vectors = 4, lanes = 16, {{.*}} key = "b16_m4_n3136_k36"
// V3-LABEL: func @flat_groups_of_2
// V3: #dlas.microkernel<kind = gemm, rows = 2, vectors = 4, lanes = 8, {{.*}} key = "b16_m2_n1024_k18"
// The same M, K and N with B packable: the whole register file, 4x24.
// V3-LABEL: func @packed_matmul
// V3: #dlas.microkernel<kind = gemm, rows = 4, vectors = 3, lanes = 8, {{.*}} pack_b = true, {{.*}} key = "m80_n3248_k360"

func.func @flat_dense(%x: tensor<1x40x58x58xf32>, %w: tensor<80x40x3x3xf32>, %o: tensor<1x80x56x56xf32>) -> tensor<1x80x56x56xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x40x58x58xf32>, tensor<80x40x3x3xf32>) outs(%o : tensor<1x80x56x56xf32>) -> tensor<1x80x56x56xf32>
  return %0 : tensor<1x80x56x56xf32>
}

func.func @flat_groups_of_4(%x: tensor<1x16x4x58x58xf32>, %w: tensor<16x4x4x3x3xf32>, %o: tensor<1x16x4x56x56xf32>) -> tensor<1x16x4x56x56xf32> {
  %0 = linalg.conv_2d_ngchw_gfchw ins(%x, %w : tensor<1x16x4x58x58xf32>, tensor<16x4x4x3x3xf32>) outs(%o : tensor<1x16x4x56x56xf32>) -> tensor<1x16x4x56x56xf32>
  return %0 : tensor<1x16x4x56x56xf32>
}

func.func @flat_groups_of_2(%x: tensor<1x16x2x34x34xf32>, %w: tensor<16x2x2x3x3xf32>, %o: tensor<1x16x2x32x32xf32>) -> tensor<1x16x2x32x32xf32> {
  %0 = linalg.conv_2d_ngchw_gfchw ins(%x, %w : tensor<1x16x2x34x34xf32>, tensor<16x2x2x3x3xf32>) outs(%o : tensor<1x16x2x32x32xf32>) -> tensor<1x16x2x32x32xf32>
  return %0 : tensor<1x16x2x32x32xf32>
}

func.func @packed_matmul(%a: tensor<80x360xf32>, %b: tensor<360x3248xf32>, %c: tensor<80x3248xf32>) -> tensor<80x3248xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<80x360xf32>, tensor<360x3248xf32>) outs(%c : tensor<80x3248xf32>) -> tensor<80x3248xf32>
  return %0 : tensor<80x3248xf32>
}
