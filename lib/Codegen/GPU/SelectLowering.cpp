//===- SelectLowering.cpp - the dlas-gpu-select-lowering pass -------------===//
//
// The GPU's decision pass: on tensors, every linalg op gets the
// #dlas.gpu_kernel that dlas-gpu-map-kernels builds after bufferization.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_GPUSELECTLOWERING
#include "DLAS/Codegen/GPU/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

/// The decision with `op`'s `dlas.gpu_threads` override applied, or failure
/// (reported) when the override does not fit the op or the target.
static FailureOr<GPUKernelAttr> applyOverride(linalg::LinalgOp op,
                                              GPUKernelAttr chosen,
                                              GPUTargetAttr target) {
  Attribute attr = op->getAttr(kGPUThreadsAttrName);
  if (!attr)
    return chosen;
  auto threads = dyn_cast<DenseI64ArrayAttr>(attr);
  if (!threads || threads.empty() || threads.size() > 2)
    return op->emitOpError()
           << "'" << kGPUThreadsAttrName
           << "' must be array<i64: threads> (flat) or array<i64: rows, "
              "columns> (tiled), got "
           << attr;
  int64_t total = 1;
  for (int64_t count : threads.asArrayRef()) {
    if (count < 1)
      return op->emitOpError() << "'" << kGPUThreadsAttrName
                               << "' needs positive thread counts";
    total *= count;
  }
  if (total > target.getMaxThreads())
    return op->emitOpError()
           << "'" << kGPUThreadsAttrName << "' asks for " << total
           << " threads a block; " << target.getName() << " allows "
           << target.getMaxThreads();
  GPUKernelKind kind =
      threads.size() == 1 ? GPUKernelKind::flat : GPUKernelKind::tiled;
  if (kind == GPUKernelKind::tiled) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (iterators.size() < 2 ||
        iterators[0] != utils::IteratorType::parallel ||
        iterators[1] != utils::IteratorType::parallel)
      return op->emitOpError() << "'" << kGPUThreadsAttrName
                               << "' with rows and columns needs two leading "
                                  "parallel dimensions";
  }
  return GPUKernelAttr::get(op->getContext(), kind, threads.asArrayRef(),
                            chosen.getKey(), DecisionSource::override);
}

namespace {
struct GPUSelectLoweringPass
    : dlas::impl::GPUSelectLoweringBase<GPUSelectLoweringPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    GPUTargetAttr target = lookupGPUTarget(module);
    if (!target) {
      emitError(module.getLoc())
          << "dlas-gpu-select-lowering needs the module's '"
          << DLASDialect::kTargetAttrName
          << "' to be a #dlas.gpu_target (dlas-gpu-attach-target)";
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](linalg::LinalgOp op) {
      FailureOr<GPUKernelAttr> decision =
          applyOverride(op, chooseGPUKernel(op, target), target);
      if (failed(decision))
        return WalkResult::interrupt();
      op->setAttr(DLASDialect::kLoweringAttrName, *decision);
      if (print)
        llvm::outs() << "dlas-gpu-select-lowering: " << decision->getKey()
                     << " -> " << stringifyGPUKernelKind(decision->getKind())
                     << " "
                     << llvm::join(llvm::map_range(decision->getThreads(),
                                                   [](int64_t count) {
                                                     return std::to_string(
                                                         count);
                                                   }),
                                   "x")
                     << " threads ("
                     << stringifyDecisionSource(decision->getSource())
                     << ")\n";
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
