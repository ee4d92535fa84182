// A grouped convolution with 4 output channels per group: fewer than an
// x86-64-v3 vector, so the cost model runs it as a flat GEMM.
func.func @main(%x: tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32> {
  %w = arith.constant dense<0.01> : tensor<64x4x3x3xf32>
  %c = nn.conv2d %x, %w {groups = 16 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x14x14xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x14x14xf32>
  %r = nn.relu %c : tensor<1x64x14x14xf32>
  return %r : tensor<1x64x14x14xf32>
}
