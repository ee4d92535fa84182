//===- AttachTarget.cpp - the dlas-gpu-attach-target pass -----------------===//
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Codegen/GPU/Passes.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_GPUATTACHTARGET
#include "DLAS/Codegen/GPU/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

namespace {
struct GPUAttachTargetPass
    : dlas::impl::GPUAttachTargetBase<GPUAttachTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    llvm::Expected<GPUTargetAttr> resolved =
        resolveGPUTarget(&getContext(), target);
    if (!resolved) {
      emitError(getOperation().getLoc())
          << "dlas-gpu-attach-target: " << llvm::toString(resolved.takeError());
      return signalPassFailure();
    }
    getOperation()->setAttr(DLASDialect::kTargetAttrName, *resolved);
  }
};
} // namespace
