//===- Shape.cpp - nn shape and data-movement ops to linalg/tensor --------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
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

/// A reshape with one run-time size on each side as a tensor.collapse_shape
/// or tensor.expand_shape: views after bufferization, where tensor.reshape
/// needs a shape buffer that host code fills (which the GPU pipeline, whose
/// buffers live on the device, cannot do). With one dynamic size a side,
/// every other group's static sizes must multiply to the same product, so
/// the element count makes the dynamic group right at run time too. Null
/// when the reshape is no such collapse or expansion.
static Value reshapeAsCollapseOrExpand(OpBuilder &builder, Location loc,
                                       Value input, RankedTensorType type,
                                       ArrayRef<Value> targetSizes) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType.getNumDynamicDims() != 1 || type.getNumDynamicDims() != 1 ||
      inputType.getRank() == type.getRank())
    return {};
  bool collapse = inputType.getRank() > type.getRank();
  RankedTensorType larger = collapse ? inputType : type;
  RankedTensorType smaller = collapse ? type : inputType;
  std::optional<SmallVector<ReassociationIndices>> groups =
      getReassociationIndicesForCollapse(larger.getShape(), smaller.getShape());
  if (!groups)
    return {};
  // The dynamic sizes of both sides in one group.
  for (auto [smallerDim, group] : llvm::enumerate(*groups))
    if (smaller.isDynamicDim(smallerDim) !=
        llvm::any_of(group, [&](int64_t d) { return larger.isDynamicDim(d); }))
      return {};
  if (collapse)
    return tensor::CollapseShapeOp::create(builder, loc, type, input, *groups);
  SmallVector<OpFoldResult> outputShape;
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    outputShape.push_back(type.isDynamicDim(dim) ? OpFoldResult(targetSizes[dim])
                                                 : builder.getIndexAttr(size));
  return tensor::ExpandShapeOp::create(builder, loc, type, input, *groups,
                                       outputShape);
}

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
    if (!adaptor.getSizes().empty()) {
      // Run-time sizes: tensor.reshape with the shape they complete.
      SmallVector<Value> shapeValues;
      auto size = adaptor.getSizes().begin();
      for (int64_t entry : op.getShape())
        shapeValues.push_back(
            entry == -1 ? *size++
                        : arith::ConstantIndexOp::create(rewriter, loc, entry)
                              .getResult());
      if (Value view = reshapeAsCollapseOrExpand(rewriter, loc, input, type,
                                                 shapeValues)) {
        rewriter.replaceOp(op, view);
        return success();
      }
      Value shape = tensor::FromElementsOp::create(rewriter, loc, shapeValues);
      rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, type, input, shape);
      return success();
    }
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
    if (Value view =
            reshapeAsCollapseOrExpand(rewriter, loc, input, type, shapeValues)) {
      rewriter.replaceOp(op, view);
      return success();
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
    // Dynamic result sizes: a run-time size where the shape has one (the
    // verifier saw to it that it meets a static input size of 1 or
    // none), else the input's dynamic size.
    SmallVector<OpFoldResult> sizes;
    auto runTimeSize = adaptor.getSizes().begin();
    for (auto [i, entry] : llvm::enumerate(op.getShape())) {
      Value size = entry == -1 ? *runTimeSize++ : Value();
      if (!resultType.isDynamicDim(i))
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(i)));
      else if (size)
        sizes.push_back(size);
      else
        sizes.push_back(
            tensor::DimOp::create(rewriter, op.getLoc(), input, i - offset)
                .getResult());
    }
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), sizes,
                                         resultType.getElementType());
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

/// The sizes of nn.slice's result: its constant sizes, a whole (possibly
/// dynamic) dimension for -1, or with `sizes` operands the next operand
/// for -1, checked at run time to stay inside the input.
SmallVector<OpFoldResult> sliceSizes(OpBuilder &b, Location loc, nn::SliceOp op,
                                     Value input, ValueRange runTimeSizes) {
  SmallVector<OpFoldResult> sizes;
  bool fromOperands = !runTimeSizes.empty();
  for (auto [d, size] : llvm::enumerate(op.getSizes())) {
    if (size != -1) {
      sizes.push_back(b.getIndexAttr(size));
      continue;
    }
    if (!fromOperands) {
      sizes.push_back(tensor::getMixedSize(b, loc, input, d));
      continue;
    }
    Value count = runTimeSizes.front();
    runTimeSizes = runTimeSizes.drop_front();
    Value end = arith::AddIOp::create(
        b, loc, count,
        arith::ConstantIndexOp::create(b, loc, op.getOffsets()[d]));
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, count,
                              arith::ConstantIndexOp::create(b, loc, 0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, end,
                              tensor::DimOp::create(b, loc, input, d)));
    cf::AssertOp::create(b, loc, inside,
                         "nn.slice: a run-time size reads outside dimension " +
                             std::to_string(d));
    sizes.push_back(count);
  }
  return sizes;
}

