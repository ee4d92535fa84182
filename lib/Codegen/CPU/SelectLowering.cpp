//===- SelectLowering.cpp - dlas-cpu-select-lowering ----------------------===//
//
// Strategy in one place: for every contraction and stencil, on tensors,
// the kernel, register tile, blocking and fusion partners, from the target,
// the cost model, the tuning file and the op's override, recorded as the
// op's `dlas.lowering` for the kernel passes to read after bufferization.
//
//===----------------------------------------------------------------------===//
#include "Decisions.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_CPUSELECTLOWERING
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

LogicalResult dlas::decisionFor(
    linalg::LinalgOp op, const TargetShape &target, bool decidedOnly,
    function_ref<bool(MicrokernelAttr)> mine,
    function_ref<LogicalResult(MicrokernelAttr &, std::string &)> decide,
    MicrokernelAttr &decision, std::string &why) {
  decision = lookupLowering(op);
  if (!decision) {
    if (decidedOnly) {
      why = "no dlas.lowering decision";
      return success();
    }
    return decide(decision, why);
  }
  if (!mine(decision)) {
    why = ("decided for the " + stringifyMicrokernelKind(decision.getKind()) +
           " kernel")
              .str();
    decision = {};
    return success();
  }
  if (decision.getLanes() != target.vectorWidth)
    return op->emitError() << "'" << DLASDialect::kLoweringAttrName
                           << "' was decided for " << decision.getLanes()
                           << "-lane vectors; the target's are "
                           << target.vectorWidth << " lanes wide";
  if (std::string unsupported = decision.unsupportedTypes();
      !unsupported.empty())
    return op->emitError() << unsupported;
  return success();
}

namespace {

/// Why a decision's tile is what it is, for `print`.
StringRef sourceText(DecisionSource source) {
  switch (source) {
  case DecisionSource::cost_model:
    return "the cost model";
  case DecisionSource::tuning_file:
    return "the tuning file";
  case DecisionSource::override:
    return "an override";
  }
  llvm_unreachable("unknown decision source");
}

struct CPUSelectLoweringPass
    : dlas::impl::CPUSelectLoweringBase<CPUSelectLoweringPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (gemmPackB != "auto" && gemmPackB != "always" && gemmPackB != "never")
      return failure();
    if (gemmTiles.size() > 4 || depthwiseTiles.size() > 2)
      return failure();
    return loadTuningFile(context, tuningFile, tuningTable);
  }

  std::shared_ptr<const TuningTable> tuningTable;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetShape> targetOr = targetShapeFor(module, 0, 0);
    if (failed(targetOr))
      return signalPassFailure();
    SmallVector<linalg::LinalgOp> candidates;
    module.walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() > 0 && op.hasPureTensorSemantics())
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates)
      if (failed(decide(op, *targetOr)))
        return signalPassFailure();
  }

  /// Tries the kernels in the order the kernel passes run (blocked
  /// convolutions, GEMMs, stencils); the first that takes `op` decides.
  LogicalResult decide(linalg::LinalgOp op, const TargetShape &target) {
    const TuningTable *tuning = tuningTable.get();
    GemmPins gemmPins{gemmTiles, gemmPackB};
    StencilPins stencilPins;
    if (!depthwiseTiles.empty())
      stencilPins.rows = depthwiseTiles[0];
    if (depthwiseTiles.size() > 1)
      stencilPins.vectors = depthwiseTiles[1];
    MicrokernelAttr decision;
    std::string blockedWhy, gemmWhy, stencilWhy;
    if (failed(decideBlockedConv(op, target, tuning, decision, blockedWhy)))
      return failure();
    if (!decision &&
        failed(decideGemm(op, target, tuning, gemmPins, decision, gemmWhy)))
      return failure();
    if (!decision && failed(decideStencil(op, target, tuning, stencilPins,
                                          decision, stencilWhy)))
      return failure();
    if (!decision) {
      // An op that dlas-blocked-layout put in the blocked layout for this
      // kernel and that the kernel cannot take is worth a remark always.
      if (print || op->hasAttr("dlas.blocked_conv") ||
          op->hasAttr("dlas.blocked_depthwise"))
        op->emitRemark() << "no microkernel (loops): not a blocked "
                            "convolution ("
                         << blockedWhy << "); not a GEMM (" << gemmWhy
                         << "); not a stencil (" << stencilWhy << ")";
      return success();
    }
    op->setAttr(DLASDialect::kLoweringAttrName, decision);
    ++numDecisions;
    if (print)
      explain(op, decision, target);
    return success();
  }

  static void explain(Operation *op, MicrokernelAttr d,
                      const TargetShape &target) {
    InFlightDiagnostic remark = op->emitRemark();
    remark << stringifyMicrokernelKind(d.getKind()) << " microkernel "
           << d.getRows() << "x" << d.getVectors() * d.getLanes() << " ("
           << d.getRows() << " rows of " << d.getVectors() << " "
           << d.getLanes() << "-lane vectors";
    if (d.isGemm())
      remark << ", kc = " << d.getKc() << ", mc = " << d.getMc()
             << (d.getPackB() ? ", B packed" : ", B read in place");
    remark << ") from " << sourceText(d.getSource()) << " for "
           << target.vectorRegisters << " vector registers, key '"
           << d.getKey() << "'; " << d.getInput() << " inputs, " << d.getAcc()
           << " accumulators; init " << stringifyFusedInit(d.getInit())
           << ", " << d.getEpilogues() << " epilogue op(s) fused"
           << (d.getPadding() ? ", padding folded" : "");
  }
};

} // namespace
