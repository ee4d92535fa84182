//===- dlas-opt.cpp - mlir-opt with every DLAS dialect and pass -----------===//
#include "DLAS/InitAllDialects.h"
#include "DLAS/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::dlas::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::dlas::registerAllDialects(registry);
  // gpu-module-to-binary (dlas-gpu-pipeline) translates device code.
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "DLAS optimizer driver\n", registry));
}
