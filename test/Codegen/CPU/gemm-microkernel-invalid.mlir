// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-gemm-microkernel --verify-diagnostics

func.func @not_a_dictionary(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.gemm_tiles' must be a dictionary}}
  linalg.matmul {dlas.gemm_tiles = [8, 3]}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

func.func @unknown_key(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.gemm_tiles' has unknown key 'nr' (expected m0, vectors, kc, mc, pack_b, split)}}
  linalg.matmul {dlas.gemm_tiles = {nr = 8}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

func.func @not_positive(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.gemm_tiles' entry 'kc' must be a positive integer}}
  linalg.matmul {dlas.gemm_tiles = {kc = 0}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

func.func @unknown_split(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.gemm_tiles' entry 'split' must be "auto", "tiles" or "rows"}}
  linalg.matmul {dlas.gemm_tiles = {split = "columns"}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

func.func @pack_b_not_bool(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.gemm_tiles' entry 'pack_b' must be a bool}}
  linalg.matmul {dlas.gemm_tiles = {pack_b = 1}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// expected-warning @+2 {{the 16x4 register tile needs more than the}}
func.func @too_many_registers(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 16, vectors = 4}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}
