//===- FuseConversions.cpp - the dlas-fuse-conversions pass ---------------===//
//
// Elementwise type conversions are fused into the elementwise ops next to
// them: widenings (nn.dequantize of an i8 tensor, bf16/f16 -> f32) into
// the ops that read them, and an op into the narrowing (f32 -> bf16/f16)
// that reads its result (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_FUSECONVERSIONS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

bool isAllParallel(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         op->getNumResults() == 1;
}

/// Integers narrower than 32 bits, bf16 and f16: what a stored tensor
/// holds and a kernel widens.
bool isNarrow(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() < 32;
  return type.isBF16() || type.isF16();
}

/// An elementwise op, with one user, that reads narrow tensors (identity
/// maps) and yields f32: a dequantize of a stored i8 tensor, or the
/// widening of a bf16/f16 one. Its other operands may be per-channel
/// parameters, not full f32 tensors (an op that already absorbed a
/// widening is no widening itself), and an int8 layer's dequantize of its
/// i32 accumulator is none (it starts its kernel's epilogue chain).
bool isWidening(linalg::GenericOp op) {
  if (!isAllParallel(op) || !op->getResult(0).hasOneUse() ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
    return false;
  bool readsNarrow = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Type element = getElementTypeOrSelf(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    if (isNarrow(element) && map.isIdentity())
      readsNarrow = true;
    else if (map.getNumResults() == op.getNumLoops())
      return false;
  }
  return readsNarrow;
}

/// An elementwise op whose body only narrows its one full input from f32
/// to bf16/f16 (an op's result rounded to its storage type).
bool isNarrowing(linalg::GenericOp op) {
  if (!isAllParallel(op) || op.getNumDpsInputs() != 1 ||
      !op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity())
    return false;
  Block *body = op.getBody();
  auto truncate = dyn_cast<arith::TruncFOp>(&body->front());
  return truncate && truncate.getIn() == body->getArgument(0) &&
         truncate.getIn().getType().isF32() &&
         body->getTerminator()->getOperand(0) == truncate.getResult() &&
         &*std::next(body->begin()) == body->getTerminator();
}

/// Fuses `*fused`'s producer into its consumer (upstream's elementwise
/// fusion), replacing the consumer.
LogicalResult fuse(PatternRewriter &rewriter, linalg::GenericOp consumer,
                   OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!linalg::areElementwiseOpsFusable(fused))
    return failure();
  FailureOr<linalg::ElementwiseOpFusionResult> result =
      linalg::fuseElementwiseOps(rewriter, fused);
  if (failed(result))
    return failure();
  for (auto [original, replacement] : result->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      return use.getOwner() != producer;
    });
  rewriter.eraseOp(consumer);
  return success();
}

/// A pattern on linalg.generic that counts its rewrites in a statistic.
struct CountingPattern : OpRewritePattern<linalg::GenericOp> {
  CountingPattern(MLIRContext *context, Pass::Statistic &fused)
      : OpRewritePattern(context), fused(fused) {}
  Pass::Statistic &fused;
};

/// A widening fused into the elementwise op that reads it.
struct FuseWidening : CountingPattern {
  using CountingPattern::CountingPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isAllParallel(consumer))
      return failure();
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (producer && isWidening(producer) &&
          succeeded(fuse(rewriter, consumer, input))) {
        ++fused;
        return success();
      }
    }
    return failure();
  }
};

/// An elementwise op fused into the narrowing that is its one reader: the
/// op computes in f32 and stores bf16/f16 itself.
struct FuseIntoNarrowing : CountingPattern {
  using CountingPattern::CountingPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp narrowing,
                                PatternRewriter &rewriter) const override {
    if (!isNarrowing(narrowing))
      return failure();
    OpOperand *input = narrowing.getDpsInputOperand(0);
    auto producer = input->get().getDefiningOp<linalg::GenericOp>();
    if (!producer || !isAllParallel(producer) ||
        !producer->getResult(0).hasOneUse() ||
        failed(fuse(rewriter, narrowing, input)))
      return failure();
    ++fused;
    return success();
  }
};

struct FuseConversionsPass
    : dlas::impl::FuseConversionsBase<FuseConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseWidening>(&getContext(), numWidenings);
    patterns.add<FuseIntoNarrowing>(&getContext(), numNarrowings);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
