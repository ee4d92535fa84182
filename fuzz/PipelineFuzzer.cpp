//===- PipelineFuzzer.cpp - libFuzzer harness for the IR path -------------===//
//
// Any bytes as MLIR: parse, verify, then dlas-cpu-pipeline down to the LLVM
// dialect for x86-64-v3. Every stage may refuse the input with a
// diagnostic; none may crash, and a module the pipeline accepts must
// verify afterwards.
//
//===----------------------------------------------------------------------===//
#include "AsanOptions.h"
#include "DLAS/InitAllDialects.h"
#include "DLAS/InitAllPasses.h"
#include "DLAS/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

static mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *instance = [] {
    auto *r = new mlir::DialectRegistry();
    mlir::registerAllDialects(*r);
    mlir::registerAllExtensions(*r);
    mlir::dlas::registerAllDialects(*r);
    mlir::dlas::registerAllPasses();
    return r;
  }();
  return *instance;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(registry(), mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::ParserConfig config(&context);
  // The tools read files into null-terminated buffers, and MLIR's lexer
  // relies on the terminator: an identifier at the very end of libFuzzer's
  // unterminated bytes ("func.fu") was read past them. A std::string keeps
  // the '\0' after its last byte.
  std::string source(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, config, "fuzz.mlir");
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  mlir::PassManager pm(&context);
  mlir::dlas::CPUPipelineOptions options;
  options.target = "x86-64-v3";
  options.threading = false;
  mlir::dlas::buildCPUPipeline(pm, options);
  if (mlir::succeeded(pm.run(*module)) && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
