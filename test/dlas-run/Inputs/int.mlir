func.func @main(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = nn.relu %a : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
