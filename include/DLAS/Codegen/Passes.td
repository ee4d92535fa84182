//===- Passes.td - DLAS code generation passes -------------*- tablegen -*-===//
#ifndef DLAS_CODEGEN_PASSES_TD
#define DLAS_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttachTarget : Pass<"dlas-attach-target", "mlir::ModuleOp"> {
  let summary = "Put the named CPU target on the module as dlas.target";
  let description = [{
    Resolves a target name to a `#dlas.cpu_target` and sets it as the
    module's `dlas.target`, which every DLAS code generation pass reads
    (vector width, register budget, caches) and the JIT and object paths use
    for their LLVM target machine.

    Names: `x86-64-v3` (AVX2 + FMA), `x86-64-v4` (AVX-512 F/BW/DQ/VL), and
    any LLVM x86-64 CPU name (`znver3`, `znver4`, `skylake-avx512`,
    `icelake-server`, `sapphirerapids`, ...). The CPU's features come from
    LLVM's x86 target parser; cache sizes from a table of common CPUs (the
    ISA level's row for others). `features`, `vector-bits`, `l1`, `l2` and
    `l3` override them. This pass never asks the machine it runs on: `host`
    is refused here and resolved by the tools and by
    `dlas-cpu-pipeline{target=host}`.

    ```mlir
    // dlas-opt --dlas-attach-target=target=x86-64-v3
    module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3",
        features = "+sse4.2,+avx,+avx2,+fma,+f16c", vector_bits = 256,
        vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432,
        fma_per_cycle = 2>} { ... }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "Target name (x86-64-v3, x86-64-v4, an LLVM x86-64 CPU name)">,
    Option<"features", "features", "std::string", "\"\"",
           "Comma-separated +name/-name changes to the CPU's features">,
    Option<"vectorBits", "vector-bits", "int64_t", "0",
           "Vector width kernels use (0: the widest the features allow)">,
    Option<"l1", "l1", "int64_t", "0", "L1 data cache bytes (0: table)">,
    Option<"l2", "l2", "int64_t", "0", "L2 cache bytes per core (0: table)">,
    Option<"l3", "l3", "int64_t", "0", "L3 cache bytes (0: table)">,
    Option<"keepExisting", "keep-existing", "bool", "false",
           "Leave a module that already has a dlas.target as it is">,
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect"];
}

def TargetToLLVM : Pass<"dlas-target-to-llvm", "mlir::ModuleOp"> {
  let summary = "Hand the module's dlas.target to the LLVM dialect";
  let description = [{
    The last step of the CPU pipeline: every `llvm.func` with a body gets
    the target's `target_cpu` and `target_features` (every code generation
    feature explicitly on or off), the module gets
    `llvm.target_triple = "x86_64-unknown-linux-gnu"`, and `dlas.target`
    is removed. The lowered module is then plain LLVM dialect: stock
    `mlir-translate --mlir-to-llvmir` translates it, and `llc` or the JIT
    generate code for the named target from the function attributes alone.
    A module without `dlas.target` is left as it is.

    ```mlir
    llvm.func @main(...) attributes {target_cpu = "x86-64-v3",
        target_features = #llvm.target_features<["+sse4.2", "+avx",
        "+avx2", "+fma", "+f16c", "-avx512f", ...]>}
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // DLAS_CODEGEN_PASSES_TD
