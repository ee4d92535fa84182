//===- Recurrent.cpp - nn.lstm / nn.gru / nn.rnn to linalg and scf --------===//
//
// One direction of a recurrent layer becomes
//   - the input projection of every time step at once: one nn.linear
//     [seq * batch, input] x [gates * hidden, input]^T plus the input bias,
//     which the GEMM microkernel runs like any dense layer;
//   - an scf.for over time carrying the state, whose body is the recurrent
//     nn.linear ([batch, hidden] x [gates * hidden, hidden]^T plus the
//     recurrent bias) and one linalg.generic that applies the gates and
//     writes the new state and the step's output (GRU without
//     linear_before_reset needs r before its third product: two).
// The nn.linear ops made here are legalized by the same conversion. Weights
// that are constants are cut per direction and gate here, at compile time,
// so that the microkernels pack them as they pack any constant weight.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "DLAS/Support/ConstantData.h"
#include "Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

using nn::RnnActivation;

/// An ONNX recurrent activation function applied to a scalar.
Value activate(OpBuilder &b, Location loc, RnnActivation kind, double alpha,
               double beta, Value x) {
  auto c = [&](double v) { return scalarConstant(b, loc, x.getType(), v); };
  auto mul = [&](Value l, Value r) { return arith::MulFOp::create(b, loc, l, r); };
  auto add = [&](Value l, Value r) { return arith::AddFOp::create(b, loc, l, r); };
  auto isNegative = [&] {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0.0));
  };
  switch (kind) {
  case RnnActivation::Sigmoid:
    return arith::DivFOp::create(
        b, loc, c(1.0),
        add(c(1.0), math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x))));
  case RnnActivation::Tanh:
    return math::TanhOp::create(b, loc, x);
  case RnnActivation::Relu:
    return arith::MaximumFOp::create(b, loc, x, c(0.0));
  case RnnActivation::HardSigmoid:
    return arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, add(mul(c(alpha), x), c(beta)), c(0.0)),
        c(1.0));
  case RnnActivation::LeakyRelu:
    return arith::SelectOp::create(b, loc, isNegative(), mul(c(alpha), x), x);
  case RnnActivation::ThresholdedRelu: {
    Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(alpha));
    return arith::SelectOp::create(b, loc, above, x, c(0.0));
  }
  case RnnActivation::ScaledTanh:
    return mul(c(alpha), math::TanhOp::create(b, loc, mul(c(beta), x)));
  case RnnActivation::Affine:
    return add(mul(c(alpha), x), c(beta));
  case RnnActivation::Elu: {
    Value expm1 = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), c(1.0));
    return arith::SelectOp::create(b, loc, isNegative(), mul(c(alpha), expm1), x);
  }
  case RnnActivation::Softsign:
    return arith::DivFOp::create(b, loc, x, add(c(1.0), math::AbsFOp::create(b, loc, x)));
  case RnnActivation::Softplus: {
    // max(x, 0) + log1p(exp(-|x|)): no overflow for large x.
    Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
    return add(arith::MaximumFOp::create(b, loc, x, c(0.0)),
               math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs)));
  }
  }
  llvm_unreachable("unknown recurrent activation");
}

/// `count` consecutive rows from `first` of direction `d` of a
/// [D, rows, cols] or [D, rows] tensor, without the D dimension; a
/// constant is cut at compile time.
Value directionRows(OpBuilder &b, Location loc, Value source, int64_t d,
                    int64_t first, int64_t count) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape{count};
  int64_t rowElements = 1;
  if (type.getRank() == 3) {
    shape.push_back(type.getDimSize(2));
    rowElements = type.getDimSize(2);
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (type.hasStaticShape())
    if (Value constant = sliceConstant(
            b, loc, source, (d * type.getDimSize(1) + first) * rowElements,
            resultType, "dlas_recurrent_weights"))
      return constant;
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(d), b.getIndexAttr(first)};
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(count)};
  if (type.getRank() == 3) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(tensor::getMixedSize(b, loc, source, 2));
  }
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, resultType, source, offsets,
                                        sizes, strides);
}

