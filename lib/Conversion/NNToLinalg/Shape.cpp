//===- Shape.cpp - nn shape and data-movement ops to linalg/tensor --------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

struct ConcatLowering : OpConversionPattern<nn::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    // I64Attr getters return uint64_t: read the axis as signed.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    ValueRange inputs = adaptor.getInputs();
    // Result sizes: the first input's, with the axis the sum of all.
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, inputs[0]);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> axisOffsets;
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value input : inputs) {
      axisOffsets.push_back(offset);
      OpFoldResult size = tensor::getMixedSize(rewriter, loc, input, axis);
      std::optional<int64_t> a = getConstantIntValue(offset);
      std::optional<int64_t> b = getConstantIntValue(size);
      offset = a && b ? OpFoldResult(rewriter.getIndexAttr(*a + *b))
                      : OpFoldResult(arith::AddIOp::create(
                            rewriter, loc,
                            getValueOrCreateConstantIndexOp(rewriter, loc, offset),
                            getValueOrCreateConstantIndexOp(rewriter, loc, size))
                                         .getResult());
    }
    sizes[axis] = offset;
    Value result = tensor::EmptyOp::create(rewriter, loc, sizes,
                                           type.getElementType());
    for (auto [input, axisOffset] : llvm::zip(inputs, axisOffsets)) {
      SmallVector<OpFoldResult> inputOffsets = offsets;
      inputOffsets[axis] = axisOffset;
      result = tensor::InsertSliceOp::create(
          rewriter, loc, input, result, inputOffsets,
          tensor::getMixedSizes(rewriter, loc, input), strides);
    }
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Static reshapes collapse to 1-D and expand again (pure metadata after
/// bufferization); dynamic ones use tensor.reshape with a computed shape.
struct ReshapeLowering : OpConversionPattern<nn::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto type = cast<RankedTensorType>(op.getType());
    if (inputType.hasStaticShape()) {
      // A scalar (rank 0) reshapes to and from tensor<1xT> with no
      // reassociation groups at all.
      auto flatType = RankedTensorType::get({inputType.getNumElements()},
                                            inputType.getElementType());
      auto groupsOf = [](int64_t rank) {
        SmallVector<ReassociationIndices> groups;
        if (rank > 0)
          groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
        return groups;
      };
      Value flat = input;
      if (inputType.getRank() == 0)
        flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, input,
                                             groupsOf(0));
      else if (inputType.getRank() != 1)
        flat = tensor::CollapseShapeOp::create(rewriter, loc, input,
                                               groupsOf(inputType.getRank()));
      Value result = flat;
      if (type.getRank() == 0)
        result = tensor::CollapseShapeOp::create(rewriter, loc, type, flat,
                                                 groupsOf(0));
      else if (type.getRank() != 1)
        result = tensor::ExpandShapeOp::create(rewriter, loc, type, flat,
                                               groupsOf(type.getRank()));
      rewriter.replaceOp(op, result);
      return success();
    }
    // Dynamic: the -1 entry is (element count) / (product of the others).
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      count = arith::MulIOp::create(
          rewriter, loc, count, tensor::DimOp::create(rewriter, loc, input, d));
    int64_t known = 1;
    for (int64_t size : op.getShape())
      known *= size == -1 ? 1 : size;
    SmallVector<Value> shapeValues;
    for (int64_t size : op.getShape()) {
      Value v = size == -1
                    ? arith::DivUIOp::create(
                          rewriter, loc, count,
                          arith::ConstantIndexOp::create(rewriter, loc, known))
                          .getResult()
                    : arith::ConstantIndexOp::create(rewriter, loc, size)
                          .getResult();
      shapeValues.push_back(v);
    }
    Value shape = tensor::FromElementsOp::create(rewriter, loc, shapeValues);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, type, input, shape);
    return success();
  }
};

struct FlattenLowering : OpConversionPattern<nn::FlattenOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t axis = op.getAxis();
    SmallVector<ReassociationIndices> reassociation;
    for (int64_t d = 0; d < axis; ++d)
      reassociation.push_back({d});
    reassociation.push_back(
        llvm::to_vector(llvm::seq<int64_t>(axis, inputType.getRank())));
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), adaptor.getInput(), reassociation);
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<nn::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), adaptor.getInput(),
                                     op.getPerm()));
    return success();
  }
};

/// A linalg.generic whose input map pins broadcast dimensions to 0; dynamic
/// result sizes are the input's (a dynamic size is never broadcast).
struct BroadcastToLowering : OpConversionPattern<nn::BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::BroadcastToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t offset = resultType.getRank() - inputType.getRank();
    SmallVector<int64_t> sourceDims;
    for (int64_t i = 0; i < resultType.getRank(); ++i)
      sourceDims.push_back(std::max<int64_t>(i - offset, 0));
    Value init =
        emptyTensor(rewriter, op.getLoc(), resultType, input, sourceDims);
    SmallVector<AffineMap> maps = {
        broadcastMap(inputType, resultType),
        rewriter.getMultiDimIdentityMap(resultType.getRank())};
    SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), resultType, input, init, maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Forward steps are a tensor.extract_slice; a backward step reads
