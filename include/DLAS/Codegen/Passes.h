//===- Passes.h - DLAS code generation passes -------------------*- C++ -*-===//
#ifndef DLAS_CODEGEN_PASSES_H
#define DLAS_CODEGEN_PASSES_H

#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas {

#define GEN_PASS_DECL
#include "DLAS/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Codegen/Passes.h.inc"

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_PASSES_H
