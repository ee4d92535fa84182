func.func @main(%x: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xi64> {
  %0:2 = nn.max_pool2d_with_indices %x {kernel = array<i64: 2, 2>} : (tensor<1x4x?x?xf32>) -> (tensor<1x4x?x?xf32>, tensor<1x4x?x?xi64>)
  return %0#1 : tensor<1x4x?x?xi64>
}