/// Direction `d` of a [D, batch, hidden] state, as [batch, hidden].
Value directionState(OpBuilder &b, Location loc, Value state, int64_t d) {
  auto type = cast<RankedTensorType>(state.getType());
  auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                          type.getElementType());
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(d), b.getIndexAttr(0),
                                    b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                  tensor::getMixedSize(b, loc, state, 1),
                                  tensor::getMixedSize(b, loc, state, 2)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, resultType, state, offsets,
                                        sizes, strides);
}

/// Writes a [batch, hidden] value at `offsets` (leading unit dims) of `dest`.
Value insertBlock(OpBuilder &b, Location loc, Value block, Value dest,
                  ArrayRef<OpFoldResult> leadingOffsets) {
  auto destType = cast<RankedTensorType>(dest.getType());
  SmallVector<OpFoldResult> offsets(leadingOffsets);
  SmallVector<OpFoldResult> sizes(leadingOffsets.size(), b.getIndexAttr(1));
  for (int64_t i = 0; i < 2; ++i) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(tensor::getMixedSize(b, loc, block, i));
  }
  SmallVector<OpFoldResult> strides(destType.getRank(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, block, dest, offsets, sizes,
                                       strides);
}

/// Columns [k * hidden, (k + 1) * hidden) of a [batch, gates * hidden] value.
Value gateColumns(OpBuilder &b, Location loc, Value gates, int64_t k,
                  int64_t hidden) {
  auto type = cast<RankedTensorType>(gates.getType());
  auto resultType =
      RankedTensorType::get({type.getDimSize(0), hidden}, type.getElementType());
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(k * hidden)};
  SmallVector<OpFoldResult> sizes{tensor::getMixedSize(b, loc, gates, 0),
                                  b.getIndexAttr(hidden)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, resultType, gates, offsets,
                                        sizes, strides);
}

/// The operands of one step's gate generic: [batch, hidden] values, vectors
/// along hidden (peepholes) and along batch (sequence lengths).
class StepOperands {
public:
  StepOperands(MLIRContext *ctx) : ctx(ctx) {}
  int64_t add(Value v) { return push(v, AffineMap::getMultiDimIdentityMap(2, ctx)); }
  int64_t addPerHidden(Value v) {
    return push(v, AffineMap::get(2, 0, getAffineDimExpr(1, ctx)));
  }
  int64_t addPerBatch(Value v) {
    return push(v, AffineMap::get(2, 0, getAffineDimExpr(0, ctx)));
  }

  /// A linalg.generic over [batch, hidden] writing `numResults` tensors of
  /// `stateType`; `body` gets the scalars in the order they were added.
  SmallVector<Value> build(OpBuilder &b, Location loc, RankedTensorType stateType,
                           Value sizeSource, int64_t numResults,
                           function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                           ValueRange)>
                               body) {
    SmallVector<Value> outputs;
    SmallVector<AffineMap> maps(inputMaps);
    for (int64_t i = 0; i < numResults; ++i) {
      outputs.push_back(emptyTensor(b, loc, stateType, sizeSource));
      maps.push_back(AffineMap::getMultiDimIdentityMap(2, ctx));
    }
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange(ValueRange(outputs)), inputs, outputs, maps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, body(nb, l, args.take_front(inputs.size())));
        });
    return SmallVector<Value>(generic.getResults());
  }

private:
  int64_t push(Value v, AffineMap map) {
    inputs.push_back(v);
    inputMaps.push_back(map);
    return inputs.size() - 1;
  }
  MLIRContext *ctx;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> inputMaps;
};

/// What a step needs to know of its layer and direction.
struct StepContext {
  int64_t direction;
  int64_t hidden;
  RankedTensorType stateType;     // [batch, hidden]
  std::optional<double> clip;
  Value time;                     // the step's time index (index)
  Value sequenceLens;             // [batch] i32, or null
  std::function<Value(OpBuilder &, Location, int64_t, Value)> act;
};

/// Bounds a gate pre-activation to [-clip, clip] where `clip` is set.
Value clipped(OpBuilder &b, Location loc, const StepContext &s, Value x) {
  if (!s.clip)
    return x;
  Value bound = scalarConstant(b, loc, x.getType(), *s.clip);
  Value low = scalarConstant(b, loc, x.getType(), -*s.clip);
  return arith::MinimumFOp::create(b, loc,
                                   arith::MaximumFOp::create(b, loc, x, low),
                                   bound);
}

