//===- Passes.h - DLAS transforms -------------------------------*- C++ -*-===//
#ifndef DLAS_TRANSFORMS_PASSES_H
#define DLAS_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas {

/// Attribute holding an entry function's original (tensor) signature.
inline constexpr llvm::StringLiteral kSignatureAttrName = "dlas.signature";
/// Module attribute mapping externalized global names to their data.
inline constexpr llvm::StringLiteral kExternalWeightsAttrName =
    "dlas.external_weights";

#define GEN_PASS_DECL
#include "DLAS/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Transforms/Passes.h.inc"

} // namespace mlir::dlas

#endif // DLAS_TRANSFORMS_PASSES_H
