//===- SinkReshapes.cpp - the dlas-sink-reshapes pass ---------------------===//
//
// A dense layer exported as reshape -> matmul -> reshape puts a reshape
// between the matmul and its bias add and activation. Moving the reshape
// below those elementwise ops lets them join the matmul's kernel as its
// epilogue, and lets the reshape cancel against the next layer's.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_SINKRESHAPES
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;

namespace {

/// Elementwise ops of one operand (the nn ops with MLIR's Elementwise
/// trait): the result's element i depends on the operand's element i
/// alone, whatever the shape.
bool isUnaryElementwise(Operation *op) {
  return isa<nn::NNDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>() && op->getNumOperands() == 1;
}

/// Elementwise ops of two operands with numpy broadcasting (NN_BinaryOp).
bool isBinaryElementwise(Operation *op) {
  return isa<nn::AddOp, nn::SubOp, nn::MulOp, nn::DivOp, nn::MaxOp, nn::MinOp,
             nn::PowOp, nn::ModOp>(op);
}

/// `v`'s defining reshape when it adds dimensions (a matmul's [rows,
/// features] back to [batch, tokens, features]) and both its types are
/// static, or null. Only such reshapes sink: the ones this pass puts on
/// another operand remove dimensions, and must not sink in turn.
nn::ReshapeOp expandingReshape(Value v) {
  auto reshape = v.getDefiningOp<nn::ReshapeOp>();
  if (!reshape || !reshape.getSizes().empty() ||
      !reshape.getInput().getType().hasStaticShape() ||
      !reshape.getType().hasStaticShape() ||
      reshape.getType().getRank() <= reshape.getInput().getType().getRank())
    return {};
  return reshape;
}

/// How many trailing dimensions `from` and `to` share (equal sizes,
/// counted from the last): the ones a reshape between them keeps.
int64_t keptTrailingDims(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  int64_t kept = 0;
  while (kept < int64_t(std::min(from.size(), to.size())) &&
         from[from.size() - 1 - kept] == to[to.size() - 1 - kept])
    ++kept;
  return kept;
}

/// `other` as an operand of the op moved above `reshape`: a twin
/// reshape's source; `other` reshaped to the source's shape when it has
/// the whole result shape; itself, or its trailing dimensions alone, when
/// it varies only along trailing dimensions the reshape keeps; null when
/// it varies along a dimension the reshape changes.
Value otherOperandAbove(PatternRewriter &rewriter, nn::ReshapeOp reshape,
                        Value other) {
  auto from = cast<RankedTensorType>(reshape.getInput().getType());
  auto type = dyn_cast<RankedTensorType>(other.getType());
  if (!type || !type.hasStaticShape())
    return {};
  // The same reshape of an operand of the same shape: its source.
  if (auto twin = expandingReshape(other);
      twin && twin.getInput().getType().getShape() == from.getShape() &&
      twin.getType().getShape() == reshape.getType().getShape())
    return twin.getInput();
  // An operand of the whole shape (a residual): reshaped the other way.
  if (type.getShape() == reshape.getType().getShape()) {
    auto sourceType =
        RankedTensorType::get(from.getShape(), type.getElementType());
    return nn::ReshapeOp::create(
        rewriter, other.getLoc(), sourceType, other, ValueRange{},
        rewriter.getDenseI64ArrayAttr(from.getShape()));
  }
  int64_t kept =
      keptTrailingDims(from.getShape(), reshape.getType().getShape());
  ArrayRef<int64_t> shape = type.getShape();
  for (int64_t j = kept; j < type.getRank(); ++j)
    if (shape[shape.size() - 1 - j] != 1)
      return {};
  if (type.getRank() <= kept)
    return other;
  // Leading unit dimensions (more than the kept ones) go: [1, 1, 384] is
  // [384] to a matrix of 384 columns; all-unit shapes keep one.
  SmallVector<int64_t> trailing(shape.take_back(std::max<int64_t>(kept, 1)));
  auto trailingType = RankedTensorType::get(trailing, type.getElementType());
  return nn::ReshapeOp::create(rewriter, other.getLoc(), trailingType, other,
                               ValueRange{},
                               rewriter.getDenseI64ArrayAttr(trailing));
}

struct SinkReshapeBelowElementwise : RewritePattern {
  SinkReshapeBelowElementwise(MLIRContext *ctx, int64_t &sunk)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), sunk(sunk) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    bool unary = isUnaryElementwise(op);
    if (!unary && !isBinaryElementwise(op))
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return failure();
    for (unsigned index = 0; index < op->getNumOperands(); ++index) {
      nn::ReshapeOp reshape = expandingReshape(op->getOperand(index));
      // The op's shape must be the reshape's: the other operand may not
      // widen it.
      if (!reshape || reshape.getType().getShape() != resultType.getShape())
        continue;
      SmallVector<Value> operands(op->getOperands());
      operands[index] = reshape.getInput();
      if (!unary) {
        unsigned otherIndex = 1 - index;
        Value other =
            otherOperandAbove(rewriter, reshape, operands[otherIndex]);
        if (!other)
          continue;
        operands[otherIndex] = other;
      }
      IRMapping mapping;
      mapping.map(op->getOperands(), operands);
      Operation *moved = rewriter.clone(*op, mapping);
      ArrayRef<int64_t> sourceShape = reshape.getInput().getType().getShape();
      moved->getResult(0).setType(
          RankedTensorType::get(sourceShape, resultType.getElementType()));
      rewriter.replaceOpWithNewOp<nn::ReshapeOp>(
          op, resultType, moved->getResult(0), ValueRange{},
          rewriter.getDenseI64ArrayAttr(resultType.getShape()));
      ++sunk;
      return success();
    }
    return failure();
  }

  int64_t &sunk;
};

struct SinkReshapesPass : nn::impl::SinkReshapesBase<SinkReshapesPass> {
  void runOnOperation() override {
    int64_t sunk = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkReshapeBelowElementwise>(&getContext(), sunk);
    // reshape(reshape(x)) and identity reshapes fold as the reshapes meet.
    nn::ReshapeOp::getCanonicalizationPatterns(patterns, &getContext());
    // Not converging within the driver's limit leaves valid IR: a missed
    // fusion, not an error.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
    numSunk += sunk;
  }
};

} // namespace
