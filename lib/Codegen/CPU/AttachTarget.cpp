//===- AttachTarget.cpp - dlas-attach-target ------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/Passes.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_ATTACHTARGET
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

namespace {
struct AttachTargetPass : public dlas::impl::AttachTargetBase<AttachTargetPass> {
  using AttachTargetBase::AttachTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (keepExisting && module->hasAttr(DLASDialect::kTargetAttrName))
      return;
    if (target.empty()) {
      module.emitError() << "dlas-attach-target needs target=NAME";
      return signalPassFailure();
    }
    CPUTargetOverrides overrides;
    overrides.features = features;
    overrides.vectorBits = vectorBits;
    overrides.l1 = l1;
    overrides.l2 = l2;
    overrides.l3 = l3;
    llvm::Expected<CPUTargetAttr> resolved =
        resolveCPUTarget(&getContext(), target, overrides);
    if (!resolved) {
      module.emitError() << llvm::toString(resolved.takeError());
      return signalPassFailure();
    }
    module->setAttr(DLASDialect::kTargetAttrName, *resolved);
  }
};
} // namespace
