//===- CompositeOps.cpp - ONNX ops built from several nn ops --------------===//
//
// ONNX ops with no nn op of their own, composed from the ones that exist,
// so that they fuse and vectorize like any elementwise chain: activations
// (Celu, ThresholdedRelu, Shrink), tests (IsNaN, IsInf), GlobalMaxPool,
// LRN, MeanVarianceNormalization, Trilu, Hardmax, OneHot, EyeLike and
// GatherND.
// Masks and index ramps they compare against are import-time constants.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::onnximport;

namespace {

NamedAttribute i64ArrayAttr(NodeContext &ctx, StringRef name,
                            ArrayRef<int64_t> v) {
  return ctx.b.getNamedAttr(name, ctx.b.getDenseI64ArrayAttr(v));
}

Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }

FailureOr<Value> compare(NodeContext &ctx, Value lhs, Value rhs,
                         nn::ComparePredicate predicate) {
  return ctx.create<nn::CompareOp>(
      {lhs, rhs},
      {ctx.b.getNamedAttr("predicate", nn::ComparePredicateAttr::get(
                                           ctx.b.getContext(), predicate))});
}

FailureOr<Value> select(NodeContext &ctx, Value condition, Value ifTrue,
                        Value ifFalse) {
  return ctx.create<nn::SelectOp>({condition, ifTrue, ifFalse});
}

/// Sets output 0, or fails when the value could not be built.
LogicalResult setResult(NodeContext &ctx, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value);
  return success();
}

/// A constant tensor of `type` from `values` (i1 masks, i64 ramps).
template <typename T>
Value constantTensor(NodeContext &ctx, RankedTensorType type,
                     ArrayRef<T> values) {
  return arith::ConstantOp::create(ctx.b, ctx.loc,
                                   DenseElementsAttr::get(type, values));
}

/// [1, ..., n, ..., 1] of rank `rank` holding 0..n-1 along `axis`: what an
/// index along that axis is compared with.
Value indexRamp(NodeContext &ctx, int64_t rank, int64_t axis, int64_t n) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  SmallVector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = i;
  return constantTensor<int64_t>(
      ctx, RankedTensorType::get(shape, ctx.b.getI64Type()), values);
}

FailureOr<Value> floatInput(NodeContext &ctx, unsigned i) {
  FailureOr<Value> x = ctx.input(i);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elementOf(*x))) {
    (void)ctx.fail("needs a floating-point input");
    return failure();
  }
  return x;
}

/// nn.reshape of `x` to `shape` (of which one size may be dynamic).
FailureOr<Value> reshape(NodeContext &ctx, Value x, ArrayRef<int64_t> shape) {
  if (cast<RankedTensorType>(x.getType()).getShape() == shape)
    return x;
  FailureOr<SmallVector<int64_t>> spec = reshapeSizes(ctx, shape);
  if (failed(spec))
    return failure();
  return ctx.create<nn::ReshapeOp>(x, {i64ArrayAttr(ctx, "shape", *spec)});
}

/// Masks and constants built here stay below this many elements (an
/// untrusted file's sizes must not exhaust memory at import).
constexpr int64_t kMaxConstantElements = int64_t(1) << 26;

LogicalResult checkConstantSize(NodeContext &ctx, int64_t elements,
                                StringRef what) {
  if (elements <= kMaxConstantElements)
    return success();
  return ctx.fail("the " + what + " would hold " + Twine(elements) +
                  " elements, more than the " + Twine(kMaxConstantElements) +
                  " DLAS builds at import");
}

/// `index` (i64) with its negative elements counted from `extent`'s end.
FailureOr<Value> countFromEnd(NodeContext &ctx, Value index, int64_t extent) {
  FailureOr<Value> negative =
      compare(ctx, index, ctx.intScalar(0), nn::ComparePredicate::Lt);
  FailureOr<Value> wrapped =
      ctx.create<nn::AddOp>({index, ctx.intScalar(extent)});
  if (failed(negative) || failed(wrapped))
    return failure();
  return select(ctx, *negative, *wrapped, index);
}

} // namespace

/// Celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), which is
/// alpha * elu(x / alpha) with elu's alpha 1.
LogicalResult onnximport::importCelu(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  float alpha = ctx.floatAttr("alpha", 1.0f);
  if (alpha == 0)
    return ctx.fail("alpha must not be 0");
  Type element = elementOf(*x);
  FailureOr<Value> scaled =
      ctx.create<nn::DivOp>({*x, ctx.scalar(alpha, element)});
  if (failed(scaled))
    return failure();
  FailureOr<Value> elu = ctx.create<nn::EluOp>(
      *scaled, {ctx.b.getNamedAttr("alpha", ctx.b.getF64FloatAttr(1.0))});
  if (failed(elu))
    return failure();
  return setResult(ctx,
                   ctx.create<nn::MulOp>({*elu, ctx.scalar(alpha, element)}));
}

/// ThresholdedRelu(x) = x if x > alpha else 0.
LogicalResult onnximport::importThresholdedRelu(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  Type element = elementOf(*x);
  FailureOr<Value> above =
      compare(ctx, *x, ctx.scalar(ctx.floatAttr("alpha", 1.0f), element),
              nn::ComparePredicate::Gt);
  if (failed(above))
    return failure();
  return setResult(ctx, select(ctx, *above, *x, ctx.scalar(0.0f, element)));
}

/// Shrink(x) = x + bias if x < -lambd, x - bias if x > lambd, else 0.
LogicalResult onnximport::importShrink(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type element = elementOf(*x);
  float lambd = ctx.floatAttr("lambd", 0.5f),
        bias = ctx.floatAttr("bias", 0.0f);
  if (!isa<FloatType>(element) &&
      (lambd != std::trunc(lambd) || bias != std::trunc(bias)))
    return ctx.fail("an integer input needs integral 'lambd' and 'bias'");
  FailureOr<Value> below =
      compare(ctx, *x, ctx.scalar(-lambd, element), nn::ComparePredicate::Lt);
  FailureOr<Value> above =
      compare(ctx, *x, ctx.scalar(lambd, element), nn::ComparePredicate::Gt);
  if (failed(below) || failed(above))
    return failure();
  FailureOr<Value> raised =
      ctx.create<nn::AddOp>({*x, ctx.scalar(bias, element)});
  FailureOr<Value> lowered =
      ctx.create<nn::SubOp>({*x, ctx.scalar(bias, element)});
  if (failed(raised) || failed(lowered))
    return failure();
  FailureOr<Value> upper =
      select(ctx, *above, *lowered, ctx.scalar(0.0f, element));
  if (failed(upper))
    return failure();
  return setResult(ctx, select(ctx, *below, *raised, *upper));
}

/// IsNaN(x) = x != x (the one value unequal to itself; nn.compare's `ne`
/// is unordered).
LogicalResult onnximport::importIsNaN(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  return setResult(ctx, compare(ctx, *x, *x, nn::ComparePredicate::Ne));
}

/// IsInf(x) = x == +inf (detect_positive) or x == -inf (detect_negative).
LogicalResult onnximport::importIsInf(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  Type element = elementOf(*x);
  float inf = std::numeric_limits<float>::infinity();
  FailureOr<Value> positive =
      compare(ctx, *x, ctx.scalar(inf, element), nn::ComparePredicate::Eq);
  FailureOr<Value> negative =
      compare(ctx, *x, ctx.scalar(-inf, element), nn::ComparePredicate::Eq);
  if (failed(positive) || failed(negative))
    return failure();
  bool detectPositive = ctx.intAttr("detect_positive", 1) != 0;
  bool detectNegative = ctx.intAttr("detect_negative", 1) != 0;
  if (detectPositive != detectNegative) {
    ctx.setOutput(0, detectPositive ? *positive : *negative);
    return success();
  }
  // Both: either equality; neither: both at once, which never holds.
  nn::LogicalKind kind =
      detectPositive ? nn::LogicalKind::Or : nn::LogicalKind::And;
  return setResult(
      ctx, ctx.create<nn::LogicalOp>(
               {*positive, *negative},
               {ctx.b.getNamedAttr("kind", nn::LogicalKindAttr::get(
                                               ctx.b.getContext(), kind))}));
}

