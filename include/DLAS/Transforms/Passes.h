//===- Passes.h - DLAS transforms -------------------------------*- C++ -*-===//
#ifndef DLAS_TRANSFORMS_PASSES_H
#define DLAS_TRANSFORMS_PASSES_H

#include "DLAS/Support/EntryAttrs.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas {

/// Attribute holding an entry function's original (tensor) signature.
inline constexpr llvm::StringLiteral kSignatureAttrName = "dlas.signature";

/// `func`'s type as its callers see the data (what dlas-prepare-entry-abi
/// records in dlas.signature): i8 tensors marked kUnsignedAttrName
/// (DLAS/Support/EntryAttrs.h) as ui8.
FunctionType entrySignatureOf(func::FuncOp func);

/// Module attribute mapping externalized global names to their data.
inline constexpr llvm::StringLiteral kExternalWeightsAttrName =
    "dlas.external_weights";

#define GEN_PASS_DECL
#include "DLAS/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Transforms/Passes.h.inc"

} // namespace mlir::dlas

#endif // DLAS_TRANSFORMS_PASSES_H
