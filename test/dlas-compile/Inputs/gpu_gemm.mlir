// A linear layer large enough for tensor cores (m = 64, n = 96, k = 128).
func.func @main(%x: tensor<64x128xf32>, %w: tensor<96x128xf32>) -> tensor<64x96xf32> {
  %y = nn.linear %x, %w : (tensor<64x128xf32>, tensor<96x128xf32>) -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
