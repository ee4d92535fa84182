//===- Convolution.cpp - nn convolutions to linalg ------------------------===//
//
// Convolutions lower to upstream named ops so that later linalg transforms
// (tiling, packing, vectorization) recognise them. Groups never unroll into
// one op per group: grouped operands are reshaped to the G-dimensional
// layout of `linalg.conv_2d_ngchw_gfchw`, whose IR size is independent of G.
// nn.conv3d becomes nn.conv2d ops, one per kernel depth, which the same
// driver lowers next.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

/// The accumulator of a convolution with result sizes `sizes`: the bias
/// broadcast along channels when there is one (saving a separate add),
/// zeros otherwise.
Value convAccumulator(OpBuilder &b, Location loc, RankedTensorType type,
                      ArrayRef<OpFoldResult> sizes, Value bias) {
  if (bias)
    return linalg::BroadcastOp::create(
               b, loc, bias,
               tensor::EmptyOp::create(b, loc, sizes, type.getElementType()),
               ArrayRef<int64_t>{0, 2, 3})
        .getResult()[0];
  return filledTensor(b, loc, sizes,
                      scalarConstant(b, loc, type.getElementType(), 0.0));
}

/// Splits dimension `dim` of `value` into (`outer`, size / `outer`).
Value splitDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               int64_t outer) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = type.getDimSize(dim) / outer;
  shape.insert(shape.begin() + dim, outer);
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0, r = 0; i < type.getRank(); ++i, ++r) {
    if (i == dim) {
      reassociation.push_back({r, r + 1});
      ++r;
    } else {
      reassociation.push_back({r});
    }
  }
  SmallVector<OpFoldResult> outputShape =
      tensor::getMixedSizes(b, loc, value);
  outputShape[dim] = b.getIndexAttr(type.getDimSize(dim) / outer);
  outputShape.insert(outputShape.begin() + dim, b.getIndexAttr(outer));
  return tensor::ExpandShapeOp::create(b, loc, resultType, value,
                                       reassociation, outputShape);
}

/// Merges dimensions `dim` and `dim + 1` of `value`.
Value mergeDims(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i == dim) {
      reassociation.push_back({i, i + 1});
      ++i;
    } else {
      reassociation.push_back({i});
    }
  }
  return tensor::CollapseShapeOp::create(b, loc, value, reassociation);
}

/// Runs an NCHW convolution of the (already padded) input with an OIHW
/// filter, choosing the named op from the group structure.
Value nchwConvolution(OpBuilder &b, Location loc, Operation *op, Value input,
                      Value filter, Value bias, RankedTensorType resultType,
                      int64_t groups, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> dilations) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  int64_t channels = inputType.getDimSize(1);
  int64_t outChannels = filterType.getDimSize(0);
  Attribute strideAttr = b.getI64TensorAttr(strides);
  Attribute dilationAttr = b.getI64TensorAttr(dilations);
  // The input is padded already.
  SmallVector<OpFoldResult> resultSizes = windowResultSizes(
      b, loc, op, resultType, input, filterType.getShape().drop_front(2),
      strides, {0, 0, 0, 0}, dilations);

  if (groups == 1) {
    Value init = convAccumulator(b, loc, resultType, resultSizes, bias);
    return linalg::Conv2DNchwFchwOp::create(b, loc, resultType,
                                            ValueRange{input, filter},
                                            ValueRange{init}, strideAttr,
                                            dilationAttr)
        .getResult(0);
  }
  if (groups == channels && outChannels == channels) {
    // Depthwise: the filter C x 1 x Kh x Kw is the C x Kh x Kw of the op.
    Value depthwiseFilter =
        tensor::CollapseShapeOp::create(b, loc, filter,
                                        SmallVector<ReassociationIndices>{
                                            {0, 1}, {2}, {3}});
    Value init = convAccumulator(b, loc, resultType, resultSizes, bias);
    return linalg::DepthwiseConv2DNchwChwOp::create(
               b, loc, resultType, ValueRange{input, depthwiseFilter},
               ValueRange{init}, strideAttr, dilationAttr)
        .getResult(0);
  }
  // General groups: N x G x C/G x H x W and G x F/G x C/G x Kh x Kw.
  Value groupedInput = splitDim(b, loc, input, 1, groups);
  Value groupedFilter = splitDim(b, loc, filter, 0, groups);
  SmallVector<int64_t> groupedShape(resultType.getShape());
  groupedShape[1] = outChannels / groups;
  groupedShape.insert(groupedShape.begin() + 1, groups);
  auto groupedType =
      RankedTensorType::get(groupedShape, resultType.getElementType());
  Value init = convAccumulator(b, loc, resultType, resultSizes, bias);
  Value groupedInit = splitDim(b, loc, init, 1, groups);
  Value grouped = linalg::Conv2DNgchwGfchwOp::create(
                      b, loc, groupedType, ValueRange{groupedInput, groupedFilter},
                      ValueRange{groupedInit}, strideAttr, dilationAttr)
                      .getResult(0);
  return mergeDims(b, loc, grouped, 1);
}

