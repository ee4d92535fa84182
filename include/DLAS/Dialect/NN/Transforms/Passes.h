//===- Passes.h - graph-level passes on the nn dialect ----------*- C++ -*-===//
#ifndef DLAS_DIALECT_NN_TRANSFORMS_PASSES_H
#define DLAS_DIALECT_NN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas::nn {

#define GEN_PASS_DECL
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"

} // namespace mlir::dlas::nn

#endif // DLAS_DIALECT_NN_TRANSFORMS_PASSES_H
