//===- dlas-import.cpp - ONNX models to the nn dialect --------------------===//
//
// dlas-import model.onnx -o model.mlir [--emit-bytecode] [--entry main]
// dlas-import --list-supported-ops
//
//===----------------------------------------------------------------------===//
#include "DLAS/Support/ToolOptions.h"
#include "DLAS/InitAllDialects.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"
#include "DLAS/Target/ONNX/ONNXImporter.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory importCategory("dlas-import options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<model.onnx>"),
                                          cl::cat(importCategory));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::init("-"), cl::cat(importCategory));
static cl::opt<std::string> entryName("entry", cl::desc("Name of the function"),
                                      cl::init("main"), cl::cat(importCategory));
static cl::opt<bool> emitBytecode("emit-bytecode",
                                  cl::desc("Write MLIR bytecode (compact for "
                                           "large weights)"),
                                  cl::cat(importCategory));
static cl::opt<int64_t> symbolicDimSize(
    "symbolic-dim-size",
    cl::desc("Size for symbolic (dim_param) dimensions; -1 keeps them dynamic"),
    cl::init(-1), cl::cat(importCategory));
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("Shapes of the graph's inputs, in order, as AxBxC (comma "
             "separated; an empty one keeps its input as declared): their "
             "symbolic sizes take these, and a fixed size that differs is "
             "an error"),
    cl::CommaSeparated, cl::cat(importCategory));
static cl::opt<bool> fold("fold",
                          cl::desc("Fold batch norms into convolutions and "
                                   "canonicalize after import"),
                          cl::init(true), cl::cat(importCategory));
static cl::opt<bool> listOps("list-supported-ops",
                             cl::desc("Print the supported ONNX ops and exit"),
                             cl::cat(importCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(importCategory);
  if (!mlir::dlas::parseToolOptions(argc, argv, "DLAS ONNX importer\n"))
    return 1;
  if (listOps) {
    dlas::printSupportedONNXOps(llvm::outs());
    return 0;
  }
  if (inputFilename.empty()) {
    llvm::errs() << "dlas-import: error: no input model given\n";
    return 1;
  }
  MLIRContext context;
  DialectRegistry registry;
  dlas::registerAllDialects(registry);
  registry.insert<func::FuncDialect, arith::ArithDialect>();
  context.appendDialectRegistry(registry);
  dlas::ONNXImportOptions options;
  options.entryName = entryName;
  options.symbolicDimSize = symbolicDimSize;
  auto shapes = dlas::parseInputShapes(inputShapes);
  if (!shapes) {
    llvm::errs() << "dlas-import: error: " << llvm::toString(shapes.takeError())
                 << "\n";
    return 1;
  }
  options.inputShapes = std::move(*shapes);
  OwningOpRef<ModuleOp> module =
      dlas::importONNXModel(inputFilename, &context, options);
  if (!module) {
    llvm::errs() << "dlas-import: error: cannot import '" << inputFilename
                 << "'\n";
    return 1;
  }
  if (fold) {
    PassManager pm(&context);
    pm.addPass(dlas::nn::createFoldBatchNorm());
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(*module))) {
      llvm::errs() << "dlas-import: error: folding failed\n";
      return 1;
    }
  }
  std::string error;
  auto output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "dlas-import: error: " << error << "\n";
    return 1;
  }
  if (emitBytecode) {
    if (failed(writeBytecodeToFile(*module, output->os()))) {
      llvm::errs() << "dlas-import: error: cannot write bytecode\n";
      return 1;
    }
  } else {
    module->print(output->os());
  }
  output->keep();
  return 0;
}