/// GlobalMaxPool: the maximum over every spatial dimension, kept as size 1.
LogicalResult onnximport::importGlobalMaxPool(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  if (rank < 3)
    return ctx.fail("needs an input of rank 3 or more (N, C, spatial...)");
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return setResult(
      ctx, ctx.create<nn::ReduceOp>(
               *x, {ctx.b.getNamedAttr(
                        "kind", nn::ReduceKindAttr::get(ctx.b.getContext(),
                                                        nn::ReduceKind::Max)),
                    i64ArrayAttr(ctx, "axes", axes),
                    ctx.b.getNamedAttr("keepdims", ctx.b.getBoolAttr(true))}));
}

/// LRN: x / (bias + alpha / size * sum of squares over a window of `size`
/// channels)^beta. The window sum is an average pool of x^2 (padding
/// counted, so the divisor is always `size`) over the channels of x viewed
/// as [N, 1, C, spatial].
LogicalResult onnximport::importLRN(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() < 3)
    return ctx.fail("needs an input of rank 3 or more (N, C, spatial...)");
  int64_t size = ctx.intAttr("size", 0);
  if (size < 1)
    return ctx.fail("needs a positive 'size', got " + Twine(size));
  int64_t channels = type.getDimSize(1), spatial = 1;
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      return ctx.fail("needs static channel and spatial sizes");
  for (int64_t d = 2; d < type.getRank(); ++d)
    spatial *= type.getDimSize(d);
  Type element = type.getElementType();
  FailureOr<Value> squared = ctx.create<nn::MulOp>({*x, *x});
  if (failed(squared))
    return failure();
  FailureOr<Value> columns =
      reshape(ctx, *squared, {type.getDimSize(0), 1, channels, spatial});
  if (failed(columns))
    return failure();
  // ONNX's window: floor((size - 1) / 2) channels before, ceil(...) after.
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  FailureOr<Value> mean = ctx.create<nn::AvgPool2DOp>(
      *columns,
      {i64ArrayAttr(ctx, "kernel", {size, 1}),
       i64ArrayAttr(ctx, "strides", {1, 1}),
       i64ArrayAttr(ctx, "padding", {before, 0, after, 0}),
       ctx.b.getNamedAttr("count_include_pad", ctx.b.getBoolAttr(true))});
  if (failed(mean))
    return failure();
  FailureOr<Value> windowMean = reshape(ctx, *mean, type.getShape());
  if (failed(windowMean))
    return failure();
  // alpha / size * sum = alpha * mean.
  FailureOr<Value> scaled = ctx.create<nn::MulOp>(
      {*windowMean, ctx.scalar(ctx.floatAttr("alpha", 1e-4f), element)});
  if (failed(scaled))
    return failure();
  FailureOr<Value> base = ctx.create<nn::AddOp>(
      {*scaled, ctx.scalar(ctx.floatAttr("bias", 1.0f), element)});
  if (failed(base))
    return failure();
  FailureOr<Value> denominator = ctx.create<nn::PowOp>(
      {*base, ctx.scalar(ctx.floatAttr("beta", 0.75f), element)});
  if (failed(denominator))
    return failure();
  return setResult(ctx, ctx.create<nn::DivOp>({*x, *denominator}));
}

/// MeanVarianceNormalization: (x - mean) / sqrt(variance) over `axes`
/// (default N, H, W). ONNX adds 1e-9 to the deviation; adding its square
/// to the variance gives the same result where the variance is 0 (0, not
/// NaN) and differs by less than f32 rounding elsewhere.
LogicalResult onnximport::importMeanVarianceNormalization(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> axes =
      ctx.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  for (int64_t &a : axes) {
    FailureOr<int64_t> d = normalizeAxis(ctx, a, rank);
    if (failed(d))
      return failure();
    a = *d;
  }
  return setResult(ctx, normalize(ctx, *x, axes, 1e-18f));
}

