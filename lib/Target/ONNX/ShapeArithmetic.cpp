//===- ShapeArithmetic.cpp - ONNX shape arithmetic on dynamic sizes -------===//
//
// PyTorch exports `x.view(x.size(0), -1)` and every attention reshape of a
// dynamic-batch model as Shape -> Gather -> Unsqueeze -> Concat (with Mul,
// Div, Equal and Where on the way) -> Reshape or Expand. Those small
// integer tensors are computed here element by element, each element known
// at import time or an `index` value computed at run time from tensor.dim,
// so that Reshape and Expand keep every size that is static and take only
// the dynamic ones at run time (nn.reshape / nn.broadcast_to `sizes`).
//
// An op outside this set, or one that reads a symbolic value as data, sees
// it as an ordinary run-time tensor (tensor.from_elements): nothing is
// refused for being symbolic.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::onnximport;

namespace {

OpFoldResult known(NodeContext &ctx, int64_t v) {
  return ctx.b.getI64IntegerAttr(v);
}

/// A value that is a size or built from sizes by products, sums and
/// quotients: never negative. ONNX's "-1 means infer" compares against it.
bool isNonNegative(OpFoldResult e) {
  if (std::optional<int64_t> c = getConstantIntValue(e))
    return *c >= 0;
  Operation *op = cast<Value>(e).getDefiningOp();
  if (!op)
    return false;
  if (isa<tensor::DimOp>(op))
    return true;
  if (isa<arith::MulIOp, arith::AddIOp, arith::DivSIOp>(op))
    return isNonNegative(op->getOperand(0)) && isNonNegative(op->getOperand(1));
  return false;
}

/// Element `i` of `s` broadcast to `n` elements (ranks 0 and 1 only).
OpFoldResult broadcastElement(const SymbolicInts &s, int64_t i) {
  return s.elements.size() == 1 ? s.elements[0] : s.elements[i];
}

/// The element count of two operands broadcast together (numpy: a
/// single element repeats, an empty operand empties the result).
int64_t broadcastCount(const SymbolicInts &a, const SymbolicInts &b) {
  int64_t na = a.elements.size(), nb = b.elements.size();
  return na == 0 || nb == 0 ? 0 : std::max(na, nb);
}

FailureOr<SmallVector<int64_t>> broadcastShape(NodeContext &ctx,
                                               const SymbolicInts &a,
                                               const SymbolicInts &b) {
  int64_t na = a.elements.size(), nb = b.elements.size();
  if (na != nb && na != 1 && nb != 1) {
    (void)ctx.fail("shape arithmetic on " + Twine(na) + " and " + Twine(nb) +
                   " elements, which do not broadcast");
    return failure();
  }
  if (a.shape.empty() && b.shape.empty())
    return SmallVector<int64_t>{};
  return SmallVector<int64_t>{broadcastCount(a, b)};
}

/// x op y on one element: folded when both are known.
FailureOr<OpFoldResult> arithmetic(NodeContext &ctx, StringRef op,
                                   OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy) {
    if (op == "Div" && *cy == 0) {
      (void)ctx.fail("integer Div by zero in shape arithmetic");
      return failure();
    }
    int64_t r = 0;
    bool overflow = op == "Add"   ? __builtin_add_overflow(*cx, *cy, &r)
                    : op == "Sub" ? __builtin_sub_overflow(*cx, *cy, &r)
                    : op == "Mul" ? __builtin_mul_overflow(*cx, *cy, &r)
                                  : *cx == INT64_MIN && *cy == -1;
    if (overflow) {
      (void)ctx.fail(op + " overflows 64 bits in shape arithmetic");
      return failure();
    }
    if (op == "Div")
      r = *cx / *cy; // ONNX integer Div truncates
    return known(ctx, r);
  }
  // Identities keep a lone size recognizable as such (x * 1, x / 1, x + 0).
  if ((op == "Mul" || op == "Div") && cy == 1)
    return x;
  if (op == "Mul" && cx == 1)
    return y;
  if ((op == "Add" || op == "Sub") && cy == 0)
    return x;
  Value a = getValueOrCreateConstantIndexOp(ctx.b, ctx.loc, x);
  Value b = getValueOrCreateConstantIndexOp(ctx.b, ctx.loc, y);
  if (op == "Add")
    return OpFoldResult(arith::AddIOp::create(ctx.b, ctx.loc, a, b));
  if (op == "Sub")
    return OpFoldResult(arith::SubIOp::create(ctx.b, ctx.loc, a, b));
  if (op == "Mul")
    return OpFoldResult(arith::MulIOp::create(ctx.b, ctx.loc, a, b));
  return OpFoldResult(arith::DivSIOp::create(ctx.b, ctx.loc, a, b));
}