/// Forward steps are a tensor.extract_slice; a backward step reads
/// offset + i * step in a linalg.generic's input map.
struct SliceLowering : OpConversionPattern<nn::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> offsets = op.getOffsets(), steps = op.getSteps();
    SmallVector<OpFoldResult> mixedSizes = sliceSizes(
        rewriter, loc, op, adaptor.getInput(), adaptor.getDynamicSizes());
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, adaptor.getInput(),
          getAsIndexOpFoldResult(rewriter.getContext(), offsets), mixedSizes,
          getAsIndexOpFoldResult(rewriter.getContext(), steps));
      return success();
    }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> reads;
    for (auto [d, offset, step] : llvm::enumerate(offsets, steps))
      reads.push_back(getAffineConstantExpr(offset, ctx) +
                      getAffineDimExpr(d, ctx) * step);
    AffineMap readMap = AffineMap::get(resultType.getRank(), 0, reads, ctx);
    Value init = tensor::EmptyOp::create(rewriter, loc, mixedSizes,
                                         resultType.getElementType());
    Value result = elementwise(
        rewriter, loc, resultType, init, adaptor.getInput(), {readMap},
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
    if (op.getMode() != nn::PadMode::Constant) {
      rewriter.replaceOp(op, borderPad(rewriter, loc, adaptor.getInput(), type,
                                       pads, op.getMode()));
      return success();
    }
    Value value = scalarConstant(rewriter, loc, type.getElementType(),
                                 op.getValue().convertToDouble());
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, adaptor.getInput(),
                                               low, high, value);
    return success();
  }

  /// Edge and reflect padding: every output element reads the input at its
  /// index shifted by the low pad and folded back into [0, size): clamped
  /// (edge) or mirrored about the edge elements (reflect; the verifier
  /// keeps pads below the size, so one mirror suffices).
  static Value borderPad(OpBuilder &b, Location loc, Value input,
                         RankedTensorType type, ArrayRef<int64_t> pads,
                         nn::PadMode mode) {
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes;
    SmallVector<Value> inputSizes;
    for (int64_t d = 0; d < rank; ++d) {
      Value size = getValueOrCreateConstantIndexOp(
          b, loc, tensor::getMixedSize(b, loc, input, d));
      inputSizes.push_back(size);
      if (!type.isDynamicDim(d))
        sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      else
        sizes.push_back(
            arith::AddIOp::create(
                b, loc, size,
                arith::ConstantIndexOp::create(b, loc, pads[d] + pads[d + rank]))
                .getResult());
    }
    Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, type, ValueRange{}, init,
        SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
        [&](OpBuilder &nb, Location l, ValueRange) {
          SmallVector<Value> at;
          Value zero = arith::ConstantIndexOp::create(nb, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(nb, l, d);
            if (pads[d] == 0 && pads[d + rank] == 0) {
              at.push_back(i);
              continue;
            }
            Value last = arith::SubIOp::create(
                nb, l, inputSizes[d], arith::ConstantIndexOp::create(nb, l, 1));
            Value j = arith::SubIOp::create(
                nb, l, i, arith::ConstantIndexOp::create(nb, l, pads[d]));
            if (mode == nn::PadMode::Edge) {
              j = arith::MaxSIOp::create(nb, l, j, zero);
              j = arith::MinSIOp::create(nb, l, j, last);
            } else {
              // |j|, then 2 * last - j beyond the end.
              j = arith::MaxSIOp::create(
                  nb, l, j, arith::SubIOp::create(nb, l, zero, j));
              Value mirrored = arith::SubIOp::create(
                  nb, l, arith::AddIOp::create(nb, l, last, last), j);
              j = arith::MinSIOp::create(nb, l, j, mirrored);
            }
            at.push_back(j);
          }
          linalg::YieldOp::create(
              nb, l, tensor::ExtractOp::create(nb, l, input, at).getResult());
        });
    return generic.getResult(0);
  }
};

Value indexToFloat(OpBuilder &b, Location loc, Value index, Type floatType) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, floatType, i64);
}

