func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.relu %a : tensor<2x3xf32
  return %0 : tensor<2x3xf32>
}
