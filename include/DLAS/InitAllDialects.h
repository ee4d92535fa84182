//===- InitAllDialects.h - register every DLAS dialect ----------*- C++ -*-===//
#ifndef DLAS_INITALLDIALECTS_H
#define DLAS_INITALLDIALECTS_H

#include "DLAS/Dialect/DLAS/DLASDialect.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/Sparse/SparseDialect.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::dlas {
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<nn::NNDialect, sparse::SparseDialect, DLASDialect>();
}
} // namespace mlir::dlas

#endif // DLAS_INITALLDIALECTS_H
