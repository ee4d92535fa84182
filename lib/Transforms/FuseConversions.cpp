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

/// True for the maximum and minimum ops, which commute with a monotonic
/// rounding whose other operand it leaves unchanged.
bool isMaxOrMin(Operation *op) {
  return isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp>(op);
}

/// A body that only takes maxima and minima of its first argument with
/// scalar constants (ReLU, ReLU6, a clip) and yields the last of them.
bool isClampBody(Block &body) {
  Value current = body.getArgument(0);
  for (Operation &op : body.without_terminator()) {
    if (!isMaxOrMin(&op))
      return false;
    Value other = op.getOperand(0) == current   ? op.getOperand(1)
                  : op.getOperand(1) == current ? op.getOperand(0)
                                                : Value();
    if (!other || !other.getDefiningOp<arith::ConstantOp>())
      return false;
    current = op.getResult(0);
  }
  return body.getTerminator()->getOperand(0) == current &&
         current != body.getArgument(0);
}

/// The `arith.truncf` from f32 that `op`'s body ends with (its yielded
/// value, used by nothing else), if any: the rounding of an op's result to
/// its bf16/f16 storage type.
arith::TruncFOp finalNarrowing(linalg::GenericOp op) {
  auto truncate = op.getBody()
                      ->getTerminator()
                      ->getOperand(0)
                      .getDefiningOp<arith::TruncFOp>();
  if (!truncate || !truncate.getIn().getType().isF32() ||
      !truncate->hasOneUse() || truncate->getBlock() != op.getBody())
    return nullptr;
  return truncate;
}

/// A clamp (ReLU, ReLU6, clip) of a value just rounded from f32 to
/// bf16/f16 is computed on the f32 value, before the rounding, in the op
/// that rounds it: rounding to nearest is monotonic and the bounds are
/// values of the narrow type, so clamp(round(x)) == round(clamp(x))
/// exactly (NaN stays NaN, -0 and +0 order alike). The narrow types have
/// no maximum instructions: LLVM widened and narrowed each lane around
/// every bf16 maximum in a kernel's epilogue (a 1x1 layer with K = 16
/// spent more time in its ReLU6 than in its multiplies); in f32 it is one
/// instruction.
struct ClampBeforeNarrowing : CountingPattern {
  using CountingPattern::CountingPattern;

  LogicalResult matchAndRewrite(linalg::GenericOp clamp,
                                PatternRewriter &rewriter) const override {
    if (!isAllParallel(clamp) || clamp.getNumDpsInputs() != 1 ||
        !clamp.getMatchingIndexingMap(clamp.getDpsInputOperand(0))
             .isIdentity() ||
        !clamp.getMatchingIndexingMap(clamp.getDpsInitOperand(0))
             .isIdentity() ||
        !isClampBody(*clamp.getBody()))
      return failure();
    Value narrowed = clamp.getDpsInputOperand(0)->get();
    auto producer = narrowed.getDefiningOp<linalg::GenericOp>();
    if (!producer || !isAllParallel(producer) || !narrowed.hasOneUse() ||
        producer->getResult(0).getType() != clamp->getResult(0).getType() ||
        !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity())
      return failure();
    arith::TruncFOp truncate = finalNarrowing(producer);
    if (!truncate)
      return failure();
    rewriter.modifyOpInPlace(producer, [&] {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(truncate);
      Location loc = truncate.getLoc();
      Value current = truncate.getIn();
      for (Operation &op : clamp.getBody()->without_terminator()) {
        Value bound = op.getOperand(0).getDefiningOp<arith::ConstantOp>()
                          ? op.getOperand(0)
                          : op.getOperand(1);
        Value wideBound =
            arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), bound);
        OperationState state(loc, op.getName(), ValueRange{current, wideBound},
                             TypeRange{rewriter.getF32Type()}, op.getAttrs());
        current = rewriter.create(state)->getResult(0);
      }
      truncate.getInMutable().assign(current);
    });
    rewriter.replaceOp(clamp, producer->getResults());
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
    patterns.add<ClampBeforeNarrowing>(&getContext(), numClampsBeforeNarrowing);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
