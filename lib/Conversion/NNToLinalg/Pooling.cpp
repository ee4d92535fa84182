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
/// where ceil mode needs it. A spatial size known at run time only gets
/// the most a ceil-mode window can need (stride - 1 more): the windows
/// never read what they do not need.
Value padForWindows(OpBuilder &b, Location loc, Value input,
                    RankedTensorType resultType, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                    ArrayRef<int64_t> dilation, bool ceilMode, Value padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t high[2];
  for (int i = 0; i < 2; ++i) {
    if (type.isDynamicDim(2 + i) || resultType.isDynamicDim(2 + i)) {
      high[i] = pad[2 + i] + (ceilMode ? stride[i] - 1 : 0);
      continue;
    }
    int64_t needed = (resultType.getDimSize(2 + i) - 1) * stride[i] +
                     dilation[i] * (kernel[i] - 1) + 1;
    high[i] = std::max<int64_t>(needed - type.getDimSize(2 + i) - pad[i], 0);
  }
  return padSpatial(b, loc, input, pad[0], pad[1], high[0], high[1], padValue);
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
    auto resultType =
        toNchw(cast<RankedTensorType>(op.getType()), op.getLayout());
    Type elementType = inputType.getElementType();
    Value lowest = lowestValue(rewriter, loc, elementType);
    Value padded = padForWindows(
        rewriter, loc, input, resultType, op.getKernel(), op.getStrides(),
        op.getPadding(), op.getDilations(), op.getCeilMode(), lowest);
    Value init = filledTensor(
        rewriter, loc,
        windowResultSizes(rewriter, loc, op, resultType, input, op.getKernel(),
                          op.getStrides(), op.getPadding(), op.getDilations(),
                          op.getCeilMode()),
        lowest);
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
                  Value inputSize, bool countIncludePad) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value start = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, outIndex, cst(stride)),
      cst(padBefore));
  Value end = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, start, cst(kernel)),
      arith::AddIOp::create(b, loc, inputSize, cst(padAfter)));
  if (countIncludePad)
    return arith::SubIOp::create(b, loc, end, start);
  Value clippedStart = arith::MaxSIOp::create(b, loc, start, cst(0));
  Value clippedEnd = arith::MinSIOp::create(b, loc, end, inputSize);
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
    auto resultType =
        toNchw(cast<RankedTensorType>(op.getType()), op.getLayout());
    Type elementType = inputType.getElementType();
    Value zero = scalarConstant(rewriter, loc, elementType, 0.0);
    int64_t noDilation[] = {1, 1};
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStrides(),
                      pad = op.getPadding();
    Value padded =
        padForWindows(rewriter, loc, input, resultType, kernel, stride, pad,
                      noDilation, op.getCeilMode(), zero);
    Value init = filledTensor(rewriter, loc,
                              windowResultSizes(rewriter, loc, op, resultType,
                                                input, kernel, stride, pad,
                                                noDilation, op.getCeilMode()),
                              zero);
    Value window =
        tensor::EmptyOp::create(rewriter, loc, kernel, elementType);
    Value sums = linalg::PoolingNchwSumOp::create(
                     rewriter, loc, TypeRange{resultType},
                     ValueRange{padded, window}, ValueRange{init},
                     rewriter.getI64TensorAttr(stride),
                     rewriter.getI64TensorAttr(noDilation))
                     .getResult(0);
    bool countPad = op.getCountIncludePad();
    Value height = tensor::DimOp::create(rewriter, loc, input, 2);
    Value width = tensor::DimOp::create(rewriter, loc, input, 3);
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
    Value divisor = elementCount(rewriter, loc, input, {2, 3}, elementType);
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

namespace {

/// Max pooling with the position of each maximum: one linalg.generic over
/// (n, c, oh, ow, kh, kw), reading the input with tensor.extract at a
/// clamped position and skipping positions in the padding. The running
/// index is the row-major one (plane * H * W + h * W + w), which also
/// breaks ties (the lower wins), whatever order the loops end up in; a
/// second generic turns it column-major when asked.
struct MaxPool2DWithIndicesLowering
    : OpConversionPattern<nn::MaxPool2DWithIndicesOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::MaxPool2DWithIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    if (!inputType.hasStaticShape())
      return unsupported(rewriter, op, "a dynamic input shape");
    auto valuesType = cast<RankedTensorType>(op.getOutput().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    ArrayRef<int64_t> shape = inputType.getShape();
    int64_t planes = shape[1], height = shape[2], width = shape[3];
    SmallVector<int64_t> kernel(op.getKernel()), stride(op.getStrides()),
        pad(op.getPadding()), dilation(op.getDilations());

    Value lowest = lowestValue(rewriter, loc, inputType.getElementType());
    Value values = filledTensor(rewriter, loc, valuesType, Value(), lowest);
    Value noIndex = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI64Type(),
        std::numeric_limits<int64_t>::max());
    Value indices = filledTensor(rewriter, loc, indicesType, Value(), noIndex);

