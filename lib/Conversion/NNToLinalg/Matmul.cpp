//===- Matmul.cpp - nn.matmul / batch_matmul / linear to linalg -----------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

/// nn.matmul / nn.batch_matmul onto the linalg op of the same name: the
/// result's sizes are lhs's leading dims and rhs's last one.
template <typename NNOp, typename LinalgOp>
struct ContractionLowering : OpConversionPattern<NNOp> {
  using OpConversionPattern<NNOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NNOp op, typename NNOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d + 1 < rank; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, lhs, d));
    sizes.push_back(tensor::getMixedSize(rewriter, loc, rhs, rank - 1));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    Value zero = scalarConstant(rewriter, loc, type.getElementType(), 0.0);
    Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    Value result = LinalgOp::create(rewriter, loc, TypeRange{init.getType()},
                                    ValueRange{lhs, rhs}, ValueRange{init})
                       .getResult(0);
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// linear(x, W, b) = x * W^T + b: the bias initialises the accumulator.
struct LinearLowering : OpConversionPattern<nn::LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    if (ShapedType::isDynamic(type.getDimSize(1)))
      return unsupported(rewriter, op, "a dynamic number of output features");
    Value weightT = transpose(rewriter, loc, adaptor.getWeight(), {1, 0});
    Value init;
    if (Value bias = adaptor.getBias()) {
      Value empty = emptyTensor(rewriter, loc, type, adaptor.getInput());
      init = linalg::BroadcastOp::create(rewriter, loc, bias, empty,
                                         ArrayRef<int64_t>{0})
                 .getResult()[0];
    } else {
      init = filledTensor(
          rewriter, loc, type, adaptor.getInput(),
          scalarConstant(rewriter, loc, type.getElementType(), 0.0));
    }
    Value result = linalg::MatmulOp::create(
                       rewriter, loc, TypeRange{type},
                       ValueRange{adaptor.getInput(), weightT}, ValueRange{init})
                       .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNMatmulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractionLowering<nn::MatmulOp, linalg::MatmulOp>,
               ContractionLowering<nn::BatchMatmulOp, linalg::BatchMatmulOp>,
               LinearLowering>(patterns.getContext());
}
