// A batch the caller picks (dynamic), for dlas-compile's manifest (gpu.test).
func.func @main(%a0: tensor<?x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<10x64xf32>) -> tensor<?x10xf32> {
  %c = nn.conv2d %a0, %a1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  %a = nn.relu %c : tensor<?x4x8x8xf32>
  %p = nn.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  %f = nn.flatten %p {axis = 1 : i64} : (tensor<?x4x4x4xf32>) -> tensor<?x64xf32>
  %l = nn.linear %f, %a2 : (tensor<?x64xf32>, tensor<10x64xf32>) -> tensor<?x10xf32>
  %r = nn.softmax %l {axis = 1 : i64} : tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}
