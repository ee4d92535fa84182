//===- Passes.h - DLAS conversion passes ------------------------*- C++ -*-===//
#ifndef DLAS_CONVERSION_PASSES_H
#define DLAS_CONVERSION_PASSES_H

#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"

namespace mlir::dlas {
#define GEN_PASS_REGISTRATION
#include "DLAS/Conversion/Passes.h.inc"
} // namespace mlir::dlas

#endif // DLAS_CONVERSION_PASSES_H
