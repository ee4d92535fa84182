// Two dense 16-channel convolutions with a ReLU between them: blocked
// (NCHW16c) inside; with --blocked-entry also at the entry.
func.func @main(%x: tensor<1x16x6x6xf32>, %w1: tensor<32x16x3x3xf32>, %w2: tensor<16x32x1x1xf32>) -> tensor<1x16x6x6xf32> {
  %c1 = nn.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x6x6xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x6x6xf32>
  %r = nn.relu %c1 : tensor<1x32x6x6xf32>
  %c2 = nn.conv2d %r, %w2 : (tensor<1x32x6x6xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x6x6xf32>
  return %c2 : tensor<1x16x6x6xf32>
}
