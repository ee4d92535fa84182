// RUN: dlas-opt %s --split-input-file | dlas-opt --split-input-file | FileCheck %s
// Round trip of the target attribute.

// CHECK: module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
  // Other dlas.* attributes belong to the passes that read them.
  // CHECK: func.func @f() attributes {dlas.layer = "x"}
  func.func @f() attributes {dlas.layer = "x"} {
    return
  }
}

// -----
// Round trip of a lowering decision; default-valued entries are left out.
// RUN: dlas-opt %s --split-input-file | dlas-opt --split-input-file | FileCheck %s --check-prefix=DECISION

// DECISION: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 2, lanes = 8, kc = 256, mc = 96, pack_b = true, input = f32, acc = f32, init = fill, epilogues = 2, key = "m16_n64_k32", source = cost_model>}
// DECISION: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 2, lanes = 8, kc = 32, mc = 96, input = f32, acc = f32, key = "m16_n64_k32", source = tuning_file, split = rows>}
// DECISION: linalg.generic {{.*}}dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 4, vectors = 1, lanes = 16, input = f32, acc = f32, padding = true, key = "conv_c2_o4x4_k3x3_s1x1", source = tuning_file>
// DECISION: dlas.lowering = #dlas.microkernel<kind = max_pool, rows = 1, vectors = 1, lanes = 8, input = bf16, acc = f32, init = broadcast, key = "k", source = override>
// DECISION: dlas.lowering = #dlas.microkernel<kind = blocked_depthwise, rows = 1, vectors = 1, lanes = 8, input = i8, acc = i32, key = "k", source = cost_model>
func.func @decisions(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 2, lanes = 8, kc = 256, mc = 96, pack_b = true, input = f32, acc = f32, init = fill, epilogues = 2, key = "m16_n64_k32", source = cost_model>}
      ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  %s = linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 2, lanes = 8, kc = 32, mc = 96, input = f32, acc = f32, key = "m16_n64_k32", source = tuning_file, split = rows>}
      ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%r : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %s : tensor<16x64xf32>
}
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @depthwise(%x: tensor<1x2x6x6xf32>, %w: tensor<2x3x3xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %r = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x2x6x6xf32>, tensor<2x3x3xf32>) outs(%y : tensor<1x2x4x4xf32>)
      attrs = {dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 4, vectors = 1, lanes = 16, kc = 0, input = f32, acc = f32, init = loaded, padding = true, key = "conv_c2_o4x4_k3x3_s1x1", source = tuning_file>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
func.func @formats() attributes {
    a = {dlas.lowering = #dlas.microkernel<kind = max_pool, rows = 1, vectors = 1, lanes = 8, input = bf16, acc = f32, init = broadcast, key = "k", source = override>},
    b = {dlas.lowering = #dlas.microkernel<kind = blocked_depthwise, rows = 1, vectors = 1, lanes = 8, input = i8, acc = i32, key = "k", source = cost_model>}} {
  return
}
// DECISION-LABEL: func @bound
// DECISION: linalg.fill {dlas.fused = #dlas.fused<group = 4, role = init>}
// DECISION: dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, epilogues = 1, key = "k", source = cost_model, group = 4>
// DECISION: attrs =  {dlas.fused = #dlas.fused<group = 4, role = epilogue>}
// DECISION: attrs =  {dlas.fused = #dlas.fused<group = 5, role = epilogue, position = 1>}
// DECISION: attrs =  {dlas.fused = #dlas.fused<group = 5, role = pad>}
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bound(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill {dlas.fused = #dlas.fused<group = 4, role = init, position = 0>} ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 2, lanes = 8, kc = 256, mc = 96, input = f32, acc = f32, init = fill, epilogues = 1, key = "k", source = cost_model, group = 4>}
      ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%r : tensor<16x64xf32>)
      attrs = {dlas.fused = #dlas.fused<group = 4, role = epilogue>} {
  ^bb0(%o: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x64xf32>
  %h = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%g : tensor<16x64xf32>)
      attrs = {dlas.fused = #dlas.fused<group = 5, role = epilogue, position = 1>} {
  ^bb0(%o: f32):
    linalg.yield %o : f32
  } -> tensor<16x64xf32>
  %k = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%h : tensor<16x64xf32>)
      attrs = {dlas.fused = #dlas.fused<group = 5, role = pad>} {
  ^bb0(%o: f32):
    linalg.yield %o : f32
  } -> tensor<16x64xf32>
  return %k : tensor<16x64xf32>
}

// -----

// A GPU target and a GPU kernel decision.
// CHECK: module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>}
module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>} {
  // CHECK: func.func @g() attributes {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "k", source = override>}
  func.func @g() attributes {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "k", source = override>} {
    return
  }
  // CHECK: func.func @mma() attributes {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [128], outputs = [64, 64], key = "k", source = cost_model>}
  func.func @mma() attributes {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [128], outputs = [64, 64], key = "k", source = cost_model>} {
    return
  }
  // Waves of 64 (AMD): 4 x 64 threads for 2 x 2 tiles of 32 x 32.
  // CHECK: func.func @mma_waves() attributes {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [256], outputs = [64, 64], key = "k", source = cost_model>}
  func.func @mma_waves() attributes {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [256], outputs = [64, 64], key = "k", source = cost_model>} {
    return
  }
  // CHECK: func.func @staged() attributes {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], outputs = [64, 64], key = "k", source = cost_model>}
  func.func @staged() attributes {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], outputs = [64, 64], key = "k", source = cost_model>} {
    return
  }
}
