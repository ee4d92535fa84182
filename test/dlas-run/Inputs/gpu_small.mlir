// A small classifier for the GPU runner tests: a bias add and ReLU over the
// input, then a linear layer.
func.func @main(%x: tensor<1x64xf32>) -> tensor<1x10xf32> {
  %b = arith.constant dense<0.5> : tensor<1x64xf32>
  %w = arith.constant dense<0.125> : tensor<10x64xf32>
  %s = nn.add %x, %b : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = nn.relu %s : tensor<1x64xf32>
  %y = nn.linear %r, %w : (tensor<1x64xf32>, tensor<10x64xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
