//===- Logic.cpp - comparisons, boolean logic, select and casts to linalg -===//
//
// Each op becomes one all-parallel linalg.generic over the broadcast
// result, like the arithmetic ones: upstream elementwise fusion merges a
// compare with the select that reads it.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

Value compareBody(OpBuilder &b, Location loc, nn::ComparePredicate predicate,
                  Value lhs, Value rhs) {
  using P = nn::ComparePredicate;
  if (isa<FloatType>(lhs.getType())) {
    // Ordered, so that a NaN compares false; "not equal" is unordered, so
    // that it is true.
    arith::CmpFPredicate fp;
    switch (predicate) {
    case P::Eq: fp = arith::CmpFPredicate::OEQ; break;
    case P::Ne: fp = arith::CmpFPredicate::UNE; break;
    case P::Lt: fp = arith::CmpFPredicate::OLT; break;
    case P::Le: fp = arith::CmpFPredicate::OLE; break;
    case P::Gt: fp = arith::CmpFPredicate::OGT; break;
    case P::Ge: fp = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(b, loc, fp, lhs, rhs);
  }
  arith::CmpIPredicate ip;
  switch (predicate) {
  case P::Eq: ip = arith::CmpIPredicate::eq; break;
  case P::Ne: ip = arith::CmpIPredicate::ne; break;
  case P::Lt: ip = arith::CmpIPredicate::slt; break;
  case P::Le: ip = arith::CmpIPredicate::sle; break;
  case P::Gt: ip = arith::CmpIPredicate::sgt; break;
  case P::Ge: ip = arith::CmpIPredicate::sge; break;
  }
  return arith::CmpIOp::create(b, loc, ip, lhs, rhs);
}

struct CompareLowering : OpConversionPattern<nn::CompareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    nn::ComparePredicate predicate = op.getPredicate();
    Value result = broadcastElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return compareBody(b, l, predicate, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LogicalLowering : OpConversionPattern<nn::LogicalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::LogicalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    nn::LogicalKind kind = op.getKind();
    Value result = broadcastElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          switch (kind) {
          case nn::LogicalKind::And:
            return arith::AndIOp::create(b, l, args[0], args[1]);
          case nn::LogicalKind::Or:
            return arith::OrIOp::create(b, l, args[0], args[1]);
          case nn::LogicalKind::Xor:
            return arith::XOrIOp::create(b, l, args[0], args[1]);
          }
          llvm_unreachable("unknown nn.logical kind");
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct NotLowering : OpConversionPattern<nn::NotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::NotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = broadcastElementwise(
        rewriter, op.getLoc(), type, ValueRange{adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value trueValue = scalarConstant(b, l, b.getI1Type(), 1);
          return arith::XOrIOp::create(b, l, args[0], trueValue);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SelectLowering : OpConversionPattern<nn::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = broadcastElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getCondition(), adaptor.getTrueValue(),
                   adaptor.getFalseValue()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return arith::SelectOp::create(b, l, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// One element converted from its type to `to` (nn.cast's rules): upstream's
/// scalar conversion, but for what ONNX defines otherwise.
Value castScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (to.isInteger(1)) {
    // Any non-zero value (and NaN, as numpy's bool(nan)) is true; upstream
    // would truncate to the lowest bit.
    Value zero = scalarConstant(b, loc, from, 0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  // f16 <-> bf16 (same width, neither holds the other): through f32,
  // which holds both exactly.
  if (from != to && isa<FloatType>(from) && isa<FloatType>(to) &&
      from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  // Booleans convert unsigned (true is 1), other integers signed.
  return convertScalarToDtype(b, loc, x, to,
                              /*isUnsignedCast=*/from.isInteger(1));
}

struct CastLowering : OpConversionPattern<nn::CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type to = type.getElementType();
    Value result = elementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        ValueRange{adaptor.getInput()},
        {rewriter.getMultiDimIdentityMap(type.getRank())},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return castScalar(b, l, args[0], to);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNLogicToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<CompareLowering, LogicalLowering, NotLowering, SelectLowering,
               CastLowering>(patterns.getContext());
}
