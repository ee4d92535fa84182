//===- LayerBench.cpp - one layer compiled and timed in-process -----------===//
#include "DLAS/Tuner/LayerBench.h"

#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/DynamicLibrary.h"

#include <chrono>
#include <random>

using namespace mlir;
using namespace mlir::dlas;

FailureOr<OwningOpRef<ModuleOp>>
dlas::layOutModel(ModuleOp model, const CPUPipelineOptions &options) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(model->clone()));
  PassManager pm(model.getContext());
  pm.addPass(createCheckConstants());
  buildTargetStage(pm, options);
  buildNNToLinalgStage(pm, options);
  buildCPULayoutStage(pm, options);
  if (failed(pm.run(*copy)))
    return failure();
  return copy;
}

/// Releases the OpenMP runtime's worker threads, when it is loaded. After a
/// parallel region libomp's workers spin for a while (KMP_BLOCKTIME, 200
/// ms) waiting for the next: on a 2-core machine they would take a core
/// from the next candidate's compile. The next measurement's warm-up runs
/// start them again.
static void pauseOpenMP() {
  using PauseFn = int (*)(int);
  // Looked up until found: the JIT loads libomp with the first layer that
  // has parallel loops.
  static PauseFn pause = nullptr;
  if (!pause)
    pause = reinterpret_cast<PauseFn>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "omp_pause_resource_all"));
  constexpr int ompPauseSoft = 1;
  if (pause)
    pause(ompPauseSoft);
}

llvm::Expected<double> CompiledLayer::time(int64_t warmup, int64_t repeat) {
  llvm::scope_exit releaseThreads(pauseOpenMP);
  for (int64_t i = 0; i < warmup; ++i)
    if (llvm::Error e = runner->run())
      return std::move(e);
  SmallVector<double> times;
  for (int64_t i = 0; i < std::max<int64_t>(repeat, 1); ++i) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error e = runner->run())
      return std::move(e);
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  return medianOf(times);
}

namespace {

/// The layer's module: the model's attributes (its target), every function
/// declaration (run-time hooks) and the layer itself, public so that the
/// entry ABI stage gives it a C interface.
FailureOr<OwningOpRef<ModuleOp>> cutLayer(ModuleOp laidOut, StringRef layer) {
  auto source = laidOut.lookupSymbol<func::FuncOp>(layer);
  if (!source || source.isExternal())
    return failure();
  OwningOpRef<ModuleOp> module(ModuleOp::create(laidOut.getLoc()));
  (*module)->setAttrs(laidOut->getAttrDictionary());
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  for (Operation &op : laidOut.getBody()->getOperations()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (func && func != source && !func.isExternal())
      continue;
    Operation *copy = builder.clone(op);
    if (func == source)
      cast<func::FuncOp>(copy).setPublic();
  }
  return module;
}

/// A seeded random input of `type` (fillRandom), which must be static.
llvm::Expected<NpyArray> randomInput(ShapedType type, std::mt19937 &rng) {
  std::optional<NpyDType> dtype = npyDTypeOf(type.getElementType());
  if (!dtype || !type.hasStaticShape())
    return llvm::createStringError("an input of a type the bench cannot "
                                   "fill (dynamic or unsupported)");
  llvm::Expected<NpyArray> array = NpyArray::allocate(*dtype, type.getShape());
  if (!array)
    return array.takeError();
  fillRandom(*array, type.getElementType(), rng);
  return array;
}

} // namespace

llvm::Expected<std::unique_ptr<CompiledLayer>>
LayerBench::compile(StringRef layer, StringRef tuningFile) {
  auto error = [&](const llvm::Twine &what) {
    return llvm::createStringError("layer '" + layer.str() +
                                   "': " + what.str());
  };
  FailureOr<OwningOpRef<ModuleOp>> cut = cutLayer(laidOut, layer);
  if (failed(cut))
    return error("no such layer function in the model");
  OwningOpRef<ModuleOp> module = std::move(*cut);
  CPUTargetAttr target = lookupCPUTarget(*module);
  if (!target)
    return error("the model has no CPU target");

  // The pipeline's diagnostics become the error's text.
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(module->getContext(), [&](Diagnostic &d) {
    diagStream << d.str() << "\n";
    return success();
  });
  CPUPipelineOptions stages;
  stages.copyOptionValuesFrom(options);
  stages.tuningFile = tuningFile.str();
  // The weights stay in the code: the JIT has no data to bind them to.
  stages.externalWeights = false;
  stages.profileLayers = false;
  PassManager pm(module->getContext());
  buildCPUKernelDecisionStage(pm, stages);
  buildEntryABIStage(pm, stages);
  buildBufferizationStage(pm);
  buildLoopLoweringStage(pm, stages);
  buildLLVMLoweringStage(pm, stages.approximateMath);
  if (failed(pm.run(*module)))
    return error("does not compile: " + diagnostics);

  auto lowered = module->lookupSymbol<LLVM::LLVMFuncOp>(layer);
  auto sigAttr = lowered ? lowered->getAttrOfType<TypeAttr>(kSignatureAttrName)
                         : TypeAttr();
  if (!sigAttr)
    return error("lost its dlas.signature in the pipeline");
  std::unique_ptr<CompiledLayer> compiled(new CompiledLayer());
  llvm::Expected<EntrySignature> sig =
      entrySignature(cast<FunctionType>(sigAttr.getValue()), layer);
  if (!sig)
    return sig.takeError();
  compiled->signature = std::move(*sig);
  std::mt19937 rng(7);
  for (ShapedType type : compiled->signature.inputs) {
    llvm::Expected<NpyArray> input = randomInput(type, rng);
    if (!input)
      return error(llvm::toString(input.takeError()));
    compiled->inputs.push_back(std::move(*input));
  }

  JITOptions jit;
  jit.cpu = target.getCpu().str();
  jit.features = target.llvmFeatureString();
  // One layer is one LLVM module: compiling it on one thread leaves the
  // other cores to a concurrent compile.
  jit.compileThreads = 1;
  llvm::Expected<std::unique_ptr<JIT>> engine = JIT::create(*module, jit);
  if (!engine)
    return error(llvm::toString(engine.takeError()));
  compiled->engine = std::move(*engine);
  std::string symbol = "_mlir_ciface_" + layer.str();
  if (auto fn = compiled->engine->lookupPacked(symbol); !fn)
    return error("JIT: " + llvm::toString(fn.takeError()));
  compiled->runner = std::make_unique<EntryRunner>(
      *compiled->engine, symbol, compiled->signature, compiled->inputs);
  return compiled;
}
