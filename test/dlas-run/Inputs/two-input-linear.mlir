// Two inputs added, then a linear layer: calibration samples are
// subdirectories with one .npy per input.
func.func @main(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %fc = arith.constant dense<[[0.5, -0.25, 1.0, 0.75], [-1.0, 0.5, 0.25, 0.125]]> : tensor<2x4xf32>
  %s = nn.add %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = nn.linear %s, %fc : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2xf32>
  return %l : tensor<2x2xf32>
}
