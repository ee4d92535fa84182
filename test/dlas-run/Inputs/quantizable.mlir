// conv (constant weight) -> relu -> flatten -> linear (constant weight):
// two layers for int8 calibration.
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<[[[[0.5, -0.25, 0.1], [0.2, 0.3, -0.4], [0.6, 0.1, 0.2]], [[0.5, -0.25, 0.1], [0.2, 0.3, -0.4], [0.7, 0.1, 0.2]]], [[[1.0, 0.3, 0.1], [0.2, -0.4, 0.2], [0.1, 0.4, 0.3]], [[0.3, 0.2, 0.1], [0.2, 0.5, 0.3], [0.3, 0.1, -1.0]]]]> : tensor<2x2x3x3xf32>
  %b = arith.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %fc = arith.constant dense<[[0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0, 0.1, 0.2, 0.3, 0.4, -0.5, 0.6, 0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0, 0.1, 0.2, 0.3, 0.4, -0.5, 0.6], [0.2, 0.1, -0.3, 0.4, 0.5, 0.6, -0.7, 0.8, 0.9, 1.0, -0.1, 0.2, 0.3, 0.4, 0.5, -0.6, 0.2, 0.1, -0.3, 0.4, 0.5, 0.6, -0.7, 0.8, 0.9, 1.0, -0.1, 0.2, 0.3, 0.4, 0.5, -0.6], [0.3, 0.2, 0.1, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 1.0, 0.1, -0.2, 0.3, 0.4, 0.5, 0.6, 0.3, 0.2, 0.1, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 1.0, 0.1, -0.2, 0.3, 0.4, 0.5, 0.6]]> : tensor<3x32xf32>
  %y = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %y : tensor<1x2x4x4xf32>
  %f = nn.flatten %r {axis = 1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %l = nn.linear %f, %fc : (tensor<1x32xf32>, tensor<3x32xf32>) -> tensor<1x3xf32>
  return %l : tensor<1x3xf32>
}