Value floatToIndex(OpBuilder &b, Location loc, Value value) {
  Value i64 = arith::FPToSIOp::create(b, loc, b.getI64Type(), value);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

/// An f64 of the resize coordinate arithmetic: folded to a constant where
/// its inputs are constants (static sizes), an op computing it at run time
/// otherwise (a spatial size known at run time only).
class F64 {
public:
  F64(double value) : constant(value) {}
  F64(Value value) : value(value) {}

  std::optional<double> getConstant() const { return constant; }
  bool is(double v) const { return constant && *constant == v; }
  Value materialize(OpBuilder &b, Location loc) const {
    if (value)
      return value;
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*constant));
  }

  /// `fold` on constants, else the arith op `Op`.
  template <typename Op>
  static F64 apply(OpBuilder &b, Location loc, F64 x, F64 y,
                   double (*fold)(double, double)) {
    if (x.constant && y.constant)
      return fold(*x.constant, *y.constant);
    return F64(Op::create(b, loc, x.materialize(b, loc), y.materialize(b, loc))
                   .getResult());
  }

private:
  std::optional<double> constant;
  Value value;
};

/// One axis of nn.resize: its input size and how an output index maps to a
/// source coordinate, x' = (x + offset) * numer / denom - shift, in ONNX's
/// order of operations (so that rounding matches its reference).
struct ResizeAxis {
  /// The input size (index; a constant where static).
  Value inputSize;
  F64 offset = 0.0, numer = 1.0, denom = 1.0, shift = 0.0;
  /// A coordinate outside [0, inputSize - 1] reads the extrapolation
  /// value (tf_crop_and_resize) instead of the clamped edge.
  bool extrapolate = false;
  F64 last = 0.0;
};

/// The coordinate transform of `op` along spatial axis `dim` (0: H, 1: W)
/// from an input of size `inSize` to one of `outSize` (each a constant or
/// an index value), built at `b`'s insertion point.
ResizeAxis resizeAxis(OpBuilder &b, Location loc, nn::ResizeOp op, int dim,
                      OpFoldResult inSize, OpFoldResult outSize) {
  auto toF64 = [&](OpFoldResult size) -> F64 {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return double(*c);
    return F64(indexToFloat(b, loc, cast<Value>(size), b.getF64Type()));
  };
  auto mul = [&](F64 x, F64 y) {
    return F64::apply<arith::MulFOp>(b, loc, x, y,
                                     [](double p, double q) { return p * q; });
  };
  auto div = [&](F64 x, F64 y) {
    return F64::apply<arith::DivFOp>(b, loc, x, y,
                                     [](double p, double q) { return p / q; });
  };
  auto sub = [&](F64 x, F64 y) {
    return F64::apply<arith::SubFOp>(b, loc, x, y,
                                     [](double p, double q) { return p - q; });
  };
  F64 in = toF64(inSize);
  std::optional<ArrayRef<double>> scales = op.getScales();
  F64 scale = scales ? F64((*scales)[dim]) : div(toF64(outSize), in);
  // The output length of the formulas: unrounded with scales, as ONNX.
  F64 length = scales ? mul(in, scale) : toF64(outSize);
  ResizeAxis axis;
  axis.inputSize = getValueOrCreateConstantIndexOp(b, loc, inSize);
  // Where the formula divides by L - 1, an output of length 1 takes
  // `single` instead (a branch on constants, a select at run time).
  auto unlessSingle = [&](F64 single, F64 general) -> F64 {
    if (std::optional<double> l = length.getConstant())
      return *l == 1 ? single : general;
    Value isSingle = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           length.materialize(b, loc),
                                           F64(1.0).materialize(b, loc));
    return F64(arith::SelectOp::create(b, loc, isSingle,
                                       single.materialize(b, loc),
                                       general.materialize(b, loc))
                   .getResult());
  };
  F64 lengthMinusOne = sub(length, 1.0);
  switch (op.getEffectiveCoordinates()) {
  case nn::ResizeCoordinates::Asymmetric:
    axis.denom = scale;
    break;
  case nn::ResizeCoordinates::PytorchHalfPixel:
    // Where L is 1: x' = -0.5 (numer 0, shift 0.5).
    axis.offset = unlessSingle(0.0, 0.5);
    axis.numer = unlessSingle(0.0, 1.0);
    axis.denom = unlessSingle(1.0, scale);
    axis.shift = 0.5;
    break;
  case nn::ResizeCoordinates::HalfPixel:
    axis.offset = 0.5;
    axis.denom = scale;
    axis.shift = 0.5;
    break;
  case nn::ResizeCoordinates::AlignCorners:
    axis.numer = unlessSingle(0.0, sub(in, 1.0));
    axis.denom = unlessSingle(1.0, lengthMinusOne);
    break;
  case nn::ResizeCoordinates::TfCropAndResize: {
    // start * (in - 1) + x * (end - start) * (in - 1) / (L - 1).
    ArrayRef<double> roi = *op.getRoi();
    double start = roi[dim], end = roi[dim + 2];
    F64 last = sub(in, 1.0);
    axis.extrapolate = true;
    axis.last = last;
    axis.numer = unlessSingle(0.0, mul(end - start, last));
    axis.denom = unlessSingle(1.0, lengthMinusOne);
    axis.shift =
        unlessSingle(mul(-0.5 * (start + end), last), mul(-start, last));
    break;
  }
  }
  return axis;
}

