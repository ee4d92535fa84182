//===- Passes.h - DLAS GPU code generation passes ---------------*- C++ -*-===//
#ifndef DLAS_CODEGEN_GPU_PASSES_H
#define DLAS_CODEGEN_GPU_PASSES_H

#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dlas {

#define GEN_PASS_DECL
#include "DLAS/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "DLAS/Codegen/GPU/Passes.h.inc"

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_GPU_PASSES_H
