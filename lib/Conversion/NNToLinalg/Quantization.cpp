//===- Quantization.cpp - nn.quantize and nn.dequantize to linalg ---------===//
//
// Each op becomes one all-parallel linalg.generic. Per-tensor parameters
// are scalar constants in the body; per-channel ones are 1-D constant
// tensors read through a map onto the channel dimension, so that
// elementwise fusion can still merge the op with its neighbours (the
// dequantize into the epilogue of the i32 contraction that feeds it).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

/// A quantization op's parameters as the linalg.generic reads them: inputs
/// with their maps (per channel), or scalars (per tensor).
struct QuantizationParameters {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  /// Where the body finds the scale and the zero point among its block
  /// arguments; -1: a scalar constant.
  int scaleArg = -1, zeroPointArg = -1;
  float scale = 1.0f;
  int64_t zeroPoint = 0;

  Value scaleIn(OpBuilder &b, Location loc, ValueRange args) const {
    if (scaleArg >= 0)
      return args[scaleArg];
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale));
  }
  Value zeroPointIn(OpBuilder &b, Location loc, ValueRange args,
                    Type type) const {
    if (zeroPointArg >= 0)
      return args[zeroPointArg];
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, zeroPoint));
  }
};

QuantizationParameters parameters(OpBuilder &b, Location loc,
                                  RankedTensorType type, Value input,
                                  ArrayRef<float> scales,
                                  ArrayRef<int64_t> zeroPoints, int64_t axis,
                                  Type zeroPointType) {
  QuantizationParameters params;
  int64_t rank = type.getRank();
  params.inputs.push_back(input);
  params.maps.push_back(b.getMultiDimIdentityMap(rank));
  if (scales.size() == 1) {
    params.scale = scales[0];
    params.zeroPoint = zeroPoints[0];
    return params;
  }
  if (axis < 0)
    axis += rank;
  auto channels = static_cast<int64_t>(scales.size());
  AffineMap channelMap =
      AffineMap::get(rank, 0, b.getAffineDimExpr(axis), b.getContext());
  auto scaleType = RankedTensorType::get({channels}, b.getF32Type());
  params.scaleArg = params.inputs.size();
  params.inputs.push_back(arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scaleType, scales)));
  params.maps.push_back(channelMap);
  auto zeroPointTensorType = RankedTensorType::get({channels}, zeroPointType);
  SmallVector<APInt> points;
  for (int64_t point : zeroPoints)
    points.push_back(APInt(zeroPointType.getIntOrFloatBitWidth(), point,
                           /*isSigned=*/true));
  params.zeroPointArg = params.inputs.size();
  params.inputs.push_back(arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(zeroPointTensorType, points)));
  params.maps.push_back(channelMap);
  return params;
}

struct QuantizeLowering : OpConversionPattern<nn::QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type f32 = rewriter.getF32Type();
    QuantizationParameters params =
        parameters(rewriter, loc, type, adaptor.getInput(), op.getScales(),
                   op.getZeroPoints(), op.getAxis(), rewriter.getI8Type());
    Value result = elementwise(
        rewriter, loc, type, adaptor.getInput(), params.inputs, params.maps,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // ONNX QuantizeLinear: x / scale (a division, as ONNX and numpy
          // compute it, so that ties round alike), ties to even, then the
          // zero point, saturated. In f32: the sum is exact for the values
          // that do not saturate.
          Value scaled = arith::DivFOp::create(
              b, l, args[0], params.scaleIn(b, l, args));
          Value rounded = math::RoundEvenOp::create(b, l, scaled);
          Value zeroPoint = arith::SIToFPOp::create(
              b, l, f32, params.zeroPointIn(b, l, args, b.getI8Type()));
          Value shifted = arith::AddFOp::create(b, l, rounded, zeroPoint);
          // maxnumf/minnumf: a NaN input goes to the zero point's side
          // rather than to an undefined conversion.
          Value low = scalarConstant(b, l, f32, -128.0);
          Value high = scalarConstant(b, l, f32, 127.0);
          Value clamped = arith::MinNumFOp::create(
              b, l, arith::MaxNumFOp::create(b, l, shifted, low), high);
          return arith::FPToSIOp::create(b, l, b.getI8Type(), clamped);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DequantizeLowering : OpConversionPattern<nn::DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type integer = getElementTypeOrSelf(op.getInput().getType());
    QuantizationParameters params =
        parameters(rewriter, loc, type, adaptor.getInput(), op.getScales(),
                   op.getZeroPoints(), op.getAxis(), integer);
    Value result = elementwise(
        rewriter, loc, type, adaptor.getInput(), params.inputs, params.maps,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // The difference in i32 (i8's is widened first): exact for
          // every accumulator the quantized kernels produce.
          Type i32 = b.getI32Type();
          Value x = args[0];
          Value zeroPoint = params.zeroPointIn(b, l, args, integer);
          if (integer != i32) {
            x = arith::ExtSIOp::create(b, l, i32, x);
            zeroPoint = arith::ExtSIOp::create(b, l, i32, zeroPoint);
          }
          Value difference = arith::SubIOp::create(b, l, x, zeroPoint);
          Value real = arith::SIToFPOp::create(b, l, b.getF32Type(), difference);
          return arith::MulFOp::create(b, l, real, params.scaleIn(b, l, args));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNQuantizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<QuantizeLowering, DequantizeLowering>(patterns.getContext());
}
