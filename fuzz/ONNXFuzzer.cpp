//===- ONNXFuzzer.cpp - libFuzzer harness for the ONNX importer -----------===//
//
// Any bytes as a serialized ONNX model: the importer must return a module
// that verifies or report an error, never crash.
//
//===----------------------------------------------------------------------===//
#include "AsanOptions.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Target/ONNX/ONNXImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  // Errors are the expected outcome for most inputs: swallow them.
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::dlas::importONNXModelFromBytes(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.onnx", &context);
  // An imported module that does not verify is a bug of the importer.
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