struct Conv2DLowering : OpConversionPattern<nn::Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    bool nhwc = op.getLayout() == nn::Layout::NHWC;
    // NHWC runs the NCHW kernel between transposes; layout propagation and
    // NHWC-native kernels belong to the codegen strategy.
    if (nhwc)
      input = transpose(rewriter, loc, input, kNhwcToNchw);
    RankedTensorType nchwResultType = resultType;
    if (nhwc) {
      ArrayRef<int64_t> s = resultType.getShape();
      nchwResultType = RankedTensorType::get({s[0], s[3], s[1], s[2]},
                                             resultType.getElementType());
    }
    ArrayRef<int64_t> pad = op.getPadding();
    Value zero = scalarConstant(
        rewriter, loc, cast<RankedTensorType>(input.getType()).getElementType(),
        0.0);
    input = padSpatial(rewriter, loc, input, pad[0], pad[1], pad[2], pad[3],
                       zero);
    // Half-width floats accumulate in f32 (the named ops widen their
    // operands to the output's type) and round once, at the end.
    auto accType = nchwResultType.clone(
        accumulatorType(nchwResultType.getElementType()));
    Value bias = adaptor.getBias();
    if (bias)
      bias = convertFloats(rewriter, loc, bias, accType);
    Value result = nchwConvolution(
        rewriter, loc, op, input, adaptor.getFilter(), bias, accType,
        op.getGroups(), op.getStrides(), op.getDilations());
    result = convertFloats(rewriter, loc, result, nchwResultType);
    if (nhwc)
      result = transpose(rewriter, loc, result, kNchwToNhwc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// conv_transpose2d(x, W) = conv2d(zero-inserted, re-padded x, W'), with W'
/// the filter flipped in space and regrouped from C_in x C_out/g to
/// g x C_out/g x C_in/g.
struct ConvTranspose2DLowering : OpConversionPattern<nn::ConvTranspose2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::ConvTranspose2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto filterType = cast<RankedTensorType>(adaptor.getFilter().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = inputType.getElementType();
    int64_t groups = op.getGroups();
    ArrayRef<int64_t> stride = op.getStrides();
    ArrayRef<int64_t> dilation = op.getDilations();
    ArrayRef<int64_t> pad = op.getPadding();
    ArrayRef<int64_t> outPad = op.getOutputPadding();
    ArrayRef<int64_t> filterShape = filterType.getShape();
    int64_t kh = filterShape[2], kw = filterShape[3];

    // Padding of the zero-inserted input seen by the equivalent convolution;
    // negative amounts crop.
    int64_t before[2], after[2];
    for (int i = 0; i < 2; ++i) {
      int64_t k = filterShape[2 + i];
      before[i] = dilation[i] * (k - 1) - pad[i];
      after[i] = dilation[i] * (k - 1) - pad[i + 2] + outPad[i];
    }
    // Zero tensor big enough for the non-negative pads, (size - 1) * stride
    // + 1 + pads along each spatial axis (at run time for a dynamic size);
    // x is inserted into it with strides.
    SmallVector<OpFoldResult> inputSizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> fullSizes(inputSizes);
    SmallVector<OpFoldResult> croppedSizes(inputSizes);
    int64_t cropBefore[2], cropAfter[2];
    for (int i = 0; i < 2; ++i) {
      int64_t grow = std::max<int64_t>(before[i], 0) +
                     std::max<int64_t>(after[i], 0) + 1 - stride[i];
      cropBefore[i] = std::max<int64_t>(-before[i], 0);
      cropAfter[i] = std::max<int64_t>(-after[i], 0);
      // full = size * stride + grow; cropped = full - crops.
      auto sized = [&](int64_t extra) -> OpFoldResult {
        int64_t size = inputType.getDimSize(2 + i);
        if (!ShapedType::isDynamic(size))
          return rewriter.getIndexAttr(size * stride[i] + extra);
        Value scaled = arith::MulIOp::create(
            rewriter, loc, cast<Value>(inputSizes[2 + i]),
            arith::ConstantIndexOp::create(rewriter, loc, stride[i]));
        return arith::AddIOp::create(
                   rewriter, loc, scaled,
                   arith::ConstantIndexOp::create(rewriter, loc, extra))
            .getResult();
      };
      fullSizes[2 + i] = sized(grow);
      croppedSizes[2 + i] = sized(grow - cropBefore[i] - cropAfter[i]);
    }
    Value zero = scalarConstant(rewriter, loc, elementType, 0.0);
    Value full = filledTensor(rewriter, loc, fullSizes, zero);
    SmallVector<OpFoldResult> offsets = {
        rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
        rewriter.getIndexAttr(std::max<int64_t>(before[0], 0)),
        rewriter.getIndexAttr(std::max<int64_t>(before[1], 0))};
    SmallVector<OpFoldResult> strides = {
        rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
        rewriter.getIndexAttr(stride[0]), rewriter.getIndexAttr(stride[1])};
    Value padded = tensor::InsertSliceOp::create(rewriter, loc, input, full,
                                                 offsets, inputSizes, strides);
    if (cropBefore[0] || cropBefore[1] || cropAfter[0] || cropAfter[1]) {
      SmallVector<OpFoldResult> cropOffsets = {
          rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
          rewriter.getIndexAttr(cropBefore[0]),
          rewriter.getIndexAttr(cropBefore[1])};
      SmallVector<OpFoldResult> unitStrides(4, rewriter.getIndexAttr(1));
      padded = tensor::ExtractSliceOp::create(
          rewriter, loc, padded, cropOffsets, croppedSizes, unitStrides);
    }

    // W'[g, f, c, h, w] = W[g * C_in/g + c, f, Kh-1-h, Kw-1-w].
    int64_t inPerGroup = filterShape[0] / groups;
    int64_t outPerGroup = filterShape[1];
    auto regroupedType = RankedTensorType::get(
        {groups, outPerGroup, inPerGroup, kh, kw}, elementType);
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr g, f, c, h, w;
    bindDims(ctx, g, f, c, h, w);
    AffineMap readMap = AffineMap::get(
        5, 0, {g * inPerGroup + c, f, kh - 1 - h, kw - 1 - w}, ctx);
    Value regrouped = elementwise(
        rewriter, loc, regroupedType, Value(), adaptor.getFilter(), readMap,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });

    // Convolution with stride 1 and the op's dilation, in grouped form.
    Value groupedInput = splitDim(rewriter, loc, padded, 1, groups);
    auto accType = resultType.clone(accumulatorType(elementType));
    Value bias = adaptor.getBias();
    if (bias)
      bias = convertFloats(rewriter, loc, bias, accType);
    Value init = convAccumulator(rewriter, loc, accType,
                                 windowResultSizes(rewriter, loc, op, accType,
                                                   padded, {kh, kw}, {1, 1},
                                                   {0, 0, 0, 0}, dilation),
                                 bias);
    Value groupedInit = splitDim(rewriter, loc, init, 1, groups);
    auto groupedType = cast<RankedTensorType>(groupedInit.getType());
    Value grouped =
        linalg::Conv2DNgchwGfchwOp::create(
            rewriter, loc, groupedType, ValueRange{groupedInput, regrouped},
            ValueRange{groupedInit}, rewriter.getI64TensorAttr({1, 1}),
            rewriter.getI64TensorAttr(dilation))
            .getResult(0);
    rewriter.replaceOp(op, convertFloats(rewriter, loc,
                                         mergeDims(rewriter, loc, grouped, 1),
                                         resultType));
    return success();
  }
};

