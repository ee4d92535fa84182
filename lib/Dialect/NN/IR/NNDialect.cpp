//===- NNDialect.cpp - nn dialect registration ----------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dlas::nn;

#include "DLAS/Dialect/NN/NNOpsDialect.cpp.inc"
#include "DLAS/Dialect/NN/NNEnums.cpp.inc"
#include "DLAS/Dialect/NN/NNInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "DLAS/Dialect/NN/NNAttrs.cpp.inc"

void NNDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "DLAS/Dialect/NN/NNAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "DLAS/Dialect/NN/NNOps.cpp.inc"
      >();
}
