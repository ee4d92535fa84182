//===- ONNXImporter.h - ONNX models to the nn dialect -----------*- C++ -*-===//
#ifndef DLAS_TARGET_ONNX_ONNXIMPORTER_H
#define DLAS_TARGET_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::dlas {

struct ONNXImportOptions {
  /// Name of the function that holds the graph.
  std::string entryName = "main";
  /// Size given to symbolic dimensions (dim_param); -1 keeps them dynamic.
  int64_t symbolicDimSize = -1;
  /// Concrete shapes of the graph's inputs (those that are not
  /// initializers), in order; an empty shape leaves its input as declared.
  /// Each fills its input's symbolic dimensions (before symbolicDimSize);
  /// a rank or a fixed size that differs is an error naming the input
  /// (without inputShapesMustFit, that input is left as declared: a tool
  /// that checks its input files against the entry says what is wrong).
  /// With every input static, shape arithmetic folds at import and the
  /// CPU kernels that need static shapes apply.
  std::vector<std::vector<int64_t>> inputShapes;
  bool inputShapesMustFit = true;
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

/// Shapes for ONNXImportOptions::inputShapes as the tools take them
/// (`--input-shapes=AxBxC,...`): each `AxBxC` (sizes >= 0), an empty text
/// an empty shape (that input as declared). The error names the text that
/// is not a shape.
llvm::Expected<std::vector<std::vector<int64_t>>>
parseInputShapes(llvm::ArrayRef<std::string> texts);

/// Prints the table of supported ONNX operators (markdown).
void printSupportedONNXOps(llvm::raw_ostream &os);

} // namespace mlir::dlas

#endif // DLAS_TARGET_ONNX_ONNXIMPORTER_H