/// Calls `each` on the element pairs of inputs 0 and 1 broadcast together
/// (numpy rules); fails when an element fails, and returns the result
/// shape. Nullopt when an input is not shape arithmetic.
FailureOr<std::optional<SmallVector<int64_t>>> forEachBroadcastPair(
    NodeContext &ctx,
    function_ref<LogicalResult(OpFoldResult, OpFoldResult)> each) {
  std::optional<SymbolicInts> a = ctx.symbolic(0), b = ctx.symbolic(1);
  if (!a || !b)
    return std::optional<SmallVector<int64_t>>();
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(ctx, *a, *b);
  if (failed(shape))
    return failure();
  for (int64_t i = 0, n = broadcastCount(*a, *b); i < n; ++i)
    if (failed(each(broadcastElement(*a, i), broadcastElement(*b, i))))
      return failure();
  return std::optional<SmallVector<int64_t>>(*shape);
}

/// Add, Sub, Mul, Div elementwise with broadcasting.
FailureOr<bool> binaryArithmetic(NodeContext &ctx) {
  SymbolicInts out;
  auto shape = forEachBroadcastPair(ctx, [&](OpFoldResult x, OpFoldResult y) {
    FailureOr<OpFoldResult> r = arithmetic(ctx, ctx.node.op_type(), x, y);
    if (failed(r))
      return failure();
    out.elements.push_back(*r);
    return success();
  });
  if (failed(shape))
    return failure();
  if (!*shape)
    return false;
  out.dtype = ctx.symbolic(0)->dtype;
  out.shape = **shape;
  ctx.setOutputSymbolic(0, std::move(out));
  return true;
}

/// Equal, folded where it is decided when compiling: equal elements, two
/// constants, or a size against a negative constant (ONNX's "-1 means
/// infer" test on a dynamic batch). Otherwise a run-time comparison.
FailureOr<bool> equal(NodeContext &ctx) {
  std::vector<int64_t> result;
  bool decided = true;
  auto shape = forEachBroadcastPair(ctx, [&](OpFoldResult x, OpFoldResult y) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (x == y)
      result.push_back(1);
    else if (cx && cy)
      result.push_back(*cx == *cy);
    else if ((cx && *cx < 0 && isNonNegative(y)) ||
             (cy && *cy < 0 && isNonNegative(x)))
      result.push_back(0);
    else
      decided = false;
    return success();
  });
  if (failed(shape))
    return failure();
  if (!*shape || !decided)
    return false;
  HostTensor t = HostTensor::ofInts(**shape, std::move(result));
  t.dtype = onnx::TensorProto::BOOL;
  ctx.setOutputConstant(0, std::move(t));
  return true;
}

/// Where with a condition known when compiling picks element by element.
FailureOr<bool> where(NodeContext &ctx) {
  const HostTensor *cond = ctx.constant(0);
  std::optional<SymbolicInts> x = ctx.symbolic(1), y = ctx.symbolic(2);
  if (!cond || cond->shape.size() > 1 || !x || !y)
    return false;
  SymbolicInts c;
  c.shape = cond->shape;
  for (int64_t v : cond->ints)
    c.elements.push_back(known(ctx, v));
  FailureOr<SmallVector<int64_t>> xy = broadcastShape(ctx, *x, *y);
  if (failed(xy))
    return failure();
  SymbolicInts shapeOfXY;
  shapeOfXY.shape = *xy;
  shapeOfXY.elements.resize(broadcastCount(*x, *y));
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(ctx, c, shapeOfXY);
  if (failed(shape))
    return failure();
  SymbolicInts out;
  out.dtype = x->dtype;
  out.shape = *shape;
  int64_t n = broadcastCount(c, shapeOfXY);
  for (int64_t i = 0; i < n; ++i)
    out.elements.push_back(*getConstantIntValue(broadcastElement(c, i))
                               ? broadcastElement(*x, i)
                               : broadcastElement(*y, i));
  ctx.setOutputSymbolic(0, std::move(out));
  return true;
}

