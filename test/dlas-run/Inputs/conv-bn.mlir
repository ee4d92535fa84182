func.func @main(%x: tensor<1x3x6x6xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<[[[[0.5]], [[-1.0]], [[0.25]]], [[[1.5]], [[2.0]], [[-0.5]]], [[[-1.0]], [[0.0]], [[1.0]]], [[[0.1]], [[0.2]], [[0.3]]]]> : tensor<4x3x1x1xf32>
  %g = arith.constant dense<[1.5, 0.5, -2.0, 1.0]> : tensor<4xf32>
  %b = arith.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %m = arith.constant dense<[0.5, 0.0, -1.0, 2.0]> : tensor<4xf32>
  %v = arith.constant dense<[1.0, 0.25, 4.0, 0.5]> : tensor<4xf32>
  %c = nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x6x6xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %y = nn.batch_norm %c, %g, %b, %m, %v {epsilon = 1.0e-3 : f64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
