//===- Matmul.cpp - nn.matmul / batch_matmul / linear to linalg -----------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

Value zeroAccumulator(OpBuilder &b, Location loc, RankedTensorType type,
                      Value sizeSource, ArrayRef<int64_t> sourceDims) {
  return filledTensor(b, loc, type, sizeSource,
                      scalarConstant(b, loc, type.getElementType(), 0.0),
                      sourceDims);
}

struct MatmulLowering : OpConversionPattern<nn::MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    // M comes from lhs dim 0; a dynamic N from rhs dim 1 (handled below).
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(rewriter, loc, adaptor.getLhs(), 0),
        tensor::getMixedSize(rewriter, loc, adaptor.getRhs(), 1)};
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    Value init = linalg::FillOp::create(
                     rewriter, loc,
                     scalarConstant(rewriter, loc, type.getElementType(), 0.0),
                     empty)
                     .getResult(0);
    Value result = linalg::MatmulOp::create(
                       rewriter, loc, TypeRange{init.getType()},
                       ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                       ValueRange{init})
                       .getResult(0);
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BatchMatmulLowering : OpConversionPattern<nn::BatchMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::BatchMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(rewriter, loc, adaptor.getLhs(), 0),
        tensor::getMixedSize(rewriter, loc, adaptor.getLhs(), 1),
        tensor::getMixedSize(rewriter, loc, adaptor.getRhs(), 2)};
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    Value init = linalg::FillOp::create(
                     rewriter, loc,
                     scalarConstant(rewriter, loc, type.getElementType(), 0.0),
                     empty)
                     .getResult(0);
    Value result = linalg::BatchMatmulOp::create(
                       rewriter, loc, TypeRange{init.getType()},
                       ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                       ValueRange{init})
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
      init = zeroAccumulator(rewriter, loc, type, adaptor.getInput(), {});
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
  patterns.add<MatmulLowering, BatchMatmulLowering, LinearLowering>(
      patterns.getContext());
}
