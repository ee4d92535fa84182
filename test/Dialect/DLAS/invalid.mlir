// RUN: dlas-opt %s --split-input-file --verify-diagnostics
// One case per verifier message of #dlas.cpu_target and dlas.target.

// expected-error @+1 {{'dlas.target' must be a #dlas.cpu_target or #dlas.gpu_target, got "znver3"}}
module attributes {dlas.target = "znver3"} {}

// -----

// expected-error @+1 {{cpu must name an LLVM CPU}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "", features = "+avx", vector_bits = 256, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{features lists what the target has, as '+name' entries; got '-avx'}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "-avx", vector_bits = 256, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{unknown feature 'avx9'}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx9", vector_bits = 256, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{vector_bits must be 128, 256 or 512, got 384}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx", vector_bits = 384, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{vector_bits = 512 needs +avx512f in features}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx,+avx2", vector_bits = 512, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{vector_bits = 256 needs +avx in features}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "nehalem", features = "+sse4.2", vector_bits = 256, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{vector_registers must be 16 or 32, got 8}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx", vector_bits = 256, vector_registers = 8, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{vector_registers = 32 needs +avx512f in features}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx", vector_bits = 256, vector_registers = 32, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{cache sizes must be positive, got l1 = 0, l2 = 1, l3 = 1}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx", vector_bits = 256, vector_registers = 16, l1 = 0, l2 = 1, l3 = 1, fma_per_cycle = 2>} {}

// -----

// expected-error @+1 {{fma_per_cycle must be positive, got 0}}
module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3", features = "+avx", vector_bits = 256, vector_registers = 16, l1 = 1, l2 = 1, l3 = 1, fma_per_cycle = 0>} {}

// -----
// #dlas.microkernel and dlas.lowering.

// expected-error @+1 {{'dlas.lowering' must be a #dlas.microkernel or #dlas.gpu_kernel, got "gemm"}}
func.func @not_a_decision() attributes {dlas.lowering = "gemm"} {
  return
}

// -----

// expected-error @+1 {{the register tile must be positive, got rows = 0, vectors = 2}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 0, vectors = 2, lanes = 8, kc = 1, mc = 1, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{lines = 0 is not a positive count of output rows of a blocked decision}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = blocked_conv, rows = 5, vectors = 2, lines = 0, lanes = 8, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{lines = 2 is not a positive count of output rows of a blocked decision}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 2, lines = 2, lanes = 8, kc = 1, mc = 1, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{lanes must be a power of two, got 12}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 2, lanes = 12, kc = 1, mc = 1, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{a gemm decision needs positive kc and mc, got kc = 0, mc = 4}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 2, lanes = 8, mc = 4, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{kc, mc, pack_b and split are a gemm decision's, not a depthwise's}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 1, vectors = 1, lanes = 8, pack_b = true, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{kc, mc, pack_b and split are a gemm decision's, not a blocked_conv's}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = blocked_conv, rows = 1, vectors = 1, lanes = 8, input = f32, acc = f32, key = "k", source = cost_model, split = rows>} {
  return
}

// -----

// expected-error @+1 {{only a depthwise or pooling decision folds padding, not a blocked_conv}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = blocked_conv, rows = 1, vectors = 1, lanes = 8, input = f32, acc = f32, padding = true, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{input = 'i8' with acc = 'f32' is not a kernel format (f32, bf16 or f16 with f32 accumulators, i8 with i32 or i8, bf16 or f16 throughout)}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 1, lanes = 8, kc = 1, mc = 1, input = i8, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{epilogues must not be negative, got -1}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 1, lanes = 8, kc = 1, mc = 1, input = f32, acc = f32, epilogues = -1, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{key must name the op's tuning-file key}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 1, lanes = 8, kc = 1, mc = 1, input = f32, acc = f32, key = "", source = cost_model>} {
  return
}

// -----

// expected-error @+2 {{expected one of [gemm, depthwise, max_pool, sum_pool, blocked_conv, blocked_depthwise, grouped_conv] for the kernel a decision selects, got: winograd}}
// expected-error @+1 {{failed to parse DLAS_MicrokernelAttr parameter 'kind'}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = winograd, rows = 1, vectors = 1, lanes = 8, input = f32, acc = f32, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{group must not be negative, got -2}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 1, lanes = 8, kc = 1, mc = 1, input = f32, acc = f32, key = "k", source = cost_model, group = -2>} {
  return
}

// -----

