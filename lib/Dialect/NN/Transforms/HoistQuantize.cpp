//===- HoistQuantize.cpp - the dlas-hoist-quantize pass -------------------===//
//
// Moves per-tensor nn.quantize ops above the ops that commute with them
// (max pool, concat, reshape, flatten), so that those ops run on i8 and the
// layers before them store i8 from their epilogues (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_HOISTQUANTIZE
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nn;

namespace {

/// True for an nn.quantize with one scale and zero point.
bool isPerTensor(QuantizeOp quantize) {
  return quantize.getScales().size() == 1;
}

bool sameParameters(QuantizeOp a, QuantizeOp b) {
  return a.getScales() == b.getScales() &&
         a.getZeroPoints() == b.getZeroPoints();
}

/// Ops whose result, quantized per tensor, equals the op applied to its
/// quantized data operands: they only move or select elements, and a max
/// pool's padding (-inf in f32, the least i8 in i8) never wins.
bool commutesWithQuantize(Operation *op) {
  return isa<MaxPool2DOp, ConcatOp, ReshapeOp, FlattenOp>(op) &&
         op->getNumResults() == 1 &&
         getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

/// The per-tensor quantize ops that are all the users of `value`, or an
/// empty list when it has another user.
SmallVector<QuantizeOp> quantizeUsers(Value value) {
  SmallVector<QuantizeOp> users;
  for (Operation *user : value.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || !isPerTensor(quantize))
      return {};
    users.push_back(quantize);
  }
  return users;
}

/// `tensor` quantized like `like`.
Value quantizeLike(OpBuilder &b, Value tensor, QuantizeOp like) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return QuantizeOp::create(b, like.getLoc(), type.clone(b.getI8Type()), tensor,
                            like.getScalesAttr(), like.getZeroPointsAttr(),
                            like.getAxisAttr());
}

/// The quantize of a max pool, concat or reshape (per tensor) whose f32
/// result only per-tensor quantizes read: the op runs on i8, its f32
/// operands quantized with the parameters of the widest of those quantizes,
/// which then read the i8 result (requantized for those with other
/// parameters). The quantizes it adds on the operands are matched in turn,
/// so a quantize climbs through chains.
struct HoistAboveProducer : OpRewritePattern<QuantizeOp> {
  HoistAboveProducer(MLIRContext *context, Pass::Statistic &hoisted)
      : OpRewritePattern(context), hoisted(hoisted) {}

  LogicalResult matchAndRewrite(QuantizeOp quantize,
                                PatternRewriter &rewriter) const override {
    Operation *op = quantize.getInput().getDefiningOp();
    if (!isPerTensor(quantize) || !op || !commutesWithQuantize(op))
      return failure();
    SmallVector<QuantizeOp> users = quantizeUsers(op->getResult(0));
    if (users.empty())
      return failure();
    QuantizeOp widest =
        *llvm::max_element(users, [](QuantizeOp a, QuantizeOp b) {
          return a.getScales()[0] < b.getScales()[0];
        });
    rewriter.setInsertionPoint(op);
    IRMapping quantized;
    for (Value operand : op->getOperands())
      if (getElementTypeOrSelf(operand.getType()).isF32() &&
          !quantized.contains(operand))
        quantized.map(operand, quantizeLike(rewriter, operand, widest));
    Operation *onI8 = rewriter.clone(*op, quantized);
    Value result = onI8->getResult(0);
    rewriter.modifyOpInPlace(onI8, [&] {
      result.setType(
          cast<RankedTensorType>(result.getType()).clone(rewriter.getI8Type()));
    });
    for (QuantizeOp user : users) {
      Value replacement = result;
      if (!sameParameters(user, widest)) {
        rewriter.setInsertionPoint(user);
        auto dequantized = DequantizeOp::create(
            rewriter, user.getLoc(), user.getInput().getType(), result,
            widest.getScalesAttr(), widest.getZeroPointsAttr(),
            widest.getAxisAttr());
        replacement = quantizeLike(rewriter, dequantized, user);
      }
      rewriter.replaceOp(user, replacement);
    }
    rewriter.eraseOp(op);
    ++hoisted;
    return success();
  }

  Pass::Statistic &hoisted;
};

struct HoistQuantizePass : nn::impl::HoistQuantizeBase<HoistQuantizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<HoistAboveProducer>(&getContext(), numHoisted);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