/// `v` clamped to [0, size - 1].
Value clampIndex(OpBuilder &b, Location loc, Value v, Value size) {
  Value lo = arith::MaxSIOp::create(b, loc, v,
                                    arith::ConstantIndexOp::create(b, loc, 0));
  Value last = arith::SubIOp::create(b, loc, size,
                                     arith::ConstantIndexOp::create(b, loc, 1));
  return arith::MinSIOp::create(b, loc, lo, last);
}

/// A source index and its weight (null weight: 1).
struct Tap {
  Value index;
  Value weight;
};

/// The cubic convolution weights of the 4 neighbours of floor(x') at
/// fraction t (Keys, with coefficient a; ONNX's and PyTorch's formula).
SmallVector<Value> cubicWeights(OpBuilder &b, Location loc, Value t, double a) {
  Type f64 = b.getF64Type();
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f64, v)).getResult();
  };
  auto mul = [&](Value x, Value y) { return arith::MulFOp::create(b, loc, x, y).getResult(); };
  auto add = [&](Value x, Value y) { return arith::AddFOp::create(b, loc, x, y).getResult(); };
  auto sub = [&](Value x, Value y) { return arith::SubFOp::create(b, loc, x, y).getResult(); };
  // |d| in [1, 2): ((a d - 5a) d + 8a) d - 4a; |d| < 1: ((a+2) d - (a+3)) d^2 + 1.
  auto outer = [&](Value d) {
    return sub(mul(add(mul(sub(mul(cst(a), d), cst(5 * a)), d), cst(8 * a)), d),
               cst(4 * a));
  };
  auto inner = [&](Value d) {
    return add(mul(sub(mul(cst(a + 2), d), cst(a + 3)), mul(d, d)), cst(1));
  };
  Value oneMinusT = sub(cst(1), t);
  return {outer(add(t, cst(1))), inner(t), inner(oneMinusT),
          outer(add(oneMinusT, cst(1)))};
}

