//===- ParallelCodegen.cpp - LLVM optimization and codegen on all cores ---===//
#include "DLAS/Runner/ParallelCodegen.h"
#include "DLAS/Runner/TargetMachine.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <mutex>

using namespace mlir;

namespace {

/// LLVM's default pipeline at `optLevel`.
void optimize(llvm::Module &module, llvm::TargetMachine *targetMachine,
              unsigned optLevel) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  // As clang at -O2 and above (and MLIR's makeOptimizingTransformer).
  bool vectorize = optLevel > 1;
  tuning.LoopUnrolling = vectorize;
  tuning.LoopInterleaving = vectorize;
  tuning.LoopVectorization = vectorize;
  tuning.SLPVectorization = vectorize;
  // -time-passes and the other instrumentation options of LLVM's opt.
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentation(module.getContext(),
                                                 /*DebugLogging=*/false);
  instrumentation.registerCallbacks(callbacks, &modules);
  llvm::PassBuilder builder(targetMachine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::OptimizationLevel level = optLevel >= 3   ? llvm::OptimizationLevel::O3
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                                  : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager pipeline =
      optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                    : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
}

/// Optimizes and compiles one module in the context it lives in.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileOne(llvm::Module &module, const dlas::CodegenOptions &options,
           llvm::StringRef name) {
  auto targetMachine = dlas::createTargetMachine(
      options.cpu, options.features, dlas::codeGenOptLevel(options.optLevel));
  if (!targetMachine)
    return targetMachine.takeError();
  module.setDataLayout((*targetMachine)->createDataLayout());
  module.setTargetTriple((*targetMachine)->getTargetTriple());
  optimize(module, targetMachine->get(), options.optLevel);
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if ((*targetMachine)->addPassesToEmitFile(codegen, os, nullptr,
                                            llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError(
        "the target machine cannot emit object files");
  codegen.run(module);
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(object), name, /*RequiresNullTerminator=*/false);
}

unsigned definedFunctions(const llvm::Module &module) {
  return llvm::count_if(module, [](const llvm::Function &f) {
    return !f.isDeclaration();
  });
}

/// SplitModule makes what one partition uses of another hidden, which lets
/// the code reach it directly, PC-relative. The JIT may link the partitions
/// more than 2 GB apart: default visibility makes those few references (a
/// call per layer) go through the GOT and PLT, which reach anywhere.
void reachAcrossPartitions(llvm::Module &module) {
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.hasLocalLinkage())
      continue;
    value.setVisibility(llvm::GlobalValue::DefaultVisibility);
    value.setDSOLocal(false);
  }
}

} // namespace

llvm::Expected<llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>>>
dlas::compileToObjects(std::unique_ptr<llvm::Module> module,
                       const CodegenOptions &options) {
  llvm::ThreadPoolStrategy strategy =
      llvm::heavyweight_hardware_concurrency(options.threads);
  unsigned threads = strategy.compute_thread_count();
  llvm::SmallVector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  if (threads <= 1 || definedFunctions(*module) < 2) {
    auto object = compileOne(*module, options, "dlas-module");
    if (!object)
      return object.takeError();
    objects.push_back(std::move(*object));
    return objects;
  }

  // Partitions go through bitcode: each is then optimized in an
  // LLVMContext of its own, which LLVM needs to run two at once. Twice as
  // many partitions as threads evens out their sizes.
  llvm::SmallVector<llvm::SmallVector<char, 0>> bitcode;
  llvm::SplitModule(
      *module, 2 * threads,
      [&](std::unique_ptr<llvm::Module> part) {
        if (definedFunctions(*part) == 0 && part->global_empty())
          return;
        llvm::SmallVector<char, 0> &buffer = bitcode.emplace_back();
        llvm::raw_svector_ostream os(buffer);
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  module.reset();

  objects.resize(bitcode.size());
  std::mutex errorMutex;
  llvm::Error firstError = llvm::Error::success();
  llvm::DefaultThreadPool pool(strategy);
  for (size_t i = 0; i < bitcode.size(); ++i) {
    pool.async([&, i] {
      llvm::LLVMContext context;
      std::string name = "dlas-part" + std::to_string(i);
      llvm::Expected<std::unique_ptr<llvm::Module>> part =
          llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  llvm::StringRef(bitcode[i].data(), bitcode[i].size()), name),
              context);
      if (part)
        reachAcrossPartitions(**part);
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
          part ? compileOne(**part, options, name) : part.takeError();
      if (object) {
        objects[i] = std::move(*object);
        return;
      }
      std::lock_guard<std::mutex> lock(errorMutex);
      firstError = llvm::joinErrors(std::move(firstError), object.takeError());
    });
  }
  pool.wait();
  if (firstError)
    return std::move(firstError);
  return objects;
}

void dlas::addPackedWrappers(llvm::Module &module, llvm::StringRef prefix) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  llvm::SmallVector<llvm::Function *> targets;
  for (llvm::Function &func : module)
    if (!func.isDeclaration() && !func.hasLocalLinkage() &&
        func.getName().starts_with(prefix))
      targets.push_back(&func);
  auto *packedType = llvm::FunctionType::get(builder.getVoidTy(),
                                             builder.getPtrTy(), false);
  for (llvm::Function *func : targets) {
    auto *wrapper = llvm::Function::Create(
        packedType, llvm::GlobalValue::ExternalLinkage,
        "_mlir_" + func->getName(), module);
    builder.SetInsertPoint(llvm::BasicBlock::Create(context, "", wrapper));
    llvm::Value *argList = wrapper->getArg(0);
    llvm::SmallVector<llvm::Value *> args;
    for (auto [index, arg] : llvm::enumerate(func->args())) {
      llvm::Value *slot = builder.CreateConstGEP1_64(builder.getPtrTy(),
                                                     argList, index);
      llvm::Value *pointer = builder.CreateLoad(builder.getPtrTy(), slot);
      args.push_back(builder.CreateLoad(arg.getType(), pointer));
    }
    llvm::Value *result = builder.CreateCall(func, args);
    if (!result->getType()->isVoidTy()) {
      llvm::Value *slot = builder.CreateConstGEP1_64(
          builder.getPtrTy(), argList, func->arg_size());
      builder.CreateStore(result, builder.CreateLoad(builder.getPtrTy(), slot));
    }
    builder.CreateRetVoid();
  }
}
