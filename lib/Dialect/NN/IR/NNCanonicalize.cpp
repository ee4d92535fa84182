//===- NNCanonicalize.cpp - canonicalization patterns of nn ops -----------===//
#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::dlas::nn;

namespace {
/// relu6 is clip(0, 6); one op to lower and to fuse.
struct Relu6ToClip : OpRewritePattern<Relu6Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Relu6Op op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ClipOp>(op, op.getInput(),
                                        rewriter.getF64FloatAttr(0.0),
                                        rewriter.getF64FloatAttr(6.0));
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x): only the final shape matters.
struct ReshapeOfReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<ReshapeOp>();
    if (!producer)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(),
                                           producer.getInput(), op.getSizes(),
                                           op.getShapeAttr());
    return success();
  }
};

} // namespace

void Relu6Op::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<Relu6ToClip>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfReshape>(context);
}
