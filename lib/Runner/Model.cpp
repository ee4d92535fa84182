//===- Model.cpp - reading the models the tools take ----------------------===//
#include "DLAS/Runner/Model.h"
#include "DLAS/InitAllDialects.h"
#include "DLAS/Runner/TargetMachine.h"
#include "DLAS/Target/ONNX/ONNXImporter.h"

#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

void dlas::registerRunnerDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  dlas::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  registerDLASDialectTranslation(registry);
}

static llvm::Error modelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<OwningOpRef<ModuleOp>>
dlas::loadModel(MLIRContext *context, StringRef path, StringRef entry,
                llvm::SourceMgr &sourceMgr,
                const ONNXImportOptions &onnxOptions) {
  if (!llvm::sys::fs::exists(path))
    return modelError("cannot open '" + path + "': no such file");
  OwningOpRef<ModuleOp> module;
  if (path.ends_with(".onnx")) {
    ONNXImportOptions importOptions = onnxOptions;
    importOptions.entryName = entry.str();
    module = importONNXModel(path, context, importOptions);
    if (!module)
      return modelError("cannot import ONNX model '" + path + "'");
  } else {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
    if (!file)
      return modelError("cannot open '" + path + "': " + error);
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, context);
    if (!module)
      return modelError("cannot parse '" + path + "'");
  }
  if (failed(verify(*module)))
    return modelError("'" + path + "' does not verify");
  return module;
}
