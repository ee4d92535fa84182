//===- FoldBatchNorm.cpp - the dlas-fold-batch-norm pass ------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;

namespace {

struct FoldBatchNormIntoConv : OpRewritePattern<nn::BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<nn::Conv2DOp>();
    if (!conv || !conv->hasOneUse() || conv.getLayout() != nn::Layout::NCHW ||
        bn.getMode() != nn::BatchNormMode::Spatial)
      return rewriter.notifyMatchFailure(bn, "not a spatial BN after an NCHW conv");
    auto filterType = conv.getFilter().getType();
    if (!filterType.getElementType().isF32())
      return rewriter.notifyMatchFailure(bn, "not f32");
    std::optional<std::vector<float>> filter = readF32Constant(conv.getFilter());
    std::optional<std::vector<float>> gamma = readF32Constant(bn.getScale());
    std::optional<std::vector<float>> beta = readF32Constant(bn.getBias());
    std::optional<std::vector<float>> mean = readF32Constant(bn.getMean());
    std::optional<std::vector<float>> var = readF32Constant(bn.getVariance());
    if (!filter || !gamma || !beta || !mean || !var)
      return rewriter.notifyMatchFailure(bn, "parameters are not constants");
    int64_t channels = filterType.getDimSize(0);
    std::vector<float> bias(channels, 0.0f);
    if (Value convBias = conv.getBias()) {
      std::optional<std::vector<float>> data = readF32Constant(convBias);
      if (!data)
        return rewriter.notifyMatchFailure(bn, "conv bias is not a constant");
      bias = *data;
    }
    double epsilon = bn.getEpsilon().convertToDouble();
    int64_t perChannel = filterType.getNumElements() / channels;
    for (int64_t f = 0; f < channels; ++f) {
      double scale = (*gamma)[f] / std::sqrt((double)(*var)[f] + epsilon);
      for (int64_t i = 0; i < perChannel; ++i)
        (*filter)[f * perChannel + i] = (float)((*filter)[f * perChannel + i] * scale);
      bias[f] = (float)((bias[f] - (*mean)[f]) * scale + (*beta)[f]);
    }
    Location loc = bn.getLoc();
    Value newFilter = createF32Constant(rewriter, loc, filterType.getShape(), *filter,
                                  "folded_bn_filter");
    Value newBias = createF32Constant(rewriter, loc, {channels}, bias, "folded_bn_bias");
    auto folded = nn::Conv2DOp::create(
        rewriter, conv.getLoc(), bn.getType(), conv.getInput(), newFilter,
        newBias, conv.getStridesAttr(), conv.getPaddingAttr(),
        conv.getDilationsAttr(), conv.getGroupsAttr(), conv.getLayoutAttr());
    rewriter.replaceOp(bn, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct FoldBatchNormPass : nn::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoConv>(&getContext());
    int64_t before = 0, after = 0;
    getOperation()->walk([&](nn::BatchNormOp) { ++before; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk([&](nn::BatchNormOp) { ++after; });
    numFolded += before - after;
  }
};
} // namespace
