//===- ParallelCodegen.h - LLVM optimization and codegen on all cores -*- C++ -*-===//
//
// LLVM's optimizer and code generator are single-threaded per module. A
// DLAS module is a set of independent layer functions, so it splits well:
// the functions are partitioned (llvm::SplitModule), and every partition is
// optimized and compiled to an object in a context of its own on a thread
// pool. The JIT links the objects (dlas-run); the results are the same code
// as one module would give, up to inlining across partitions, which the
// layer functions (noinline) do not use.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_PARALLELCODEGEN_H
#define DLAS_RUNNER_PARALLELCODEGEN_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace mlir::dlas {

struct CodegenOptions {
  /// The CPU and LLVM feature string (see createTargetMachine).
  std::string cpu, features;
  unsigned optLevel = 3;
  /// Threads to compile on; 0: every core of the machine.
  unsigned threads = 0;
};

/// Optimizes `module` at `optLevel` and compiles it to relocatable objects,
/// one per partition, using up to `threads` threads. A module with a single
/// function, or one thread, gives one object.
llvm::Expected<llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>>>
compileToObjects(std::unique_ptr<llvm::Module> module,
                 const CodegenOptions &options);

/// Adds `void _mlir_<name>(void **args)` for every external function
/// `name` whose name starts with `prefix`: it loads each argument through
/// args[i] and stores the result through args[numArgs] (the calling
/// convention of mlir::ExecutionEngine::invokePacked).
void addPackedWrappers(llvm::Module &module, llvm::StringRef prefix);

} // namespace mlir::dlas

#endif // DLAS_RUNNER_PARALLELCODEGEN_H
