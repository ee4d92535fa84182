//===- Model.h - reading the models the tools take --------------*- C++ -*-===//
//
// What dlas-run and dlas-compile share before compiling: the dialects a
// model may use and reading it from ONNX, MLIR text or bytecode.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_MODEL_H
#define DLAS_RUNNER_MODEL_H

#include "DLAS/Target/ONNX/ONNXImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::dlas {

/// Every dialect and extension a model or its lowering may hold, DLAS's,
/// and the LLVM IR translations (with DLAS's own attributes passed over).
void registerRunnerDialects(DialectRegistry &registry);

/// Reads `path`: an ONNX model (`.onnx`, imported with `entry` as the
/// entry's name and `onnxOptions`' input shapes) or MLIR text or bytecode
/// (parsed through `sourceMgr`, so that a diagnostic handler on it reports
/// positions), verified. The error names the file and what is wrong with
/// it.
llvm::Expected<OwningOpRef<ModuleOp>>
loadModel(MLIRContext *context, StringRef path, StringRef entry,
          llvm::SourceMgr &sourceMgr,
          const ONNXImportOptions &onnxOptions = ONNXImportOptions());

} // namespace mlir::dlas

#endif // DLAS_RUNNER_MODEL_H
