func.func @main(%a: tensor<2x3xf32>, %b: tensor<4xf16>, %c: tensor<2x2x2xi8>, %d: tensor<5xi32>, %e: tensor<3x1xi64>, %f: tensor<4xf16>)
    -> (tensor<2x3xf32>, tensor<4xf16>, tensor<2x2x2xi8>, tensor<5xi32>, tensor<3x1xi64>, tensor<4xf16>) {
  %r = nn.relu %f : tensor<4xf16>
  return %a, %b, %c, %d, %e, %r : tensor<2x3xf32>, tensor<4xf16>, tensor<2x2x2xi8>, tensor<5xi32>, tensor<3x1xi64>, tensor<4xf16>
}
