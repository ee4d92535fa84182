func.func @main(%x: tensor<1x4x?x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x?x7xf32> {
  %0 = nn.conv_transpose2d %x, %w : (tensor<1x4x?x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x?x7xf32>
  return %0 : tensor<1x2x?x7xf32>
}