/// Whether the batch row is inside its sequence at this step (always, without
/// sequence lengths): `time < len`.
Value isActive(OpBuilder &b, Location loc, const StepContext &s, Value len) {
  Value lenIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, s.time, lenIndex);
}

/// new state where active, else the old one; the output is zero where
/// inactive.
void maskStep(OpBuilder &b, Location loc, Value active,
              SmallVectorImpl<Value> &newState, ArrayRef<Value> oldState,
              Value &output) {
  if (!active)
    return;
  for (auto [next, old] : llvm::zip(newState, oldState))
    next = arith::SelectOp::create(b, loc, active, next, old);
  output = arith::SelectOp::create(
      b, loc, active, output, scalarConstant(b, loc, output.getType(), 0.0));
}

/// The per-direction weights a cell reads, already cut.
struct DirectionWeights {
  Value recurrence, recurrenceBias;      // [G*H, H], [G*H]
  Value recurrenceH, recurrenceBiasH;    // GRU without linear_before_reset: the h gate's
  Value peepholes[3];                    // LSTM's i, o, f: [H] each, or null
};

Value linear(OpBuilder &b, Location loc, Value input, Value weight, Value bias) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  auto type = RankedTensorType::get({inType.getDimSize(0), wType.getDimSize(0)},
                                    inType.getElementType());
  return nn::LinearOp::create(b, loc, type, input, weight, bias);
}

/// One LSTM step: returns {h', c', output}.
SmallVector<Value> lstmStep(OpBuilder &b, Location loc, const StepContext &s,
                            nn::LstmOp op, const DirectionWeights &w, Value x,
                            Value h, Value c) {
  Value rec = linear(b, loc, h, w.recurrence, w.recurrenceBias);
  StepOperands operands(b.getContext());
  // ONNX's gate order in the weights: i, o, f, c.
  int64_t xg[4], rg[4];
  for (int64_t k = 0; k < 4; ++k) {
    xg[k] = operands.add(gateColumns(b, loc, x, k, s.hidden));
    rg[k] = operands.add(gateColumns(b, loc, rec, k, s.hidden));
  }
  int64_t hIdx = operands.add(h), cIdx = operands.add(c);
  int64_t pIdx[3] = {-1, -1, -1}; // i, o, f
  if (w.peepholes[0])
    for (int64_t k = 0; k < 3; ++k)
      pIdx[k] = operands.addPerHidden(w.peepholes[k]);
  int64_t lenIdx = s.sequenceLens ? operands.addPerBatch(s.sequenceLens) : -1;
  bool inputForget = op.getInputForget();
  return operands.build(
      b, loc, s.stateType, h, 3, [&](OpBuilder &nb, Location l, ValueRange a) {
        auto add = [&](Value x, Value y) { return arith::AddFOp::create(nb, l, x, y); };
        auto mul = [&](Value x, Value y) { return arith::MulFOp::create(nb, l, x, y); };
        auto gate = [&](int64_t k) { return add(a[xg[k]], a[rg[k]]); };
        auto peep = [&](Value pre, int64_t k, Value cell) {
          return pIdx[k] < 0 ? pre : add(pre, mul(a[pIdx[k]], cell));
        };
        Value cPrev = a[cIdx];
        Value i = s.act(nb, l, 0, clipped(nb, l, s, peep(gate(0), 0, cPrev)));
        Value f = inputForget
                      ? arith::SubFOp::create(
                            nb, l, scalarConstant(nb, l, i.getType(), 1.0), i)
                      : s.act(nb, l, 0, clipped(nb, l, s, peep(gate(2), 2, cPrev)));
        Value candidate = s.act(nb, l, 1, clipped(nb, l, s, gate(3)));
        Value cNext = add(mul(f, cPrev), mul(i, candidate));
        Value o = s.act(nb, l, 0, clipped(nb, l, s, peep(gate(1), 1, cNext)));
        Value hNext = mul(o, s.act(nb, l, 2, cNext));
        SmallVector<Value> state{hNext, cNext};
        Value output = hNext;
        maskStep(nb, l, lenIdx < 0 ? Value() : isActive(nb, l, s, a[lenIdx]),
                 state, {a[hIdx], cPrev}, output);
        return SmallVector<Value>{state[0], state[1], output};
      });
}