/// The taps of one axis at output index `dst`; with `axis.extrapolate`,
/// `outside` is set to whether the source coordinate leaves the input.
SmallVector<Tap> resizeTaps(OpBuilder &b, Location loc, nn::ResizeOp op,
                            const ResizeAxis &axis, Value dst,
                            Value *outside = nullptr) {
  Type f64 = b.getF64Type();
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f64, v)).getResult();
  };
  Value x = indexToFloat(b, loc, dst, f64);
  if (!axis.offset.is(0))
    x = arith::AddFOp::create(b, loc, x, axis.offset.materialize(b, loc));
  if (!axis.numer.is(1))
    x = arith::MulFOp::create(b, loc, x, axis.numer.materialize(b, loc));
  if (!axis.denom.is(1))
    x = arith::DivFOp::create(b, loc, x, axis.denom.materialize(b, loc));
  if (!axis.shift.is(0))
    x = arith::SubFOp::create(b, loc, x, axis.shift.materialize(b, loc));
  Value size = axis.inputSize;
  if (axis.extrapolate && outside)
    *outside = arith::OrIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, cst(0)),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                              axis.last.materialize(b, loc)));
  if (op.getMode() == nn::ResizeMode::Nearest) {
    Value rounded;
    switch (op.getNearestMode()) {
    case nn::NearestRounding::Floor:
      rounded = math::FloorOp::create(b, loc, x);
      break;
    case nn::NearestRounding::Ceil:
      rounded = math::CeilOp::create(b, loc, x);
      break;
    case nn::NearestRounding::RoundPreferFloor: // halves go down
      rounded = math::CeilOp::create(
          b, loc, arith::SubFOp::create(b, loc, x, cst(0.5)));
      break;
    case nn::NearestRounding::RoundPreferCeil: // halves go up
      rounded = math::FloorOp::create(
          b, loc, arith::AddFOp::create(b, loc, x, cst(0.5)));
      break;
    }
    return {{clampIndex(b, loc, floatToIndex(b, loc, rounded), size), Value()}};
  }
  Value floor = math::FloorOp::create(b, loc, x);
  Value t = arith::SubFOp::create(b, loc, x, floor);
  Value base = floatToIndex(b, loc, floor);
  auto neighbour = [&](int64_t k) {
    return arith::AddIOp::create(b, loc, base,
                                 arith::ConstantIndexOp::create(b, loc, k))
        .getResult();
  };
  SmallVector<Tap> taps;
  if (op.getMode() == nn::ResizeMode::Bilinear) {
    taps.push_back({clampIndex(b, loc, base, size),
                    arith::SubFOp::create(b, loc, cst(1), t)});
    taps.push_back({clampIndex(b, loc, neighbour(1), size), t});
    return taps;
  }
  SmallVector<Value> weights =
      cubicWeights(b, loc, t, op.getCubicCoeffA().convertToDouble());
  SmallVector<Value> raw;
  for (int64_t k = -1; k <= 2; ++k)
    raw.push_back(neighbour(k));
  if (op.getExcludeOutside()) {
    // Weights of neighbours outside [0, size) drop out; the rest renormalize.
    Value zero = cst(0), total = cst(0);
    for (auto [i, w] : llvm::enumerate(weights)) {
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, raw[i],
                                arith::ConstantIndexOp::create(b, loc, 0)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, raw[i],
                                size));
      w = arith::SelectOp::create(b, loc, inside, w, zero);
      total = arith::AddFOp::create(b, loc, total, w);
    }
    for (Value &w : weights)
      w = arith::DivFOp::create(b, loc, w, total);
  }
  for (auto [index, w] : llvm::zip(raw, weights))
    taps.push_back({clampIndex(b, loc, index, size), w});
  return taps;
}

/// The sizes of nn.resize's result: its static sizes, a dynamic batch or
/// channel count from the input, a run-time `sizes` operand, or a dynamic
/// spatial size as floor(size * scale) in f64 (as the op's shape inference
/// does).
SmallVector<OpFoldResult> resizedSizes(OpBuilder &b, Location loc,
                                       nn::ResizeOp op, Value input,
                                       ValueRange runTimeSizes) {
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<OpFoldResult> sizes = mixedSizes(b, loc, type, input);
  for (int i = 0; i < 2; ++i) {
    if (!type.isDynamicDim(2 + i))
      continue;
    if (std::optional<ArrayRef<int64_t>> given = op.getSizes()) {
      if ((*given)[i] == -1) {
        Value size = runTimeSizes.front();
        runTimeSizes = runTimeSizes.drop_front();
        Value positive =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, size,
                                  arith::ConstantIndexOp::create(b, loc, 1));
        cf::AssertOp::create(b, loc, positive,
                             "nn.resize: a run-time output size is below 1");
        sizes[2 + i] = size;
      }
      continue;
    }
    // Otherwise it comes from a dynamic input size and `scales`.
    Value in = indexToFloat(b, loc, tensor::DimOp::create(b, loc, input, 2 + i),
                            b.getF64Type());
    Value scaled = arith::MulFOp::create(
        b, loc, in,
        arith::ConstantOp::create(b, loc,
                                  b.getF64FloatAttr((*op.getScales())[i])));
    sizes[2 + i] = floatToIndex(b, loc, scaled);
  }
  return sizes;
}

