//===- Reduction.cpp - nn.softmax / nn.log_softmax to linalg --------------===//
//
// Numerically stable form: m = max(x), s = sum(exp(x - m)), then
// exp(x - m) / s or x - m - log(s). Three generics over the input shape
// with the reduced axis dropped from the reduction results.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

/// A reduction over one axis of a `type` tensor: the axis (normalized; the
/// I64Attr getters return it unsigned), the shape and dims that remain, the
/// map reading them and the iterator types (the axis a reduction).
struct AxisReduction {
  int64_t axis;
  SmallVector<int64_t> keptShape, keptDims;
  AffineMap keptMap;
  SmallVector<utils::IteratorType> iterators;

  AxisReduction(RankedTensorType type, uint64_t attrAxis) {
    int64_t rank = type.getRank();
    axis = static_cast<int64_t>(attrAxis);
    if (axis < 0)
      axis += rank;
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d == axis)
        continue;
      keptShape.push_back(type.getDimSize(d));
      keptDims.push_back(d);
      exprs.push_back(getAffineDimExpr(d, type.getContext()));
    }
    keptMap = AffineMap::get(rank, 0, exprs, type.getContext());
  }
};

template <typename OpTy, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    AxisReduction r(type, op.getAxis());
    SmallVector<int64_t> &reducedSourceDims = r.keptDims;
    auto reducedType = RankedTensorType::get(r.keptShape, elementType);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reducedMap = r.keptMap;
    SmallVector<utils::IteratorType> &iterators = r.iterators;

    auto reduce = [&](Value init, ValueRange extraInputs,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
      SmallVector<Value> inputs = {input};
      inputs.append(extraInputs.begin(), extraInputs.end());
      SmallVector<AffineMap> maps = {identity};
      maps.append(extraInputs.size(), reducedMap);
      maps.push_back(reducedMap);
      return linalg::GenericOp::create(
                 rewriter, loc, reducedType, inputs, init, maps, iterators,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, body(b, l, args));
                 })
          .getResult(0);
    };

    Value maxInit = filledTensor(rewriter, loc, reducedType, input,
                                 lowestValue(rewriter, loc, elementType),
                                 reducedSourceDims);
    Value maxima = reduce(maxInit, {}, [](OpBuilder &b, Location l, ValueRange a) {
      return arith::MaximumFOp::create(b, l, a[0], a[1]).getResult();
    });
    Value sumInit = filledTensor(rewriter, loc, reducedType, input,
                                 scalarConstant(rewriter, loc, elementType, 0.0),
                                 reducedSourceDims);
    Value sums = reduce(sumInit, maxima, [](OpBuilder &b, Location l, ValueRange a) {
      Value shifted = arith::SubFOp::create(b, l, a[0], a[1]);
      return arith::AddFOp::create(b, l, math::ExpOp::create(b, l, shifted), a[2])
          .getResult();
    });
    Value result = elementwise(
        rewriter, loc, type, input, ValueRange{input, maxima, sums},
        {identity, reducedMap, reducedMap},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value shifted = arith::SubFOp::create(b, l, a[0], a[1]);
          if (IsLog)
            return arith::SubFOp::create(b, l, shifted,
                                         math::LogOp::create(b, l, a[2]));
          return arith::DivFOp::create(b, l, math::ExpOp::create(b, l, shifted),
                                       a[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// nn.reduce: one linalg.generic accumulating into the reduced shape (two
/// for log_sum_exp: the maximum first), an elementwise finish (mean's
/// division, l2's sqrt, the logs) and, with keepdims, an expand_shape.
/// nn.arg_max / nn.arg_min: one linalg.generic reducing the axis into a
/// (best value, its index) pair of outputs; the index output is the result
/// (reshaped to keep the axis with keepdims).
template <typename OpTy, bool IsMax>
struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    AxisReduction r(type, op.getAxis());
    int64_t axis = r.axis;
    ArrayRef<int64_t> keptShape = r.keptShape, keptDims = r.keptDims;
    Type i64 = rewriter.getI64Type();
    auto valueType = RankedTensorType::get(keptShape, elementType);
    auto indexType = RankedTensorType::get(keptShape, i64);
    Value start = IsMax ? lowestValue(rewriter, loc, elementType)
                        : highestValue(rewriter, loc, elementType);
    Value values = filledTensor(rewriter, loc, valueType, input, start, keptDims);
    Value indices = filledTensor(
        rewriter, loc, indexType, input,
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0)),
        keptDims);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   r.keptMap, r.keptMap};
    bool last = op.getSelectLastIndex();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, input,
        ValueRange{values, indices}, maps, r.iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value index = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          // Strictly better takes the first on ties; better or equal the
          // last. A NaN compares false: never taken.
          arith::CmpFPredicate predicate =
              IsMax ? (last ? arith::CmpFPredicate::OGE
                            : arith::CmpFPredicate::OGT)
                    : (last ? arith::CmpFPredicate::OLE
                            : arith::CmpFPredicate::OLT);
          Value better = arith::CmpFOp::create(b, l, predicate, x, best);
          // The first element always replaces the start value (which an
          // all -inf or +inf axis would otherwise never beat).
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, index,
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)));
          Value take = arith::OrIOp::create(
              b, l, better,
              arith::AndIOp::create(
                  b, l, first,
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, x, x)));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, best),
                         arith::SelectOp::create(b, l, take, index, bestIndex)});
        });
    Value result = generic.getResult(1);
    auto resultType = cast<RankedTensorType>(op.getType());
    if (resultType != indexType) {
      // keepdims: the axis comes back as size 1.
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(indexType, resultType);
      if (!groups)
        return rewriter.notifyMatchFailure(op, "no reassociation for keepdims");
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             *groups);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ReduceLowering : OpConversionPattern<nn::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<bool> reduced(rank, false);
    for (int64_t axis : op.getAxes())
      reduced[axis < 0 ? axis + rank : axis] = true;

    SmallVector<int64_t> reducedShape;
    SmallVector<AffineExpr> reducedExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(reduced[d] ? utils::IteratorType::reduction
                                     : utils::IteratorType::parallel);
      if (reduced[d])
        continue;
      reducedShape.push_back(type.getDimSize(d));
      reducedExprs.push_back(getAffineDimExpr(d, ctx));
    }
    auto reducedType = RankedTensorType::get(reducedShape, elementType);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reducedMap = AffineMap::get(rank, 0, reducedExprs, ctx);
    SmallVector<int64_t> keptDims;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        keptDims.push_back(d);

    auto accumulate =
        [&](Value init, ValueRange extra,
            function_ref<Value(OpBuilder &, Location, Value, Value, ValueRange)>
                body) {
          SmallVector<Value> inputs = {input};
          inputs.append(extra.begin(), extra.end());
          SmallVector<AffineMap> maps = {identity};
          maps.append(extra.size(), reducedMap);
          maps.push_back(reducedMap);
          Value filled = filledTensor(rewriter, loc, reducedType, input, init,
                                      keptDims);
          return linalg::GenericOp::create(
                     rewriter, loc, reducedType, inputs, filled, maps,
                     iterators,
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value r = body(b, l, args[0], args.back(),
                                      args.drop_front().drop_back());
                       linalg::YieldOp::create(b, l, r);
                     })
              .getResult(0);
        };
    auto finish = [&](Value acc, ValueRange extra,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
      SmallVector<Value> inputs = {acc};
      inputs.append(extra.begin(), extra.end());
      AffineMap same = rewriter.getMultiDimIdentityMap(reducedType.getRank());
      SmallVector<AffineMap> maps(inputs.size(), same);
      return elementwise(rewriter, loc, reducedType, acc, inputs, maps, fn);
    };

    Value zero = scalarConstant(rewriter, loc, elementType, 0.0);
    Value result;
    switch (op.getKind()) {
    case nn::ReduceKind::Sum:
    case nn::ReduceKind::Mean:
    case nn::ReduceKind::LogSum:
      result = accumulate(zero, {}, [](OpBuilder &b, Location l, Value x,
                                       Value acc, ValueRange) {
        return arith::AddFOp::create(b, l, acc, x).getResult();
      });
      break;
    case nn::ReduceKind::Max:
      result = accumulate(lowestValue(rewriter, loc, elementType), {},
                          [](OpBuilder &b, Location l, Value x, Value acc,
                             ValueRange) {
                            return arith::MaximumFOp::create(b, l, acc, x)
                                .getResult();
                          });
      break;
    case nn::ReduceKind::Min:
      result = accumulate(highestValue(rewriter, loc, elementType), {},
                          [](OpBuilder &b, Location l, Value x, Value acc,
                             ValueRange) {
                            return arith::MinimumFOp::create(b, l, acc, x)
                                .getResult();
                          });
      break;
    case nn::ReduceKind::Prod:
      result = accumulate(scalarConstant(rewriter, loc, elementType, 1.0), {},
                          [](OpBuilder &b, Location l, Value x, Value acc,
                             ValueRange) {
                            return arith::MulFOp::create(b, l, acc, x)
                                .getResult();
                          });
      break;
    case nn::ReduceKind::L1:
      result = accumulate(zero, {}, [](OpBuilder &b, Location l, Value x,
                                       Value acc, ValueRange) {
        return arith::AddFOp::create(b, l, acc, math::AbsFOp::create(b, l, x))
            .getResult();
      });
      break;
    case nn::ReduceKind::L2:
    case nn::ReduceKind::SumSquare:
      result = accumulate(zero, {}, [](OpBuilder &b, Location l, Value x,
                                       Value acc, ValueRange) {
        return math::FmaOp::create(b, l, x, x, acc).getResult();
      });
      break;
    case nn::ReduceKind::LogSumExp: {
      Value max = accumulate(lowestValue(rewriter, loc, elementType), {},
                             [](OpBuilder &b, Location l, Value x, Value acc,
                                ValueRange) {
                               return arith::MaximumFOp::create(b, l, acc, x)
                                   .getResult();
                             });
      Value sum = accumulate(zero, max, [](OpBuilder &b, Location l, Value x,
                                           Value acc, ValueRange extra) {
        Value shifted = arith::SubFOp::create(b, l, x, extra[0]);
        return arith::AddFOp::create(b, l, acc,
                                     math::ExpOp::create(b, l, shifted))
            .getResult();
      });
      result = finish(sum, max, [](OpBuilder &b, Location l, ValueRange args) {
        return arith::AddFOp::create(b, l, math::LogOp::create(b, l, args[0]),
                                     args[1])
            .getResult();
      });
      break;
    }
    }
    switch (op.getKind()) {
    case nn::ReduceKind::Mean: {
      SmallVector<int64_t> reducedDims;
      for (int64_t d = 0; d < rank; ++d)
        if (reduced[d])
          reducedDims.push_back(d);
      Value divisor =
          elementCount(rewriter, loc, input, reducedDims, elementType);
      result = finish(result, {}, [&](OpBuilder &b, Location l, ValueRange args) {
        return arith::DivFOp::create(b, l, args[0], divisor).getResult();
      });
      break;
    }
    case nn::ReduceKind::L2:
      result = finish(result, {}, [](OpBuilder &b, Location l, ValueRange args) {
        return math::SqrtOp::create(b, l, args[0]).getResult();
      });
      break;
    case nn::ReduceKind::LogSum:
      result = finish(result, {}, [](OpBuilder &b, Location l, ValueRange args) {
        return math::LogOp::create(b, l, args[0]).getResult();
      });
      break;
    default:
      break;
    }
    if (op.getKeepdims()) {
      // Each kept dimension groups with the reduced (size 1) ones just
      // before it; trailing reduced ones join the last kept dimension.
      auto resultType = cast<RankedTensorType>(op.getType());
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t d = 0; d < rank; ++d) {
        pending.push_back(d);
        if (!reduced[d]) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!pending.empty()) {
        if (groups.empty())
          groups.push_back({});
        groups.back().append(pending.begin(), pending.end());
      }
      if (reducedType.getRank() == 0)
        groups.clear();
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             groups);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// nn.layer_norm: the normalized dims collapsed into one row (static), then
/// the row sum, the sum of squared deviations from its mean (two passes:
/// no cancellation as in E[x^2] - E[x]^2), and one elementwise pass
/// (x - mean) * rsqrt(var + eps) * scale + bias, in the input's type (bf16
/// and f16 arrive widened to f32 by widenHalfFloatArithmetic). The
/// reductions run along the contiguous row, which dlas-vectorize-reductions
/// turns into vector accumulators.
struct LayerNormLowering : OpConversionPattern<nn::LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    int64_t axis = op.getNormalizedAxis();
    ArrayRef<int64_t> normalized = type.getShape().drop_front(axis);
    if (normalized.size() > 1 &&
        llvm::any_of(normalized, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(
          op, "several dynamic normalized dimensions");
    // [outer..., N]: the normalized dims as one row.
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < axis; ++d)
      groups.push_back({d});
    ReassociationIndices trailing;
    for (int64_t d = axis; d < rank; ++d)
      trailing.push_back(d);
    groups.push_back(trailing);
    auto collapse = [&](Value v, ArrayRef<ReassociationIndices> g) {
      return tensor::CollapseShapeOp::create(rewriter, loc, v, g).getResult();
    };
    bool collapsed = normalized.size() > 1;
    Value rows = collapsed ? collapse(input, groups) : input;
    auto rowsType = cast<RankedTensorType>(rows.getType());
    int64_t rowsRank = rowsType.getRank();
    auto flat = [&](Value param) -> Value {
      if (!param || cast<RankedTensorType>(param.getType()).getRank() == 1)
        return param;
      ReassociationIndices all;
      for (int64_t d = 0; d < rank - axis; ++d)
        all.push_back(d);
      return collapse(param, {all});
    };
    Value scale = flat(adaptor.getScale()), bias = flat(adaptor.getBias());

    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rowsRank);
    SmallVector<AffineExpr> outerExprs;
    SmallVector<int64_t> outerDims;
    for (int64_t d = 0; d < rowsRank - 1; ++d) {
      outerExprs.push_back(getAffineDimExpr(d, ctx));
      outerDims.push_back(d);
    }
    AffineMap rowMap = AffineMap::get(rowsRank, 0, outerExprs, ctx);
    AffineMap columnMap =
        AffineMap::get(rowsRank, 0, getAffineDimExpr(rowsRank - 1, ctx), ctx);
    SmallVector<utils::IteratorType> reduction(rowsRank,
                                               utils::IteratorType::parallel);
    reduction.back() = utils::IteratorType::reduction;
    auto statsType =
        RankedTensorType::get(rowsType.getShape().drop_back(), elementType);
    Value zero = scalarConstant(rewriter, loc, elementType, 0.0);
    Value count =
        elementCount(rewriter, loc, rows, {rowsRank - 1}, elementType);
    Value inverseCount = arith::DivFOp::create(
        rewriter, loc, scalarConstant(rewriter, loc, elementType, 1.0), count);
    auto rowReduction =
        [&](ValueRange extra,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
          SmallVector<Value> inputs = {rows};
          inputs.append(extra.begin(), extra.end());
          SmallVector<AffineMap> maps = {identity};
          maps.append(extra.size(), rowMap);
          maps.push_back(rowMap);
          Value init =
              filledTensor(rewriter, loc, statsType, rows, zero, outerDims);
          return linalg::GenericOp::create(
                     rewriter, loc, statsType, inputs, init, maps, reduction,
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       linalg::YieldOp::create(b, l, body(b, l, args));
                     })
              .getResult(0);
        };
    Value sums = rowReduction({}, [&](OpBuilder &b, Location l, ValueRange a) {
      return arith::AddFOp::create(b, l, a[1], a[0]).getResult();
    });
    Value squares =
        rowReduction(sums, [&](OpBuilder &b, Location l, ValueRange a) {
          Value mean = arith::MulFOp::create(b, l, a[1], inverseCount);
          Value d = arith::SubFOp::create(b, l, a[0], mean);
          return math::FmaOp::create(b, l, d, d, a[2]).getResult();
        });
    Value epsilon = scalarConstant(rewriter, loc, elementType,
                                   op.getEpsilon().convertToDouble());
    SmallVector<Value> inputs = {rows, sums, squares};
    SmallVector<AffineMap> maps = {identity, rowMap, rowMap};
    if (scale) {
      inputs.push_back(scale);
      maps.push_back(columnMap);
    }
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(columnMap);
    }
    Value result = elementwise(
        rewriter, loc, rowsType, rows, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value mean = arith::MulFOp::create(b, l, a[1], inverseCount);
          Value variance = arith::MulFOp::create(b, l, a[2], inverseCount);
          Value inverse = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, variance, epsilon));
          Value y = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], mean), inverse);
          unsigned next = 3;
          if (scale)
            y = arith::MulFOp::create(b, l, y, a[next++]);
          if (bias)
            y = arith::AddFOp::create(b, l, y, a[next++]);
          return y;
        });
    if (collapsed)
      result =
          tensor::ExpandShapeOp::create(rewriter, loc, type, result, groups);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ArgReduceLowering<nn::ArgMaxOp, true>,
               ArgReduceLowering<nn::ArgMinOp, false>,
               SoftmaxLowering<nn::SoftmaxOp, false>,
               SoftmaxLowering<nn::LogSoftmaxOp, true>, ReduceLowering,
               LayerNormLowering>(patterns.getContext());
}
