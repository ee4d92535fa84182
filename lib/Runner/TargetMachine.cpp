//===- TargetMachine.cpp - LLVM target machines for DLAS targets ----------===//
#include "DLAS/Runner/TargetMachine.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
dlas::createTargetMachine(StringRef cpu, StringRef features,
                          llvm::CodeGenOptLevel level) {
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(kCPUTriple)};
  builder.setCPU(cpu.str());
  builder.addFeatures(llvm::SubtargetFeatures(features).getFeatures());
  builder.setCodeGenOptLevel(level);
  builder.setRelocationModel(llvm::Reloc::PIC_);
  return builder.createTargetMachine();
}

llvm::CodeGenOptLevel dlas::codeGenOptLevel(unsigned optLevel) {
  return optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
         : optLevel == 0 ? llvm::CodeGenOptLevel::None
                         : llvm::CodeGenOptLevel::Default;
}

std::optional<std::pair<std::string, std::string>>
dlas::loweredTarget(ModuleOp module) {
  std::optional<std::pair<std::string, std::string>> found;
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (!func.getTargetCpu())
      return WalkResult::advance();
    LLVM::TargetFeaturesAttr features = func.getTargetFeaturesAttr();
    found = {func.getTargetCpu()->str(),
             features ? features.getFeaturesString() : std::string()};
    return WalkResult::interrupt();
  });
  return found;
}

namespace {
/// Every hook keeps its default: accept the attribute, emit nothing.
struct DLASToLLVMIRTranslation : public LLVMTranslationDialectInterface {
  using LLVMTranslationDialectInterface::LLVMTranslationDialectInterface;
};
} // namespace

void dlas::registerDLASDialectTranslation(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, DLASDialect *dialect) {
    dialect->addInterfaces<DLASToLLVMIRTranslation>();
  });
}
