// With the CUDA toolkit present, the kernels become cubin: ptxas accepts
// the PTX for sm_80 and sm_90.
// REQUIRES: ptxas
// RUN: dlas-opt %s --dlas-gpu-pipeline="target=cuda:sm_90 format=bin" | FileCheck %s --check-prefix=SM90
// RUN: dlas-opt %s --dlas-gpu-pipeline="target=cuda:sm_80 format=bin" | FileCheck %s --check-prefix=SM80
// SM90: gpu.binary @main_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// SM80: gpu.binary @main_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, {{.*}}bin = "\7FELF

func.func @main(%x: tensor<1x8x32x32xf32>, %y: tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32> {
  %s = nn.add %x, %y : (tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %e = nn.sigmoid %s : tensor<1x8x32x32xf32>
  return %e : tensor<1x8x32x32xf32>
}
