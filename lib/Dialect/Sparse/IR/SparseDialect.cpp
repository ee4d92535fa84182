//===- SparseDialect.cpp - sparse dialect registration --------------------===//
#include "DLAS/Dialect/Sparse/SparseDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::dlas::sparse;

#include "DLAS/Dialect/Sparse/SparseOpsDialect.cpp.inc"

void SparseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "DLAS/Dialect/Sparse/SparseOps.cpp.inc"
      >();
}