/// offset + i * step in a linalg.generic's input map.
struct SliceLowering : OpConversionPattern<nn::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> offsets = op.getOffsets(), sizes = op.getSizes(),
                      steps = op.getSteps();
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, adaptor.getInput(), ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, steps);
      return success();
    }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> reads;
    for (auto [d, offset, step] : llvm::enumerate(offsets, steps))
      reads.push_back(getAffineConstantExpr(offset, ctx) +
                      getAffineDimExpr(d, ctx) * step);
    AffineMap readMap = AffineMap::get(resultType.getRank(), 0, reads, ctx);
    Value result = elementwise(
        rewriter, loc, resultType, Value(), adaptor.getInput(), {readMap},
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PadLowering : OpConversionPattern<nn::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    SmallVector<OpFoldResult> low, high;
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(rewriter.getIndexAttr(pads[d]));
      high.push_back(rewriter.getIndexAttr(pads[d + rank]));
    }
    Value value = scalarConstant(rewriter, loc, type.getElementType(),
                                 op.getValue().convertToDouble());
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, adaptor.getInput(),
                                               low, high, value);
    return success();
  }
};

/// PyTorch's source-coordinate rules for interpolate (float arithmetic).
struct ResizeAxis {
  int64_t inputSize;
  float scale; // source step per destination step
  bool alignCorners;
};

ResizeAxis resizeAxis(nn::ResizeOp op, int dim, int64_t inSize, int64_t outSize) {
  bool bilinear = op.getMode() == nn::ResizeMode::Bilinear;
  if (bilinear && op.getAlignCorners())
    return {inSize, outSize > 1 ? float(inSize - 1) / float(outSize - 1) : 0.f,
            true};
  if (std::optional<ArrayRef<double>> scales = op.getScales())
    return {inSize, float(1.0 / (*scales)[dim]), false};
  return {inSize, float(inSize) / float(outSize), false};
}

Value indexToFloat(OpBuilder &b, Location loc, Value index, Type floatType) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, floatType, i64);
}

Value floatToIndex(OpBuilder &b, Location loc, Value value) {
  Value i64 = arith::FPToSIOp::create(b, loc, b.getI64Type(), value);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

Value minIndex(OpBuilder &b, Location loc, Value v, int64_t bound) {
  return arith::MinSIOp::create(b, loc, v,
                                arith::ConstantIndexOp::create(b, loc, bound));
}

struct ResizeLowering : OpConversionPattern<nn::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto type = cast<RankedTensorType>(op.getType());
    for (int d = 2; d < 4; ++d)
      if (ShapedType::isDynamic(inputType.getDimSize(d)) ||
          ShapedType::isDynamic(type.getDimSize(d)))
        return unsupported(rewriter, op, "dynamic spatial sizes");
    ResizeAxis axes[2] = {
        resizeAxis(op, 0, inputType.getDimSize(2), type.getDimSize(2)),
        resizeAxis(op, 1, inputType.getDimSize(3), type.getDimSize(3))};
    bool bilinear = op.getMode() == nn::ResizeMode::Bilinear;
    // Computation in f32 as PyTorch does for f32/f16/bf16 inputs.
    Type f32 = rewriter.getF32Type();
    Type elementType = type.getElementType();
    Value result = elementwise(
        rewriter, loc, type, input, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value dst[2] = {linalg::IndexOp::create(b, l, 2),
                          linalg::IndexOp::create(b, l, 3)};
          auto cst = [&](float v) {
            return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v))
                .getResult();
          };
          if (!bilinear) {
            Value src[2];
            for (int i = 0; i < 2; ++i) {
              Value scaled = arith::MulFOp::create(
                  b, l, indexToFloat(b, l, dst[i], f32), cst(axes[i].scale));
              src[i] = minIndex(b, l,
                                floatToIndex(b, l, math::FloorOp::create(b, l, scaled)),
                                axes[i].inputSize - 1);
            }
            return tensor::ExtractOp::create(b, l, input,
                                             ValueRange{n, c, src[0], src[1]});
          }
          Value lo[2], hi[2], frac[2];
          for (int i = 0; i < 2; ++i) {
            Value d = indexToFloat(b, l, dst[i], f32);
            Value s;
            if (axes[i].alignCorners) {
              s = arith::MulFOp::create(b, l, d, cst(axes[i].scale));
            } else {
              Value centre = arith::SubFOp::create(
                  b, l,
                  arith::MulFOp::create(
                      b, l, arith::AddFOp::create(b, l, d, cst(0.5f)),
                      cst(axes[i].scale)),
                  cst(0.5f));
              s = arith::MaximumFOp::create(b, l, centre, cst(0.f));
            }
            lo[i] = floatToIndex(b, l, s); // s >= 0: truncation is floor
            hi[i] = minIndex(
                b, l,
                arith::AddIOp::create(b, l, lo[i],
                                      arith::ConstantIndexOp::create(b, l, 1)),
                axes[i].inputSize - 1);
            frac[i] = arith::SubFOp::create(b, l, s, indexToFloat(b, l, lo[i], f32));
          }
          auto at = [&](Value h, Value w) -> Value {
            Value v = tensor::ExtractOp::create(b, l, input, ValueRange{n, c, h, w});
            return elementType == f32 ? v : arith::ExtFOp::create(b, l, f32, v).getResult();
          };
          auto lerp = [&](Value a, Value bb, Value t) -> Value {
            Value oneMinus = arith::SubFOp::create(b, l, cst(1.f), t);
            return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, oneMinus, a),
                                         arith::MulFOp::create(b, l, t, bb));
          };
          Value top = lerp(at(lo[0], lo[1]), at(lo[0], hi[1]), frac[1]);
          Value bottom = lerp(at(hi[0], lo[1]), at(hi[0], hi[1]), frac[1]);
          Value v = lerp(top, bottom, frac[0]);
          return elementType == f32 ? v
                                    : arith::TruncFOp::create(b, l, elementType, v)
                                          .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNShapeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatLowering, ReshapeLowering, FlattenLowering, BroadcastToLowering,
               TransposeLowering, SliceLowering, PadLowering, ResizeLowering>(
      patterns.getContext());
}
