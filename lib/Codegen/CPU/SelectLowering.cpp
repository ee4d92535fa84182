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
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

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
  // GSPC's output tile, and a stencil's narrow output rows, may take
  // vectors narrower than the target's.
  bool narrowerAllowed = (decision.getKind() == MicrokernelKind::grouped_conv ||
                          decision.isStencil()) &&
                         decision.getLanes() <= target.vectorWidth;
  if (decision.getLanes() != target.vectorWidth && !narrowerAllowed)
    return op->emitError() << "'" << DLASDialect::kLoweringAttrName
                           << "' was decided for " << decision.getLanes()
                           << "-lane vectors; the target's are "
                           << target.vectorWidth << " lanes wide";
  if (std::string unsupported = decision.unsupportedTypes();
      !unsupported.empty())
    return op->emitError() << unsupported;
  Type operands = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  if (decision.getInput() != operands)
    return op->emitError() << "'" << DLASDialect::kLoweringAttrName
                           << "' was decided for " << decision.getInput()
                           << " inputs; the op's are " << operands;
  return success();
}

namespace {

/// True for the ops a kernel's init is built from (what
/// tensorFusionPartners follows from the op's output operand).
bool isInitChainOp(Operation *op) {
  return isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
             tensor::InsertSliceOp, tensor::PadOp, linalg::FillOp,
             linalg::MapOp, linalg::BroadcastOp>(op);
}

/// Gives `use` its own copy of the init chain that produces its value
/// where another op reads a part of it (CSE merges identical fills): a
/// tag then binds one kernel's partner, and bufferization no longer copies
/// the shared fill into each kernel's buffer. The chain's tensor.empty
/// too: where CSE merged it with an earlier op's, bufferization may give
/// the kernel's output the buffer of a value the kernel still reads (a
/// stride-1 pool writing the buffer its padded input was copied from),
/// and the padding can no longer fold.
void privatizeInitChain(OpOperand &use) {
  Value value = use.get();
  Operation *def = value.getDefiningOp();
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def)) {
    if (!value.hasOneUse())
      use.set(OpBuilder(empty).clone(*empty)->getResult(0));
    return;
  }
  if (!def || !isInitChainOp(def))
    return;
  if (!value.hasOneUse()) {
    OpBuilder b(def);
    def = b.clone(*def);
    use.set(def->getResult(cast<OpResult>(value).getResultNumber()));
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
    privatizeInitChain(insert.getSourceMutable());
    privatizeInitChain(insert.getDestMutable());
  } else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                 tensor::PadOp>(def)) {
    privatizeInitChain(def->getOpOperand(0));
  } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def);
             dps && dps.getNumDpsInits() == 1) {
    privatizeInitChain(*dps.getDpsInitOperand(0));
  }
}

/// Replaces `pad` by the fill of a new tensor and the insertion of the
/// source into it (upstream's destination-passing form, what bufferization
/// makes of it), so that the fill can carry a tag; returns the fill, or
/// null when the padding is not a constant fill.
Operation *materializePad(tensor::PadOp pad) {
  IRRewriter rewriter(pad);
  FailureOr<Operation *> rewritten =
      linalg::rewriteInDestinationPassingStyle(rewriter, pad);
  if (failed(rewritten))
    return nullptr;
  auto insert = dyn_cast<tensor::InsertSliceOp>(*rewritten);
  Operation *fill = insert ? insert.getDest().getDefiningOp() : nullptr;
  return isa_and_nonnull<linalg::FillOp>(fill) ? fill : nullptr;
}

/// `decision` with fusion group `group`.
MicrokernelAttr withGroup(MicrokernelAttr d, int64_t group) {
  return MicrokernelAttr::get(
      d.getContext(), d.getKind(), d.getRows(), d.getVectors(), d.getLines(),
      d.getLanes(), d.getKc(), d.getMc(), d.getPackB(), d.getInput(),
      d.getAcc(), d.getInit(), d.getEpilogues(), d.getPadding(), d.getKey(),
      d.getSource(), group, d.getSplit());
}

/// True when `decision` folds any partner op.
bool fusesPartners(MicrokernelAttr decision) {
  return decision.getInit() != FusedInit::loaded ||
         decision.getEpilogues() > 0 || decision.getPadding();
}

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
    // Groups already in the module (a second run) keep their numbers.
    lastGroup = 0;
    module.walk([&](Operation *op) {
      if (FusedAttr tag = lookupFused(op))
        lastGroup = std::max(lastGroup, tag.getGroup());
    });
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
      if (print || isBlockedKernelForm(op))
        op->emitRemark() << "no microkernel (loops): not a blocked "
                            "convolution ("
                         << blockedWhy << "); not a GEMM (" << gemmWhy
                         << "); not a stencil (" << stencilWhy << ")";
      return success();
    }
    if (fusesPartners(decision))
      decision = bindPartners(op, decision);
    op->setAttr(DLASDialect::kLoweringAttrName, decision);
    ++numDecisions;
    if (print)
      explain(op, decision, target);
    return success();
  }

  /// Tags the partner ops `decision` fuses with a new fusion group and
  /// returns the decision with that group. The init chain is made private
  /// to `op` first, and the pads the kernel folds become a tagged fill and
  /// an insertion, as bufferization would make them.
  MicrokernelAttr bindPartners(linalg::LinalgOp op, MicrokernelAttr decision) {
    privatizeInitChain(*op.getDpsInitOperand(0));
    Operation *inputPad = nullptr;
    if (decision.getPadding()) {
      OpOperand *input = op.getDpsInputOperand(0);
      privatizeInitChain(*input);
      if (auto pad = input->get().getDefiningOp<tensor::PadOp>())
        inputPad = materializePad(pad);
    }
    TensorFusion fusion = tensorFusionPartners(op);
    if (auto pad = dyn_cast_or_null<tensor::PadOp>(fusion.padOp)) {
      materializePad(pad);
      fusion = tensorFusionPartners(op);
    }
    // The rewrites above keep what the decision saw; a partner they could
    // not give a tag leaves the decision unbound (the kernel then locates
    // its partners itself).
    if (fusion.init != decision.getInit() ||
        fusion.epilogues != decision.getEpilogues() ||
        (fusion.padOp && !isa<linalg::FillOp, linalg::MapOp>(fusion.padOp)) ||
        (decision.getPadding() && !inputPad) ||
        (inputPad && fusion.padOp))
      return decision;
    int64_t group = ++lastGroup;
    MLIRContext *ctx = op.getContext();
    auto tag = [&](Operation *partner, FusionRole role, int64_t position) {
      partner->setAttr(DLASDialect::kFusedAttrName,
                       FusedAttr::get(ctx, group, role, position));
    };
    if (fusion.initOp)
      tag(fusion.initOp, FusionRole::init, 0);
    if (Operation *pad = inputPad ? inputPad : fusion.padOp)
      tag(pad, FusionRole::pad, 0);
    for (auto [position, epilogue] : llvm::enumerate(fusion.epilogueOps))
      tag(epilogue, FusionRole::epilogue, position);
    return withGroup(decision, group);
  }

  int64_t lastGroup = 0;

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
    if (d.getGroup() > 0)
      remark << " (fusion group " << d.getGroup() << ")";
  }
};

} // namespace
