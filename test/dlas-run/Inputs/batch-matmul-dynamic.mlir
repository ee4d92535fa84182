func.func @main(%a: tensor<?x4x8xf32>, %b: tensor<?x8x5xf32>) -> tensor<?x4x5xf32> {
  %0 = nn.batch_matmul %a, %b : (tensor<?x4x8xf32>, tensor<?x8x5xf32>) -> tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}
