//===- Pointwise.cpp - nn elementwise ops and batch norm to linalg --------===//
//
// Elementwise ops become one all-parallel linalg.generic each, so that
// upstream elementwise fusion and the codegen strategy treat them alike.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

using ScalarFn = function_ref<Value(OpBuilder &, Location, Value)>;

Value unaryGeneric(OpBuilder &b, Location loc, Value input, ScalarFn fn) {
  auto type = cast<RankedTensorType>(input.getType());
  return elementwise(b, loc, type, input, input,
                     b.getMultiDimIdentityMap(type.getRank()),
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return fn(nb, l, args[0]);
                     });
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = scalarConstant(b, loc, x.getType(), 1.0);
  Value negX = arith::NegFOp::create(b, loc, x);
  Value denom = arith::AddFOp::create(b, loc, one, math::ExpOp::create(b, loc, negX));
  return arith::DivFOp::create(b, loc, one, denom);
}

Value clamp(OpBuilder &b, Location loc, Value x, double lo, double hi) {
  Value low = scalarConstant(b, loc, x.getType(), lo);
  Value high = scalarConstant(b, loc, x.getType(), hi);
  return arith::MinimumFOp::create(b, loc,
                                   arith::MaximumFOp::create(b, loc, x, low),
                                   high);
}

/// Lowers a unary nn op with `fn` applied to every element.
template <typename OpTy>
struct UnaryLowering : OpConversionPattern<OpTy> {
  using Fn = Value (*)(OpBuilder &, Location, Value, OpTy);
  UnaryLowering(MLIRContext *ctx, Fn fn)
      : OpConversionPattern<OpTy>(ctx), fn(fn) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = unaryGeneric(
        rewriter, op.getLoc(), adaptor.getInput(),
        [&](OpBuilder &b, Location l, Value x) { return fn(b, l, x, op); });
    rewriter.replaceOp(op, result);
    return success();
  }
  Fn fn;
};

Value reluBody(OpBuilder &b, Location loc, Value x, nn::ReluOp) {
  Value zero = scalarConstant(b, loc, x.getType(), 0.0);
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, zero);
  return arith::MaxSIOp::create(b, loc, x, zero);
}
Value relu6Body(OpBuilder &b, Location loc, Value x, nn::Relu6Op) {
  return clamp(b, loc, x, 0.0, 6.0);
}
Value clipBody(OpBuilder &b, Location loc, Value x, nn::ClipOp op) {
  return clamp(b, loc, x, op.getMin().convertToDouble(),
               op.getMax().convertToDouble());
}
Value leakyReluBody(OpBuilder &b, Location loc, Value x, nn::LeakyReluOp op) {
  Value zero = scalarConstant(b, loc, x.getType(), 0.0);
  Value alpha =
      scalarConstant(b, loc, x.getType(), op.getAlpha().convertToDouble());
  Value isPositive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, zero);
  return arith::SelectOp::create(b, loc, isPositive, x,
                                 arith::MulFOp::create(b, loc, alpha, x));
}
Value sigmoidBody(OpBuilder &b, Location loc, Value x, nn::SigmoidOp) {
  return sigmoid(b, loc, x);
}
Value tanhBody(OpBuilder &b, Location loc, Value x, nn::TanhOp) {
  return math::TanhOp::create(b, loc, x);
}
Value siluBody(OpBuilder &b, Location loc, Value x, nn::SiluOp) {
  return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
}
Value geluBody(OpBuilder &b, Location loc, Value x, nn::GeluOp op) {
  Type t = x.getType();
  Value half = scalarConstant(b, loc, t, 0.5);
  Value one = scalarConstant(b, loc, t, 1.0);
  Value inner;
  if (op.getApproximate() == nn::GeluApproximation::Tanh) {
    // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
    Value x3 = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value poly = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, scalarConstant(b, loc, t, 0.044715), x3));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(
            b, loc, scalarConstant(b, loc, t, 0.7978845608028654), poly));
  } else {
    // erf(x / sqrt(2))
    inner = math::ErfOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x,
                              scalarConstant(b, loc, t, 0.7071067811865476)));
  }
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, half, x),
      arith::AddFOp::create(b, loc, one, inner));
}

