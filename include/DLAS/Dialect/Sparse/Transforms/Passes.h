//===- Passes.h - passes on the sparse dialect ------------------*- C++ -*-===//
#ifndef DLAS_DIALECT_SPARSE_TRANSFORMS_PASSES_H
#define DLAS_DIALECT_SPARSE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas::sparse {

#define GEN_PASS_DECL
#include "DLAS/Dialect/Sparse/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Dialect/Sparse/Transforms/Passes.h.inc"

} // namespace mlir::dlas::sparse

#endif // DLAS_DIALECT_SPARSE_TRANSFORMS_PASSES_H
