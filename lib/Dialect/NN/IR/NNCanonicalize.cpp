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

/// The first of the trailing dims a keepdims mean reduces (its axes are
/// [axis, rank), in any order and sign), or nullopt.
std::optional<int64_t> trailingMeanAxis(ReduceOp reduce) {
  if (!reduce || reduce.getKind() != ReduceKind::Mean || !reduce.getKeepdims())
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(reduce.getInput().getType()).getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : reduce.getAxes())
    axes.push_back(a < 0 ? a + rank : a);
  llvm::sort(axes);
  if (axes.empty() || axes.back() != rank - 1 ||
      std::adjacent_find(axes.begin(), axes.end(), [](int64_t a, int64_t b) {
        return b != a + 1;
      }) != axes.end())
    return std::nullopt;
  return axes.front();
}

/// Whether `square` is d * d or pow(d, 2).
bool isSquareOf(Operation *square, Value d) {
  if (auto mul = dyn_cast_or_null<MulOp>(square))
    return mul.getLhs() == d && mul.getRhs() == d;
  if (auto pow = dyn_cast_or_null<PowOp>(square))
    return pow.getLhs() == d && isScalar(pow.getRhs(), 2.0);
  return false;
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps), both means over the
/// trailing dims [axis, rank) with keepdims (PyTorch's LayerNorm as it
/// exports it, ONNX's LayerNormalization and InstanceNormalization as
/// dlas-import expands them) -> nn.layer_norm {axis, epsilon}: two row
/// reductions and one elementwise pass where the five ops made five
/// passes and two intermediate tensors.
struct DecomposedLayerNorm : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    auto centred = op.getLhs().getDefiningOp<SubOp>();
    auto sqrt = soleUse<SqrtOp>(op.getRhs());
    if (!centred || !sqrt)
      return failure();
    Value x = centred.getLhs();
    auto mean = soleUse<ReduceOp>(centred.getRhs());
    std::optional<int64_t> axis = trailingMeanAxis(mean);
    if (!axis || mean.getInput() != x || x.getType() != op.getType())
      return failure();
    auto shifted = soleUse<AddOp>(sqrt.getInput());
    if (!shifted)
      return failure();
    Value varianceValue = shifted.getLhs();
    std::optional<double> epsilon = scalarValue(shifted.getRhs());
    if (!epsilon) {
      varianceValue = shifted.getRhs();
      epsilon = scalarValue(shifted.getLhs());
    }
    auto variance = soleUse<ReduceOp>(varianceValue);
    if (!epsilon || *epsilon < 0 || trailingMeanAxis(variance) != axis ||
        !variance.getInput().hasOneUse() ||
        !isSquareOf(variance.getInput().getDefiningOp(), centred))
      return failure();
    // The centred values feed the square and this division only.
    for (Operation *user : centred->getUsers())
      if (user != op && user != variance.getInput().getDefiningOp())
        return failure();
    // Normalized dims the lowering collapses into one row must be static.
    auto type = cast<RankedTensorType>(x.getType());
    ArrayRef<int64_t> normalized = type.getShape().drop_front(*axis);
    if (normalized.size() > 1 &&
        llvm::any_of(normalized, ShapedType::isDynamic))
      return failure();
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        op, op.getType(), x, Value(), Value(),
        rewriter.getI64IntegerAttr(*axis), rewriter.getF64FloatAttr(*epsilon));
    return success();
  }
};

/// `param` as a tensor of exactly `shape` when it broadcasts to the
/// normalized dims as a per-position scale or bias would (its shape is
/// `shape` with leading unit dims, or fewer of its trailing dims with
/// unit ones in front), reshaped where needed; else null.
Value asNormalizedParam(PatternRewriter &rewriter, Value param,
                        ArrayRef<int64_t> shape, Type elementType) {
  auto type = dyn_cast<RankedTensorType>(param.getType());
  if (!type || type.getElementType() != elementType || !type.hasStaticShape() ||
      llvm::any_of(shape, ShapedType::isDynamic))
    return {};
  ArrayRef<int64_t> dims = type.getShape();
  while (!dims.empty() && dims.size() > shape.size() && dims.front() == 1)
    dims = dims.drop_front();
  if (dims != shape)
    return {};
  if (type.getShape() == shape)
    return param;
  return ReshapeOp::create(rewriter, param.getLoc(),
                           RankedTensorType::get(shape, elementType), param,
                           ValueRange{}, rewriter.getDenseI64ArrayAttr(shape));
}

/// nn.layer_norm(x) * g -> nn.layer_norm(x) scale g, and (with or without
/// a scale) + b -> bias b, for g and b of the normalized dims' shape: the
/// affine part joins the normalization's one elementwise pass.
template <typename BinaryOp, bool IsScale>
struct FoldIntoLayerNorm : OpRewritePattern<BinaryOp> {
  using OpRewritePattern<BinaryOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [normed, param] : {std::pair(op.getLhs(), op.getRhs()),
                                 std::pair(op.getRhs(), op.getLhs())}) {
      auto norm = soleUse<LayerNormOp>(normed);
      if (!norm || norm.getType() != op.getType() || norm.getBias() ||
          (IsScale && norm.getScale()))
        continue;
      auto type = cast<RankedTensorType>(norm.getType());
      Value value = asNormalizedParam(
          rewriter, param, type.getShape().drop_front(norm.getNormalizedAxis()),
          type.getElementType());
      if (!value)
        continue;
      rewriter.replaceOpWithNewOp<LayerNormOp>(
          op, op.getType(), norm.getInput(), IsScale ? value : norm.getScale(),
          IsScale ? Value() : value, norm.getAxisAttr(), norm.getEpsilonAttr());
      return success();
    }
    return failure();
  }
};

} // namespace

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<GeluFormToGelu, SigmoidProductToSilu,
              FoldIntoLayerNorm<MulOp, /*IsScale=*/true>>(context);
}

void DivOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<DecomposedLayerNorm>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldIntoLayerNorm<AddOp, /*IsScale=*/false>>(context);
}

void Relu6Op::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<Relu6ToClip>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfReshape>(context);
}