    MLIRContext *ctx = rewriter.getContext();
    AffineMap outMap = AffineMap::get(
        6, 0,
        {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
         getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)},
        ctx);
    // The window's extent, as linalg's pooling ops give it: an operand
    // that only its shape matters of.
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel,
                                           rewriter.getI1Type());
    AffineMap windowMap = AffineMap::get(
        6, 0, {getAffineDimExpr(4, ctx), getAffineDimExpr(5, ctx)}, ctx);
    SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
    iterators.append(2, utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valuesType, indicesType}, ValueRange{window},
        ValueRange{values, indices},
        SmallVector<AffineMap>{windowMap, outMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange operands) {
          ValueRange args = operands.drop_front();
          auto index = [&](int64_t d) -> Value {
            return linalg::IndexOp::create(b, l, d);
          };
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          // h = oh * stride + kh * dilation - pad_top, and w alike.
          Value position[2];
          Value inside = scalarConstant(b, l, b.getI1Type(), 1);
          Value extent[2] = {constant(height), constant(width)};
          for (int i = 0; i < 2; ++i) {
            Value p = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, index(2 + i), constant(stride[i])),
                arith::MulIOp::create(b, l, index(4 + i),
                                      constant(dilation[i])));
            p = arith::SubIOp::create(b, l, p, constant(pad[i]));
            Value low = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                              p, constant(0));
            Value high = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, p, extent[i]);
            inside = arith::AndIOp::create(
                b, l, inside, arith::AndIOp::create(b, l, low, high));
            // Clamped, so that the load stays in bounds in the padding.
            position[i] = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, p, constant(0)),
                constant(i == 0 ? height - 1 : width - 1));
          }
          Value x = tensor::ExtractOp::create(
              b, l, input,
              ValueRange{index(0), index(1), position[0], position[1]});
          // ((n * C + c) * H + h) * W + w
          Value flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, index(0), constant(planes)),
              index(1));
          flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, flat, constant(height)),
              position[0]);
          flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, flat, constant(width)),
              position[1]);
          flat = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
          Value greater = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OGT, x, args[0]);
          Value tie = arith::AndIOp::create(
              b, l,
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, x,
                                    args[0]),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, flat,
                                    args[1]));
          Value take = arith::AndIOp::create(
              b, l, inside, arith::OrIOp::create(b, l, greater, tie));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, args[0]),
                         arith::SelectOp::create(b, l, take, flat, args[1])});
        });
    Value resultIndices = generic.getResult(1);
    if (op.getColumnMajor())
      resultIndices = toColumnMajor(rewriter, loc, resultIndices, height, width);
    rewriter.replaceOp(op, {generic.getResult(0), resultIndices});
    return success();
  }

  /// plane * H * W + h * W + w  ->  plane * H * W + h + w * H.
  static Value toColumnMajor(OpBuilder &b, Location loc, Value indices,
                             int64_t height, int64_t width) {
    auto type = cast<RankedTensorType>(indices.getType());
    return elementwise(
        b, loc, type, Value(), indices, {b.getMultiDimIdentityMap(4)},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantIntOp::create(nb, l, nb.getI64Type(), v);
          };
          Value planeSize = constant(height * width);
          Value plane = arith::DivSIOp::create(nb, l, args[0], planeSize);
          Value inPlane = arith::RemSIOp::create(nb, l, args[0], planeSize);
          Value h = arith::DivSIOp::create(nb, l, inPlane, constant(width));
          Value w = arith::RemSIOp::create(nb, l, inPlane, constant(width));
          Value columnMajor = arith::AddIOp::create(
              nb, l, h, arith::MulIOp::create(nb, l, w, constant(height)));
          return arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, plane, planeSize),
              columnMajor);
        });
  }
};

} // namespace

void mlir::dlas::populateNNPoolingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, MaxPool2DWithIndicesLowering,
               AvgPool2DLowering, GlobalAvgPool2DLowering>(
      patterns.getContext());
}
