//===- Reduction.cpp - nn.softmax / nn.log_softmax to linalg --------------===//
//
// Numerically stable form: m = max(x), s = sum(exp(x - m)), then
// exp(x - m) / s or x - m - log(s). Three generics over the input shape
// with the reduced axis dropped from the reduction results.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

template <typename OpTy, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    // I64Attr getters return uint64_t: read the axis as signed.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    MLIRContext *ctx = rewriter.getContext();

    SmallVector<int64_t> reducedShape, reducedSourceDims;
    SmallVector<AffineExpr> reducedExprs;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      reducedShape.push_back(type.getDimSize(d));
      reducedSourceDims.push_back(d);
      reducedExprs.push_back(getAffineDimExpr(d, ctx));
    }
    auto reducedType = RankedTensorType::get(reducedShape, elementType);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reducedMap = AffineMap::get(rank, 0, reducedExprs, ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[axis] = utils::IteratorType::reduction;

    auto reduce = [&](Value init, ValueRange extraInputs,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
      SmallVector<Value> inputs = {input};
      inputs.append(extraInputs.begin(), extraInputs.end());
      SmallVector<AffineMap> maps = {identity};
      maps.append(extraInputs.size(), reducedMap);
      maps.push_back(reducedMap);
      return linalg::GenericOp::create(
                 rewriter, loc, reducedType, inputs, init, maps, iterators,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, body(b, l, args));
                 })
          .getResult(0);
    };

    Value maxInit = filledTensor(rewriter, loc, reducedType, input,
                                 lowestValue(rewriter, loc, elementType),
                                 reducedSourceDims);
    Value maxima = reduce(maxInit, {}, [](OpBuilder &b, Location l, ValueRange a) {
      return arith::MaximumFOp::create(b, l, a[0], a[1]).getResult();
    });
    Value sumInit = filledTensor(rewriter, loc, reducedType, input,
                                 scalarConstant(rewriter, loc, elementType, 0.0),
                                 reducedSourceDims);
    Value sums = reduce(sumInit, maxima, [](OpBuilder &b, Location l, ValueRange a) {
      Value shifted = arith::SubFOp::create(b, l, a[0], a[1]);
      return arith::AddFOp::create(b, l, math::ExpOp::create(b, l, shifted), a[2])
          .getResult();
    });
    Value result = elementwise(
        rewriter, loc, type, input, ValueRange{input, maxima, sums},
        {identity, reducedMap, reducedMap},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value shifted = arith::SubFOp::create(b, l, a[0], a[1]);
          if (IsLog)
            return arith::SubFOp::create(b, l, shifted,
                                         math::LogOp::create(b, l, a[2]));
          return arith::DivFOp::create(b, l, math::ExpOp::create(b, l, shifted),
                                       a[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<nn::SoftmaxOp, false>,
               SoftmaxLowering<nn::LogSoftmaxOp, true>>(patterns.getContext());
}
