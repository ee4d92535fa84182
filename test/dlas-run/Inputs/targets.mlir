// Kernels whose shape depends on the target's vector width: a dense 3x3
// convolution with 16 channels (blocked layout, GEMM kernels), a depthwise
// convolution with relu6 (depthwise kernel) and a linear layer.
func.func @main(%x: tensor<1x16x12x12xf32>, %w: tensor<16x16x3x3xf32>, %dw: tensor<16x1x3x3xf32>, %fc: tensor<10x1600xf32>) -> tensor<1x10xf32> {
  %0 = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x12x12xf32>
  %1 = nn.relu %0 : tensor<1x16x12x12xf32>
  %2 = nn.conv2d %1, %dw {groups = 16 : i64} : (tensor<1x16x12x12xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x10x10xf32>
  %3 = nn.relu6 %2 : tensor<1x16x10x10xf32>
  %4 = nn.flatten %3 {axis = 1 : i64} : (tensor<1x16x10x10xf32>) -> tensor<1x1600xf32>
  %5 = nn.linear %4, %fc : (tensor<1x1600xf32>, tensor<10x1600xf32>) -> tensor<1x10xf32>
  return %5 : tensor<1x10xf32>
}
