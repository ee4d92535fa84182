//===- TopK.cpp - nn.top_k to scf loops over tensors ----------------------===//
//
// TopK as k selection passes per row: pass j picks the best element that
// ranks after the one pass j - 1 picked, in the order (value, best first;
// then lower index first). That order is total, so no element is picked
// twice and ties come out by index, without a mask or a sort buffer:
// O(n k) compares per row, no extra memory. Detection and classification
// heads take k of 1 to a few hundred; a heap for large k is left for
// when a model needs it.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

/// Whether (aValue, aIndex) ranks before (bValue, bIndex).
Value ranksBefore(OpBuilder &b, Location loc, bool largest, Value aValue,
                  Value aIndex, Value bValue, Value bIndex) {
  Value better, equal;
  if (isa<FloatType>(aValue.getType())) {
    better = arith::CmpFOp::create(
        b, loc, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        aValue, bValue);
    equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, aValue,
                                  bValue);
  } else {
    better = arith::CmpIOp::create(
        b, loc, largest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
        aValue, bValue);
    equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, aValue,
                                  bValue);
  }
  Value lowerIndex =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, aIndex, bIndex);
  return arith::OrIOp::create(b, loc, better,
                              arith::AndIOp::create(b, loc, equal, lowerIndex));
}

/// The loop nest of one nn.top_k.
struct TopKBuilder {
  bool largest;
  int64_t axis, k;
  Value input, axisSize;

  /// Loops over outer dimension `level` and those after it, then the
  /// selection passes; returns the updated (values, indices).
  SmallVector<Value> buildOuter(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> dims, ArrayRef<Value> bounds,
                                size_t level, SmallVector<Value> &ivs,
                                ValueRange results) {
    if (level == dims.size())
      return buildSelection(b, loc, ivs, results);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, zero, bounds[level], one, results,
        [&](OpBuilder &nb, Location l, Value iv, ValueRange iter) {
          ivs[dims[level]] = iv;
          SmallVector<Value> updated =
              buildOuter(nb, l, dims, bounds, level + 1, ivs, iter);
          scf::YieldOp::create(nb, l, updated);
        });
    return loop.getResults();
  }

  /// The k passes over one row (`ivs` with the axis left open).
  SmallVector<Value> buildSelection(OpBuilder &b, Location loc,
                                    SmallVector<Value> &ivs,
                                    ValueRange results) {
    Type element = cast<RankedTensorType>(input.getType()).getElementType();
    Type i64 = b.getI64Type();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value kBound = arith::ConstantIndexOp::create(b, loc, k);
    SmallVector<Value> init = {results[0], results[1],
                               scalarConstant(b, loc, element, 0),
                               scalarConstant(b, loc, i64, -1)};
    auto passes = scf::ForOp::create(
        b, loc, zero, kBound, one, init,
        [&](OpBuilder &pb, Location l, Value j, ValueRange pass) {
          Value prevValue = pass[2], prevIndex = pass[3];
          Value firstPass =
              arith::CmpIOp::create(pb, l, arith::CmpIPredicate::eq, j, zero);
          SmallVector<Value> best = {scalarConstant(pb, l, element, 0),
                                     scalarConstant(pb, l, i64, 0),
                                     scalarConstant(pb, l, pb.getI1Type(), 0)};
          auto scan = scf::ForOp::create(
              pb, l, zero, axisSize, one, best,
              [&](OpBuilder &sb, Location sl, Value i, ValueRange cur) {
                SmallVector<Value> at(ivs);
                at[axis] = i;
                Value x = tensor::ExtractOp::create(sb, sl, input, at);
                Value xIndex = arith::IndexCastOp::create(sb, sl, i64, i);
                Value afterPrev = arith::OrIOp::create(
                    sb, sl, firstPass,
                    ranksBefore(sb, sl, largest, prevValue, prevIndex, x,
                                xIndex));
                Value noBest = arith::XOrIOp::create(
                    sb, sl, cur[2], scalarConstant(sb, sl, sb.getI1Type(), 1));
                Value better = arith::OrIOp::create(
                    sb, sl, noBest,
                    ranksBefore(sb, sl, largest, x, xIndex, cur[0],
                                cur[1]));
                Value take = arith::AndIOp::create(sb, sl, afterPrev, better);
                scf::YieldOp::create(
                    sb, sl,
                    ValueRange{
                        arith::SelectOp::create(sb, sl, take, x, cur[0]),
                        arith::SelectOp::create(sb, sl, take, xIndex, cur[1]),
                        arith::OrIOp::create(sb, sl, cur[2], take)});
              });
          SmallVector<Value> at(ivs);
          at[axis] = j;
          Value values = tensor::InsertOp::create(pb, l, scan.getResult(0),
                                                  pass[0], at);
          Value indices = tensor::InsertOp::create(pb, l, scan.getResult(1),
                                                   pass[1], at);
          scf::YieldOp::create(pb, l,
                               ValueRange{values, indices, scan.getResult(0),
                                          scan.getResult(1)});
        });
    return {passes.getResult(0), passes.getResult(1)};
  }
};

struct TopKLowering : OpConversionPattern<nn::TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    Value values = emptyTensor(rewriter, loc, valuesType, input);
    Value indices = emptyTensor(rewriter, loc, indicesType, input);

    // Bounds of the loops over every dimension but `axis`.
    SmallVector<int64_t> outerDims;
    SmallVector<Value> outerBounds;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      outerDims.push_back(d);
      outerBounds.push_back(
          getValueOrCreateConstantIndexOp(
              rewriter, loc, tensor::getMixedSize(rewriter, loc, input, d)));
    }
    Value axisSize = getValueOrCreateConstantIndexOp(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, input, axis));
    TopKBuilder builder{op.getLargest(), axis, (int64_t)op.getK(), input,
                        axisSize};
    SmallVector<Value> ivs(rank);
    SmallVector<Value> results = builder.buildOuter(
        rewriter, loc, outerDims, outerBounds, 0, ivs, {values, indices});
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNTopKToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TopKLowering>(patterns.getContext());
}
