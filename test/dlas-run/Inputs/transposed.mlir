func.func @main(%a: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %0 = nn.transpose %a {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