/// Each output element is the weighted sum of its taps along H times its
/// taps along W (one tap each for nearest: a plain read).
struct ResizeLowering : OpConversionPattern<nn::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> inSizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes =
        resizedSizes(rewriter, loc, op, input, adaptor.getDynamicSizes());
    // Blends in f32 as PyTorch does for f32/f16/bf16 inputs.
    Type f32 = rewriter.getF32Type();
    Type elementType = type.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, loc, outSizes, elementType);
    Value result = elementwise(
        rewriter, loc, type, init, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          ResizeAxis axes[2] = {
              resizeAxis(b, l, op, 0, inSizes[2], outSizes[2]),
              resizeAxis(b, l, op, 1, inSizes[3], outSizes[3])};
          Value outsideRow, outsideCol;
          SmallVector<Tap> rows = resizeTaps(
              b, l, op, axes[0], linalg::IndexOp::create(b, l, 2), &outsideRow);
          SmallVector<Tap> cols = resizeTaps(
              b, l, op, axes[1], linalg::IndexOp::create(b, l, 3), &outsideCol);
          // tf_crop_and_resize: the extrapolation value outside the input.
          auto extrapolated = [&](Value v) -> Value {
            if (!outsideRow)
              return v;
            Value fill = arith::ConstantOp::create(
                b, l,
                b.getFloatAttr(elementType,
                               op.getExtrapolationValue().convertToDouble()));
            return arith::SelectOp::create(
                b, l, arith::OrIOp::create(b, l, outsideRow, outsideCol), fill,
                v);
          };
          if (!rows.front().weight)
            return extrapolated(tensor::ExtractOp::create(
                b, l, input, ValueRange{n, c, rows[0].index, cols[0].index}));
          auto toF32 = [&](Value v) {
            return v.getType() == f32 ? v
                                      : arith::TruncFOp::create(b, l, f32, v).getResult();
          };
          Value sum;
          for (const Tap &row : rows) {
            Value line;
            for (const Tap &col : cols) {
              Value v = tensor::ExtractOp::create(
                  b, l, input, ValueRange{n, c, row.index, col.index});
              if (elementType != f32)
                v = arith::ExtFOp::create(b, l, f32, v);
              Value term = arith::MulFOp::create(b, l, toF32(col.weight), v);
              line = line ? arith::AddFOp::create(b, l, line, term).getResult() : term;
            }
            Value term = arith::MulFOp::create(b, l, toF32(row.weight), line);
            sum = sum ? arith::AddFOp::create(b, l, sum, term).getResult() : term;
          }
          return extrapolated(
              elementType == f32
                  ? sum
                  : arith::TruncFOp::create(b, l, elementType, sum).getResult());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An ONNX gather index as an in-bounds index: -n..-1 counts from the
/// end, anything outside [-n, n) is clamped so that the load stays in
/// bounds.
Value gatherIndex(OpBuilder &b, Location l, Value raw, Value extent) {
  Value index = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  Value negative =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index, zero);
  index = arith::SelectOp::create(
      b, l, negative, arith::AddIOp::create(b, l, index, extent), index);
  Value last =
      arith::SubIOp::create(b, l, extent, arith::ConstantIndexOp::create(b, l, 1));
  return arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, index, zero),
                                last);
}

/// A linalg.generic over the indices reading data at each position with
/// the axis coordinate replaced by the index.
struct GatherElementsLowering : OpConversionPattern<nn::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    Value init = emptyTensor(rewriter, loc, resultType, indices);
    Value extent = tensor::DimOp::create(rewriter, loc, data, axis);
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == axis ? gatherIndex(b, l, args[0], extent)
                                   : Value(linalg::IndexOp::create(b, l, d)));
          linalg::YieldOp::create(b, l,
                                  ValueRange{tensor::ExtractOp::create(b, l, data, at)});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// A linalg.generic over the result reading the indices through a
/// projection and the data with tensor.extract at the wrapped, clamped index.
struct GatherLowering : OpConversionPattern<nn::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = dataType.getRank(), indexRank = indicesType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < axis; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, data, d));
    for (int64_t d = 0; d < indexRank; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, indices, d));
    for (int64_t d = axis + 1; d < rank; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, data, d));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                         resultType.getElementType());
    Value extent = tensor::DimOp::create(rewriter, loc, data, axis);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> indexDims;
    for (int64_t d = 0; d < indexRank; ++d)
      indexDims.push_back(getAffineDimExpr(axis + d, ctx));
    int64_t resultRank = resultType.getRank();
    SmallVector<AffineMap> maps = {
        AffineMap::get(resultRank, 0, indexDims, ctx),
        rewriter.getMultiDimIdentityMap(resultRank)};
    SmallVector<utils::IteratorType> iterators(resultRank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value index = gatherIndex(b, l, args[0], extent);
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          at.push_back(index);
          for (int64_t d = axis + 1; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d - 1 + indexRank));
          linalg::YieldOp::create(b, l,
                                  ValueRange{tensor::ExtractOp::create(b, l, data, at)});
        });
    Value result = generic.getResult(0);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNShapeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatLowering, ReshapeLowering, FlattenLowering, BroadcastToLowering,
               TransposeLowering, SliceLowering, PadLowering, ResizeLowering,
               GatherLowering, GatherElementsLowering>(
      patterns.getContext());
}