/// One GRU step: returns {h', output}.
SmallVector<Value> gruStep(OpBuilder &b, Location loc, const StepContext &s,
                           nn::GruOp op, const DirectionWeights &w, Value x,
                           Value h) {
  Value rec = linear(b, loc, h, w.recurrence, w.recurrenceBias);
  auto blend = [&](OpBuilder &nb, Location l, Value z, Value candidate,
                   Value hPrev) {
    // (1 - z) . candidate + z . hPrev
    Value one = scalarConstant(nb, l, z.getType(), 1.0);
    return arith::AddFOp::create(
        nb, l,
        arith::MulFOp::create(nb, l, arith::SubFOp::create(nb, l, one, z), candidate),
        arith::MulFOp::create(nb, l, z, hPrev));
  };
  // Gate order in the weights: z, r, h.
  if (op.getLinearBeforeReset()) {
    StepOperands operands(b.getContext());
    int64_t xg[3], rg[3];
    for (int64_t k = 0; k < 3; ++k) {
      xg[k] = operands.add(gateColumns(b, loc, x, k, s.hidden));
      rg[k] = operands.add(gateColumns(b, loc, rec, k, s.hidden));
    }
    int64_t hIdx = operands.add(h);
    int64_t lenIdx = s.sequenceLens ? operands.addPerBatch(s.sequenceLens) : -1;
    return operands.build(
        b, loc, s.stateType, h, 2, [&](OpBuilder &nb, Location l, ValueRange a) {
          auto add = [&](Value x, Value y) { return arith::AddFOp::create(nb, l, x, y); };
          Value z = s.act(nb, l, 0, clipped(nb, l, s, add(a[xg[0]], a[rg[0]])));
          Value r = s.act(nb, l, 0, clipped(nb, l, s, add(a[xg[1]], a[rg[1]])));
          Value candidate = s.act(
              nb, l, 1,
              clipped(nb, l, s,
                      add(a[xg[2]], arith::MulFOp::create(nb, l, r, a[rg[2]]))));
          SmallVector<Value> state{blend(nb, l, z, candidate, a[hIdx])};
          Value output = state[0];
          maskStep(nb, l, lenIdx < 0 ? Value() : isActive(nb, l, s, a[lenIdx]),
                   state, {a[hIdx]}, output);
          return SmallVector<Value>{state[0], output};
        });
  }
  // Without linear_before_reset the h gate multiplies r . h by Rh: z and
  // r . h first, then that product, then the candidate.
  StepOperands first(b.getContext());
  int64_t xz = first.add(gateColumns(b, loc, x, 0, s.hidden));
  int64_t xr = first.add(gateColumns(b, loc, x, 1, s.hidden));
  int64_t rz = first.add(gateColumns(b, loc, rec, 0, s.hidden));
  int64_t rr = first.add(gateColumns(b, loc, rec, 1, s.hidden));
  int64_t hIdx = first.add(h);
  SmallVector<Value> zAndResetH = first.build(
      b, loc, s.stateType, h, 2, [&](OpBuilder &nb, Location l, ValueRange a) {
        auto add = [&](Value x, Value y) { return arith::AddFOp::create(nb, l, x, y); };
        Value z = s.act(nb, l, 0, clipped(nb, l, s, add(a[xz], a[rz])));
        Value r = s.act(nb, l, 0, clipped(nb, l, s, add(a[xr], a[rr])));
        return SmallVector<Value>{z, arith::MulFOp::create(nb, l, r, a[hIdx])};
      });
  Value recH = linear(b, loc, zAndResetH[1], w.recurrenceH, w.recurrenceBiasH);
  StepOperands second(b.getContext());
  int64_t xh = second.add(gateColumns(b, loc, x, 2, s.hidden));
  int64_t rh = second.add(recH);
  int64_t zIdx = second.add(zAndResetH[0]);
  int64_t hIdx2 = second.add(h);
  int64_t lenIdx = s.sequenceLens ? second.addPerBatch(s.sequenceLens) : -1;
  return second.build(
      b, loc, s.stateType, h, 2, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value candidate = s.act(
            nb, l, 1, clipped(nb, l, s, arith::AddFOp::create(nb, l, a[xh], a[rh])));
        SmallVector<Value> state{blend(nb, l, a[zIdx], candidate, a[hIdx2])};
        Value output = state[0];
        maskStep(nb, l, lenIdx < 0 ? Value() : isActive(nb, l, s, a[lenIdx]),
                 state, {a[hIdx2]}, output);
        return SmallVector<Value>{state[0], output};
      });
}