/// Gather of constant indices from a 1-D symbolic value.
FailureOr<bool> gather(NodeContext &ctx) {
  std::optional<SymbolicInts> data = ctx.symbolic(0);
  const HostTensor *indices = ctx.constant(1);
  if (!data || !indices || data->shape.size() != 1 ||
      indices->shape.size() > 1 || indices->isFloat())
    return false;
  int64_t axis = ctx.intAttr("axis", 0);
  if (axis != 0 && axis != -1)
    return false;
  int64_t n = data->elements.size();
  SymbolicInts out;
  out.dtype = data->dtype;
  out.shape = indices->shape;
  for (int64_t i : indices->ints) {
    if (i < -n || i >= n) {
      (void)ctx.fail("index " + Twine(i) + " is out of range for size " +
                     Twine(n));
      return failure();
    }
    out.elements.push_back(data->elements[i < 0 ? i + n : i]);
  }
  ctx.setOutputSymbolic(0, std::move(out));
  return true;
}

/// Concat of 1-D values.
FailureOr<bool> concat(NodeContext &ctx) {
  SymbolicInts out;
  out.shape = {0};
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    std::optional<SymbolicInts> s = ctx.symbolic(i);
    if (!s || s->shape.size() != 1)
      return false;
    out.dtype = s->dtype;
    out.elements.append(s->elements);
  }
  out.shape[0] = out.elements.size();
  ctx.setOutputSymbolic(0, std::move(out));
  return true;
}

/// Slice of a 1-D value with constant starts, ends and steps.
FailureOr<bool> slice(NodeContext &ctx) {
  std::optional<SymbolicInts> data = ctx.symbolic(0);
  if (!data || data->shape.size() != 1)
    return false;
  auto scalarInput = [&](unsigned i,
                         int64_t defaultValue) -> std::optional<int64_t> {
    if (!ctx.hasInput(i))
      return defaultValue;
    const HostTensor *t = ctx.constant(i);
    if (!t || t->isFloat() || t->numElements() != 1)
      return std::nullopt;
    return t->ints[0];
  };
  int64_t n = data->elements.size();
  std::optional<int64_t> start, end, axis, step;
  if (ctx.opset < 10) {
    auto attrOr = [&](StringRef name, int64_t d) -> std::optional<int64_t> {
      std::optional<SmallVector<int64_t>> v = ctx.intsAttr(name);
      if (!v)
        return d;
      return v->size() == 1 ? std::optional<int64_t>((*v)[0]) : std::nullopt;
    };
    start = attrOr("starts", 0), end = attrOr("ends", n);
    axis = attrOr("axes", 0), step = 1;
  } else {
    start = scalarInput(1, 0), end = scalarInput(2, n);
    axis = scalarInput(3, 0), step = scalarInput(4, 1);
  }
  if (!start || !end || !axis || !step || (*axis != 0 && *axis != -1) ||
      *step == 0)
    return false;
  // ONNX's clamping: negative from the end; forward to [0, n], backward
  // to [-1, n-1].
  auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0)
      v = std::max<int64_t>(v, -n - 1) + n;
    return std::clamp<int64_t>(v, lo, hi);
  };
  SymbolicInts out;
  out.dtype = data->dtype;
  // i + step may pass int64's range on untrusted steps: stop there.
  if (*step > 0) {
    for (int64_t i = clampIndex(*start, 0, n), e = clampIndex(*end, 0, n);
         i < e;) {
      out.elements.push_back(data->elements[i]);
      if (__builtin_add_overflow(i, *step, &i))
        break;
    }
  } else {
    for (int64_t i = clampIndex(*start, -1, n - 1),
                 e = clampIndex(*end, -1, n - 1);
         i > e;) {
      out.elements.push_back(data->elements[i]);
      if (__builtin_add_overflow(i, *step, &i))
        break;
    }
  }
  out.shape = {(int64_t)out.elements.size()};
  ctx.setOutputSymbolic(0, std::move(out));
  return true;
}

