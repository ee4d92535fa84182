//===- DLASPlugin.cpp - DLAS as a plugin of stock mlir-opt ----------------===//
//
// mlir-opt --load-dialect-plugin=libDLASPlugin.so
//          --load-pass-plugin=libDLASPlugin.so
//          --pass-pipeline="builtin.module(convert-nn-to-linalg)"
//
//===----------------------------------------------------------------------===//
#include "DLAS/InitAllDialects.h"
#include "DLAS/InitAllPasses.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "DLAS", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            dlas::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "DLAS", LLVM_VERSION_STRING,
          []() { dlas::registerAllPasses(); }};
}
