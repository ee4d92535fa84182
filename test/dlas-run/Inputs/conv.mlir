func.func @main(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %0 = nn.conv2d %x, %w : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}
func.func @static(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x3x8x8xf32>) {
  %0 = nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0, %x : tensor<1x4x6x6xf32>, tensor<1x3x8x8xf32>
}
