// Arguments and results named as the ONNX importer names them.
func.func @main(%a: tensor<2x3xf32> {dlas.name = "a"}, %b: tensor<2x3xf32> {dlas.name = "b"}) -> (tensor<2x3xf32> {dlas.name = "sum"}) {
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
