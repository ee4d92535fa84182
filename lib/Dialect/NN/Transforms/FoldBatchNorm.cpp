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

/// The constant filter and bias of a convolution with `bn` folded in:
/// each output channel's weights scaled by gamma / sqrt(var + eps) and its
/// bias moved to (bias - mean) * scale + beta. Null values (with a
/// reason) when a parameter is no f32 constant.
struct FoldedParameters {
  Value filter, bias;
  StringRef failure;
};

FoldedParameters foldedParameters(PatternRewriter &rewriter, nn::BatchNormOp bn,
                                  Value convFilter, Value convBias) {
  auto filterType = cast<RankedTensorType>(convFilter.getType());
  if (!filterType.getElementType().isF32())
    return {Value(), Value(), "not f32"};
  std::optional<std::vector<float>> filter = readF32Constant(convFilter);
  std::optional<std::vector<float>> gamma = readF32Constant(bn.getScale());
  std::optional<std::vector<float>> beta = readF32Constant(bn.getBias());
  std::optional<std::vector<float>> mean = readF32Constant(bn.getMean());
  std::optional<std::vector<float>> var = readF32Constant(bn.getVariance());
  if (!filter || !gamma || !beta || !mean || !var)
    return {Value(), Value(), "parameters are not constants"};
  int64_t channels = filterType.getDimSize(0);
  std::vector<float> bias(channels, 0.0f);
  if (convBias) {
    std::optional<std::vector<float>> data = readF32Constant(convBias);
    if (!data)
      return {Value(), Value(), "conv bias is not a constant"};
    bias = *data;
  }
  double epsilon = bn.getEpsilon().convertToDouble();
  int64_t perChannel = filterType.getNumElements() / channels;
  for (int64_t f = 0; f < channels; ++f) {
    double scale = (*gamma)[f] / std::sqrt((double)(*var)[f] + epsilon);
    for (int64_t i = 0; i < perChannel; ++i)
      (*filter)[f * perChannel + i] =
          (float)((*filter)[f * perChannel + i] * scale);
    bias[f] = (float)((bias[f] - (*mean)[f]) * scale + (*beta)[f]);
  }
  Location loc = bn.getLoc();
  return {createF32Constant(rewriter, loc, filterType.getShape(), *filter,
                            "folded_bn_filter"),
          createF32Constant(rewriter, loc, {channels}, bias, "folded_bn_bias"),
          ""};
}

struct FoldBatchNormIntoConv : OpRewritePattern<nn::BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<nn::Conv2DOp>();
    if (!conv || !conv->hasOneUse() || conv.getLayout() != nn::Layout::NCHW ||
        bn.getMode() != nn::BatchNormMode::Spatial)
      return rewriter.notifyMatchFailure(bn, "not a spatial BN after an NCHW conv");
    FoldedParameters folded =
        foldedParameters(rewriter, bn, conv.getFilter(), conv.getBias());
    if (!folded.filter)
      return rewriter.notifyMatchFailure(bn, folded.failure);
    auto replacement = nn::Conv2DOp::create(
        rewriter, conv.getLoc(), bn.getType(), conv.getInput(), folded.filter,
        folded.bias, conv.getStridesAttr(), conv.getPaddingAttr(),
        conv.getDilationsAttr(), conv.getGroupsAttr(), conv.getLayoutAttr());
    rewriter.replaceOp(bn, replacement.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// A 5-D batch norm is a 4-D one on a view that keeps N and C (the ONNX
/// importer's): reshape(conv3d) -> batch_norm folds into the conv3d, the
/// view staying on its result.
struct FoldBatchNormIntoConv3D : OpRewritePattern<nn::BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto view = bn.getInput().getDefiningOp<nn::ReshapeOp>();
    auto conv = view ? view.getInput().getDefiningOp<nn::Conv3DOp>() : nullptr;
    if (!conv || !conv->hasOneUse() || !view->hasOneUse() ||
        !view.getSizes().empty() || bn.getMode() != nn::BatchNormMode::Spatial)
      return rewriter.notifyMatchFailure(bn,
                                         "not a spatial BN on a conv3d view");
    ArrayRef<int64_t> from = conv.getType().getShape();
    ArrayRef<int64_t> to = bn.getType().getShape();
    if (from.take_front(2) != to.take_front(2))
      return rewriter.notifyMatchFailure(bn, "the view moves N or C");
    FoldedParameters folded =
        foldedParameters(rewriter, bn, conv.getFilter(), conv.getBias());
    if (!folded.filter)
      return rewriter.notifyMatchFailure(bn, folded.failure);
    auto replacement = nn::Conv3DOp::create(
        rewriter, conv.getLoc(), conv.getType(), conv.getInput(), folded.filter,
        folded.bias, conv.getStridesAttr(), conv.getPaddingAttr(),
        conv.getDilationsAttr(), conv.getGroupsAttr());
    auto newView = nn::ReshapeOp::create(rewriter, view.getLoc(), bn.getType(),
                                         replacement.getResult(), ValueRange(),
                                         view.getShapeAttr());
    rewriter.replaceOp(bn, newView.getResult());
    rewriter.eraseOp(view);
    rewriter.eraseOp(conv);
    return success();
  }
};

struct FoldBatchNormPass : nn::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoConv, FoldBatchNormIntoConv3D>(&getContext());
    int64_t before = 0, after = 0;
    getOperation()->walk([&](nn::BatchNormOp) { ++before; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk([&](nn::BatchNormOp) { ++after; });
    numFolded += before - after;
  }
};
} // namespace
