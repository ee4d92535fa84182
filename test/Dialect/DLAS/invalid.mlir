// RUN: dlas-opt %s --split-input-file --verify-diagnostics
// One case per verifier message of #dlas.cpu_target and dlas.target.

// expected-error @+1 {{'dlas.target' must be a #dlas.cpu_target, got "znver3"}}
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