/// One simple RNN step: returns {h', output}.
SmallVector<Value> rnnStep(OpBuilder &b, Location loc, const StepContext &s,
                           nn::RnnOp, const DirectionWeights &w, Value x,
                           Value h) {
  Value rec = linear(b, loc, h, w.recurrence, w.recurrenceBias);
  StepOperands operands(b.getContext());
  int64_t xIdx = operands.add(x), rIdx = operands.add(rec), hIdx = operands.add(h);
  int64_t lenIdx = s.sequenceLens ? operands.addPerBatch(s.sequenceLens) : -1;
  return operands.build(
      b, loc, s.stateType, h, 2, [&](OpBuilder &nb, Location l, ValueRange a) {
        SmallVector<Value> state{s.act(
            nb, l, 0,
            clipped(nb, l, s, arith::AddFOp::create(nb, l, a[xIdx], a[rIdx])))};
        Value output = state[0];
        maskStep(nb, l, lenIdx < 0 ? Value() : isActive(nb, l, s, a[lenIdx]),
                 state, {a[hIdx]}, output);
        return SmallVector<Value>{state[0], output};
      });
}

template <typename OpTy> constexpr bool kHasCell = std::is_same_v<OpTy, nn::LstmOp>;

template <typename OpTy>
struct RecurrentLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (!inputType.getElementType().isF32())
      return unsupported(rewriter, op, "element type " +
                                           llvmToString(inputType.getElementType()) +
                                           " (recurrent layers lower in f32 only)");
    int64_t hidden = op.getHiddenSize();
    int64_t gates = OpTy::kNumGates;
    auto outputType = cast<RankedTensorType>(op.getResult(0).getType());
    auto finalType = cast<RankedTensorType>(op.getResult(1).getType());
    auto stateType = RankedTensorType::get(finalType.getShape().drop_front(),
                                           finalType.getElementType());
    // Every step's input projection at once: [seq * batch, G*H].
    Value flatInput = tensor::CollapseShapeOp::create(
        rewriter, loc, adaptor.getInput(),
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
    Value seqLen = tensor::DimOp::create(rewriter, loc, adaptor.getInput(), 0);
    Value output = emptyTensor(rewriter, loc, outputType, adaptor.getInput(),
                               {0, 1, 1, 1});
    Value finalH = emptyTensor(rewriter, loc, finalType, adaptor.getInitialH());
    Value finalC;
    if constexpr (kHasCell<OpTy>)
      finalC = emptyTensor(rewriter, loc, finalType, adaptor.getInitialH());
    for (int64_t d = 0; d < op.getNumDirections(); ++d) {
      bool reverse = op.getDirection() == nn::RnnDirection::Reverse || d == 1;
      Value weights = directionRows(rewriter, loc, adaptor.getWeights(), d, 0,
                                    gates * hidden);
      Value inputBias = directionRows(rewriter, loc, adaptor.getBias(), d, 0,
                                      gates * hidden);
      Value projection = linear(rewriter, loc, flatInput, weights, inputBias);
      auto projType = cast<RankedTensorType>(projection.getType());
      auto stepsType = RankedTensorType::get(
          {inputType.getDimSize(0), inputType.getDimSize(1), gates * hidden},
          projType.getElementType());
      SmallVector<OpFoldResult> stepSizes{
          tensor::getMixedSize(rewriter, loc, adaptor.getInput(), 0),
          tensor::getMixedSize(rewriter, loc, adaptor.getInput(), 1),
          rewriter.getIndexAttr(gates * hidden)};
      Value steps = tensor::ExpandShapeOp::create(
          rewriter, loc, stepsType, projection,
          SmallVector<ReassociationIndices>{{0, 1}, {2}}, stepSizes);
      DirectionWeights w = cutRecurrentWeights(rewriter, loc, op, adaptor, d);
      SmallVector<Value> init{directionState(rewriter, loc, adaptor.getInitialH(), d)};
      if constexpr (kHasCell<OpTy>)
        init.push_back(directionState(rewriter, loc, adaptor.getInitialC(), d));
      init.push_back(output);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto loop = scf::ForOp::create(
          rewriter, loc, zero, seqLen, one, init,
          [&](OpBuilder &b, Location l, Value t, ValueRange carried) {
            Value time = t;
            if (reverse)
              time = arith::SubIOp::create(
                  b, l, arith::SubIOp::create(b, l, seqLen, one), t);
            StepContext s{d, hidden, stateType, std::nullopt, time,
                          adaptor.getSequenceLens(),
                          [&op, d](OpBuilder &nb, Location nl, int64_t i, Value x) {
                            return activate(nb, nl, op.getActivation(d, i),
                                            op.getAlpha(d, i), op.getBeta(d, i), x);
                          }};
            if (std::optional<APFloat> clip = op.getClip())
              s.clip = clip->convertToDouble();
            Value x = stepSlice(b, l, steps, time);
            SmallVector<Value> results;
            if constexpr (kHasCell<OpTy>)
              results = lstmStep(b, l, s, op, w, x, carried[0], carried[1]);
            else if constexpr (std::is_same_v<OpTy, nn::GruOp>)
              results = gruStep(b, l, s, op, w, x, carried[0]);
            else
              results = rnnStep(b, l, s, op, w, x, carried[0]);
            Value written = insertBlock(b, l, results.back(), carried.back(),
                                        {time, b.getIndexAttr(d)});
            results.back() = written;
            scf::YieldOp::create(b, l, results);
          });
      output = loop.getResults().back();
      finalH = insertBlock(rewriter, loc, loop.getResult(0), finalH,
                           {rewriter.getIndexAttr(d)});
      if constexpr (kHasCell<OpTy>)
        finalC = insertBlock(rewriter, loc, loop.getResult(1), finalC,
                             {rewriter.getIndexAttr(d)});
    }
    SmallVector<Value> replacements{output, finalH};
    if constexpr (kHasCell<OpTy>)
      replacements.push_back(finalC);
    rewriter.replaceOp(op, replacements);
    return success();
  }

