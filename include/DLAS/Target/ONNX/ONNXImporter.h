//===- ONNXImporter.h - ONNX models to the nn dialect -----------*- C++ -*-===//
#ifndef DLAS_TARGET_ONNX_ONNXIMPORTER_H
#define DLAS_TARGET_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::dlas {

struct ONNXImportOptions {
  /// Name of the function that holds the graph.
  std::string entryName = "main";
  /// Size given to symbolic dimensions (dim_param); -1 keeps them dynamic.
  int64_t symbolicDimSize = -1;
};

/// Imports an ONNX model file into a module with one function in the nn
/// dialect. Initializers become dense_resource constants. Failures are
/// reported as diagnostics on `context` (naming the op type, node and opset
/// for unsupported input) and return a null module.
OwningOpRef<ModuleOp> importONNXModel(llvm::StringRef path, MLIRContext *context,
                                      const ONNXImportOptions &options = {});

/// `importONNXModel` of a serialized model held in memory; `name` stands
/// for its path in diagnostics (and locates external data beside it).
OwningOpRef<ModuleOp> importONNXModelFromBytes(llvm::StringRef bytes,
                                               llvm::StringRef name,
                                               MLIRContext *context,
                                               const ONNXImportOptions &options = {});

/// Prints the table of supported ONNX operators (markdown).
void printSupportedONNXOps(llvm::raw_ostream &os);

} // namespace mlir::dlas

#endif // DLAS_TARGET_ONNX_ONNXIMPORTER_H
