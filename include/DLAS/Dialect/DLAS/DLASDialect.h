//===- DLASDialect.h - codegen attributes: targets --------------*- C++ -*-===//
#ifndef DLAS_DIALECT_DLAS_DLASDIALECT_H
#define DLAS_DIALECT_DLAS_DLASDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dialect.h"

#include "DLAS/Dialect/DLAS/DLASDialect.h.inc"
#include "DLAS/Dialect/DLAS/DLASEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "DLAS/Dialect/DLAS/DLASAttrs.h.inc"

namespace mlir::dlas {

/// The ISA extensions that code generation distinguishes, in the order a
/// `#dlas.cpu_target` lists them (LLVM's x86 feature names).
llvm::ArrayRef<llvm::StringRef> codegenFeatureNames();

/// `CPUTargetAttr::getChecked` for code outside the dialect's own file
/// (where the attribute's storage is incomplete).
CPUTargetAttr getCheckedCPUTarget(function_ref<InFlightDiagnostic()> emitError,
                                  MLIRContext *context, StringRef cpu,
                                  StringRef features, int64_t vectorBits,
                                  int64_t vectorRegisters, int64_t l1,
                                  int64_t l2, int64_t l3, int64_t fmaPerCycle);

/// The lowering decision on `op` (its `dlas.lowering`), or null.
MicrokernelAttr lookupLowering(Operation *op);

/// The fusion-partner tag on `op` (its `dlas.fused`), or null.
FusedAttr lookupFused(Operation *op);

/// The target of `op`: the `dlas.target` attribute of `op` or of its
/// nearest ancestor that has one; null when none has.
CPUTargetAttr lookupCPUTarget(Operation *op);

/// The GPU target of `op`: the nearest `dlas.target` that is a
/// `#dlas.gpu_target`; null when there is none.
GPUTargetAttr lookupGPUTarget(Operation *op);

} // namespace mlir::dlas

#endif // DLAS_DIALECT_DLAS_DLASDIALECT_H