// expected-error @+1 {{group 3 names the partners of a decision that fuses none}}
func.func @f() attributes {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 1, vectors = 1, lanes = 8, kc = 1, mc = 1, input = f32, acc = f32, key = "k", source = cost_model, group = 3>} {
  return
}

// -----

// #dlas.fused and dlas.fused.
// expected-error @+1 {{'dlas.fused' must be a #dlas.fused, got 1 : i64}}
func.func @f() attributes {dlas.fused = 1} {
  return
}

// -----

// expected-error @+1 {{a fusion group is positive, got 0}}
func.func @f() attributes {dlas.fused = #dlas.fused<group = 0, role = init>} {
  return
}

// -----

// expected-error @+1 {{position 2 is an epilogue's place in its chain; a 'pad' partner has none}}
func.func @f() attributes {dlas.fused = #dlas.fused<group = 1, role = pad, position = 2>} {
  return
}

// -----

// expected-error @+1 {{position must not be negative, got -1}}
func.func @f() attributes {dlas.fused = #dlas.fused<group = 1, role = epilogue, position = -1>} {
  return
}

// -----

// expected-error @+2 {{expected one of [init, pad, epilogue] for what a fusion partner contributes to the kernel that folds it, got: bias}}
// expected-error @+1 {{failed to parse DLAS_FusedAttr parameter 'role'}}
func.func @f() attributes {dlas.fused = #dlas.fused<group = 1, role = bias>} {
  return
}

// -----

// expected-error @+1 {{api must be cuda or rocm, got 'opencl'}}
module attributes {dlas.target = #dlas.gpu_target<api = "opencl", chip = "sm_90", features = "", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>} {}

// -----

// expected-error @+1 {{a rocm chip is named gfx..., got 'sm_90'}}
module attributes {dlas.target = #dlas.gpu_target<api = "rocm", chip = "sm_90", features = "", warp_size = 64, max_threads = 1024, shared_memory = 65536, processors = 104>} {}

// -----

// expected-error @+1 {{warp_size must be 32 or 64, got 16}}
module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "", warp_size = 16, max_threads = 1024, shared_memory = 49152, processors = 132>} {}

// -----

// expected-error @+1 {{max_threads must be a multiple of warp_size (32), got 1000}}
module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "", warp_size = 32, max_threads = 1000, shared_memory = 49152, processors = 132>} {}

// -----

// expected-error @+1 {{shared_memory and processors must be positive}}
module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "", warp_size = 32, max_threads = 1024, shared_memory = 0, processors = 132>} {}

// -----

// expected-error @+1 {{a tiled kernel takes 2 thread count(s), got 1}}
func.func @gpu_kernel_thread_counts() attributes {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [256], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{thread counts must be positive, got 0}}
func.func @gpu_kernel_positive() attributes {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 0], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{a block has at most 1024 threads, got 2048}}
func.func @gpu_kernel_block() attributes {dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [2048], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{outputs per thread are [rows, columns] of a tiled kernel}}
func.func @gpu_kernel_flat_outputs() attributes {dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [256], outputs = [2, 2], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{outputs per thread must be 1 to 8 a dimension, got 9}}
func.func @gpu_kernel_big_outputs() attributes {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [9, 1], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{split must be 1 to 1024 reduction chunks, got 0}}
func.func @gpu_kernel_split() attributes {dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [256], split = 0, key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{an mma kernel takes outputs = [rows, columns] (multiples of 32 up to 128) and threads = [warp size (32 or 64) x (rows / 32) x (columns / 32)]}}
func.func @gpu_kernel_mma_tile() attributes {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [128], outputs = [48, 64], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{an mma kernel takes outputs = [rows, columns] (multiples of 32 up to 128) and threads = [warp size (32 or 64) x (rows / 32) x (columns / 32)]}}
func.func @gpu_kernel_mma_threads() attributes {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [192], outputs = [64, 64], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{a staged kernel takes outputs = [rows, columns] (multiples of 32 up to 128) and threads = [warp size (32 or 64) x (rows / 32) x (columns / 32)]}}
func.func @gpu_kernel_staged_threads() attributes {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [256], outputs = [32, 64], key = "k", source = cost_model>} {
  return
}

// -----

// expected-error @+1 {{a staged kernel takes outputs = [rows, columns] (multiples of 32 up to 128) and threads = [warp size (32 or 64) x (rows / 32) x (columns / 32)]}}
func.func @gpu_kernel_staged_no_outputs() attributes {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], key = "k", source = cost_model>} {
  return
}