Value expBody(OpBuilder &b, Location loc, Value x, nn::ExpOp) {
  return math::ExpOp::create(b, loc, x);
}
Value logBody(OpBuilder &b, Location loc, Value x, nn::LogOp) {
  return math::LogOp::create(b, loc, x);
}
Value sqrtBody(OpBuilder &b, Location loc, Value x, nn::SqrtOp) {
  return math::SqrtOp::create(b, loc, x);
}
Value absBody(OpBuilder &b, Location loc, Value x, nn::AbsOp) {
  return math::AbsFOp::create(b, loc, x);
}
Value negBody(OpBuilder &b, Location loc, Value x, nn::NegOp) {
  return arith::NegFOp::create(b, loc, x);
}
Value erfBody(OpBuilder &b, Location loc, Value x, nn::ErfOp) {
  return math::ErfOp::create(b, loc, x);
}
Value reciprocalBody(OpBuilder &b, Location loc, Value x, nn::ReciprocalOp) {
  return arith::DivFOp::create(b, loc, scalarConstant(b, loc, x.getType(), 1.0),
                               x);
}
Value floorBody(OpBuilder &b, Location loc, Value x, nn::FloorOp) {
  return math::FloorOp::create(b, loc, x);
}
Value ceilBody(OpBuilder &b, Location loc, Value x, nn::CeilOp) {
  return math::CeilOp::create(b, loc, x);
}
Value roundBody(OpBuilder &b, Location loc, Value x, nn::RoundOp) {
  return math::RoundEvenOp::create(b, loc, x);
}
Value sinBody(OpBuilder &b, Location loc, Value x, nn::SinOp) {
  return math::SinOp::create(b, loc, x);
}
Value cosBody(OpBuilder &b, Location loc, Value x, nn::CosOp) {
  return math::CosOp::create(b, loc, x);
}
/// The math op of the same name; those without an LLVM intrinsic become
/// libm calls (convert-math-to-libm), as erf does.
template <typename MathOp, typename OpTy>
Value mathBody(OpBuilder &b, Location loc, Value x, OpTy) {
  return MathOp::create(b, loc, x);
}
/// 1 above zero, -1 below, x itself otherwise: zeros (of either sign) and
/// NaN pass through, as in ONNX Sign.
Value signBody(OpBuilder &b, Location loc, Value x, nn::SignOp) {
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0.0);
  Value one = scalarConstant(b, loc, t, 1.0);
  Value minusOne = scalarConstant(b, loc, t, -1.0);
  Value positive, negative;
  if (isa<FloatType>(t)) {
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  }
  return arith::SelectOp::create(
      b, loc, positive, one,
      arith::SelectOp::create(b, loc, negative, minusOne, x));
}
/// log(1 + exp(x)) without overflow for large x: max(x, 0) +
/// log1p(exp(-|x|)).
Value softplus(OpBuilder &b, Location loc, Value x) {
  Value zero = scalarConstant(b, loc, x.getType(), 0.0);
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  return arith::AddFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, zero),
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs)));
}
Value softplusBody(OpBuilder &b, Location loc, Value x, nn::SoftplusOp) {
  return softplus(b, loc, x);
}
Value softsignBody(OpBuilder &b, Location loc, Value x, nn::SoftsignOp) {
  Value one = scalarConstant(b, loc, x.getType(), 1.0);
  return arith::DivFOp::create(
      b, loc, x,
      arith::AddFOp::create(b, loc, one, math::AbsFOp::create(b, loc, x)));
}
/// min(max(alpha * x + beta, 0), 1).
Value hardSigmoid(OpBuilder &b, Location loc, Value x, double alpha,
                  double beta) {
  Value scaled = arith::AddFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, scalarConstant(b, loc, x.getType(), alpha),
                            x),
      scalarConstant(b, loc, x.getType(), beta));
  return clamp(b, loc, scaled, 0.0, 1.0);
}
Value hardSigmoidBody(OpBuilder &b, Location loc, Value x,
                      nn::HardSigmoidOp op) {
  return hardSigmoid(b, loc, x, op.getAlpha().convertToDouble(),
                     op.getBeta().convertToDouble());
}
Value hardSwishBody(OpBuilder &b, Location loc, Value x, nn::HardSwishOp) {
  return arith::MulFOp::create(b, loc, x,
                               hardSigmoid(b, loc, x, 1.0 / 6.0, 0.5));
}
Value mishBody(OpBuilder &b, Location loc, Value x, nn::MishOp) {
  return arith::MulFOp::create(b, loc, x,
                               math::TanhOp::create(b, loc, softplus(b, loc, x)));
}
/// x if x > 0 else alpha * (exp(x) - 1); expm1 keeps small |x| exact.
Value elu(OpBuilder &b, Location loc, Value x, double alpha) {
  Value zero = scalarConstant(b, loc, x.getType(), 0.0);
  Value isPositive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
  Value negative = arith::MulFOp::create(
      b, loc, scalarConstant(b, loc, x.getType(), alpha),
      math::ExpM1Op::create(b, loc, x));
  return arith::SelectOp::create(b, loc, isPositive, x, negative);
}
Value eluBody(OpBuilder &b, Location loc, Value x, nn::EluOp op) {
  return elu(b, loc, x, op.getAlpha().convertToDouble());
}
Value seluBody(OpBuilder &b, Location loc, Value x, nn::SeluOp op) {
  return arith::MulFOp::create(
      b, loc, scalarConstant(b, loc, x.getType(), op.getGamma().convertToDouble()),
      elu(b, loc, x, op.getAlpha().convertToDouble()));
}