/// Trilu: the upper (j - i >= k) or lower (j - i <= k) triangle of the
/// last two dimensions, zeros elsewhere: a select by a mask, constant for
/// a constant k, else j - i (a constant) compared with k at run time.
LogicalResult onnximport::importTrilu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (rank < 2)
    return ctx.fail("needs an input of rank 2 or more");
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols))
    return ctx.fail("needs static sizes in the last two dimensions");
  if (failed(checkConstantSize(ctx, rows * cols, "triangle mask")))
    return failure();
  bool upper = ctx.intAttr("upper", 1) != 0;
  Value zero = ctx.scalar(0.0f, type.getElementType());
  auto maskType = [&](Type element) {
    return RankedTensorType::get({rows, cols}, element);
  };
  const HostTensor *kConstant = ctx.hasInput(1) ? ctx.constant(1) : nullptr;
  if (!ctx.hasInput(1) || kConstant) {
    if (kConstant && (kConstant->isFloat() || kConstant->numElements() != 1))
      return ctx.fail("input 'k' must be one integer");
    int64_t k = kConstant ? kConstant->ints[0] : 0;
    SmallVector<bool> mask;
    mask.reserve(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        mask.push_back(upper ? j - i >= k : j - i <= k);
    Value maskValue =
        constantTensor<bool>(ctx, maskType(ctx.b.getI1Type()), mask);
    return setResult(ctx, select(ctx, maskValue, *x, zero));
  }
  FailureOr<RankedTensorType> kType = ctx.inputType(1);
  if (failed(kType))
    return failure();
  if (!kType->getElementType().isInteger(64) || kType->getNumElements() != 1)
    return ctx.fail("input 'k' must hold one INT64 value");
  FailureOr<Value> k = ctx.input(1);
  if (failed(k))
    return failure();
  FailureOr<Value> kScalar = reshape(ctx, *k, {1});
  if (failed(kScalar))
    return failure();
  SmallVector<int64_t> offsets;
  offsets.reserve(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      offsets.push_back(j - i);
  Value diagonalOffset =
      constantTensor<int64_t>(ctx, maskType(ctx.b.getI64Type()), offsets);
  FailureOr<Value> mask =
      compare(ctx, diagonalOffset, *kScalar,
              upper ? nn::ComparePredicate::Ge : nn::ComparePredicate::Le);
  if (failed(mask))
    return failure();
  return setResult(ctx, select(ctx, *mask, *x, zero));
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere: arg_max
/// compared with an index ramp. Before opset 13 the op works on the input
/// flattened to 2-D at `axis`.
LogicalResult onnximport::importHardmax(NodeContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Value input = *x;
  int64_t reduced = *axis;
  if (ctx.opset < 13 && *axis != rank - 1) {
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t &part = d < *axis ? outer : inner;
      part = type.isDynamicDim(d) || ShapedType::isDynamic(part)
                 ? ShapedType::kDynamic
                 : part * type.getDimSize(d);
    }
    if (ShapedType::isDynamic(inner))
      return ctx.fail("needs static sizes from 'axis' on (opset < 13 "
                      "flattens them into one)");
    FailureOr<Value> flat = reshape(ctx, *x, {outer, inner});
    if (failed(flat))
      return failure();
    input = *flat;
    reduced = 1;
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t length = inputType.getDimSize(reduced);
  if (ShapedType::isDynamic(length))
    return ctx.fail("needs a static size along 'axis'");
  FailureOr<Value> argMax = ctx.create<nn::ArgMaxOp>(
      input,
      {ctx.b.getNamedAttr("axis", ctx.b.getI64IntegerAttr(reduced)),
       ctx.b.getNamedAttr("keepdims", ctx.b.getBoolAttr(true)),
       ctx.b.getNamedAttr("select_last_index", ctx.b.getBoolAttr(false))});
  if (failed(argMax))
    return failure();
  FailureOr<Value> isMax = compare(
      ctx, *argMax, indexRamp(ctx, inputType.getRank(), reduced, length),
      nn::ComparePredicate::Eq);
  if (failed(isMax))
    return failure();
  Value result = nn::CastOp::create(
      ctx.b, ctx.loc,
      cast<RankedTensorType>(isMax->getType()).clone(type.getElementType()),
      *isMax);
  if (input != *x) {
    FailureOr<Value> restored = reshape(ctx, result, type.getShape());
    if (failed(restored))
      return failure();
    result = *restored;
  }
  ctx.setOutput(0, result);
  return success();
}

/// OneHot: indices (negative ones count from `depth`) compared with a ramp
/// of `depth` along the new `axis`; values[1] where equal, values[0]
/// elsewhere (indices out of range give a row of values[0]).
LogicalResult onnximport::importOneHot(NodeContext &ctx) {
  FailureOr<Value> indices = ctx.input(0);
  if (failed(indices))
    return failure();
  FailureOr<const HostTensor *> depthTensor = ctx.requireConstant(1, "depth");
  if (failed(depthTensor))
    return failure();
  if ((*depthTensor)->numElements() != 1)
    return ctx.fail("input 'depth' must hold one value");
  double depthValue = (*depthTensor)->at(0);
  if (!(depthValue >= 1 && depthValue <= (double)(1 << 24)))
    return ctx.fail("'depth' must be between 1 and 2^24, got " +
                    std::to_string(depthValue));
  auto depth = (int64_t)depthValue;
  auto indexType = cast<RankedTensorType>(indices->getType());
  int64_t rank = indexType.getRank() + 1;
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  // Float indices truncate toward zero, as ONNX's cast does.
  Value index = indices.value();
  if (indexType.getElementType() != ctx.b.getI64Type())
    index = nn::CastOp::create(ctx.b, ctx.loc,
                               indexType.clone(ctx.b.getI64Type()), index);
  FailureOr<Value> normalized = countFromEnd(ctx, index, depth);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> withAxis(indexType.getShape());
  withAxis.insert(withAxis.begin() + *axis, 1);
  FailureOr<Value> expanded = reshape(ctx, *normalized, withAxis);
  if (failed(expanded))
    return failure();
  FailureOr<Value> hot =
      compare(ctx, *expanded, indexRamp(ctx, rank, *axis, depth),
              nn::ComparePredicate::Eq);
  if (failed(hot))
    return failure();
  FailureOr<RankedTensorType> valuesType = ctx.inputType(2);
  if (failed(valuesType))
    return failure();
  if (valuesType->getNumElements() != 2)
    return ctx.fail("input 'values' must hold two values [off, on]");
  FailureOr<Value> values = ctx.input(2);
  if (failed(values))
    return failure();
  FailureOr<Value> flat = reshape(ctx, *values, {2});
  if (failed(flat))
    return failure();
  auto pick = [&](int64_t i) {
    return ctx.create<nn::SliceOp>(*flat, {i64ArrayAttr(ctx, "offsets", {i}),
                                           i64ArrayAttr(ctx, "sizes", {1}),
                                           i64ArrayAttr(ctx, "steps", {1})});
  };
  FailureOr<Value> off = pick(0), on = pick(1);
  if (failed(off) || failed(on))
    return failure();
  return setResult(ctx, select(ctx, *hot, *on, *off));
}

/// EyeLike: an import-time constant of the input's (static, 2-D) shape
/// with ones on diagonal k.
LogicalResult onnximport::importEyeLike(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  if (type->getRank() != 2 || !type->hasStaticShape())
    return ctx.fail("needs a 2-D input of static shape");
  int32_t dtype = ctx.intAttr("dtype", onnxTypeOf(type->getElementType()));
  if (!elementTypeFromONNX(ctx.b.getContext(), dtype))
    return ctx.fail("output element type " + onnxTypeName(dtype) +
                    " is not supported");
  int64_t rows = type->getDimSize(0), cols = type->getDimSize(1);
  if (failed(checkConstantSize(ctx, rows * cols, "EyeLike result")))
    return failure();
  int64_t k = ctx.intAttr("k", 0);
  HostTensor eye;
  eye.dtype = dtype;
  eye.shape = {rows, cols};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t v = j - i == k ? 1 : 0;
      if (eye.isFloat())
        eye.floats.push_back(v);
      else
        eye.ints.push_back(v);
    }
  ctx.setOutputConstant(0, std::move(eye));
  return success();
}

/// GatherND: the last axis of `indices` holds K coordinates into the
/// first K dimensions of data. They become one row number into data viewed
/// as [d0 * ... * dK-1, rest...] (the sum of each coordinate, counted from
/// its dimension's end when negative, times its stride), which nn.gather
/// picks; with `batch_dims`, an index ramp of each batch dimension joins
/// the coordinates in front.
LogicalResult onnximport::importGatherND(NodeContext &ctx) {
  FailureOr<Value> data = ctx.input(0), indices = ctx.input(1);
  if (failed(data) || failed(indices))
    return failure();
  auto dataType = cast<RankedTensorType>(data->getType());
  auto indexType = cast<RankedTensorType>(indices->getType());
  int64_t rank = dataType.getRank(), indexRank = indexType.getRank();
  int64_t batchDims = ctx.intAttr("batch_dims", 0);
  if (indexRank < 1)
    return ctx.fail("needs indices of rank 1 or more");
  if (batchDims < 0 || batchDims >= std::min(rank, indexRank))
    return ctx.fail("batch_dims = " + Twine(batchDims) +
                    " must be below both ranks");
  int64_t coordinates = indexType.getDimSize(indexRank - 1);
  if (ShapedType::isDynamic(coordinates) || coordinates < 1 ||
      batchDims + coordinates > rank)
    return ctx.fail("the last dimension of indices must be a static size "
                    "from 1 to the data's rank less batch_dims");
  Type i64 = ctx.b.getI64Type();
  Value index = *indices;
  if (indexType.getElementType() != i64)
    index = nn::CastOp::create(ctx.b, ctx.loc, indexType.clone(i64), index);
  // The batch dimensions' ramps, as leading coordinates.
  if (batchDims > 0) {
    if (!indexType.hasStaticShape())
      return ctx.fail("batch_dims > 0 needs indices of static shape");
    SmallVector<int64_t> rampShape(indexType.getShape());
    rampShape.back() = 1;
    SmallVector<Value> parts;
    for (int64_t d = 0; d < batchDims; ++d) {
      Value ramp = indexRamp(ctx, indexRank, d, indexType.getDimSize(d));
      FailureOr<Value> broadcast = ctx.create<nn::BroadcastToOp>(
          ramp, {i64ArrayAttr(ctx, "shape", rampShape)});
      if (failed(broadcast))
        return failure();
      parts.push_back(*broadcast);
    }
    parts.push_back(index);
    FailureOr<Value> joined = ctx.create<nn::ConcatOp>(
        parts,
        {ctx.b.getNamedAttr("axis", ctx.b.getI64IntegerAttr(indexRank - 1))});
    if (failed(joined))
      return failure();
    index = *joined;
    coordinates += batchDims;
  }
  for (int64_t d = 0; d < coordinates; ++d)
    if (dataType.isDynamicDim(d))
      return ctx.fail("needs static data sizes in the dimensions indexed");
  // Row number: sum over k of coordinate k (made non-negative) * stride k.
  auto currentType = cast<RankedTensorType>(index.getType());
  SmallVector<int64_t> offsets(indexRank, 0), sizes, steps(indexRank, 1);
  for (int64_t d = 0; d < indexRank; ++d)
    sizes.push_back(currentType.isDynamicDim(d) ? -1
                                                : currentType.getDimSize(d));
  sizes.back() = 1;
  Value row;
  int64_t stride = 1;
  for (int64_t k = coordinates - 1; k >= 0; --k) {
    offsets.back() = k;
    FailureOr<Value> coordinate =
        ctx.create<nn::SliceOp>(index, {i64ArrayAttr(ctx, "offsets", offsets),
                                        i64ArrayAttr(ctx, "sizes", sizes),
                                        i64ArrayAttr(ctx, "steps", steps)});
    if (failed(coordinate))
      return failure();
    int64_t extent = dataType.getDimSize(k);
    FailureOr<Value> term = countFromEnd(ctx, *coordinate, extent);
    if (failed(term))
      return failure();
    if (stride != 1) {
      term = ctx.create<nn::MulOp>({*term, ctx.intScalar(stride)});
      if (failed(term))
        return failure();
    }
    if (row) {
      term = ctx.create<nn::AddOp>({row, *term});
      if (failed(term))
        return failure();
    }
    row = *term;
    stride *= extent;
    if (failed(checkConstantSize(ctx, stride, "GatherND row count")))
      return failure();
  }
  // data as [rows, rest...]; the picked rows keep indices' unit last axis,
  // which the final reshape drops.
  SmallVector<int64_t> rowsShape = {stride};
  rowsShape.append(dataType.getShape().begin() + coordinates,
                   dataType.getShape().end());
  FailureOr<Value> rows = reshape(ctx, *data, rowsShape);
  if (failed(rows))
    return failure();
  FailureOr<Value> picked = ctx.create<nn::GatherOp>(
      {*rows, row}, {ctx.b.getNamedAttr("axis", ctx.b.getI64IntegerAttr(0))});
  if (failed(picked))
    return failure();
  SmallVector<int64_t> resultShape(currentType.getShape().drop_back());
  resultShape.append(dataType.getShape().begin() + coordinates,
                     dataType.getShape().end());
  return setResult(ctx, reshape(ctx, *picked, resultShape));
}
