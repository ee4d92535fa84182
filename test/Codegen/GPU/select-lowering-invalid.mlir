// What the GPU decision pass and target refuse.
// RUN: dlas-opt %s --split-input-file --dlas-gpu-attach-target=target=cuda:sm_80 --dlas-gpu-select-lowering --verify-diagnostics
// RUN: not dlas-opt %s --split-input-file --dlas-gpu-select-lowering 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not dlas-opt %s --split-input-file --dlas-gpu-attach-target=target=cuda:sm_70 2>&1 | FileCheck %s --check-prefix=BADNAME

// NOTARGET: dlas-gpu-select-lowering needs the module's 'dlas.target' to be a #dlas.gpu_target (dlas-gpu-attach-target)
// BADNAME: dlas-gpu-attach-target: unknown GPU target 'cuda:sm_70' (known: cuda:sm_80, cuda:sm_86, cuda:sm_89, cuda:sm_90, rocm:gfx90a, rocm:gfx942)

func.func @three(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'dlas.gpu_threads' must be array<i64: threads> (flat) or array<i64: rows, columns> (tiled), got array<i64: 4, 4, 4>}}
  %r = linalg.matmul {dlas.gpu_threads = array<i64: 4, 4, 4>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

func.func @zero(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'dlas.gpu_threads' needs positive thread counts}}
  %r = linalg.matmul {dlas.gpu_threads = array<i64: 0, 32>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

func.func @too_many(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'dlas.gpu_threads' asks for 2048 threads a block; cuda:sm_80 allows 1024}}
  %r = linalg.matmul {dlas.gpu_threads = array<i64: 64, 32>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
func.func @tiled_vector(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @+1 {{'dlas.gpu_threads' with rows and columns needs two parallel dimensions}}
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"], dlas.gpu_threads = array<i64: 8, 32>} ins(%x : tensor<1024xf32>) outs(%x : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

func.func @not_an_array(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'dlas.gpu_threads' must be array<i64: threads> (flat) or array<i64: rows, columns> (tiled), got 256 : i64}}
  %r = linalg.matmul {dlas.gpu_threads = 256} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

func.func @outputs_on_flat(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'dlas.gpu_outputs' must be array<i64: rows, columns> on a tiled kernel, got array<i64: 2, 2>}}
  %r = linalg.matmul {dlas.gpu_threads = array<i64: 64>, dlas.gpu_outputs = array<i64: 2, 2>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

func.func @outputs_too_many(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'dlas.gpu_outputs' must be [rows, columns], each 1 to 8}}
  %r = linalg.matmul {dlas.gpu_outputs = array<i64: 16, 1>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