/// Broadcasting binary op with a float and an integer scalar body.
template <typename OpTy, typename FloatOp, typename IntOp>
struct BinaryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    bool isFloat = isa<FloatType>(resultType.getElementType());
    Value result = broadcastElementwise(
        rewriter, op.getLoc(), resultType,
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          if (isFloat)
            return FloatOp::create(b, l, args[0], args[1]);
          if constexpr (std::is_same_v<IntOp, arith::DivSIOp>)
            return safeDivSI(b, l, args[0], args[1]);
          else
            return IntOp::create(b, l, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// fmod: the sign of the dividend (LLVM's frem is C's fmod); otherwise
/// the sign of the divisor, as Python's %.
Value modBody(OpBuilder &b, Location loc, Value lhs, Value rhs, bool fmod) {
  if (isa<FloatType>(lhs.getType()))
    return arith::RemFOp::create(b, loc, lhs, rhs);
  Value rem = safeRemSI(b, loc, lhs, rhs);
  if (fmod)
    return rem;
  Value zero = scalarConstant(b, loc, lhs.getType(), 0);
  Value nonZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rem, zero);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rhs, zero));
  Value adjust = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
  return arith::SelectOp::create(b, loc, adjust,
                                 arith::AddIOp::create(b, loc, rem, rhs), rem);
}

struct ModLowering : OpConversionPattern<nn::ModOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ModOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool fmod = op.getFmod();
    Value result = broadcastElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return modBody(b, l, args[0], args[1], fmod);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Inference batch norm as y = x * a + c with a = scale / sqrt(var + eps)
