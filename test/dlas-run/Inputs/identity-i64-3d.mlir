func.func @main(%a: tensor<2x3x4xi64>) -> tensor<2x3x4xi64> {
  return %a : tensor<2x3x4xi64>
}
