//===- NNCanonicalize.cpp - canonicalization patterns of nn ops -----------===//
#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dlas::nn;

namespace {
/// relu6 is clip(0, 6); one op to lower and to fuse.
struct Relu6ToClip : OpRewritePattern<Relu6Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Relu6Op op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ClipOp>(op, op.getInput(),
                                        rewriter.getF64FloatAttr(0.0),
                                        rewriter.getF64FloatAttr(6.0));
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x): only the final shape matters.
struct ReshapeOfReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<ReshapeOp>();
    if (!producer)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(),
                                           producer.getInput(), op.getSizes(),
                                           op.getShapeAttr());
    return success();
  }
};

/// The value of a one-element float constant, or nullopt.
std::optional<double> scalarValue(Value v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  return (*attr.value_begin<APFloat>()).convertToDouble();
}

/// Whether `v` is a one-element constant within f32 rounding of `expected`.
bool isScalar(Value v, double expected) {
  std::optional<double> value = scalarValue(v);
  return value && std::fabs(*value - expected) <= 1e-6 * std::fabs(expected);
}

/// `v`'s defining op when it is an `OpTy` with no other user.
template <typename OpTy> OpTy soleUse(Value v) {
  auto op = v.getDefiningOp<OpTy>();
  return op && op->getResult(0).hasOneUse() ? op : OpTy();
}

/// The x of erf(x / sqrt(2)) or erf(x * (1 / sqrt(2))), or null.
Value erfArgumentOverSqrt2(Value v) {
  auto erf = soleUse<ErfOp>(v);
  if (!erf)
    return {};
  Value scaled = erf.getInput();
  if (auto div = soleUse<DivOp>(scaled); div && isScalar(div.getRhs(), M_SQRT2))
    return div.getLhs();
  if (auto mul = soleUse<MulOp>(scaled)) {
    if (isScalar(mul.getRhs(), M_SQRT1_2))
      return mul.getLhs();
    if (isScalar(mul.getLhs(), M_SQRT1_2))
      return mul.getRhs();
  }
  return {};
}

/// The other operand of a sole-use binary `OpTy` one of whose operands is
/// the scalar `c`, or null.
template <typename OpTy> Value otherThanScalar(Value v, double c) {
  auto op = soleUse<OpTy>(v);
  if (!op)
    return {};
  if (isScalar(op.getRhs(), c))
    return op.getLhs();
  if (isScalar(op.getLhs(), c))
    return op.getRhs();
  return {};
}

/// Whether `v` is x^3: pow(x, 3), x * (x * x) or (x * x) * x.
bool isCubeOf(Value v, Value x) {
  if (auto pow = soleUse<PowOp>(v))
    return pow.getLhs() == x && isScalar(pow.getRhs(), 3.0);
  auto mul = soleUse<MulOp>(v);
  if (!mul)
    return false;
  auto isSquare = [&](Value s) {
    auto sq = soleUse<MulOp>(s);
    return sq && sq.getLhs() == x && sq.getRhs() == x;
  };
  return (mul.getLhs() == x && isSquare(mul.getRhs())) ||
         (mul.getRhs() == x && isSquare(mul.getLhs()));
}

/// The x of tanh(sqrt(2/pi) * (x + 0.044715 x^3)) (any order of the
/// operands), or null.
Value tanhGeluArgument(Value v) {
  auto tanh = soleUse<TanhOp>(v);
  if (!tanh)
    return {};
  Value inner = otherThanScalar<MulOp>(tanh.getInput(), std::sqrt(2.0 / M_PI));
  auto add = inner ? soleUse<AddOp>(inner) : AddOp();
  if (!add)
    return {};
  for (auto [x, term] : {std::pair(add.getLhs(), add.getRhs()),
                         std::pair(add.getRhs(), add.getLhs())}) {
    Value cube = otherThanScalar<MulOp>(term, 0.044715);
    if (cube && isCubeOf(cube, x))
      return x;
  }
  return {};
}

/// The x of 1 + erf(x / sqrt(2)) or of 1 + tanh(sqrt(2/pi) (x + 0.044715
/// x^3)) (either order of the sum), with the GELU form it spells; null x
/// when neither.
std::pair<Value, GeluApproximation> onePlusGeluCore(Value v) {
  Value core = otherThanScalar<AddOp>(v, 1.0);
  if (!core)
    return {};
  if (Value x = erfArgumentOverSqrt2(core))
    return {x, GeluApproximation::None};
  return {tanhGeluArgument(core), GeluApproximation::Tanh};
}

/// x * 0.5 * (1 + erf(x / sqrt(2))) in any association and order of the
/// three factors (PyTorch exports (x * (1 + erf)) * 0.5, Hugging Face's
/// BERT x * 0.5 * (1 + erf)) -> nn.gelu(x): one op that lowers to one loop
/// and joins its producer's kernel as an epilogue. Likewise the tanh form
/// with 1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)) (F.gelu(approximate =
/// "tanh"), GPT-2's gelu_new; the cube as pow or two multiplies) ->
/// nn.gelu {approximate = tanh}.
struct GeluFormToGelu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    // The three factors: one operand of `op` and the two of an inner mul
    // that only `op` uses.
    for (auto [inner, outer] : {std::pair(op.getLhs(), op.getRhs()),
                                std::pair(op.getRhs(), op.getLhs())}) {
      auto product = soleUse<MulOp>(inner);
      if (!product)
        continue;
      Value factors[3] = {outer, product.getLhs(), product.getRhs()};
      for (int half = 0; half < 3; ++half) {
        if (!isScalar(factors[half], 0.5))
          continue;
        for (int term = 0; term < 3; ++term) {
          if (term == half)
            continue;
          Value x = factors[3 - half - term];
          auto [core, approximation] = onePlusGeluCore(factors[term]);
          if (core != x || x.getType() != op.getType())
            continue;
          rewriter.replaceOpWithNewOp<GeluOp>(op, op.getType(), x,
                                              approximation);
          return success();
        }
      }
    }
    return failure();
  }
};

/// x * sigmoid(x) (either order) -> nn.silu(x), as exporters spell SiLU
/// (EfficientNet's, YOLO's activations): one op, which joins the
/// convolution before it as its kernel's epilogue, where the mul alone
/// could not (x has two users).
struct SigmoidProductToSilu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [gate, x] : {std::pair(op.getRhs(), op.getLhs()),
                           std::pair(op.getLhs(), op.getRhs())}) {
      auto sigmoid = soleUse<SigmoidOp>(gate);
      if (!sigmoid || sigmoid.getInput() != x || x.getType() != op.getType())
        continue;
      rewriter.replaceOpWithNewOp<SiluOp>(op, op.getType(), x);
      return success();
    }
    return failure();
  }
};

} // namespace

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<GeluFormToGelu, SigmoidProductToSilu>(context);
}

void Relu6Op::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<Relu6ToClip>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfReshape>(context);
}
