//===- Passes.h - DLAS transforms -------------------------------*- C++ -*-===//
#ifndef DLAS_TRANSFORMS_PASSES_H
#define DLAS_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas {

/// Attribute holding an entry function's original (tensor) signature.
inline constexpr llvm::StringLiteral kSignatureAttrName = "dlas.signature";

#define GEN_PASS_DECL
#include "DLAS/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Transforms/Passes.h.inc"

} // namespace mlir::dlas

#endif // DLAS_TRANSFORMS_PASSES_H
