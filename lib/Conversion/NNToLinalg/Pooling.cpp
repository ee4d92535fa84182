//===- Pooling.cpp - nn pooling ops to linalg -----------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

RankedTensorType toNchw(RankedTensorType type, nn::Layout layout) {
  if (layout == nn::Layout::NCHW)
    return type;
  ArrayRef<int64_t> s = type.getShape();
  return RankedTensorType::get({s[0], s[3], s[1], s[2]}, type.getElementType());
}

/// Pads an NCHW input so that every window of the (possibly ceil-mode)
/// output lies inside it: the written padding, or more at the bottom/right
/// where ceil mode needs it.
Value padForWindows(OpBuilder &b, Location loc, Value input,
                    RankedTensorType resultType, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                    ArrayRef<int64_t> dilation, Value padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t high[2];
  for (int i = 0; i < 2; ++i) {
    int64_t needed = (resultType.getDimSize(2 + i) - 1) * stride[i] +
                     dilation[i] * (kernel[i] - 1) + 1;
    high[i] = std::max<int64_t>(needed - type.getDimSize(2 + i) - pad[i], 0);
  }
  return padSpatial(b, loc, input, pad[0], pad[1], high[0], high[1], padValue);
}

template <typename PoolOp>
LogicalResult checkStaticSpatial(ConversionPatternRewriter &rewriter, PoolOp op,
                                 RankedTensorType nchwType) {
  if (ShapedType::isDynamic(nchwType.getDimSize(2)) ||
      ShapedType::isDynamic(nchwType.getDimSize(3)))
    return unsupported(rewriter, op, "dynamic spatial sizes");
  return success();
}

struct MaxPool2DLowering : OpConversionPattern<nn::MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool nhwc = op.getLayout() == nn::Layout::NHWC;
    Value input = adaptor.getInput();
    if (nhwc)
      input = transpose(rewriter, loc, input, kNhwcToNchw);
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = toNchw(cast<RankedTensorType>(op.getType()), op.getLayout());
    if (failed(checkStaticSpatial(rewriter, op, inputType)))
      return failure();
    Type elementType = inputType.getElementType();
    Value lowest = lowestValue(rewriter, loc, elementType);
    Value padded = padForWindows(rewriter, loc, input, resultType, op.getKernel(),
                                 op.getStrides(), op.getPadding(),
                                 op.getDilations(), lowest);
    Value init = filledTensor(rewriter, loc, resultType, input, lowest);
    Value window = tensor::EmptyOp::create(rewriter, loc, op.getKernel(),
                                           elementType);
    Value result = linalg::PoolingNchwMaxOp::create(
                       rewriter, loc, TypeRange{resultType},
                       ValueRange{padded, window}, ValueRange{init},
                       rewriter.getI64TensorAttr(op.getStrides()),
                       rewriter.getI64TensorAttr(op.getDilations()))
                       .getResult(0);
    if (nhwc)
      result = transpose(rewriter, loc, result, kNchwToNhwc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// PyTorch's divisor for the window starting at `outIndex * stride - pad`:
/// the window clipped to the padded input, or to the input itself when
/// padding is not counted.
Value windowCount(OpBuilder &b, Location loc, Value outIndex, int64_t stride,
                  int64_t padBefore, int64_t padAfter, int64_t kernel,
                  int64_t inputSize, bool countIncludePad) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value start = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, outIndex, cst(stride)),
      cst(padBefore));
  Value end = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, start, cst(kernel)),
      cst(inputSize + padAfter));
  if (countIncludePad)
    return arith::SubIOp::create(b, loc, end, start);
  Value clippedStart = arith::MaxSIOp::create(b, loc, start, cst(0));
  Value clippedEnd = arith::MinSIOp::create(b, loc, end, cst(inputSize));
  return arith::SubIOp::create(b, loc, clippedEnd, clippedStart);
}

