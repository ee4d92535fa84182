//===- Compile.h - ahead-of-time objects and their C headers ----*- C++ -*-===//
//
// What dlas-compile does after the CPU pipeline: the lowered module becomes
// an object file for the target the pipeline put on its functions, and the
// entry's tensor signature a C header with the MLIR C-interface prototype
// and a plain-pointer wrapper.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_COMPILE_H
#define DLAS_RUNNER_COMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace mlir::dlas {

/// Translates the LLVM-dialect `module` to LLVM IR, optimizes it at
/// `optLevel` for `targetMachine` and writes an ELF object to `os`.
llvm::Error emitObjectFile(ModuleOp module, llvm::TargetMachine &targetMachine,
                           unsigned optLevel, llvm::raw_pwrite_stream &os);

/// What the generated header describes.
struct CHeaderInfo {
  std::string prefix;      // C identifier prefix of every generated name
  std::string entrySymbol; // the compiled entry (its _mlir_ciface_ wrapper)
  FunctionType signature;  // the entry's tensor signature (dlas.signature)
  std::string target;      // CPU name, for the comment
  std::string features;    // LLVM feature string, for the comment
  std::string source;      // the input file, for the comment
  bool gpu = false;        // code from dlas-gpu-pipeline: init opens the GPU
};

/// Writes the C header for `info`; fails for element types C cannot name.
llvm::Error writeCHeader(const CHeaderInfo &info, llvm::raw_ostream &os);

} // namespace mlir::dlas

#endif // DLAS_RUNNER_COMPILE_H
