// A calibration entry names the layer it was recorded for: its op, its
// node name where the model has one (the importer's location) and its
// weight's shape. A module printed without its locations has lost the
// names, and the entry still matches by op and shape (two names that
// differ are two layers: mixed-precision-int8-layer-names-invalid.mlir).
// RUN: dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-named-layer.json keep-f32=none" | FileCheck %s

// CHECK-LABEL: func @linear
// CHECK: nn.quantize
// CHECK: nn.linear {{.*}}tensor<2x2xi8>
func.func @linear(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.27, -0.5], [0.5, 0.0]]> : tensor<2x2xf32>
  %y = nn.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
