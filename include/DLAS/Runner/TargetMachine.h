//===- TargetMachine.h - LLVM target machines for DLAS targets --*- C++ -*-===//
//
// What dlas-run (JIT) and dlas-compile (objects) share to turn a module's
// `dlas.target` into LLVM code: one target machine, so that the JIT and the
// object path use the same CPU and features.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_TARGETMACHINE_H
#define DLAS_RUNNER_TARGETMACHINE_H

#include "DLAS/Codegen/CPU/CPUTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace mlir::dlas {

/// An x86-64 Linux target machine (position-independent code) for the CPU
/// `cpu` with the LLVM feature string `features` (as dlas-target-to-llvm
/// puts them on functions: every code generation feature on or off).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(StringRef cpu, StringRef features,
                    llvm::CodeGenOptLevel level);

/// The CPU and feature string that dlas-target-to-llvm put on the
/// functions of the lowered `module` (nullopt when it has none).
std::optional<std::pair<std::string, std::string>>
loweredTarget(ModuleOp module);

/// Lets the LLVM IR translation pass over the `dlas.*` attributes that stay
/// on lowered functions and their arguments (dlas.signature, dlas.name, ...)
/// instead of warning about each: they are for the tools, not for LLVM.
void registerDLASDialectTranslation(DialectRegistry &registry);

/// The code generation level for an -O level (0-3).
llvm::CodeGenOptLevel codeGenOptLevel(unsigned optLevel);

} // namespace mlir::dlas

#endif // DLAS_RUNNER_TARGETMACHINE_H
