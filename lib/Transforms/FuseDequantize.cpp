//===- FuseDequantize.cpp - the dlas-fuse-dequantize pass -----------------===//
//
// Elementwise ops that widen narrow integer tensors to float (nn.dequantize
// of an i8 tensor, lowered) are fused into the elementwise ops that read
// them, so that those read the i8 tensor (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_FUSEDEQUANTIZE
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

bool isAllParallel(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops();
}

/// An elementwise op on tensors, with one user, that reads integers
/// narrower than 32 bits and yields floats: a dequantize of a stored
/// tensor, not of a kernel's i32 accumulator. Its other operands may be
/// per-channel parameters, not full float tensors (an add that already
/// absorbed a dequantize is no dequantize itself).
bool isNarrowDequantize(linalg::GenericOp op) {
  if (!isAllParallel(op) || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse() ||
      !isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return false;
  bool readsNarrow = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Type element = getElementTypeOrSelf(input->get().getType());
    if (auto integer = dyn_cast<IntegerType>(element);
        integer && integer.getWidth() < 32 &&
        op.getMatchingIndexingMap(input).isIdentity())
      readsNarrow = true;
    else if (isa<FloatType>(element) &&
             op.getMatchingIndexingMap(input).getNumResults() ==
                 op.getNumLoops())
      return false;
  }
  return readsNarrow;
}

/// Fuses a narrow dequantize into the elementwise generic that reads it.
struct FuseIntoConsumer : OpRewritePattern<linalg::GenericOp> {
  FuseIntoConsumer(MLIRContext *context, Pass::Statistic &fused)
      : OpRewritePattern(context), fused(fused) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isAllParallel(consumer))
      return failure();
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !isNarrowDequantize(producer) ||
          !linalg::areElementwiseOpsFusable(input))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> result =
          linalg::fuseElementwiseOps(rewriter, input);
      if (failed(result))
        continue;
      for (auto [original, replacement] : result->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != producer;
        });
      rewriter.eraseOp(consumer);
      ++fused;
      return success();
    }
    return failure();
  }

  Pass::Statistic &fused;
};

struct FuseDequantizePass
    : dlas::impl::FuseDequantizeBase<FuseDequantizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseIntoConsumer>(&getContext(), numFused);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