struct AvgPool2DLowering : OpConversionPattern<nn::AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool nhwc = op.getLayout() == nn::Layout::NHWC;
    Value input = adaptor.getInput();
    if (nhwc)
      input = transpose(rewriter, loc, input, kNhwcToNchw);
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = toNchw(cast<RankedTensorType>(op.getType()), op.getLayout());
    if (failed(checkStaticSpatial(rewriter, op, inputType)))
      return failure();
    Type elementType = inputType.getElementType();
    Value zero = scalarConstant(rewriter, loc, elementType, 0.0);
    int64_t noDilation[] = {1, 1};
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStrides(),
                      pad = op.getPadding();
    Value padded = padForWindows(rewriter, loc, input, resultType, kernel,
                                 stride, pad, noDilation, zero);
    Value init = filledTensor(rewriter, loc, resultType, input, zero);
    Value window =
        tensor::EmptyOp::create(rewriter, loc, kernel, elementType);
    Value sums = linalg::PoolingNchwSumOp::create(
                     rewriter, loc, TypeRange{resultType},
                     ValueRange{padded, window}, ValueRange{init},
                     rewriter.getI64TensorAttr(stride),
                     rewriter.getI64TensorAttr(noDilation))
                     .getResult(0);
    bool countPad = op.getCountIncludePad();
    int64_t height = inputType.getDimSize(2), width = inputType.getDimSize(3);
    Value result = elementwise(
        rewriter, loc, resultType, sums, sums,
        rewriter.getMultiDimIdentityMap(4),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value oh = linalg::IndexOp::create(b, l, 2);
          Value ow = linalg::IndexOp::create(b, l, 3);
          Value countH = windowCount(b, l, oh, stride[0], pad[0], pad[2],
                                     kernel[0], height, countPad);
          Value countW = windowCount(b, l, ow, stride[1], pad[1], pad[3],
                                     kernel[1], width, countPad);
          Value count = arith::MulIOp::create(b, l, countH, countW);
          Value countInt = arith::IndexCastOp::create(b, l, b.getI64Type(), count);
          Value divisor = arith::SIToFPOp::create(b, l, elementType, countInt);
          return arith::DivFOp::create(b, l, args[0], divisor);
        });
    if (nhwc)
      result = transpose(rewriter, loc, result, kNchwToNhwc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GlobalAvgPool2DLowering : OpConversionPattern<nn::GlobalAvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::GlobalAvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    if (op.getLayout() == nn::Layout::NHWC)
      input = transpose(rewriter, loc, input, kNhwcToNchw);
    auto inputType = cast<RankedTensorType>(input.getType());
    if (failed(checkStaticSpatial(rewriter, op, inputType)))
      return failure();
    Type elementType = inputType.getElementType();
    auto sumType = RankedTensorType::get(
        {inputType.getDimSize(0), inputType.getDimSize(1)}, elementType);
    Value init = filledTensor(rewriter, loc, sumType, input,
                              scalarConstant(rewriter, loc, elementType, 0.0));
    Value sums = linalg::ReduceOp::create(
                     rewriter, loc, input, init, ArrayRef<int64_t>{2, 3},
                     [](OpBuilder &b, Location l, ValueRange args) {
                       linalg::YieldOp::create(
                           b, l,
                           arith::AddFOp::create(b, l, args[0], args[1])
                               .getResult());
                     })
                     .getResult(0);
    double count = inputType.getDimSize(2) * inputType.getDimSize(3);
    Value divisor = scalarConstant(rewriter, loc, elementType, count);
    Value means = elementwise(
        rewriter, loc, sumType, sums, sums, rewriter.getMultiDimIdentityMap(2),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(b, l, args[0], divisor);
        });
    auto resultType = cast<RankedTensorType>(op.getType());
    // N x C -> N x C x 1 x 1, or N x 1 x 1 x C for NHWC.
    SmallVector<ReassociationIndices> reassociation =
        op.getLayout() == nn::Layout::NHWC
            ? SmallVector<ReassociationIndices>{{0, 1, 2}, {3}}
            : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}};
    SmallVector<OpFoldResult> outputShape =
        mixedSizes(rewriter, loc, resultType, input, {0, 1, 2, 3});
    Value result = tensor::ExpandShapeOp::create(
        rewriter, loc, resultType, means, reassociation, outputShape);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNPoolingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, AvgPool2DLowering, GlobalAvgPool2DLowering>(
      patterns.getContext());
}