private:
  static std::string llvmToString(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  }

  /// Step `time` of the [seq, batch, G*H] projections, as [batch, G*H].
  static Value stepSlice(OpBuilder &b, Location loc, Value steps, Value time) {
    auto type = cast<RankedTensorType>(steps.getType());
    auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                            type.getElementType());
    SmallVector<OpFoldResult> offsets{time, b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                    tensor::getMixedSize(b, loc, steps, 1),
                                    b.getIndexAttr(type.getDimSize(2))};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, resultType, steps, offsets,
                                          sizes, strides);
  }

  static DirectionWeights cutRecurrentWeights(OpBuilder &b, Location loc, OpTy op,
                                              typename OpTy::Adaptor adaptor,
                                              int64_t d) {
    int64_t hidden = op.getHiddenSize();
    int64_t gated = OpTy::kNumGates * hidden;
    DirectionWeights w;
    Value r = adaptor.getRecurrence(), bias = adaptor.getBias();
    bool splitH = false;
    if constexpr (std::is_same_v<OpTy, nn::GruOp>)
      splitH = !op.getLinearBeforeReset();
    // The recurrent biases follow the input ones in `bias`.
    int64_t rows = splitH ? gated - hidden : gated;
    w.recurrence = directionRows(b, loc, r, d, 0, rows);
    w.recurrenceBias = directionRows(b, loc, bias, d, gated, rows);
    if (splitH) {
      w.recurrenceH = directionRows(b, loc, r, d, rows, hidden);
      w.recurrenceBiasH = directionRows(b, loc, bias, d, gated + rows, hidden);
    }
    if constexpr (kHasCell<OpTy>)
      if (Value p = adaptor.getPeepholes())
        for (int64_t k = 0; k < 3; ++k)
          w.peepholes[k] = directionRows(b, loc, p, d, k * hidden, hidden);
    return w;
  }
};

} // namespace

void mlir::dlas::populateNNRecurrentToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<nn::LstmOp>, RecurrentLowering<nn::GruOp>,
               RecurrentLowering<nn::RnnOp>>(patterns.getContext());
}
