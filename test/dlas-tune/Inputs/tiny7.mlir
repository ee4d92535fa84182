func.func @main(%x: tensor<1x32x7x7xf32>) -> tensor<1x10xf32> {
  %w1 = arith.constant dense<0.01> : tensor<64x32x3x3xf32>
  %w2 = arith.constant dense<0.02> : tensor<64x32x3x3xf32>
  %w3 = arith.constant dense<0.03> : tensor<10x64xf32>
  %c1 = nn.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x7x7xf32>, tensor<64x32x3x3xf32>) -> tensor<1x64x7x7xf32>
  %r1 = nn.relu %c1 : tensor<1x64x7x7xf32>
  %c2 = nn.conv2d %r1, %w2 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x7x7xf32>, tensor<64x32x3x3xf32>) -> tensor<1x64x7x7xf32>
  %r2 = nn.relu %c2 : tensor<1x64x7x7xf32>
  %p = nn.global_avg_pool2d %r2 : (tensor<1x64x7x7xf32>) -> tensor<1x64x1x1xf32>
  %f = nn.flatten %p {axis = 1 : i64} : (tensor<1x64x1x1xf32>) -> tensor<1x64xf32>
  %y = nn.linear %f, %w3 : (tensor<1x64xf32>, tensor<10x64xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
