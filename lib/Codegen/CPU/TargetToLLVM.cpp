//===- TargetToLLVM.cpp - dlas-target-to-llvm -----------------------------===//
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Codegen/CPU/CPUTarget.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_TARGETTOLLVM
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

namespace {
struct TargetToLLVMPass
    : public dlas::impl::TargetToLLVMBase<TargetToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // GPU code: the kernels are binaries already; the host code runs on
    // any x86-64.
    if (module->getAttrOfType<GPUTargetAttr>(DLASDialect::kTargetAttrName)) {
      module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                      StringAttr::get(context, kCPUTriple));
      module->removeAttr(DLASDialect::kTargetAttrName);
      return;
    }
    auto target =
        module->getAttrOfType<CPUTargetAttr>(DLASDialect::kTargetAttrName);
    if (!target)
      return;
    auto cpu = StringAttr::get(context, target.getCpu());
    auto features =
        LLVM::TargetFeaturesAttr::get(context, target.llvmFeatureString());
    module.walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      func.setTargetCpuAttr(cpu);
      func.setTargetFeaturesAttr(features);
    });
    module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                    StringAttr::get(context, kCPUTriple));
    module->removeAttr(DLASDialect::kTargetAttrName);
  }
};
} // namespace