/// and c = bias - mean * a computed once per channel (or per activation).
struct BatchNormLowering : OpConversionPattern<nn::BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto paramType = cast<RankedTensorType>(adaptor.getScale().getType());
    Type elementType = paramType.getElementType();
    double epsilon = op.getEpsilon().convertToDouble();
    AffineMap identity = rewriter.getMultiDimIdentityMap(paramType.getRank());
    SmallVector<AffineMap> paramMaps(4, identity);
    Value multiplier = elementwise(
        rewriter, loc, paramType, Value(),
        ValueRange{adaptor.getScale(), adaptor.getVariance()},
        {identity, identity}, [&](OpBuilder &b, Location l, ValueRange args) {
          Value eps = scalarConstant(b, l, elementType, epsilon);
          Value stddev =
              math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, args[1], eps));
          return arith::DivFOp::create(b, l, args[0], stddev).getResult();
        });
    Value shift = elementwise(
        rewriter, loc, paramType, Value(),
        ValueRange{adaptor.getBias(), adaptor.getMean(), multiplier},
        {identity, identity, identity},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return arith::SubFOp::create(
                     b, l, args[0], arith::MulFOp::create(b, l, args[1], args[2]))
              .getResult();
        });
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    MLIRContext *ctx = rewriter.getContext();
    // Parameters are indexed by c (spatial) or by (c, h, w).
    AffineMap paramMap =
        op.getMode() == nn::BatchNormMode::Spatial
            ? AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx)
            : AffineMap::get(4, 0,
                             {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx),
                              getAffineDimExpr(3, ctx)},
                             ctx);
    Value result = elementwise(
        rewriter, loc, inputType, adaptor.getInput(),
        ValueRange{adaptor.getInput(), multiplier, shift},
        {rewriter.getMultiDimIdentityMap(4), paramMap, paramMap},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return arith::AddFOp::create(
                     b, l, arith::MulFOp::create(b, l, args[0], args[1]), args[2])
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNPointwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<UnaryLowering<nn::ReluOp>>(ctx, reluBody);
  patterns.add<UnaryLowering<nn::Relu6Op>>(ctx, relu6Body);
  patterns.add<UnaryLowering<nn::ClipOp>>(ctx, clipBody);
  patterns.add<UnaryLowering<nn::LeakyReluOp>>(ctx, leakyReluBody);
  patterns.add<UnaryLowering<nn::SigmoidOp>>(ctx, sigmoidBody);
  patterns.add<UnaryLowering<nn::TanhOp>>(ctx, tanhBody);
  patterns.add<UnaryLowering<nn::SiluOp>>(ctx, siluBody);
  patterns.add<UnaryLowering<nn::GeluOp>>(ctx, geluBody);
  patterns.add<UnaryLowering<nn::ExpOp>>(ctx, expBody);
  patterns.add<UnaryLowering<nn::LogOp>>(ctx, logBody);
  patterns.add<UnaryLowering<nn::SqrtOp>>(ctx, sqrtBody);
  patterns.add<UnaryLowering<nn::AbsOp>>(ctx, absBody);
  patterns.add<UnaryLowering<nn::NegOp>>(ctx, negBody);
  patterns.add<UnaryLowering<nn::ErfOp>>(ctx, erfBody);
  patterns.add<UnaryLowering<nn::ReciprocalOp>>(ctx, reciprocalBody);
  patterns.add<UnaryLowering<nn::FloorOp>>(ctx, floorBody);
  patterns.add<UnaryLowering<nn::CeilOp>>(ctx, ceilBody);
  patterns.add<UnaryLowering<nn::RoundOp>>(ctx, roundBody);
  patterns.add<UnaryLowering<nn::SinOp>>(ctx, sinBody);
  patterns.add<UnaryLowering<nn::CosOp>>(ctx, cosBody);
  patterns.add<UnaryLowering<nn::TanOp>>(ctx, mathBody<math::TanOp, nn::TanOp>);
  patterns.add<UnaryLowering<nn::AsinOp>>(ctx,
                                          mathBody<math::AsinOp, nn::AsinOp>);
  patterns.add<UnaryLowering<nn::AcosOp>>(ctx,
                                          mathBody<math::AcosOp, nn::AcosOp>);
  patterns.add<UnaryLowering<nn::AtanOp>>(ctx,
                                          mathBody<math::AtanOp, nn::AtanOp>);
  patterns.add<UnaryLowering<nn::SinhOp>>(ctx,
                                          mathBody<math::SinhOp, nn::SinhOp>);
  patterns.add<UnaryLowering<nn::CoshOp>>(ctx,
                                          mathBody<math::CoshOp, nn::CoshOp>);
  patterns.add<UnaryLowering<nn::AsinhOp>>(
      ctx, mathBody<math::AsinhOp, nn::AsinhOp>);
  patterns.add<UnaryLowering<nn::AcoshOp>>(
      ctx, mathBody<math::AcoshOp, nn::AcoshOp>);
  patterns.add<UnaryLowering<nn::AtanhOp>>(
      ctx, mathBody<math::AtanhOp, nn::AtanhOp>);
  patterns.add<UnaryLowering<nn::SignOp>>(ctx, signBody);
  patterns.add<UnaryLowering<nn::SoftplusOp>>(ctx, softplusBody);
  patterns.add<UnaryLowering<nn::SoftsignOp>>(ctx, softsignBody);
  patterns.add<UnaryLowering<nn::HardSigmoidOp>>(ctx, hardSigmoidBody);
  patterns.add<UnaryLowering<nn::HardSwishOp>>(ctx, hardSwishBody);
  patterns.add<UnaryLowering<nn::MishOp>>(ctx, mishBody);
  patterns.add<UnaryLowering<nn::EluOp>>(ctx, eluBody);
  patterns.add<UnaryLowering<nn::SeluOp>>(ctx, seluBody);
  patterns.add<BinaryLowering<nn::AddOp, arith::AddFOp, arith::AddIOp>,
               BinaryLowering<nn::SubOp, arith::SubFOp, arith::SubIOp>,
               BinaryLowering<nn::MulOp, arith::MulFOp, arith::MulIOp>,
               BinaryLowering<nn::DivOp, arith::DivFOp, arith::DivSIOp>,
               BinaryLowering<nn::MaxOp, arith::MaximumFOp, arith::MaxSIOp>,
               BinaryLowering<nn::MinOp, arith::MinimumFOp, arith::MinSIOp>,
               BinaryLowering<nn::PowOp, math::PowFOp, math::IPowIOp>,
               ModLowering, BatchNormLowering>(ctx);
}
