// What dlas-gpu-map-kernels refuses.
// RUN: dlas-opt %s --split-input-file --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-map-kernels --verify-diagnostics
// RUN: not dlas-opt %s --split-input-file --dlas-gpu-map-kernels 2>&1 | FileCheck %s --check-prefix=NOTARGET

// NOTARGET: dlas-gpu-map-kernels needs the module's 'dlas.target' to be a #dlas.gpu_target (dlas-gpu-attach-target)

func.func @tensor(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{dlas-gpu-map-kernels runs after bufferization; this op still has tensor operands}}
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
