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

/// `chosen` with the thread counts `threads` (one: flat; rows, columns:
/// tiled), or failure (reported as `what`'s) when they do not fit the
/// target or, with `strict`, the op; without `strict` an op a tiled request
/// does not fit keeps `chosen`.
static FailureOr<GPUKernelAttr>
withThreads(linalg::LinalgOp op, GPUKernelAttr chosen, GPUTargetAttr target,
            ArrayRef<int64_t> threads, StringRef what, bool strict) {
  int64_t total = 1;
  for (int64_t count : threads) {
    if (count < 1)
      return op->emitOpError() << what << " needs positive thread counts";
    total *= count;
  }
  if (total > target.getMaxThreads())
    return op->emitOpError()
           << what << " asks for " << total << " threads a block; "
           << target.getName() << " allows " << target.getMaxThreads();
  GPUKernelKind kind =
      threads.size() == 1 ? GPUKernelKind::flat : GPUKernelKind::tiled;
  // The kernel runs the parallel loops first (gpuLoopOrder): tiles need
  // two of them.
  if (kind == GPUKernelKind::tiled &&
      llvm::count(op.getIteratorTypesArray(), utils::IteratorType::parallel) <
          2) {
    if (!strict)
      return chosen;
    return op->emitOpError() << what
                             << " with rows and columns needs two parallel "
                                "dimensions";
  }
  // A tiled override keeps the cost model's register tile, if any.
  SmallVector<int64_t> outputs;
  if (kind == GPUKernelKind::tiled && chosen.getKind() == kind)
    outputs.assign(chosen.getOutputs().begin(), chosen.getOutputs().end());
  return GPUKernelAttr::get(op->getContext(), kind, threads, outputs,
                            chosen.getSplit(), chosen.getKey(),
                            DecisionSource::override);
}

/// The decision with `op`'s `dlas.gpu_threads` override applied.
static FailureOr<GPUKernelAttr> applyThreadsOverride(linalg::LinalgOp op,
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
  return withThreads(op, chosen, target, threads.asArrayRef(),
                     "'" + kGPUThreadsAttrName.str() + "'", /*strict=*/true);
}

/// `chosen` with the register tile `outputs` when it is tiled, or failure
/// (reported at `op`) for a bad tile.
static FailureOr<GPUKernelAttr> withOutputs(linalg::LinalgOp op,
                                            GPUKernelAttr chosen,
                                            ArrayRef<int64_t> outputs,
                                            StringRef what) {
  if (chosen.getKind() != GPUKernelKind::tiled)
    return chosen;
  if (outputs.size() != 2 || llvm::any_of(outputs, [](int64_t count) {
        return count < 1 || count > 8;
      }))
    return op->emitOpError() << what << " must be [rows, columns], each 1 to 8";
  return GPUKernelAttr::get(op->getContext(), chosen.getKind(),
                            chosen.getThreads(), outputs, chosen.getSplit(),
                            chosen.getKey(), DecisionSource::override);
}

/// The decision with the pass's `threads`, `op`'s `dlas.gpu_threads` and
/// `dlas.gpu_outputs` overrides and the pass's `outputs` applied, or failure
/// (reported) when an override does not fit the op or the target.
static FailureOr<GPUKernelAttr>
applyOverride(linalg::LinalgOp op, GPUKernelAttr chosen, GPUTargetAttr target,
              ArrayRef<int64_t> threads, ArrayRef<int64_t> outputs) {
  if (!threads.empty()) {
    FailureOr<GPUKernelAttr> forced =
        withThreads(op, chosen, target, threads,
                    "dlas-gpu-select-lowering threads", /*strict=*/false);
    if (failed(forced))
      return failure();
    chosen = *forced;
  }
  FailureOr<GPUKernelAttr> decided = applyThreadsOverride(op, chosen, target);
  if (failed(decided))
    return failure();
  if (Attribute attr = op->getAttr(kGPUOutputsAttrName)) {
    auto tile = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!tile || decided->getKind() != GPUKernelKind::tiled)
      return op->emitOpError()
             << "'" << kGPUOutputsAttrName
             << "' must be array<i64: rows, columns> on a tiled kernel, got "
             << attr;
    return withOutputs(op, *decided, tile.asArrayRef(),
                       "'" + kGPUOutputsAttrName.str() + "'");
  }
  if (!outputs.empty())
    return withOutputs(op, *decided, outputs,
                       "dlas-gpu-select-lowering outputs");
  return decided;
}

/// "8x32" for the counts {8, 32}.
static std::string joinCounts(ArrayRef<int64_t> counts) {
  return llvm::join(
      llvm::map_range(counts,
                      [](int64_t count) { return std::to_string(count); }),
      "x");
}

namespace {
struct GPUSelectLoweringPass
    : dlas::impl::GPUSelectLoweringBase<GPUSelectLoweringPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<GPUTargetAttr> required =
        requireGPUTarget(module, "dlas-gpu-select-lowering");
    if (failed(required))
      return signalPassFailure();
    GPUTargetAttr target = *required;
    if (tensorCores != "auto" && tensorCores != "always" &&
        tensorCores != "never") {
      module.emitError() << "dlas-gpu-select-lowering: unknown tensor-cores '"
                         << tensorCores << "' (auto, always or never)";
      return signalPassFailure();
    }
    if (staged != "auto" && staged != "always" && staged != "never") {
      module.emitError() << "dlas-gpu-select-lowering: unknown staged '"
                         << staged << "' (auto, always or never)";
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](linalg::LinalgOp op) {
      GPUKernelAttr chosen =
          chooseGPUKernel(op, target, tensorCores, allowTF32, staged);
      int64_t chunks = chosen.getSplit();
      // An mma or staged kernel's reduction is not split (its blocks are
      // few only for GEMMs too small for it, which stay on the tiled
      // kernels).
      if (split > 0 && isSumReduction(op) &&
          !isBlockTileKernel(chosen.getKind()))
        chunks = split;
      if (!splitReductions)
        chunks = 1;
      if (chunks != chosen.getSplit())
        chosen = GPUKernelAttr::get(
            op->getContext(), chosen.getKind(), chosen.getThreads(),
            chosen.getOutputs(), chunks, chosen.getKey(),
            split > 0 ? DecisionSource::override : chosen.getSource());
      FailureOr<GPUKernelAttr> decision =
          applyOverride(op, chosen, target, threads, outputs);
      if (failed(decision))
        return WalkResult::interrupt();
      op->setAttr(DLASDialect::kLoweringAttrName, *decision);
      if (print)
        llvm::outs() << "dlas-gpu-select-lowering: " << decision->getKey()
                     << " -> " << stringifyGPUKernelKind(decision->getKind())
                     << " " << joinCounts(decision->getThreads()) << " threads"
                     << (decision->getOutputs().empty() ? std::string()
                         : isBlockTileKernel(decision->getKind())
                             ? ", " + joinCounts(decision->getOutputs()) +
                                   " outputs a block"
                             : ", " + joinCounts(decision->getOutputs()) +
                                   " outputs a thread")
                     << (decision->getSplit() > 1
                             ? ", reduction split " +
                                   std::to_string(decision->getSplit())
                             : std::string())
                     << " (" << stringifyDecisionSource(decision->getSource())
                     << ")\n";
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
