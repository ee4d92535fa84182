//===- NNDialect.h - the DLAS nn dialect ------------------------*- C++ -*-===//
#ifndef DLAS_DIALECT_NN_NNDIALECT_H
#define DLAS_DIALECT_NN_NNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "DLAS/Dialect/NN/NNOpsDialect.h.inc"
#include "DLAS/Dialect/NN/NNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "DLAS/Dialect/NN/NNAttrs.h.inc"

#include "DLAS/Dialect/NN/NNInterfaces.h.inc"

#define GET_OP_CLASSES
#include "DLAS/Dialect/NN/NNOps.h.inc"

#endif // DLAS_DIALECT_NN_NNDIALECT_H
