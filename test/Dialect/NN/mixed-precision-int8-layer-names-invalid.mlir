// A calibration entry recorded for a layer of another name is refused,
// though op and weight shape agree (the unnamed case is accepted:
// mixed-precision-int8-layer-names.mlir).
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-named-layer.json keep-f32=none" -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: {{.*}}dlas-mixed-precision: calibration entry 'linear#0' was recorded for linear "/fc/Gemm" weight 2x2, but that layer is linear "/head/Gemm" weight 2x2: the calibration was made for another model or pipeline
func.func @linear(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.27, -0.5], [0.5, 0.0]]> : tensor<2x2xf32>
  %y = nn.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32> loc("/head/Gemm")
  return %y : tensor<3x2xf32>
}
