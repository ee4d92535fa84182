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

namespace mlir::dlas::nn {
/// ONNX's default alpha and beta of a recurrent activation function (0
/// where the function has none).
double defaultRnnActivationAlpha(RnnActivation activation);
double defaultRnnActivationBeta(RnnActivation activation);
} // namespace mlir::dlas::nn

#define GET_OP_CLASSES
#include "DLAS/Dialect/NN/NNOps.h.inc"

#endif // DLAS_DIALECT_NN_NNDIALECT_H
