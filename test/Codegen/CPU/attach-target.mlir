// dlas-attach-target: names to #dlas.cpu_target, the same on every machine.
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v3 | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --dlas-attach-target=target=x86-64-v4 | FileCheck %s --check-prefix=V4
// RUN: dlas-opt %s --dlas-attach-target=target=znver3 | FileCheck %s --check-prefix=ZEN3
// RUN: dlas-opt %s --dlas-attach-target=target=znver4 | FileCheck %s --check-prefix=ZEN4
// RUN: dlas-opt %s --dlas-attach-target=target=sapphirerapids | FileCheck %s --check-prefix=SPR
// An LLVM CPU outside the cache table takes its ISA level's caches.
// RUN: dlas-opt %s --dlas-attach-target=target=tigerlake | FileCheck %s --check-prefix=TIGER
// Overrides: features (with what they imply), vector width, caches.
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v4 features=-avx512f" | FileCheck %s --check-prefix=NO512
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v3 features=+avx512bw" | FileCheck %s --check-prefix=PLUSBW
// RUN: dlas-opt %s --dlas-attach-target="target=sapphirerapids vector-bits=256" | FileCheck %s --check-prefix=Y256
// RUN: dlas-opt %s --dlas-attach-target="target=x86-64-v3 l1=65536 l2=2097152 l3=1048576" | FileCheck %s --check-prefix=CACHES
// An existing target stays with keep-existing and is replaced without.
// RUN: dlas-opt %s --dlas-attach-target=target=znver3 --dlas-attach-target="target=x86-64-v4 keep-existing" | FileCheck %s --check-prefix=ZEN3
// RUN: dlas-opt %s --dlas-attach-target=target=znver3 --dlas-attach-target=target=x86-64-v4 | FileCheck %s --check-prefix=V4
// Refusals name the problem.
// RUN: not dlas-opt %s --dlas-attach-target=target=pentium9 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not dlas-opt %s --dlas-attach-target=target=host 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not dlas-opt %s --dlas-attach-target 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not dlas-opt %s --dlas-attach-target="target=x86-64-v3 features=+avx9" 2>&1 | FileCheck %s --check-prefix=BADFEATURE
// RUN: not dlas-opt %s --dlas-attach-target="target=x86-64-v3 features=avx2" 2>&1 | FileCheck %s --check-prefix=NOSIGN
// RUN: not dlas-opt %s --dlas-attach-target="target=x86-64-v3 vector-bits=512" 2>&1 | FileCheck %s --check-prefix=NARROWISA
// RUN: not dlas-opt %s --dlas-attach-target="target=x86-64-v3 vector-bits=100" 2>&1 | FileCheck %s --check-prefix=BITS

// V3: module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+sse4.2,+avx,+avx2,+fma,+f16c", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>}
// V4: module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+sse4.2,+avx,+avx2,+fma,+f16c,+avx512f,+avx512dq,+avx512bw,+avx512vl", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>}
// ZEN3: #dlas.cpu_target<cpu = "znver3", features = "+sse4.2,+avx,+avx2,+fma,+f16c", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288,
// ZEN4: #dlas.cpu_target<cpu = "znver4", features = "+sse4.2,+avx,+avx2,+fma,+f16c,+avx512f,+avx512dq,+avx512bw,+avx512vl,+avx512vnni,+avx512bf16", vector_bits = 512, vector_registers = 32, l1 = 32768, l2 = 1048576, l3 = 33554432, fma_per_cycle = 1>
// SPR: features = "+sse4.2,+avx,+avx2,+fma,+f16c,+avx512f,+avx512dq,+avx512bw,+avx512vl,+avx512vnni,+avx512bf16,+avx512fp16,+avxvnni,+amx-tile,+amx-bf16,+amx-int8", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 2097152
// TIGER: cpu = "tigerlake", {{.*}}+avx512f{{.*}} vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576
// NO512: features = "+sse4.2,+avx,+avx2,+fma,+f16c", vector_bits = 256, vector_registers = 16
// PLUSBW: features = "+sse4.2,+avx,+avx2,+fma,+f16c,+avx512f,+avx512bw", vector_bits = 512
// Y256: vector_bits = 256, vector_registers = 32
// CACHES: l1 = 65536, l2 = 2097152, l3 = 1048576
// UNKNOWN: error: unknown target 'pentium9': expected host, an x86-64 level (x86-64-v3, x86-64-v4) or an LLVM x86-64 CPU name
// HOST: error: target 'host' is resolved by the tools
// EMPTY: error: dlas-attach-target needs target=NAME
// BADFEATURE: error: unknown feature 'avx9'
// NOSIGN: error: feature 'avx2' must start with '+' or '-'
// NARROWISA: error: target 'x86-64-v3': vector_bits = 512 needs +avx512f in features
// BITS: error: target 'x86-64-v3': vector_bits must be 128, 256 or 512, got 100
module {
}