/// conv3d(x, W)[n, f, d] = sum over kd of conv2d(x[n, :, d * s_d + kd *
/// dil_d], W[:, :, kd]): for each kernel depth, the input depths it reads
/// for every output depth are gathered into a fresh N x D_out x C x H x W
/// tensor (one copy that also transposes; a view would leave the GEMM
/// kernels a strided operand) and folded into the batch, so one nn.conv2d
/// over N * D_out images computes that depth's share; the shares are
/// summed (the bias goes with the first). The 2-D convolutions then get the
/// 2-D algorithms and their compile-time filter packing: the filter's depth
/// slices of a constant are constants.
struct Conv3DLowering : OpConversionPattern<nn::Conv3DOp> {
  using OpConversionPattern::OpConversionPattern;

  /// x[n, c, d * stride + offset, h, w] at [n, d, c, h, w], d < depth:
  /// the depths read sliced out, then copied in their new order.
  static Value gatherDepths(OpBuilder &b, Location loc, Value x, int64_t depth,
                            int64_t stride, int64_t offset) {
    auto type = cast<RankedTensorType>(x.getType());
    ArrayRef<int64_t> in = type.getShape();
    // The depths read, exactly: a loop dim read as a plain dim must have
    // the operand's size.
    SmallVector<OpFoldResult> sizes = mixedSizes(
        b, loc,
        type.clone({in[0], in[1], (depth - 1) * stride + 1, in[3], in[4]}), x);
    SmallVector<OpFoldResult> offsets(5, b.getIndexAttr(0));
    offsets[2] = b.getIndexAttr(offset);
    SmallVector<OpFoldResult> unitSteps(5, b.getIndexAttr(1));
    x = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, unitSteps);
    auto resultType = RankedTensorType::get({in[0], depth, in[1], in[3], in[4]},
                                            type.getElementType());
    Value init = emptyTensor(b, loc, resultType, x, {0, 2, 1, 3, 4});
    MLIRContext *ctx = b.getContext();
    AffineExpr n, d, c, h, w;
    bindDims(ctx, n, d, c, h, w);
    auto read = AffineMap::get(5, 0, {n, c, d * stride, h, w}, ctx);
    SmallVector<AffineMap> maps = {read, b.getMultiDimIdentityMap(5)};
    SmallVector<utils::IteratorType> iterators(5,
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, resultType, x, init, maps, iterators,
               [](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l, args[0]);
               })
        .getResult(0);
  }

  LogicalResult
  matchAndRewrite(nn::Conv3DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
    if (llvm::any_of(in.drop_front(), ShapedType::isDynamic))
      return op.emitError("convert-nn-to-linalg cannot lower 'nn.conv3d': "
                          "a dynamic size other than the batch in ")
             << inType;
    ArrayRef<int64_t> pad = op.getPadding(), stride = op.getStrides(),
                      dilation = op.getDilations();
    ArrayRef<int64_t> filter = op.getFilter().getType().getShape();
    // The padded depth and the folded batch are tensor sizes: they must
    // fit (the verifier bounds the output sizes only).
    int64_t paddedDepth, images;
    if (llvm::AddOverflow(in[2], pad[0], paddedDepth) ||
        llvm::AddOverflow(paddedDepth, pad[3], paddedDepth) ||
        (!ShapedType::isDynamic(in[0]) &&
         llvm::MulOverflow(in[0], out[2], images)))
      return op.emitError("convert-nn-to-linalg cannot lower 'nn.conv3d': "
                          "its padded depth or its batch times output "
                          "depths overflows 64 bits");
    // The inferring builders: every attribute is given, defaults too.
    auto nnOp = [&](auto opTag, ValueRange operands,
                    ArrayRef<NamedAttribute> attrs) -> Value {
      using OpTy = decltype(opTag);
      return OpTy::create(rewriter, loc, operands, attrs)->getResult(0);
    };
    auto array = [&](StringRef name, ArrayRef<int64_t> values) {
      return rewriter.getNamedAttr(name, rewriter.getDenseI64ArrayAttr(values));
    };
    // Padded along D (nn.conv2d pads H and W).
    Value x = adaptor.getInput();
    if (pad[0] || pad[3])
      x = nnOp(nn::PadOp(), x,
               {array("pads", {0, 0, pad[0], 0, 0, 0, 0, pad[3], 0, 0}),
                rewriter.getNamedAttr("value", rewriter.getF64FloatAttr(0.0)),
                rewriter.getNamedAttr(
                    "mode", nn::PadModeAttr::get(rewriter.getContext(),
                                                 nn::PadMode::Constant))});
    // The filter as K_d x C_out x C_in/g x K_h x K_w: constant when it is.
    Value depthMajor =
        transpose(rewriter, loc, adaptor.getFilter(), {2, 0, 1, 3, 4});
    auto sliceType = RankedTensorType::get(
        {filter[0], filter[1], filter[3], filter[4]}, inType.getElementType());
    int64_t sliceElements = sliceType.getNumElements();
    int64_t depth = out[2];
    Value sum;
    for (int64_t kd = 0; kd < filter[2]; ++kd) {
      Value images = mergeDims(
          rewriter, loc,
          gatherDepths(rewriter, loc, x, depth, stride[0], kd * dilation[0]),
          0);
      Value weights =
          sliceConstant(rewriter, loc, depthMajor, kd * sliceElements,
                        sliceType, "dlas_conv3d_filter");
      if (!weights)
        weights = tensor::ExtractSliceOp::create(
            rewriter, loc, sliceType, depthMajor,
            ArrayRef<OpFoldResult>{
                rewriter.getIndexAttr(kd), rewriter.getIndexAttr(0),
                rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
                rewriter.getIndexAttr(0)},
            getAsIndexOpFoldResult(rewriter.getContext(),
                                   ArrayRef<int64_t>{1, filter[0], filter[1],
                                                     filter[3], filter[4]}),
            getAsIndexOpFoldResult(rewriter.getContext(),
                                   ArrayRef<int64_t>{1, 1, 1, 1, 1}));
      SmallVector<Value> operands = {images, weights};
      if (kd == 0 && adaptor.getBias())
        operands.push_back(adaptor.getBias());
      Value share =
          nnOp(nn::Conv2DOp(), operands,
               {array("strides", {stride[1], stride[2]}),
                array("padding", {pad[1], pad[2], pad[4], pad[5]}),
                array("dilations", {dilation[1], dilation[2]}),
                rewriter.getNamedAttr(
                    "groups", rewriter.getI64IntegerAttr(op.getGroups())),
                rewriter.getNamedAttr("layout",
                                      nn::LayoutAttr::get(rewriter.getContext(),
                                                          nn::Layout::NCHW))});
      sum = sum ? nnOp(nn::AddOp(), {sum, share}, {}) : share;
    }
    Value y = nnOp(nn::ReshapeOp(), sum,
                   {array("shape", {-1, depth, out[1], out[3], out[4]})});
    rewriter.replaceOp(
        op, nnOp(nn::TransposeOp(), y, {array("perm", {0, 2, 1, 3, 4})}));
    return success();
  }
};
} // namespace

void mlir::dlas::populateNNConvolutionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Conv2DLowering, ConvTranspose2DLowering, Conv3DLowering>(
      patterns.getContext());
}