/// The axes of Squeeze/Unsqueeze: an attribute before opset 13, then an
/// input that must be constant.
std::optional<SmallVector<int64_t>> squeezeAxes(NodeContext &ctx) {
  if (ctx.opset >= 13 && ctx.hasInput(1)) {
    const HostTensor *t = ctx.constant(1);
    if (!t || t->isFloat())
      return std::nullopt;
    return SmallVector<int64_t>(t->ints.begin(), t->ints.end());
  }
  return ctx.intsAttr("axes").value_or(SmallVector<int64_t>{});
}

/// Unsqueeze of a scalar to [1], Squeeze of [1] to a scalar, Reshape and
/// Identity: the elements stay, the shape changes (ranks 0 and 1 only).
FailureOr<bool> reshapeLike(NodeContext &ctx) {
  std::optional<SymbolicInts> data = ctx.symbolic(0);
  if (!data)
    return false;
  StringRef op = ctx.node.op_type();
  int64_t n = data->elements.size();
  SmallVector<int64_t> shape;
  if (op == "Unsqueeze") {
    std::optional<SmallVector<int64_t>> axes = squeezeAxes(ctx);
    if (!axes || data->shape.size() != 0 || axes->size() != 1 ||
        ((*axes)[0] != 0 && (*axes)[0] != -1))
      return false;
    shape = {1};
  } else if (op == "Squeeze") {
    std::optional<SmallVector<int64_t>> axes = squeezeAxes(ctx);
    if (!axes || data->shape != SmallVector<int64_t>{1} || axes->size() > 1)
      return false;
  } else if (op == "Reshape") {
    const HostTensor *target = ctx.constant(1);
    if (!target || target->isFloat() || target->numElements() > 1)
      return false;
    if (target->numElements() == 1) {
      int64_t size = target->ints[0];
      if (size != -1 && size != n && !(size == 0 && data->shape.size() == 1))
        return false;
      shape = {n};
    } else if (n != 1) {
      return false;
    }
  } else { // Identity
    shape = data->shape;
  }
  data->shape = shape;
  ctx.setOutputSymbolic(0, std::move(*data));
  return true;
}

/// Cast between integer types keeps the elements (sizes fit any of them).
FailureOr<bool> castInts(NodeContext &ctx) {
  std::optional<SymbolicInts> data = ctx.symbolic(0);
  int64_t to = ctx.intAttr("to", 0);
  if (!data || HostTensor::isFloatDType(to) ||
      to == onnx::TensorProto::BOOL ||
      !elementTypeFromONNX(ctx.b.getContext(), to))
    return false;
  data->dtype = to;
  ctx.setOutputSymbolic(0, std::move(*data));
  return true;
}

} // namespace

FailureOr<bool> onnximport::importShapeArithmetic(NodeContext &ctx) {
  bool anySymbolic = false;
  for (int i = 0; i < ctx.node.input_size(); ++i)
    anySymbolic |= ctx.isSymbolic(i);
  if (!anySymbolic)
    return false;
  using Handler = FailureOr<bool> (*)(NodeContext &);
  Handler handler = llvm::StringSwitch<Handler>(ctx.node.op_type())
                        .Cases({"Add", "Sub", "Mul", "Div"}, binaryArithmetic)
                        .Case("Equal", equal)
                        .Case("Where", where)
                        .Case("Gather", gather)
                        .Case("Concat", concat)
                        .Case("Slice", slice)
                        .Cases({"Unsqueeze", "Squeeze", "Reshape", "Identity"},
                               reshapeLike)
                        .Case("Cast", castInts)
                        .Default(nullptr);
  if (!handler)
    return false;
  return handler(ctx);
}
