//===- OpImporters.cpp - one handler per supported ONNX op ----------------===//
//
// Each handler maps one ONNX node onto nn ops, or folds it at import time
// when all its inputs are constants (shape arithmetic, Constant, Identity).
// Anything a handler cannot represent faithfully is refused by name.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::onnximport;

namespace {

NamedAttribute i64Array(NodeContext &ctx, StringRef name, ArrayRef<int64_t> v) {
  return ctx.b.getNamedAttr(name, ctx.b.getDenseI64ArrayAttr(v));
}
NamedAttribute i64Attr(NodeContext &ctx, StringRef name, int64_t v) {
  return ctx.b.getNamedAttr(name, ctx.b.getI64IntegerAttr(v));
}
NamedAttribute f64Attr(NodeContext &ctx, StringRef name, double v) {
  return ctx.b.getNamedAttr(name, ctx.b.getF64FloatAttr(v));
}

} // namespace

FailureOr<int64_t> onnximport::normalizeAxis(NodeContext &ctx, int64_t axis,
                                             int64_t rank) {
  if (axis < -rank || axis >= rank) {
    (void)ctx.fail("axis " + Twine(axis) + " is out of range for rank " +
                   Twine(rank));
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

namespace {

/// Creates `OpTy` and makes it the node's output 0.
template <typename OpTy>
LogicalResult emit(NodeContext &ctx, ValueRange operands,
                   ArrayRef<NamedAttribute> attributes = {}) {
  FailureOr<Value> y = ctx.create<OpTy>(operands, attributes);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Inputs [0, required) plus the optional ones after them that are given.
FailureOr<SmallVector<Value>> inputsUpTo(NodeContext &ctx, unsigned required,
                                         unsigned total) {
  SmallVector<Value> values;
  for (unsigned i = 0; i < total; ++i) {
    if (i >= required && !ctx.hasInput(i))
      continue;
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

/// Handler that forwards a unary op.
template <typename OpTy> LogicalResult unary(NodeContext &ctx) {
  // Neg and Abs of small constants fold (shape arithmetic: axis counts).
  if constexpr (std::is_same_v<OpTy, nn::NegOp> ||
                std::is_same_v<OpTy, nn::AbsOp>) {
    const HostTensor *c = ctx.constant(0);
    if (c && c->numElements() <= 4096) {
      HostTensor out = *c;
      for (double &v : out.floats)
        v = std::is_same_v<OpTy, nn::NegOp> ? -v : std::fabs(v);
      for (int64_t &v : out.ints)
        v = std::is_same_v<OpTy, nn::NegOp> || v < 0
                ? (int64_t)(0 - (uint64_t)v) // wraps, as the run-time op
                : v;
      ctx.setOutputConstant(0, std::move(out));
      return success();
    }
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<OpTy>(ctx, *x);
}

/// Shape of the numpy broadcast of `tensors`; fails when they do not
/// broadcast.
FailureOr<SmallVector<int64_t>>
hostBroadcastShape(NodeContext &ctx, ArrayRef<const HostTensor *> tensors) {
  size_t rank = 0;
  for (const HostTensor *t : tensors)
    rank = std::max(rank, t->shape.size());
  SmallVector<int64_t> shape(rank, 1);
  for (const HostTensor *t : tensors)
    for (size_t i = 0; i < t->shape.size(); ++i) {
      int64_t &s = shape[rank - t->shape.size() + i];
      int64_t d = t->shape[i];
      if (d != s && d != 1 && s != 1) {
        (void)ctx.fail("constant operands do not broadcast");
        return failure();
      }
      if (d != 1)
        s = d;
    }
  return shape;
}

/// Flat index into `t` of element `flat` of the broadcast shape `shape`.
int64_t hostBroadcastIndex(const HostTensor &t, ArrayRef<int64_t> shape,
                           int64_t flat) {
  int64_t idx = 0, stride = 1, rank = shape.size();
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t coord = flat % shape[d];
    flat /= shape[d];
    int64_t td = d - (rank - (int64_t)t.shape.size());
    if (td >= 0) {
      if (t.shape[td] != 1)
        idx += coord * stride;
      stride *= t.shape[td];
    }
  }
  return idx;
}

/// `t` broadcast (numpy rules) to `shape`, which it must broadcast to.
HostTensor hostBroadcastTo(const HostTensor &t, ArrayRef<int64_t> shape) {
  HostTensor out;
  out.dtype = t.dtype;
  out.shape.assign(shape.begin(), shape.end());
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    int64_t src = hostBroadcastIndex(t, shape, i);
    if (t.isFloat())
      out.floats.push_back(t.floats[src]);
    else
      out.ints.push_back(t.ints[src]);
  }
  return out;
}

/// Broadcast arithmetic on import-time constants (numpy rules).
FailureOr<HostTensor> foldBinary(NodeContext &ctx, const HostTensor &a,
                                 const HostTensor &b, StringRef op) {
  FailureOr<SmallVector<int64_t>> shape = hostBroadcastShape(ctx, {&a, &b});
  if (failed(shape))
    return failure();
  HostTensor out;
  // ONNX gives both operands one type; Pow's exponent may differ, and
  // the result has the base's.
  out.dtype = b.isFloat() && !a.isFloat() && op != "Pow" ? b.dtype : a.dtype;
  out.shape = *shape;
  int64_t n = out.numElements();
  for (int64_t i = 0; i < n; ++i) {
    double x = a.at(hostBroadcastIndex(a, *shape, i));
    double y = b.at(hostBroadcastIndex(b, *shape, i));
    double r;
    if (op == "Add")
      r = x + y;
    else if (op == "Sub")
      r = x - y;
    else if (op == "Mul")
      r = x * y;
    else if (op == "Div" && !out.isFloat() && y == 0)
      return ctx.fail("integer Div by zero in constants");
    else if (op == "Div")
      r = out.isFloat() ? x / y : std::trunc(x / y);
    else if (op == "Pow")
      r = std::pow(x, y);
    else
      llvm_unreachable("foldBinary: an op without a folding rule");
    if (out.isFloat())
      out.pushFloat(r);
    else
      out.ints.push_back((int64_t)r);
  }
  return out;
}

template <typename OpTy> LogicalResult binary(NodeContext &ctx) {
  const HostTensor *a = ctx.constant(0), *b = ctx.constant(1);
  // Shape arithmetic on constants folds; small float constants too.
  if (a && b && a->numElements() <= 4096 && b->numElements() <= 4096) {
    FailureOr<HostTensor> folded = foldBinary(ctx, *a, *b, ctx.node.op_type());
    if (failed(folded))
      return failure();
    ctx.setOutputConstant(0, std::move(*folded));
    return success();
  }
  FailureOr<Value> x = ctx.input(0), y = ctx.input(1);
  if (failed(x) || failed(y))
    return failure();
  FailureOr<Value> z = ctx.create<OpTy>(ValueRange{*x, *y});
  if (failed(z))
    return failure();
  ctx.setOutput(0, *z);
  return success();
}

/// `x` converted to `element` by nn.cast (itself when it has that type).
Value castTo(NodeContext &ctx, Value x, Type element) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getElementType() == element)
    return x;
  return nn::CastOp::create(ctx.b, ctx.loc, type.clone(element), x);
}

/// Pow: the result has the base's type, whatever the exponent's. Float
/// bases take the exponent cast to their type; integer ones are raised in
/// f64 (exact up to 2^53) and truncated back.
LogicalResult importPow(NodeContext &ctx) {
  if (ctx.constant(0) && ctx.constant(1))
    return binary<nn::PowOp>(ctx);
  FailureOr<Value> x = ctx.input(0), y = ctx.input(1);
  if (failed(x) || failed(y))
    return failure();
  Type base = getElementTypeOrSelf(x->getType());
  if (isa<FloatType>(base))
    return emit<nn::PowOp>(ctx, ValueRange{*x, castTo(ctx, *y, base)});
  Type f64 = ctx.b.getF64Type();
  FailureOr<Value> power = ctx.create<nn::PowOp>(
      ValueRange{castTo(ctx, *x, f64), castTo(ctx, *y, f64)});
  if (failed(power))
    return failure();
  ctx.setOutput(0, castTo(ctx, *power, base));
  return success();
}

/// The node's inputs (at least one) folded left with the binary `OpTy`,
/// broadcasting at each step as ONNX's variadic ops specify.
template <typename OpTy> FailureOr<Value> foldInputs(NodeContext &ctx) {
  int count = ctx.node.input_size();
  if (count < 1) {
    (void)ctx.fail("needs at least one input");
    return failure();
  }
  FailureOr<Value> acc = ctx.input(0);
  for (int i = 1; i < count && succeeded(acc); ++i) {
    FailureOr<Value> next = ctx.input(i);
    if (failed(next))
      return failure();
    acc = ctx.create<OpTy>(ValueRange{*acc, *next});
  }
  return acc;
}

/// Max, Min, Sum: any number of inputs.
template <typename OpTy> LogicalResult variadic(NodeContext &ctx) {
  FailureOr<Value> result = foldInputs<OpTy>(ctx);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Mean: the sum of the inputs divided by their count.
LogicalResult importMean(NodeContext &ctx) {
  FailureOr<Value> result = foldInputs<nn::AddOp>(ctx);
  if (succeeded(result) && ctx.node.input_size() > 1)
    result = ctx.create<nn::DivOp>(ValueRange{
        *result,
        ctx.scalar(static_cast<float>(ctx.node.input_size()),
                   getElementTypeOrSelf(result->getType()))});
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Resolves auto_pad to explicit pads, the leading ones of every spatial
/// dim then the trailing ones ([top, left, bottom, right] in 2-D); the
/// spatial rank is the kernel's.
FailureOr<SmallVector<int64_t>> spatialPads(NodeContext &ctx,
                                            RankedTensorType inputType,
                                            ArrayRef<int64_t> kernel,
                                            ArrayRef<int64_t> strides,
                                            ArrayRef<int64_t> dilations) {
  size_t rank = kernel.size();
  std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    SmallVector<int64_t> pads =
        ctx.intsAttr("pads").value_or(SmallVector<int64_t>(2 * rank, 0));
    if (pads.size() != 2 * rank) {
      (void)ctx.fail("'pads' of a " + Twine(rank) + "-D op must have " +
                     Twine(2 * rank) + " values, got " + Twine(pads.size()));
      return failure();
    }
    return pads;
  }
  if (autoPad == "VALID")
    return SmallVector<int64_t>(2 * rank, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    (void)ctx.fail("auto_pad '" + autoPad + "' is not supported");
    return failure();
  }
  SmallVector<int64_t> pads(2 * rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t size = inputType.getDimSize(2 + i);
    if (ShapedType::isDynamic(size)) {
      (void)ctx.fail("auto_pad " + autoPad + " needs static spatial sizes");
      return failure();
    }
    int64_t out = (size + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        (out - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 - size, 0);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + rank] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

LogicalResult importConv(NodeContext &ctx) {
  FailureOr<RankedTensorType> wType = ctx.inputType(1);
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(wType))
    return failure();
  if (wType->getRank() != 4 && wType->getRank() != 5)
    return ctx.fail("only 1-D, 2-D and 3-D convolutions are supported "
                    "(weight rank " +
                    Twine(wType->getRank()) + ")");
  FailureOr<ConvAttributes> attrs = convAttributes(
      ctx, cast<RankedTensorType>(x->getType()), wType->getShape());
  FailureOr<SmallVector<Value>> operands = inputsUpTo(ctx, 2, 3);
  if (failed(attrs) || failed(operands))
    return failure();
  FailureOr<Value> y = createConv(ctx, (*operands)[0], (*operands)[1],
                                  operands->size() > 2 ? (*operands)[2]
                                                       : Value(),
                                  *attrs);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// stride * (in - 1) + output_padding + (k - 1) * dilation + 1, the
/// unpadded transposed-convolution size, into `size`; true on overflow.
bool fullTransposedSize(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                        int64_t outputPadding, int64_t &size) {
  int64_t spread, reach;
  return __builtin_mul_overflow(stride, in - 1, &spread) ||
         __builtin_mul_overflow(k - 1, dilation, &reach) ||
         __builtin_add_overflow(spread, reach, &size) ||
         __builtin_add_overflow(size, outputPadding + 1, &size);
}

/// ConvTranspose: pads given, or derived (ONNX's formulas) from
/// 'output_shape' or from auto_pad SAME_* (output = input * stride).
LogicalResult importConvTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  auto wType = cast<RankedTensorType>(w->getType());
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return ctx.fail("only 1-D and 2-D ConvTranspose (rank-3 or rank-4 input "
                    "and weight) is supported");
  SmallVector<int64_t> strides =
      ctx.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      ctx.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> outputPadding =
      ctx.intsAttr("output_padding").value_or(SmallVector<int64_t>{0, 0});
  SmallVector<int64_t> pads =
      ctx.intsAttr("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 ||
      outputPadding.size() != 2 || pads.size() != 4)
    return ctx.fail("strides, dilations, output_padding and pads must be 2-D");
  std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return ctx.fail("auto_pad '" + autoPad + "' is not supported");
  std::optional<SmallVector<int64_t>> outputShape = ctx.intsAttr("output_shape");
  if (!outputShape && autoPad.rfind("SAME", 0) == 0) {
    outputShape.emplace();
    for (int i = 0; i < 2; ++i) {
      int64_t in = xType.getDimSize(2 + i), out;
      if (ShapedType::isDynamic(in))
        return ctx.fail("auto_pad " + autoPad + " needs static spatial sizes");
      if (__builtin_mul_overflow(in, strides[i], &out))
        return ctx.fail("the SAME output size overflows 64 bits");
      outputShape->push_back(out);
    }
  }
  if (autoPad == "VALID")
    pads = {0, 0, 0, 0};
  if (outputShape) {
    // Only the spatial sizes count (a full N, C, H, W shape gives them last).
    if (outputShape->size() == 4)
      outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
    if (outputShape->size() != 2)
      return ctx.fail("'output_shape' must give 2 spatial sizes");
    for (int i = 0; i < 2; ++i) {
      int64_t in = xType.getDimSize(2 + i), k = wType.getDimSize(2 + i);
      if (ShapedType::isDynamic(in))
        return ctx.fail("'output_shape' with a dynamic spatial input size");
      int64_t total;
      if (fullTransposedSize(in, k, strides[i], dilations[i], outputPadding[i],
                             total) ||
          __builtin_sub_overflow(total, (*outputShape)[i], &total))
        return ctx.fail("the ConvTranspose output size overflows 64 bits");
      if (total < 0) {
        // Rows past the full output receive no contribution (zeros, plus
        // the bias): that is output padding, which must stay below the
        // stride or the dilation, as nn.conv_transpose2d requires.
        if (outputPadding[i] - total >= std::max(strides[i], dilations[i]))
          return ctx.fail("'output_shape' " + Twine((*outputShape)[i]) +
                          " is larger than the full output by more than "
                          "the output padding a stride of " +
                          Twine(strides[i]) + " allows");
        outputPadding[i] -= total;
        pads[i] = pads[i + 2] = 0;
        continue;
      }
      // The odd one out goes to the end except for SAME_LOWER (as ONNX's
      // reference outputs have it; the operator text says the opposite).
      bool lower = autoPad == "SAME_LOWER";
      pads[i] = lower ? total - total / 2 : total / 2;
      pads[i + 2] = total - pads[i];
    }
  }
  FailureOr<SmallVector<Value>> operands = inputsUpTo(ctx, 2, 3);
  if (failed(operands))
    return failure();
  return emit<nn::ConvTranspose2DOp>(
      ctx, *operands,
      {i64Array(ctx, "strides", strides), i64Array(ctx, "padding", pads),
       i64Array(ctx, "output_padding", outputPadding),
       i64Array(ctx, "dilations", dilations),
       i64Attr(ctx, "groups", ctx.intAttr("group", 1))});
}

FailureOr<Value> reshapeTo(NodeContext &ctx, Value x, ArrayRef<int64_t> shape);
bool isDimOf(OpFoldResult size, Value x, int64_t d);
template <typename OpTy>
FailureOr<Value> createWithRunTimeSizes(NodeContext &ctx, Value x,
                                        ArrayRef<OpFoldResult> entries);

/// `shape` with dynamic sizes as -1 (nn.reshape infers one of them).
SmallVector<int64_t> reshapeSpec(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> spec(shape);
  for (int64_t &d : spec)
    if (ShapedType::isDynamic(d))
      d = -1;
  return spec;
}

/// 1-D convolutions and pools, on (N, C, W), run as the 2-D ones on
/// (N, C, 1, W): the input (and a convolution's rank-3 weight) gain a unit
/// H dimension, every spatial attribute a leading 1 (output_padding a 0,
/// pads a 0 at both H ends), and the result loses the unit dimension again.
template <LogicalResult (*Handler)(NodeContext &), bool HasWeight>
LogicalResult spatial1DAs2D(NodeContext &ctx) {
  FailureOr<RankedTensorType> xType = ctx.inputType(0);
  if (failed(xType))
    return failure();
  if (xType->getRank() != 3)
    return Handler(ctx);
  for (unsigned i = 0; i < (HasWeight ? 2u : 1u); ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    auto type = cast<RankedTensorType>(v->getType());
    if (type.getRank() != 3)
      return ctx.fail("a 1-D input needs a rank-3 weight, got rank " +
                      Twine(type.getRank()));
    SmallVector<int64_t> shape = reshapeSpec(type.getShape());
    shape.insert(shape.begin() + 2, 1);
    FailureOr<Value> lifted = reshapeTo(ctx, *v, shape);
    if (failed(lifted))
      return failure();
    ctx.inputOverrides[i] = *lifted;
  }
  for (StringRef name :
       {"kernel_shape", "strides", "dilations", "output_padding"}) {
    if (std::optional<SmallVector<int64_t>> values = ctx.intsAttr(name)) {
      if (values->size() != 1)
        return ctx.fail("'" + name + "' of a 1-D op must have 1 value, got " +
                        Twine(values->size()));
      // A unit H: kernel, stride and dilation 1, output padding 0.
      ctx.intsOverrides[name] = {name == "output_padding" ? 0 : 1,
                                 (*values)[0]};
    }
  }
  if (std::optional<SmallVector<int64_t>> pads = ctx.intsAttr("pads")) {
    if (pads->size() != 2)
      return ctx.fail("'pads' of a 1-D op must have 2 values, got " +
                      Twine(pads->size()));
    ctx.intsOverrides["pads"] = {0, (*pads)[0], 0, (*pads)[1]};
  }
  if (std::optional<SmallVector<int64_t>> out = ctx.intsAttr("output_shape")) {
    if (out->size() != 1 && out->size() != 3)
      return ctx.fail("'output_shape' of a 1-D op must have 1 or 3 values");
    ctx.intsOverrides["output_shape"] = {1, out->back()};
  }
  bool outputFailed = false;
  ctx.outputTransform = [&](Value y) -> FailureOr<Value> {
    SmallVector<int64_t> shape =
        reshapeSpec(cast<RankedTensorType>(y.getType()).getShape());
    shape.erase(shape.begin() + 2);
    FailureOr<Value> lowered = reshapeTo(ctx, y, shape);
    outputFailed = failed(lowered);
    return lowered;
  };
  LogicalResult result = Handler(ctx);
  ctx.outputTransform = nullptr;
  return failure(failed(result) || outputFailed);
}

/// Per-channel ops defined on 4-D NCHW (BatchNormalization, and
/// GlobalAveragePool over the spatial dims) on other ranks: (N, C) and
/// (N, C, L) run as (N, C, 1, 1) and (N, C, 1, L) (BatchNorm1d), and
/// (N, C, D, H, W) and up as (N, C, D*H..., W) (video networks): the
/// channels stay dim 1 and every other element keeps its channel. The
/// result gets the input's rank back: its shape (`KeepsSpatial`) or the
/// pooled unit spatial dims.
template <LogicalResult (*Handler)(NodeContext &), bool KeepsSpatial>
LogicalResult channelsAs4D(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (rank == 4)
    return Handler(ctx);
  if (rank < 2 || (!KeepsSpatial && rank < 3))
    return ctx.fail("input of rank " + Twine(rank) +
                    " has no channel dimension (N, C, ...)");
  ArrayRef<int64_t> shape = type.getShape();
  if (llvm::any_of(shape.drop_front(), ShapedType::isDynamic))
    return ctx.fail("an input of rank " + Twine(rank) +
                    " needs static sizes other than the batch, got " +
                    Twine(llvm::join(llvm::map_range(reshapeSpec(shape),
                                                     [](int64_t d) {
                                                       return Twine(d).str();
                                                     }),
                                     "x")));
  int64_t batch = ShapedType::isDynamic(shape[0]) ? -1 : shape[0];
  int64_t width = rank > 2 ? shape.back() : 1;
  int64_t rows = 1;
  for (int64_t d : shape.drop_front(2).drop_back(rank > 2 ? 1 : 0))
    if (llvm::MulOverflow(rows, d, rows))
      return ctx.fail("the spatial sizes' product overflows 64 bits");
  FailureOr<Value> viewed = reshapeTo(ctx, *x, {batch, shape[1], rows, width});
  if (failed(viewed))
    return failure();
  ctx.inputOverrides[0] = *viewed;
  SmallVector<int64_t> resultShape = reshapeSpec(shape);
  if (!KeepsSpatial)
    std::fill(resultShape.begin() + 2, resultShape.end(), 1);
  bool outputFailed = false;
  ctx.outputTransform = [&](Value y) -> FailureOr<Value> {
    FailureOr<Value> restored = reshapeTo(ctx, y, resultShape);
    outputFailed = failed(restored);
    return restored;
  };
  LogicalResult result = Handler(ctx);
  ctx.outputTransform = nullptr;
  return failure(failed(result) || outputFailed);
}

/// Gemm: Y = alpha * A' * B' + beta * C as nn.linear (weight O x K) plus
/// scaling and a broadcast add where alpha, beta or C need them.
LogicalResult importGemm(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), bMat = ctx.input(1);
  if (failed(a) || failed(bMat))
    return failure();
  float alpha = ctx.floatAttr("alpha", 1.0f),
        beta = ctx.floatAttr("beta", 1.0f);
  if (ctx.intAttr("transA", 0)) {
    FailureOr<Value> t =
        ctx.create<nn::TransposeOp>(*a, {i64Array(ctx, "perm", {1, 0})});
    if (failed(t))
      return failure();
    a = t;
  }
  Value weight = *bMat;
  if (!ctx.intAttr("transB", 0)) {
    FailureOr<Value> t =
        ctx.create<nn::TransposeOp>(weight, {i64Array(ctx, "perm", {1, 0})});
    if (failed(t))
      return failure();
    weight = *t;
  }
  SmallVector<Value> operands = {*a, weight};
  Value c;
  if (ctx.hasInput(2)) {
    FailureOr<Value> cv = ctx.input(2);
    if (failed(cv))
      return failure();
    c = *cv;
  }
  int64_t outFeatures = cast<RankedTensorType>(weight.getType()).getDimSize(0);
  auto cType = c ? cast<RankedTensorType>(c.getType()) : RankedTensorType();
  bool cIsBias = c && alpha == 1.0f && beta == 1.0f && cType.getRank() == 1 &&
                 cType.getDimSize(0) == outFeatures;
  if (cIsBias)
    operands.push_back(c);
  FailureOr<Value> y = ctx.create<nn::LinearOp>(operands);
  if (failed(y))
    return failure();
  if (alpha != 1.0f) {
    y = ctx.create<nn::MulOp>(ValueRange{*y, ctx.scalar(alpha)});
    if (failed(y))
      return failure();
  }
  if (c && !cIsBias) {
    if (beta != 1.0f) {
      FailureOr<Value> scaled =
          ctx.create<nn::MulOp>(ValueRange{c, ctx.scalar(beta)});
      if (failed(scaled))
        return failure();
      c = *scaled;
    }
    y = ctx.create<nn::AddOp>(ValueRange{*y, c});
    if (failed(y))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

/// nn.reshape of `x` to `shape` (at most one -1).
FailureOr<Value> reshapeTo(NodeContext &ctx, Value x, ArrayRef<int64_t> shape) {
  if (cast<RankedTensorType>(x.getType()).getShape() == shape)
    return x;
  return ctx.create<nn::ReshapeOp>(x, {i64Array(ctx, "shape", shape)});
}

} // namespace

FailureOr<SmallVector<int64_t>>
onnximport::reshapeSizes(NodeContext &ctx, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes(shape);
  if (llvm::count_if(sizes, ShapedType::isDynamic) > 1) {
    (void)ctx.fail("more than one dynamic dimension in a reshape (nn.reshape infers one)");
    return failure();
  }
  for (int64_t &s : sizes)
    if (ShapedType::isDynamic(s))
      s = -1;
  return sizes;
}

namespace {

/// The most elements an import-time fold may produce (64 MiB of f32).
constexpr int64_t kMaxFoldedElements = int64_t{1} << 24;

/// Fails, naming `what`, when a fold would produce more than
/// kMaxFoldedElements elements.
LogicalResult checkFoldSize(NodeContext &ctx, int64_t elements, StringRef what) {
  if (elements >= 0 && elements <= kMaxFoldedElements)
    return success();
  return ctx.fail(what + " of " + Twine(elements) +
                  " elements is too large to fold at import (at most " +
                  Twine(kMaxFoldedElements) + ")");
}

/// The product of `sizes` (index constants or values): a constant when all
/// are, computed at run time otherwise; nullopt when a constant product
/// overflows.
std::optional<OpFoldResult> productOfSizes(NodeContext &ctx,
                                           ArrayRef<OpFoldResult> sizes) {
  int64_t constant = 1;
  Value dynamic;
  for (OpFoldResult size : sizes) {
    if (std::optional<int64_t> c = getConstantIntValue(size)) {
      if (__builtin_mul_overflow(constant, *c, &constant))
        return std::nullopt;
      continue;
    }
    Value v = cast<Value>(size);
    dynamic = dynamic ? arith::MulIOp::create(ctx.b, ctx.loc, dynamic, v) : v;
  }
  if (!dynamic)
    return OpFoldResult(ctx.b.getIndexAttr(constant));
  if (constant == 1)
    return OpFoldResult(dynamic);
  return OpFoldResult(
      arith::MulIOp::create(
          ctx.b, ctx.loc, dynamic,
          arith::ConstantIndexOp::create(ctx.b, ctx.loc, constant))
          .getResult());
}

/// nn.reshape of `x` to `sizes`, each a constant or a value computed at
/// run time (any number of them: those become `sizes` operands).
FailureOr<Value> reshapeToSizes(NodeContext &ctx, Value x,
                                ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  int64_t runTime = 0;
  for (OpFoldResult size : sizes) {
    std::optional<int64_t> c = getConstantIntValue(size);
    runTime += !c;
    shape.push_back(c ? *c : ShapedType::kDynamic);
  }
  // Already that shape when every run-time size is x's own size there.
  if (ArrayRef<int64_t>(shape) == type.getShape() &&
      llvm::all_of(llvm::enumerate(sizes), [&](auto e) {
        return getConstantIntValue(e.value()) ||
               isDimOf(e.value(), x, e.index());
      }))
    return x;
  // One run-time size: nn.reshape infers it from the element count.
  if (runTime <= 1) {
    for (int64_t &s : shape)
      if (ShapedType::isDynamic(s))
        s = -1;
    return reshapeTo(ctx, x, shape);
  }
  return createWithRunTimeSizes<nn::ReshapeOp>(ctx, x, sizes);
}

/// numpy matmul semantics on nn.matmul / nn.batch_matmul: 1-D operands get a
/// unit dimension (removed again), a 2-D right operand is shared by every
/// matrix of the left one (one GEMM over all its rows), and batch dimensions
/// broadcast (nn.broadcast_to) before they are collapsed into one. Sizes
/// known at run time only (a sequence's symbolic length) are carried as
/// values, so that any number of them reshape.
LogicalResult importMatMul(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  auto aType = cast<RankedTensorType>(a->getType());
  auto bType = cast<RankedTensorType>(b->getType());
  if (aType.getRank() == 0 || bType.getRank() == 0)
    return ctx.fail("MatMul of a scalar (rank 0) operand");
  SmallVector<int64_t> aShape(aType.getShape()), bShape(bType.getShape());
  SmallVector<OpFoldResult> aSizes = tensor::getMixedSizes(ctx.b, ctx.loc, *a);
  SmallVector<OpFoldResult> bSizes = tensor::getMixedSizes(ctx.b, ctx.loc, *b);
  OpFoldResult one = ctx.b.getIndexAttr(1);
  bool aVector = aShape.size() == 1, bVector = bShape.size() == 1;
  if (aVector) {
    aShape.insert(aShape.begin(), 1);
    aSizes.insert(aSizes.begin(), one);
  }
  if (bVector) {
    bShape.push_back(1);
    bSizes.push_back(one);
  }
  ArrayRef<int64_t> aBatch = ArrayRef(aShape).drop_back(2);
  ArrayRef<int64_t> bBatch = ArrayRef(bShape).drop_back(2);
  bool bShared = llvm::all_of(bBatch, [](int64_t s) { return s == 1; });

  // The result's batch dimensions (numpy broadcast of both).
  SmallVector<int64_t> batch;
  SmallVector<OpFoldResult> batchSizes;
  size_t batchRank = std::max(aBatch.size(), bBatch.size());
  for (size_t i = 0; i < batchRank; ++i) {
    size_t ia = i + aBatch.size() - batchRank, ib = i + bBatch.size() - batchRank;
    bool inA = i + aBatch.size() >= batchRank, inB = i + bBatch.size() >= batchRank;
    int64_t ai = inA ? aBatch[ia] : 1;
    int64_t bi = inB ? bBatch[ib] : 1;
    // Two dynamic sizes are taken to be equal (nn.batch_matmul checks it at
    // run time); a dynamic one against a static one cannot be broadcast.
    if (!bShared && ShapedType::isDynamic(ai) != ShapedType::isDynamic(bi))
      return ctx.fail("MatMul batch dimension " + Twine(i) +
                      " is dynamic on one operand only; broadcasting it is "
                      "not supported");
    if (ai != bi && ai != 1 && bi != 1)
      return ctx.fail("MatMul batch dimensions do not broadcast (" +
                      Twine(ai) + " vs " + Twine(bi) + ")");
    batch.push_back(ai == 1 ? bi : ai);
    batchSizes.push_back(ai == 1 ? (inB ? bSizes[ib] : one) : aSizes[ia]);
  }
  SmallVector<OpFoldResult> resultSizes(batchSizes);
  resultSizes.append({aSizes[aSizes.size() - 2], bSizes.back()});

  FailureOr<Value> lhs = reshapeToSizes(ctx, *a, aSizes);
  FailureOr<Value> rhs = reshapeToSizes(ctx, *b, bSizes);
  if (failed(lhs) || failed(rhs))
    return failure();
  FailureOr<Value> y = failure();
  if (bShared && aBatch.size() >= bBatch.size()) {
    // Rows of every left matrix times the one right matrix.
    std::optional<OpFoldResult> rowCount =
        productOfSizes(ctx, ArrayRef(aSizes).drop_back());
    if (!rowCount)
      return ctx.fail("MatMul operand sizes overflow");
    FailureOr<Value> lhs2d =
        reshapeToSizes(ctx, *lhs, {*rowCount, aSizes.back()});
    FailureOr<Value> rhs2d = reshapeToSizes(
        ctx, *rhs, {bSizes[bSizes.size() - 2], bSizes.back()});
    if (failed(lhs2d) || failed(rhs2d))
      return failure();
    y = ctx.create<nn::MatmulOp>(ValueRange{*lhs2d, *rhs2d});
  } else {
    // Both batched: broadcast, collapse the batch into one dimension.
    std::optional<OpFoldResult> batchSize = productOfSizes(ctx, batchSizes);
    if (!batchSize)
      return ctx.fail("MatMul batch sizes overflow");
    auto toBatched = [&](Value x, ArrayRef<int64_t> shape,
                         ArrayRef<OpFoldResult> sizes) -> FailureOr<Value> {
      SmallVector<int64_t> full(batch);
      full.append({shape[shape.size() - 2], shape.back()});
      FailureOr<Value> wide = x;
      if (ArrayRef<int64_t>(full) != shape)
        wide = ctx.create<nn::BroadcastToOp>(x, {i64Array(ctx, "shape", full)});
      if (failed(wide))
        return failure();
      return reshapeToSizes(
          ctx, *wide, {*batchSize, sizes[sizes.size() - 2], sizes.back()});
    };
    FailureOr<Value> lhs3d = toBatched(*lhs, aShape, aSizes);
    FailureOr<Value> rhs3d = toBatched(*rhs, bShape, bSizes);
    if (failed(lhs3d) || failed(rhs3d))
      return failure();
    y = ctx.create<nn::BatchMatmulOp>(ValueRange{*lhs3d, *rhs3d});
  }
  if (failed(y))
    return failure();
  if (aVector)
    resultSizes.erase(resultSizes.end() - 2);
  if (bVector)
    resultSizes.pop_back();
  FailureOr<Value> result = reshapeToSizes(ctx, *y, resultSizes);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// nn.transpose of `x` by `perm`, or `x` when `perm` is the identity.
FailureOr<Value> transposeBy(NodeContext &ctx, Value x,
                             ArrayRef<int64_t> perm) {
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= (int64_t)i == p;
  if (identity)
    return x;
  return ctx.create<nn::TransposeOp>(x, {i64Array(ctx, "perm", perm)});
}

/// One Einsum operand: its value and one letter per dimension.
std::pair<Value, int64_t> dimOrigin(Value v, int64_t d);
template <typename OpTy>
FailureOr<Value> createWithRunTimeSizes(NodeContext &ctx, Value x,
                                        ArrayRef<OpFoldResult> entries);

struct EinsumTerm {
  Value value;
  std::string letters;
  int64_t size(char c) const {
    return cast<RankedTensorType>(value.getType())
        .getDimSize(letters.find(c));
  }
  /// Whether letter `c` has one size here and in `other`: equal static
  /// sizes, or dynamic ones known to be one (a dynamic batch).
  bool sameSize(const EinsumTerm &other, char c) const {
    int64_t a = size(c), b = other.size(c);
    if (!ShapedType::isDynamic(a) || !ShapedType::isDynamic(b))
      return a == b;
    return dimOrigin(value, letters.find(c)) ==
           dimOrigin(other.value, other.letters.find(c));
  }
};

/// The product of sizes of an Einsum group: dynamic when one is.
int64_t groupSize(ArrayRef<int64_t> sizes) {
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  int64_t r = 1;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(r, s, &r))
      return std::numeric_limits<int64_t>::max();
  return r;
}

/// Sums away the dimensions of `term` whose letters `keep` rejects.
LogicalResult sumAwayUnless(NodeContext &ctx, EinsumTerm &term,
                            function_ref<bool(char)> keep) {
  SmallVector<int64_t> axes;
  std::string kept;
  for (auto [i, c] : llvm::enumerate(term.letters)) {
    if (keep(c))
      kept.push_back(c);
    else
      axes.push_back(i);
  }
  if (axes.empty())
    return success();
  FailureOr<Value> reduced = ctx.create<nn::ReduceOp>(
      term.value,
      {ctx.b.getNamedAttr("kind", nn::ReduceKindAttr::get(
                                      ctx.b.getContext(), nn::ReduceKind::Sum)),
       i64Array(ctx, "axes", axes),
       ctx.b.getNamedAttr("keepdims", ctx.b.getBoolAttr(false))});
  if (failed(reduced))
    return failure();
  term = {*reduced, kept};
  return success();
}

/// Brings `term` into the letter order `order` and reshapes it to `groups`
/// (each group's sizes multiplied).
FailureOr<Value> arrange(NodeContext &ctx, const EinsumTerm &term,
                         ArrayRef<std::string> groups) {
  SmallVector<int64_t> perm, shape;
  for (const std::string &group : groups) {
    SmallVector<int64_t> sizes;
    for (char c : group) {
      perm.push_back(term.letters.find(c));
      sizes.push_back(term.size(c));
    }
    int64_t size = groupSize(sizes);
    if (size == std::numeric_limits<int64_t>::max()) {
      (void)ctx.fail("Einsum operand sizes overflow");
      return failure();
    }
    shape.push_back(size);
  }
  FailureOr<Value> moved = transposeBy(ctx, term.value, perm);
  if (failed(moved))
    return failure();
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1) {
    (void)ctx.fail("Einsum with dynamic sizes in more than one of the "
                   "batch, row, contracted and column groups");
    return failure();
  }
  return reshapeTo(ctx, *moved, *reshapeSizes(ctx, shape));
}

/// Parses one Einsum operand's subscripts, replacing "..." by letters of
/// `ellipsisLetters` (right-aligned to the operand's rank).
FailureOr<std::string> expandEllipsis(NodeContext &ctx, StringRef subscripts,
                                      int64_t rank,
                                      StringRef ellipsisLetters) {
  size_t dots = subscripts.find("...");
  if (dots == StringRef::npos)
    return subscripts.str();
  int64_t covered = rank - ((int64_t)subscripts.size() - 3);
  if (covered < 0 || covered > (int64_t)ellipsisLetters.size()) {
    (void)ctx.fail("Einsum operand '" + subscripts + "' does not fit rank " +
                   Twine(rank));
    return failure();
  }
  return (subscripts.substr(0, dots) + ellipsisLetters.take_back(covered) +
          subscripts.substr(dots + 3))
      .str();
}

/// Einsum of one or two operands as sums, transposes, reshapes and one
/// batched GEMM: letters in both operands and the output are the batch,
/// letters in both operands only are contracted, the rest are the rows and
/// columns. Diagonals (a letter twice in one operand) are refused.
LogicalResult importEinsum(NodeContext &ctx) {
  std::string equation;
  for (char c : ctx.stringAttr("equation", ""))
    if (c != ' ')
      equation.push_back(c);
  StringRef eq(equation);
  auto [lhsPart, outPart] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> subscripts;
  lhsPart.split(subscripts, ',');
  int numInputs = ctx.node.input_size();
  if ((int)subscripts.size() != numInputs)
    return ctx.fail("Einsum equation '" + equation + "' names " +
                    Twine(subscripts.size()) + " operands, the node has " +
                    Twine(numInputs));
  if (numInputs < 1 || numInputs > 2)
    return ctx.fail("Einsum of " + Twine(numInputs) +
                    " operands is not supported (1 or 2 are)");
  // Letters for "...": ones the equation does not use.
  std::string spare;
  for (char c = 'A'; c <= 'z'; ++c)
    if (std::isalpha(c) && !eq.contains(c))
      spare.push_back(c);
  SmallVector<EinsumTerm> terms;
  int64_t ellipsisRank = 0;
  for (int i = 0; i < numInputs; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    int64_t rank = cast<RankedTensorType>(v->getType()).getRank();
    FailureOr<std::string> letters =
        expandEllipsis(ctx, subscripts[i], rank, spare);
    if (failed(letters))
      return failure();
    if ((int64_t)letters->size() != rank ||
        llvm::any_of(*letters, [](char c) { return !std::isalpha(c); }))
      return ctx.fail("Einsum operand '" + subscripts[i] +
                      "' does not match its rank " + Twine(rank));
    for (char c : *letters)
      if (llvm::count(*letters, c) > 1)
        return ctx.fail("Einsum operand '" + subscripts[i] +
                        "' repeats index '" + Twine(c) +
                        "' (diagonals are not supported)");
    if (subscripts[i].contains("..."))
      ellipsisRank = std::max<int64_t>(
          ellipsisRank, rank - ((int64_t)subscripts[i].size() - 3));
    terms.push_back({*v, *letters});
  }
  std::string output;
  if (explicitOutput) {
    FailureOr<std::string> expanded =
        expandEllipsis(ctx, outPart, ellipsisRank + outPart.size() - 3, spare);
    if (failed(expanded))
      return failure();
    output = *expanded;
  } else {
    // Implicit mode: the ellipsis, then letters seen once, alphabetically.
    output = StringRef(spare).take_back(ellipsisRank).str();
    std::string all;
    for (const EinsumTerm &t : terms)
      all += t.letters;
    std::string once;
    for (char c : all)
      if (llvm::count(all, c) == 1 && !StringRef(output).contains(c))
        once.push_back(c);
    llvm::sort(once);
    output += once;
  }
  auto inOutput = [&](char c) { return output.find(c) != std::string::npos; };
  auto inTerm = [&](int i, char c) {
    return i < numInputs && terms[i].letters.find(c) != std::string::npos;
  };
  for (char c : output)
    if (!inTerm(0, c) && !inTerm(1, c))
      return ctx.fail("Einsum output index '" + Twine(c) +
                      "' is in no operand");
  // Letters only one operand has and the output drops are summed first.
  for (int i = 0; i < numInputs; ++i)
    if (failed(sumAwayUnless(ctx, terms[i], [&](char c) {
          return inOutput(c) || inTerm(1 - i, c);
        })))
      return failure();

  EinsumTerm result;
  if (numInputs == 1) {
    result = terms[0];
  } else {
    std::string batch, rows, contracted, cols;
    for (char c : terms[0].letters) {
      if (inTerm(1, c))
        (inOutput(c) ? batch : contracted).push_back(c);
      else
        rows.push_back(c);
    }
    for (char c : terms[1].letters)
      if (!inTerm(0, c))
        cols.push_back(c);
    for (char c : batch + contracted)
      if (!terms[0].sameSize(terms[1], c))
        return ctx.fail("Einsum index '" + Twine(c) +
                        "' has sizes that differ (or dynamic ones not known "
                        "to be equal)");
    FailureOr<Value> lhs = arrange(ctx, terms[0], {batch, rows, contracted});
    FailureOr<Value> rhs = arrange(ctx, terms[1], {batch, contracted, cols});
    if (failed(lhs) || failed(rhs))
      return failure();
    FailureOr<Value> product3d =
        ctx.create<nn::BatchMatmulOp>(ValueRange{*lhs, *rhs});
    if (failed(product3d))
      return failure();
    // Each letter its own dimension again; a dynamic one takes its operand's
    // run-time size, which keeps it known equal to that operand's.
    SmallVector<OpFoldResult> entries;
    auto sizeOf = [&](const EinsumTerm &term, char c) -> OpFoldResult {
      int64_t size = term.size(c);
      if (!ShapedType::isDynamic(size))
        return ctx.b.getI64IntegerAttr(size);
      return tensor::DimOp::create(ctx.b, ctx.loc, term.value,
                                   term.letters.find(c))
          .getResult();
    };
    for (char c : batch + rows)
      entries.push_back(sizeOf(terms[0], c));
    for (char c : cols)
      entries.push_back(sizeOf(terms[1], c));
    FailureOr<Value> unfolded =
        createWithRunTimeSizes<nn::ReshapeOp>(ctx, *product3d, entries);
    if (failed(unfolded))
      return failure();
    result = {*unfolded, batch + rows + cols};
  }
  SmallVector<int64_t> perm;
  for (char c : output)
    perm.push_back(result.letters.find(c));
  FailureOr<Value> y = transposeBy(ctx, result.value, perm);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Split into consecutive nn.slice pieces: sizes from the 'split' input
/// (opset 13+) or attribute, else equal parts (the last smaller, opset 18's
/// num_outputs).
LogicalResult importSplit(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t extent = type.getDimSize(*axis);
  // Other dims may be dynamic (a symbolic batch): the pieces take them
  // whole.
  if (ShapedType::isDynamic(extent))
    return ctx.fail("Split along dynamic dimension " + Twine(*axis));
  int outputs = ctx.node.output_size();
  SmallVector<int64_t> sizes;
  if (ctx.opset >= 13 && ctx.hasInput(1)) {
    FailureOr<const HostTensor *> split = ctx.requireConstant(1, "split");
    if (failed(split))
      return failure();
    sizes.assign((*split)->ints.begin(), (*split)->ints.end());
  } else if (std::optional<SmallVector<int64_t>> attr = ctx.intsAttr("split")) {
    sizes = *attr;
  } else {
    int64_t piece = (extent + outputs - 1) / outputs;
    for (int i = 0; i < outputs; ++i)
      sizes.push_back(std::max<int64_t>(
          std::min<int64_t>(piece, extent - i * piece), 0));
  }
  if ((int)sizes.size() != outputs)
    return ctx.fail("'split' has " + Twine(sizes.size()) +
                    " sizes for " + Twine(outputs) + " outputs");
  if (llvm::any_of(sizes, [&](int64_t v) { return v < 0 || v > extent; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != extent)
    return ctx.fail("'split' sizes do not add up to the axis size " +
                    Twine(extent));
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> offsets(rank, 0), extents(type.getShape()),
        steps(rank, 1);
    for (int64_t &e : extents)
      if (ShapedType::isDynamic(e))
        e = -1;
    offsets[*axis] = offset;
    extents[*axis] = size;
    offset += size;
    FailureOr<Value> piece = ctx.create<nn::SliceOp>(
        *x, {i64Array(ctx, "offsets", offsets),
             i64Array(ctx, "sizes", extents), i64Array(ctx, "steps", steps)});
    if (failed(piece))
      return failure();
    ctx.setOutput(i, *piece);
  }
  return success();
}

/// Tile as a broadcast: [d0, d1] tiled [r0, r1] is [1, d0, 1, d1]
/// broadcast to [r0, d0, r1, d1], reshaped to [r0 * d0, r1 * d1].
LogicalResult importTile(NodeContext &ctx) {
  FailureOr<const HostTensor *> repeats = ctx.requireConstant(1, "repeats");
  if (failed(repeats))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  const std::vector<int64_t> &r = (*repeats)->ints;
  if ((int64_t)r.size() != type.getRank())
    return ctx.fail("'repeats' has " + Twine(r.size()) +
                    " entries for a rank-" + Twine(type.getRank()) + " input");
  if (!type.hasStaticShape())
    return ctx.fail("Tile of a dynamically shaped tensor");
  if (llvm::any_of(r, [](int64_t v) { return v < 1; }))
    return ctx.fail("'repeats' must be positive");
  SmallVector<int64_t> interleaved, wide, result;
  for (auto [size, rep] : llvm::zip(type.getShape(), r)) {
    interleaved.append({1, size});
    wide.append({rep, size});
    result.push_back(mulSat(rep, size));
  }
  if (product(result) == std::numeric_limits<int64_t>::max())
    return ctx.fail("'repeats' make the result's size overflow");
  FailureOr<Value> spread = reshapeTo(ctx, *x, interleaved);
  if (failed(spread))
    return failure();
  FailureOr<Value> copies =
      ctx.create<nn::BroadcastToOp>(*spread, {i64Array(ctx, "shape", wide)});
  if (failed(copies))
    return failure();
  FailureOr<Value> y = reshapeTo(ctx, *copies, result);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// DepthToSpace and SpaceToDepth as reshape, transpose, reshape (ONNX's
/// own definition).
LogicalResult importDepthSpace(NodeContext &ctx) {
  bool toSpace = ctx.node.op_type() == "DepthToSpace";
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() != 4 || !type.hasStaticShape())
    return ctx.fail("needs a static NCHW (rank 4) input");
  int64_t b = ctx.intAttr("blocksize", 0);
  if (b < 1 || b > (int64_t{1} << 20))
    return ctx.fail("'blocksize' must be in [1, 2^20]");
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  SmallVector<int64_t> split, perm, result;
  if (toSpace) {
    if (c % (b * b) != 0)
      return ctx.fail("channels " + Twine(c) + " are not a multiple of " +
                      Twine(b * b));
    std::string mode = ctx.stringAttr("mode", "DCR");
    if (mode == "DCR") {
      split = {n, b, b, c / (b * b), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      split = {n, c / (b * b), b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return ctx.fail("mode '" + mode + "' is not supported (DCR, CRD are)");
    }
    result = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0)
      return ctx.fail("spatial size " + Twine(h) + "x" + Twine(w) +
                      " is not a multiple of the block size " + Twine(b));
    split = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    result = {n, c * b * b, h / b, w / b};
  }
  FailureOr<Value> blocks = reshapeTo(ctx, *x, split);
  if (failed(blocks))
    return failure();
  FailureOr<Value> moved = transposeBy(ctx, *blocks, perm);
  if (failed(moved))
    return failure();
  FailureOr<Value> y = reshapeTo(ctx, *moved, result);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// The statistics of normalizing over `axes`: the mean and the standard
/// deviation sqrt(var + epsilon) (keeping the reduced dims as size 1), and
/// x - mean.
struct Moments {
  Value mean, centred, deviation;
};

FailureOr<Moments> moments(NodeContext &ctx, Value x, ArrayRef<int64_t> axes,
                           float epsilon) {
  auto meanOf = [&](Value v) {
    return ctx.create<nn::ReduceOp>(
        v, {ctx.b.getNamedAttr("kind",
                               nn::ReduceKindAttr::get(ctx.b.getContext(),
                                                       nn::ReduceKind::Mean)),
            i64Array(ctx, "axes", axes),
            ctx.b.getNamedAttr("keepdims", ctx.b.getBoolAttr(true))});
  };
  FailureOr<Value> mean = meanOf(x);
  if (failed(mean))
    return failure();
  FailureOr<Value> centred = ctx.create<nn::SubOp>(ValueRange{x, *mean});
  if (failed(centred))
    return failure();
  FailureOr<Value> squared =
      ctx.create<nn::MulOp>(ValueRange{*centred, *centred});
  if (failed(squared))
    return failure();
  FailureOr<Value> variance = meanOf(*squared);
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted = ctx.create<nn::AddOp>(ValueRange{
      *variance, ctx.scalar(epsilon, getElementTypeOrSelf(x.getType()))});
  if (failed(shifted))
    return failure();
  FailureOr<Value> deviation = ctx.create<nn::SqrtOp>(ValueRange{*shifted});
  if (failed(deviation))
    return failure();
  return Moments{*mean, *centred, *deviation};
}

} // namespace

FailureOr<Value> onnximport::normalize(NodeContext &ctx, Value x,
                                       ArrayRef<int64_t> axes, float epsilon) {
  FailureOr<Moments> m = moments(ctx, x, axes, epsilon);
  if (failed(m))
    return failure();
  return ctx.create<nn::DivOp>(ValueRange{m->centred, m->deviation});
}

namespace {

/// LayerNormalization (opset 17): normalized over [axis, rank), then
/// scale and optional bias broadcast over those dimensions; the optional
/// outputs Mean and InvStdDev keep the normalized dims as size 1.
LogicalResult importLayerNormalization(NodeContext &ctx) {
  if (ctx.intAttr("stash_type", 1) != 1)
    return ctx.fail("stash_type other than 1 (float) is not supported");
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1);
  if (failed(x) || failed(scale))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t d = *axis; d < rank; ++d)
    axes.push_back(d);
  FailureOr<Moments> m =
      moments(ctx, *x, axes, ctx.floatAttr("epsilon", 1e-5f));
  if (failed(m))
    return failure();
  FailureOr<Value> y =
      ctx.create<nn::DivOp>(ValueRange{m->centred, m->deviation});
  if (succeeded(y))
    y = ctx.create<nn::MulOp>(ValueRange{*y, *scale});
  if (succeeded(y) && ctx.hasInput(2)) {
    FailureOr<Value> bias = ctx.input(2);
    y = failed(bias) ? FailureOr<Value>(failure())
                     : ctx.create<nn::AddOp>(ValueRange{*y, *bias});
  }
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  if (ctx.node.output_size() > 1 && !ctx.node.output(1).empty())
    ctx.setOutput(1, m->mean);
  if (ctx.node.output_size() > 2 && !ctx.node.output(2).empty()) {
    FailureOr<Value> inverse = ctx.create<nn::ReciprocalOp>(m->deviation);
    if (failed(inverse))
      return failure();
    ctx.setOutput(2, *inverse);
  }
  return success();
}

/// ONNX's recurrent activation names, and which of alpha/beta each reads.
struct RecurrentActivationName {
  StringLiteral onnx;
  nn::RnnActivation kind;
  bool readsAlpha, readsBeta;
};
constexpr RecurrentActivationName kRecurrentActivations[] = {
    {"Sigmoid", nn::RnnActivation::Sigmoid, false, false},
    {"Tanh", nn::RnnActivation::Tanh, false, false},
    {"Relu", nn::RnnActivation::Relu, false, false},
    {"HardSigmoid", nn::RnnActivation::HardSigmoid, true, true},
    {"LeakyRelu", nn::RnnActivation::LeakyRelu, true, false},
    {"ThresholdedRelu", nn::RnnActivation::ThresholdedRelu, true, false},
    {"ScaledTanh", nn::RnnActivation::ScaledTanh, true, true},
    {"Affine", nn::RnnActivation::Affine, true, true},
    {"Elu", nn::RnnActivation::Elu, true, false},
    {"Softsign", nn::RnnActivation::Softsign, false, false},
    {"Softplus", nn::RnnActivation::Softplus, false, false}};

/// `activations`, `activation_alpha` and `activation_beta` as nn
/// attributes: ONNX's alpha/beta lists are consumed in order by the
/// functions that read them (onnxruntime's reading); nn keeps one value
/// per function.
LogicalResult recurrentActivationAttrs(NodeContext &ctx,
                                       SmallVectorImpl<NamedAttribute> &attrs) {
  const onnx::AttributeProto *names = ctx.attr("activations");
  if (!names)
    return success();
  const onnx::AttributeProto *alphaAttr = ctx.attr("activation_alpha");
  const onnx::AttributeProto *betaAttr = ctx.attr("activation_beta");
  int nextAlpha = 0, nextBeta = 0;
  SmallVector<Attribute> kinds;
  SmallVector<double> alphas, betas;
  for (const std::string &name : names->strings()) {
    const auto *known = llvm::find_if(kRecurrentActivations, [&](const auto &a) {
      return StringRef(name).equals_insensitive(a.onnx);
    });
    if (known == std::end(kRecurrentActivations))
      return ctx.fail("activation '" + name + "' is not supported");
    kinds.push_back(nn::RnnActivationAttr::get(ctx.b.getContext(), known->kind));
    double alpha = nn::defaultRnnActivationAlpha(known->kind);
    double beta = nn::defaultRnnActivationBeta(known->kind);
    if (known->readsAlpha && alphaAttr && nextAlpha < alphaAttr->floats_size())
      alpha = alphaAttr->floats(nextAlpha++);
    if (known->readsBeta && betaAttr && nextBeta < betaAttr->floats_size())
      beta = betaAttr->floats(nextBeta++);
    alphas.push_back(alpha);
    betas.push_back(beta);
  }
  if ((alphaAttr && nextAlpha != alphaAttr->floats_size()) ||
      (betaAttr && nextBeta != betaAttr->floats_size()))
    return ctx.fail("activation_alpha/activation_beta have more values than "
                    "the activations read");
  attrs.push_back(ctx.b.getNamedAttr("activations", ctx.b.getArrayAttr(kinds)));
  attrs.push_back(ctx.b.getNamedAttr("activation_alpha",
                                     ctx.b.getDenseF64ArrayAttr(alphas)));
  attrs.push_back(ctx.b.getNamedAttr("activation_beta",
                                     ctx.b.getDenseF64ArrayAttr(betas)));
  return success();
}

/// A zero f32 constant of `shape` (absent biases and initial states).
Value zerosConstant(NodeContext &ctx, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, ctx.b.getF32Type());
  return arith::ConstantOp::create(ctx.b, ctx.loc,
                                   DenseElementsAttr::get(type, 0.0f));
}

/// LSTM, GRU and RNN (one layer each, as PyTorch exports every layer) onto
/// nn.lstm / nn.gru / nn.rnn. Absent bias and initial states are zeros;
/// layout 1 (batch first) is transposed to layout 0 and back.
template <typename OpTy>
LogicalResult importRecurrent(NodeContext &ctx) {
  constexpr bool isLstm = std::is_same_v<OpTy, nn::LstmOp>;
  constexpr int64_t gates = OpTy::kNumGates;
  int64_t layout = ctx.intAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return ctx.fail("layout " + Twine(layout) + " is not 0 or 1");
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1), r = ctx.input(2);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  auto rType = dyn_cast<RankedTensorType>(r->getType());
  auto xType = dyn_cast<RankedTensorType>(x->getType());
  if (!rType || rType.getRank() != 3 || ShapedType::isDynamic(rType.getDimSize(0)) ||
      ShapedType::isDynamic(rType.getDimSize(2)))
    return ctx.fail("input R must be [directions, gates * hidden, hidden] "
                    "with static directions and hidden size");
  if (!xType || xType.getRank() != 3)
    return ctx.fail("input X must have rank 3");
  int64_t dirs = rType.getDimSize(0), hidden = rType.getDimSize(2);
  if (hidden <= 0 || hidden > (int64_t(1) << 40) || (dirs != 1 && dirs != 2))
    return ctx.fail("input R has " + Twine(dirs) + " directions and hidden size " +
                    Twine(hidden) + "; expected 1 or 2 and a size in [1, 2^40]");
  if (ctx.attr("hidden_size") && ctx.intAttr("hidden_size", 0) != hidden)
    return ctx.fail("hidden_size " + Twine(ctx.intAttr("hidden_size", 0)) +
                    " does not match R's hidden size " + Twine(hidden));
  std::string direction = ctx.stringAttr("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.fail("direction '" + direction + "' is not supported");
  if (layout == 1) {
    FailureOr<Value> seqFirst = transposeBy(ctx, *x, {1, 0, 2});
    if (failed(seqFirst))
      return failure();
    x = seqFirst;
  }
  int64_t batch = cast<RankedTensorType>(x->getType()).getDimSize(1);
  auto state = [&](unsigned i, StringRef name) -> FailureOr<Value> {
    if (!ctx.hasInput(i)) {
      if (ShapedType::isDynamic(batch))
        return ctx.fail("needs input '" + name +
                        "' when the batch size is not static");
      return zerosConstant(ctx, {dirs, batch, hidden});
    }
    FailureOr<Value> v = ctx.input(i);
    if (failed(v) || layout == 0)
      return v;
    return transposeBy(ctx, *v, {1, 0, 2}); // [batch, D, H] -> [D, batch, H]
  };
  FailureOr<Value> bias = ctx.hasInput(3)
                              ? ctx.input(3)
                              : FailureOr<Value>(zerosConstant(
                                    ctx, {dirs, 2 * gates * hidden}));
  FailureOr<Value> h0 = state(5, "initial_h");
  if (failed(bias) || failed(h0))
    return failure();
  SmallVector<Value> operands{*x, *w, *r, *bias, *h0};
  FailureOr<Value> c0;
  if constexpr (isLstm) {
    c0 = state(6, "initial_c");
    if (failed(c0))
      return failure();
    operands.push_back(*c0);
  }
  // sequence_lens: a constant equal to the sequence length everywhere is
  // dropped; another constant becomes an i32 constant; a graph input stays.
  Value lens;
  if (ctx.hasInput(4)) {
    int64_t seq = cast<RankedTensorType>(x->getType()).getDimSize(0);
    if (const HostTensor *t = ctx.constant(4)) {
      bool full = !t->isFloat();
      SmallVector<int32_t> values;
      for (int64_t i = 0; i < t->numElements() && !t->isFloat(); ++i) {
        if (t->ints[i] < 0 || t->ints[i] > std::numeric_limits<int32_t>::max())
          return ctx.fail("sequence_lens has a length " + Twine(t->ints[i]) +
                          " that is negative or too large");
        values.push_back(t->ints[i]);
        full &= t->ints[i] == seq;
      }
      if (t->isFloat())
        return ctx.fail("sequence_lens must be int32");
      if (!full)
        lens = arith::ConstantOp::create(
            ctx.b, ctx.loc,
            DenseElementsAttr::get(
                RankedTensorType::get(t->shape, ctx.b.getI32Type()),
                ArrayRef<int32_t>(values)));
    } else {
      FailureOr<Value> v = ctx.input(4);
      if (failed(v))
        return failure();
      lens = *v;
    }
  }
  Value peepholes;
  if constexpr (isLstm) {
    if (ctx.hasInput(7)) {
      FailureOr<Value> p = ctx.input(7);
      if (failed(p))
        return failure();
      peepholes = *p;
    }
  }
  if (lens)
    operands.push_back(lens);
  if (peepholes)
    operands.push_back(peepholes);
  SmallVector<NamedAttribute> attrs;
  nn::RnnDirection dir = direction == "forward" ? nn::RnnDirection::Forward
                         : direction == "reverse" ? nn::RnnDirection::Reverse
                                                  : nn::RnnDirection::Bidirectional;
  attrs.push_back(ctx.b.getNamedAttr(
      "direction", nn::RnnDirectionAttr::get(ctx.b.getContext(), dir)));
  if (failed(recurrentActivationAttrs(ctx, attrs)))
    return failure();
  if (ctx.attr("clip"))
    attrs.push_back(ctx.b.getNamedAttr(
        "clip", ctx.b.getF64FloatAttr(ctx.floatAttr("clip", 0.0f))));
  if constexpr (isLstm) {
    if (ctx.intAttr("input_forget", 0))
      attrs.push_back(ctx.b.getNamedAttr("input_forget", ctx.b.getBoolAttr(true)));
    attrs.push_back(ctx.b.getNamedAttr(
        "operandSegmentSizes",
        ctx.b.getDenseI32ArrayAttr({1, 1, 1, 1, 1, 1, lens ? 1 : 0,
                                    peepholes ? 1 : 0})));
  } else if constexpr (std::is_same_v<OpTy, nn::GruOp>) {
    if (ctx.intAttr("linear_before_reset", 0))
      attrs.push_back(
          ctx.b.getNamedAttr("linear_before_reset", ctx.b.getBoolAttr(true)));
  }
  unsigned numResults = isLstm ? 3 : 2;
  FailureOr<Operation *> op = ctx.createInferredOp(
      OpTy::getOperationName(), operands, attrs, numResults);
  if (failed(op))
    return failure();
  for (unsigned i = 0; i < numResults; ++i) {
    if ((int)i >= ctx.node.output_size() || ctx.node.output(i).empty())
      continue;
    Value result = (*op)->getResult(i);
    if (layout == 1) {
      // Y [seq, D, batch, H] -> [batch, seq, D, H]; states -> [batch, D, H].
      FailureOr<Value> t =
          i == 0 ? transposeBy(ctx, result, {2, 0, 1, 3})
                 : transposeBy(ctx, result, {1, 0, 2});
      if (failed(t))
        return failure();
      result = *t;
    }
    ctx.setOutput(i, result);
  }
  return success();
}

/// InstanceNormalization: per sample and channel over the spatial
/// dimensions; scale and bias per channel.
LogicalResult importInstanceNormalization(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  if (rank < 3)
    return ctx.fail("needs an input of rank 3 or more (N, C, spatial...)");
  SmallVector<int64_t> axes, perChannel = {-1};
  for (int64_t d = 2; d < rank; ++d) {
    axes.push_back(d);
    perChannel.push_back(1);
  }
  FailureOr<Value> y =
      normalize(ctx, *x, axes, ctx.floatAttr("epsilon", 1e-5f));
  FailureOr<Value> s = reshapeTo(ctx, *scale, perChannel);
  FailureOr<Value> b = reshapeTo(ctx, *bias, perChannel);
  if (failed(y) || failed(s) || failed(b))
    return failure();
  y = ctx.create<nn::MulOp>(ValueRange{*y, *s});
  if (succeeded(y))
    y = ctx.create<nn::AddOp>(ValueRange{*y, *b});
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// ArgMax and ArgMin: axis, keepdims, select_last_index.
template <typename OpTy> LogicalResult importArgReduce(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<OpTy>(
      ctx, *x,
      {i64Attr(ctx, "axis", ctx.intAttr("axis", 0)),
       ctx.b.getNamedAttr("keepdims",
                          ctx.b.getBoolAttr(ctx.intAttr("keepdims", 1) != 0)),
       ctx.b.getNamedAttr("select_last_index",
                          ctx.b.getBoolAttr(ctx.intAttr("select_last_index", 0) != 0))});
}

/// Expand: numpy broadcast of the input with a constant shape.
/// The dimension of an earlier value (or graph input) that dynamic
/// dimension `d` of `v` is known to equal, following the nn ops the
/// importer built: transposes permute, reshapes and broadcasts take their
/// run-time sizes, elementwise ops and concatenations (off their axis)
/// keep their operands', convolutions, pools, norms and matmuls keep the
/// batch. Two dimensions of one origin have one size at run time.
std::pair<Value, int64_t> dimOrigin(Value v, int64_t d);

/// The origin of a run-time size read by tensor.dim, or null.
std::optional<std::pair<Value, int64_t>> sizeOrigin(Value size) {
  auto dim = size.getDefiningOp<tensor::DimOp>();
  if (!dim || !dim.getConstantIndex())
    return std::nullopt;
  return dimOrigin(dim.getSource(), *dim.getConstantIndex());
}

/// The `sizes` operand of the -1 entry `d` of a reshape or broadcast.
Value runTimeSizeOf(ArrayRef<int64_t> shape, ValueRange sizes, int64_t d) {
  if (sizes.empty() || shape[d] != -1)
    return {};
  return sizes[llvm::count(shape.take_front(d), -1)];
}

std::pair<Value, int64_t> dimOrigin(Value v, int64_t d) {
  Operation *op = v.getDefiningOp();
  auto type = cast<RankedTensorType>(v.getType());
  if (!op || !type.isDynamicDim(d))
    return {v, d};
  auto same = [&](Value operand, int64_t e) -> std::pair<Value, int64_t> {
    auto t = dyn_cast<RankedTensorType>(operand.getType());
    if (t && e >= 0 && e < t.getRank() && t.isDynamicDim(e))
      return dimOrigin(operand, e);
    return {v, d};
  };
  auto fromSize = [&](Value size) -> std::pair<Value, int64_t> {
    if (size)
      if (std::optional<std::pair<Value, int64_t>> o = sizeOrigin(size))
        return *o;
    return {v, d};
  };
  if (auto t = dyn_cast<nn::TransposeOp>(op))
    return same(t.getInput(), t.getPerm()[d]);
  if (auto r = dyn_cast<nn::ReshapeOp>(op)) {
    if (!r.getSizes().empty())
      return fromSize(runTimeSizeOf(r.getShape(), r.getSizes(), d));
    // An inferred size equals the input's one dynamic size when the static
    // sizes around them have one product (same element count).
    auto input = cast<RankedTensorType>(r.getInput().getType());
    if (llvm::count_if(input.getShape(), ShapedType::isDynamic) != 1)
      return {v, d};
    int64_t e = llvm::find_if(input.getShape(), ShapedType::isDynamic) -
                input.getShape().begin();
    auto staticProduct = [](ArrayRef<int64_t> shape) {
      int64_t p = 1;
      for (int64_t s : shape)
        if (!ShapedType::isDynamic(s) && __builtin_mul_overflow(p, s, &p))
          return int64_t{-1};
      return p;
    };
    int64_t in = staticProduct(input.getShape());
    return in >= 0 && in == staticProduct(type.getShape())
               ? same(r.getInput(), e)
               : std::pair<Value, int64_t>{v, d};
  }
  if (auto b = dyn_cast<nn::BroadcastToOp>(op)) {
    if (Value size = runTimeSizeOf(b.getShape(), b.getSizes(), d))
      return fromSize(size);
    int64_t offset = type.getRank() -
                     cast<RankedTensorType>(b.getInput().getType()).getRank();
    return same(b.getInput(), d - offset);
  }
  if (auto s = dyn_cast<nn::SliceOp>(op)) {
    // With `sizes` operands a -1 is a run-time size, not the whole input.
    if (!s.getDynamicSizes().empty()) {
      if (Value size = runTimeSizeOf(s.getSizes(), s.getDynamicSizes(), d))
        return fromSize(size);
      return {v, d};
    }
    return s.getSizes()[d] == -1 ? same(s.getInput(), d)
                                 : std::pair<Value, int64_t>{v, d};
  }
  if (auto c = dyn_cast<nn::ConcatOp>(op)) {
    int64_t axis = static_cast<int64_t>(c.getAxis());
    if (axis < 0)
      axis += type.getRank();
    return d == axis ? std::pair<Value, int64_t>{v, d}
                     : same(c.getInputs()[0], d);
  }
  if (auto g = dyn_cast<nn::GatherOp>(op)) {
    int64_t axis = static_cast<int64_t>(g.getAxis());
    return d < axis ? same(g.getOperand(0), d) : std::pair<Value, int64_t>{v, d};
  }
  if (isa<nn::BatchMatmulOp>(op) && d < 2)
    return same(op->getOperand(0), d);
  if (isa<nn::Conv2DOp, nn::ConvTranspose2DOp, nn::BatchNormOp,
          nn::MaxPool2DOp, nn::AvgPool2DOp, nn::GlobalAvgPool2DOp,
          nn::MatmulOp, nn::LinearOp>(op) &&
      d == 0)
    return same(op->getOperand(0), 0);
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      op->hasTrait<OpTrait::SameOperandsAndResultShape>())
    return same(op->getOperand(0), d);
  if (isa<nn::AddOp, nn::SubOp, nn::MulOp, nn::DivOp, nn::MaxOp, nn::MinOp,
          nn::PowOp, nn::ModOp, nn::CompareOp, nn::LogicalOp, nn::SelectOp>(
          op)) {
    // Broadcasting: an operand of the result's rank that is dynamic there
    // (the lowering takes two dynamic sizes to be equal).
    for (Value operand : op->getOperands())
      if (cast<RankedTensorType>(operand.getType()).getRank() ==
          type.getRank())
        if (std::pair<Value, int64_t> o = same(operand, d); o.first != v)
          return o;
  }
  return {v, d};
}

/// Whether `size` is the run-time size of dimension `d` of `x`.
bool isDimOf(OpFoldResult size, Value x, int64_t d) {
  auto value = dyn_cast<Value>(size);
  if (!value)
    return false;
  std::optional<std::pair<Value, int64_t>> origin = sizeOrigin(value);
  return origin && *origin == dimOrigin(x, d);
}

/// nn.reshape or nn.broadcast_to to `entries`, the run-time ones as -1 and
/// `sizes` operands.
template <typename OpTy>
FailureOr<Value> createWithRunTimeSizes(NodeContext &ctx, Value x,
                                        ArrayRef<OpFoldResult> entries) {
  SmallVector<int64_t> shape;
  SmallVector<Value> operands = {x};
  for (OpFoldResult e : entries) {
    std::optional<int64_t> c = getConstantIntValue(e);
    shape.push_back(c ? *c : -1);
    if (!c)
      operands.push_back(cast<Value>(e));
  }
  return ctx.create<OpTy>(operands, {i64Array(ctx, "shape", shape)});
}

template <typename OpTy>
LogicalResult emitWithRunTimeSizes(NodeContext &ctx, Value x,
                                   ArrayRef<OpFoldResult> entries) {
  FailureOr<Value> y = createWithRunTimeSizes<OpTy>(ctx, x, entries);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Expand to a shape computed at run time: a run-time size aligned with
/// the input's own dynamic size of that dimension keeps it (1).
LogicalResult importSymbolicExpand(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  SmallVector<OpFoldResult> entries(ctx.symbolic(1)->elements);
  while ((int64_t)entries.size() < type.getRank())
    entries.insert(entries.begin(), ctx.b.getI64IntegerAttr(1));
  int64_t offset = entries.size() - type.getRank();
  for (auto [i, e] : llvm::enumerate(entries)) {
    std::optional<int64_t> c = getConstantIntValue(e);
    if (c && *c < 1)
      return ctx.fail("Expand to a shape with a size below 1 is not supported");
    if ((int64_t)i >= offset && isDimOf(e, *x, i - offset))
      e = ctx.b.getI64IntegerAttr(1);
  }
  return emitWithRunTimeSizes<nn::BroadcastToOp>(ctx, *x, entries);
}

LogicalResult importExpand(NodeContext &ctx) {
  if (ctx.isSymbolic(1))
    return importSymbolicExpand(ctx);
  FailureOr<const HostTensor *> shapeTensor = ctx.requireConstant(1, "shape");
  if (failed(shapeTensor))
    return failure();
  const std::vector<int64_t> &target = (*shapeTensor)->ints;
  if (llvm::any_of(target, [](int64_t s) { return s < 1; }))
    return ctx.fail("Expand to a shape with a size below 1 is not supported");
  if (const HostTensor *data = ctx.constant(0)) {
    if (failed(checkFoldSize(ctx, mulSat(product(target), data->numElements()),
                             "Expand")))
      return failure();
    // The result's shape is the broadcast of both (ONNX's two-way rule).
    HostTensor targetShape;
    targetShape.shape.assign(target.begin(), target.end());
    FailureOr<SmallVector<int64_t>> shape =
        hostBroadcastShape(ctx, {data, &targetShape});
    if (failed(shape))
      return failure();
    ctx.setOutputConstant(0, hostBroadcastTo(*data, *shape));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  SmallVector<int64_t> shape(target.begin(), target.end());
  // A rank-lowering shape is still a broadcast: left-pad it with ones.
  while ((int64_t)shape.size() < type.getRank())
    shape.insert(shape.begin(), 1);
  return emit<nn::BroadcastToOp>(ctx, *x, {i64Array(ctx, "shape", shape)});
}

LogicalResult importBatchNormalization(NodeContext &ctx) {
  if (ctx.intAttr("training_mode", 0) != 0)
    return ctx.fail("training_mode = 1 is not supported (inference only)");
  if (failed(ctx.requireOutputsUnused(1)))
    return failure();
  FailureOr<SmallVector<Value>> operands = inputsUpTo(ctx, 5, 5);
  if (failed(operands))
    return failure();
  return emit<nn::BatchNormOp>(
      ctx, *operands,
      {f64Attr(ctx, "epsilon", ctx.floatAttr("epsilon", 1e-5f))});
}

template <typename OpTy> LogicalResult importPool(NodeContext &ctx) {
  // MaxPool's Indices, when read, come from nn.max_pool2d_with_indices.
  bool withIndices = false;
  if constexpr (std::is_same_v<OpTy, nn::MaxPool2DOp>)
    withIndices = failed(ctx.requireOutputsUnused(1, /*quiet=*/true));
  if (!withIndices && failed(ctx.requireOutputsUnused(1)))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::optional<SmallVector<int64_t>> kernel = ctx.intsAttr("kernel_shape");
  if (!kernel || kernel->size() != 2)
    return ctx.fail("needs a 1-D or 2-D 'kernel_shape'");
  int64_t storageOrder = ctx.intAttr("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return ctx.fail("storage_order must be 0 or 1, got " + Twine(storageOrder));
  SmallVector<int64_t> strides =
      ctx.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      ctx.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1});
  FailureOr<SmallVector<int64_t>> pads = spatialPads(
      ctx, cast<RankedTensorType>(x->getType()), *kernel, strides, dilations);
  if (failed(pads))
    return failure();
  SmallVector<NamedAttribute> attrs = {
      i64Array(ctx, "kernel", *kernel), i64Array(ctx, "strides", strides),
      i64Array(ctx, "padding", *pads),
      ctx.b.getNamedAttr("ceil_mode",
                         ctx.b.getBoolAttr(ctx.intAttr("ceil_mode", 0)))};
  if constexpr (std::is_same_v<OpTy, nn::MaxPool2DOp>) {
    attrs.push_back(i64Array(ctx, "dilations", dilations));
    if (withIndices) {
      attrs.push_back(ctx.b.getNamedAttr(
          "column_major", ctx.b.getBoolAttr(storageOrder == 1)));
      FailureOr<Operation *> op = ctx.createInferredOp(
          nn::MaxPool2DWithIndicesOp::getOperationName(), *x, attrs, 2);
      if (failed(op))
        return failure();
      ctx.setOutput(0, (*op)->getResult(0));
      ctx.setOutput(1, (*op)->getResult(1));
      return success();
    }
  } else {
    if (dilations != SmallVector<int64_t>{1, 1})
      return ctx.fail("dilated average pooling is not supported");
    // ONNX's default excludes padding from the divisor.
    attrs.push_back(ctx.b.getNamedAttr(
        "count_include_pad",
        ctx.b.getBoolAttr(ctx.intAttr("count_include_pad", 0))));
  }
  return emit<OpTy>(ctx, *x, attrs);
}

/// 3-D pooling, on (N, C, D, H, W), as two 2-D pools: over (H, W) on the
/// (N, C * D, H, W) view, then over D on the (N, C, D, Ho * Wo) view with
/// (K_d, 1) windows. A box's maximum is the maximum over depths of each
/// depth's window maximum; its average likewise the average of the depth
/// windows' averages, with or without the padding in the divisor (every
/// depth's window has the same count of valid positions). Other ranks go
/// to the 1-D and 2-D import.
template <typename OpTy> LogicalResult importPool3DAsTwo2D(NodeContext &ctx) {
  constexpr bool isMax = std::is_same_v<OpTy, nn::MaxPool2DOp>;
  FailureOr<RankedTensorType> xType = ctx.inputType(0);
  if (failed(xType))
    return failure();
  if (xType->getRank() != 5)
    return spatial1DAs2D<importPool<OpTy>, false>(ctx);
  if (failed(ctx.requireOutputsUnused(1)))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = xType->getShape();
  if (llvm::any_of(shape.drop_front(), ShapedType::isDynamic))
    return ctx.fail("3-D pooling needs static sizes other than the batch");
  std::optional<SmallVector<int64_t>> kernel = ctx.intsAttr("kernel_shape");
  if (!kernel || kernel->size() != 3)
    return ctx.fail("a 5-D input needs a 3-D 'kernel_shape'");
  SmallVector<int64_t> strides =
      ctx.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1, 1});
  SmallVector<int64_t> dilations =
      ctx.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1, 1});
  if (strides.size() != 3 || dilations.size() != 3)
    return ctx.fail("'strides' and 'dilations' of a 3-D pool must have 3 "
                    "values");
  if (!isMax && dilations != SmallVector<int64_t>{1, 1, 1})
    return ctx.fail("dilated average pooling is not supported");
  FailureOr<SmallVector<int64_t>> pads =
      spatialPads(ctx, *xType, *kernel, strides, dilations);
  if (failed(pads))
    return failure();
  ArrayRef<int64_t> p = *pads;
  auto pool = [&](Value input, ArrayRef<int64_t> k, ArrayRef<int64_t> s,
                  ArrayRef<int64_t> pad,
                  ArrayRef<int64_t> d) -> FailureOr<Value> {
    SmallVector<NamedAttribute> attrs = {
        i64Array(ctx, "kernel", k), i64Array(ctx, "strides", s),
        i64Array(ctx, "padding", pad),
        ctx.b.getNamedAttr("ceil_mode",
                           ctx.b.getBoolAttr(ctx.intAttr("ceil_mode", 0)))};
    if (isMax)
      attrs.push_back(i64Array(ctx, "dilations", d));
    else
      attrs.push_back(ctx.b.getNamedAttr(
          "count_include_pad",
          ctx.b.getBoolAttr(ctx.intAttr("count_include_pad", 0))));
    return ctx.create<OpTy>(input, attrs);
  };
  int64_t batch = ShapedType::isDynamic(shape[0]) ? -1 : shape[0];
  int64_t channelDepths;
  if (llvm::MulOverflow(shape[1], shape[2], channelDepths))
    return ctx.fail("channels times depth overflows 64 bits");
  FailureOr<Value> planes =
      reshapeTo(ctx, *x, {batch, channelDepths, shape[3], shape[4]});
  if (failed(planes))
    return failure();
  FailureOr<Value> spatial =
      pool(*planes, {(*kernel)[1], (*kernel)[2]}, {strides[1], strides[2]},
           {p[1], p[2], p[4], p[5]}, {dilations[1], dilations[2]});
  if (failed(spatial))
    return failure();
  ArrayRef<int64_t> pooled =
      cast<RankedTensorType>(spatial->getType()).getShape();
  int64_t planeSize;
  if (llvm::MulOverflow(pooled[2], pooled[3], planeSize))
    return ctx.fail("the pooled plane's size overflows 64 bits");
  FailureOr<Value> columns =
      reshapeTo(ctx, *spatial, {batch, shape[1], shape[2], planeSize});
  if (failed(columns))
    return failure();
  // A window of one depth at stride 1 without padding (S3D's (1, 3, 3)
  // pools) leaves the depths as they are.
  bool depthUnpooled = (*kernel)[0] == 1 && strides[0] == 1 && !p[0] && !p[3];
  FailureOr<Value> depth =
      depthUnpooled ? columns
                    : pool(*columns, {(*kernel)[0], 1}, {strides[0], 1},
                           {p[0], 0, p[3], 0}, {dilations[0], 1});
  if (failed(depth))
    return failure();
  FailureOr<Value> y = reshapeTo(
      ctx, *depth,
      {batch, shape[1], cast<RankedTensorType>(depth->getType()).getDimSize(2),
       pooled[2], pooled[3]});
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult importGlobalAveragePool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (cast<RankedTensorType>(x->getType()).getRank() != 4)
    return ctx.fail("only 4-D (NCHW) inputs are supported");
  return unary<nn::GlobalAvgPool2DOp>(ctx);
}

/// ReduceMean over H and W of an NCHW tensor (x.mean([2, 3]) in PyTorch).
/// The axes a Reduce* node reduces: the 'axes' attribute, or from
/// ReduceSum 13 and every Reduce* 18 a constant second input; none given
/// means all (or none, with noop_with_empty_axes).
FailureOr<SmallVector<int64_t>> reduceAxes(NodeContext &ctx, int64_t rank,
                                           bool &noop) {
  SmallVector<int64_t> axes;
  if (ctx.hasInput(1)) {
    FailureOr<const HostTensor *> t = ctx.requireConstant(1, "axes");
    if (failed(t))
      return failure();
    if ((*t)->isFloat() || (*t)->shape.size() > 1)
      return FailureOr<SmallVector<int64_t>>(
          ctx.fail("input 'axes' must be a 1-D integer tensor"));
    axes.assign((*t)->ints.begin(), (*t)->ints.end());
  } else if (std::optional<SmallVector<int64_t>> a = ctx.intsAttr("axes")) {
    axes = *a;
  }
  noop = axes.empty() && ctx.intAttr("noop_with_empty_axes", 0) != 0;
  if (axes.empty() && !noop)
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  for (int64_t &a : axes) {
    FailureOr<int64_t> d = normalizeAxis(ctx, a, rank);
    if (failed(d))
      return failure();
    a = *d;
  }
  return axes;
}

/// Reduce* to nn.reduce; the spatial mean of a 4-D tensor (global average
/// pooling as exported) stays nn.global_avg_pool2d, which the CPU kernels
/// know.
template <nn::ReduceKind Kind> LogicalResult importReduce(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  bool noop = false;
  FailureOr<SmallVector<int64_t>> axes = reduceAxes(ctx, type.getRank(), noop);
  if (failed(axes))
    return failure();
  if (noop) {
    ctx.setOutput(0, *x);
    return success();
  }
  bool keepdims = ctx.intAttr("keepdims", 1) != 0;
  SmallVector<int64_t> sorted = *axes;
  llvm::sort(sorted);
  if (Kind == nn::ReduceKind::Mean && type.getRank() == 4 &&
      sorted == SmallVector<int64_t>{2, 3} &&
      type.getElementType().isF32()) {
    FailureOr<Value> y = ctx.create<nn::GlobalAvgPool2DOp>(*x);
    if (failed(y))
      return failure();
    if (!keepdims) {
      y = ctx.create<nn::FlattenOp>(*y, {i64Attr(ctx, "axis", 1)});
      if (failed(y))
        return failure();
    }
    ctx.setOutput(0, *y);
    return success();
  }
  return emit<nn::ReduceOp>(
      ctx, *x,
      {NamedAttribute(ctx.b.getStringAttr("kind"),
                      nn::ReduceKindAttr::get(ctx.b.getContext(), Kind)),
       i64Array(ctx, "axes", *axes),
       NamedAttribute(ctx.b.getStringAttr("keepdims"),
                      ctx.b.getBoolAttr(keepdims))});
}

LogicalResult importClip(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  double bounds[2] = {-std::numeric_limits<float>::max(),
                      std::numeric_limits<float>::max()};
  for (unsigned i = 1; i <= 2; ++i) {
    if (!ctx.hasInput(i))
      continue;
    FailureOr<const HostTensor *> bound =
        ctx.requireConstant(i, i == 1 ? "min" : "max");
    if (failed(bound))
      return failure();
    if ((*bound)->numElements() != 1)
      return ctx.fail("input '" + Twine(i == 1 ? "min" : "max") +
                      "' must be a scalar");
    bounds[i - 1] = (*bound)->at(0);
  }
  Type element = getElementTypeOrSelf(x->getType());
  if (element.isInteger()) {
    // Integers: max with the lower bound and min with the upper one, those
    // given (nn.clip's bounds are floats).
    Value y = *x;
    for (unsigned i = 1; i <= 2; ++i) {
      if (!ctx.hasInput(i))
        continue;
      Value bound = ctx.scalar(bounds[i - 1], element);
      FailureOr<Value> next =
          i == 1 ? ctx.create<nn::MaxOp>(ValueRange{y, bound})
                 : ctx.create<nn::MinOp>(ValueRange{y, bound});
      if (failed(next))
        return failure();
      y = *next;
    }
    ctx.setOutput(0, y);
    return success();
  }
  return emit<nn::ClipOp>(
      ctx, *x,
      {f64Attr(ctx, "min", bounds[0]), f64Attr(ctx, "max", bounds[1])});
}

LogicalResult importLeakyRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<nn::LeakyReluOp>(
      ctx, *x, {f64Attr(ctx, "alpha", ctx.floatAttr("alpha", 0.01f))});
}

LogicalResult importHardSigmoid(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<nn::HardSigmoidOp>(
      ctx, *x,
      {f64Attr(ctx, "alpha", ctx.floatAttr("alpha", 0.2f)),
       f64Attr(ctx, "beta", ctx.floatAttr("beta", 0.5f))});
}

LogicalResult importElu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<nn::EluOp>(ctx, *x,
                         {f64Attr(ctx, "alpha", ctx.floatAttr("alpha", 1.0f))});
}

LogicalResult importSelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  // ONNX's defaults, as float32 values.
  return emit<nn::SeluOp>(
      ctx, *x,
      {f64Attr(ctx, "alpha", ctx.floatAttr("alpha", 1.67326319217681884765625f)),
       f64Attr(ctx, "gamma",
               ctx.floatAttr("gamma", 1.05070102214813232421875f))});
}

/// PRelu(x, slope) = max(x, 0) + slope * min(x, 0), slope broadcast.
LogicalResult importPRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> slope = ctx.input(1);
  if (failed(slope))
    return failure();
  if (!cast<ShapedType>(x->getType()).getElementType().isF32())
    return ctx.fail("needs a float32 input");
  Value zero = ctx.scalar(0.0f);
  FailureOr<Value> positive = ctx.create<nn::MaxOp>({*x, zero});
  FailureOr<Value> negative = ctx.create<nn::MinOp>({*x, zero});
  if (failed(positive) || failed(negative))
    return failure();
  FailureOr<Value> scaled = ctx.create<nn::MulOp>({*slope, *negative});
  if (failed(scaled))
    return failure();
  return emit<nn::AddOp>(ctx, {*positive, *scaled});
}

template <typename OpTy> LogicalResult importSoftmax(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  int64_t axis = ctx.intAttr("axis", ctx.opset < 13 ? 1 : -1);
  FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
  if (failed(normalized))
    return failure();
  // Before opset 13 the op normalizes over all dimensions from axis on.
  if (ctx.opset < 13 && *normalized != rank - 1)
    return ctx.fail("softmax over the flattened dimensions [" + Twine(axis) +
                    ", rank) (opset < 13) is supported only for the last axis");
  return emit<OpTy>(ctx, *x, {i64Attr(ctx, "axis", *normalized)});
}

LogicalResult importConcat(NodeContext &ctx) {
  int64_t axis = ctx.intAttr("axis", 0);
  // All constant: fold (shape vectors and index tensors built from pieces).
  bool allConstant = true;
  for (int i = 0; i < ctx.node.input_size(); ++i)
    allConstant &= ctx.constant(i) != nullptr;
  if (allConstant && ctx.node.input_size() > 0) {
    const HostTensor &first = *ctx.constant(0);
    int64_t rank = first.shape.size();
    FailureOr<int64_t> dim = normalizeAxis(ctx, axis, rank);
    if (failed(dim))
      return failure();
    HostTensor out;
    out.dtype = first.dtype;
    out.shape = first.shape;
    out.shape[*dim] = 0;
    for (int i = 0; i < ctx.node.input_size(); ++i) {
      const HostTensor *t = ctx.constant(i);
      if (t->isFloat() != first.isFloat() || (int64_t)t->shape.size() != rank)
        return ctx.fail("constant inputs of different types or ranks");
      for (int64_t d = 0; d < rank; ++d)
        if (d != *dim && t->shape[d] != first.shape[d])
          return ctx.fail("constant inputs differ in dimension " + Twine(d));
      out.shape[*dim] += t->shape[*dim];
    }
    // Each input contributes a block of (its axis size x inner) per outer.
    int64_t outer = product(ArrayRef(first.shape).take_front(*dim));
    int64_t inner = product(ArrayRef(first.shape).drop_front(*dim + 1));
    for (int64_t o = 0; o < outer; ++o)
      for (int i = 0; i < ctx.node.input_size(); ++i) {
        const HostTensor *t = ctx.constant(i);
        int64_t block = t->shape[*dim] * inner;
        if (t->isFloat())
          out.floats.insert(out.floats.end(), t->floats.begin() + o * block,
                            t->floats.begin() + (o + 1) * block);
        else
          out.ints.insert(out.ints.end(), t->ints.begin() + o * block,
                          t->ints.begin() + (o + 1) * block);
      }
    ctx.setOutputConstant(0, std::move(out));
    return success();
  }
  SmallVector<Value> inputs;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  return emit<nn::ConcatOp>(ctx, inputs, {i64Attr(ctx, "axis", axis)});
}

/// The nn.reshape shape attribute for a target shape in which -1 is
/// inferred and (ONNX) 0 copies the input dimension.
FailureOr<SmallVector<int64_t>> reshapeTarget(NodeContext &ctx,
                                              RankedTensorType input,
                                              ArrayRef<int64_t> requested,
                                              bool allowZero) {
  SmallVector<int64_t> shape;
  int64_t inferred = -1;
  for (auto [i, size] : llvm::enumerate(requested)) {
    int64_t s = size;
    if (s == 0 && !allowZero) {
      if ((int64_t)i >= input.getRank())
        return ctx.fail("shape entry 0 at index " + Twine(i) +
                        " copies a dimension the input does not have");
      s = input.getDimSize(i);
    }
    if (ShapedType::isDynamic(s) || s == -1) {
      if (inferred >= 0)
        return ctx.fail("the target shape has more than one unknown size");
      inferred = i;
      s = -1;
    }
    shape.push_back(s);
  }
  return shape;
}

LogicalResult emitReshape(NodeContext &ctx, Value x, ArrayRef<int64_t> shape) {
  return emit<nn::ReshapeOp>(ctx, x, {i64Array(ctx, "shape", shape)});
}

/// The size ONNX Reshape infers for its -1 entry: the input's element
/// count over the other entries' product. Dynamic sizes that appear on
/// both sides (`x.view(x.size(0), -1)`) cancel, so the result is static
/// whenever the rest is.
OpFoldResult inferredReshapeSize(NodeContext &ctx, Value x,
                                 ArrayRef<OpFoldResult> entries,
                                 int64_t inferred) {
  auto type = cast<RankedTensorType>(x.getType());
  // Saturated products: a size from an untrusted model must not overflow
  // here; the run-time reshape then fails on the element count.
  int64_t numerator = 1, denominator = 1;
  SmallVector<int64_t> dynamicDims; // of x, not cancelled
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicDims.push_back(d);
    else
      numerator = mulSat(numerator, type.getDimSize(d));
  SmallVector<Value> divisors;
  for (auto [i, e] : llvm::enumerate(entries)) {
    if ((int64_t)i == inferred)
      continue;
    if (std::optional<int64_t> c = getConstantIntValue(e)) {
      denominator = mulSat(denominator, *c);
      continue;
    }
    OpFoldResult entry = e;
    auto *match = llvm::find_if(
        dynamicDims, [&](int64_t d) { return isDimOf(entry, x, d); });
    if (match != dynamicDims.end())
      dynamicDims.erase(match);
    else
      divisors.push_back(cast<Value>(e));
  }
  if (dynamicDims.empty() && divisors.empty() && denominator > 0)
    return ctx.b.getI64IntegerAttr(numerator / denominator);
  Value count = arith::ConstantIndexOp::create(ctx.b, ctx.loc, numerator);
  for (int64_t d : dynamicDims)
    count = arith::MulIOp::create(ctx.b, ctx.loc, count,
                                  tensor::DimOp::create(ctx.b, ctx.loc, x, d));
  Value divisor = arith::ConstantIndexOp::create(ctx.b, ctx.loc, denominator);
  for (Value v : divisors)
    divisor = arith::MulIOp::create(ctx.b, ctx.loc, divisor, v);
  // An empty batch must not divide by zero (the count is 0 then anyway).
  divisor = arith::MaxSIOp::create(
      ctx.b, ctx.loc, divisor, arith::ConstantIndexOp::create(ctx.b, ctx.loc, 1));
  return arith::DivSIOp::create(ctx.b, ctx.loc, count, divisor).getResult();
}

/// Reshape of `x` to `entries`, some known only at run time: what is known
/// stays static, 0 copies the input's size, -1 is inferred.
LogicalResult reshapeToEntries(NodeContext &ctx, Value x,
                               SmallVector<OpFoldResult> entries) {
  auto type = cast<RankedTensorType>(x.getType());
  bool allowZero = ctx.intAttr("allowzero", 0) != 0;
  int64_t inferred = -1;
  for (auto [i, e] : llvm::enumerate(entries)) {
    std::optional<int64_t> c = getConstantIntValue(e);
    if (c == 0 && allowZero)
      return ctx.fail(
          "allowzero = 1 with a zero-sized dimension is not supported");
    if (c == 0) {
      if ((int64_t)i >= type.getRank())
        return ctx.fail("shape entry 0 at index " + Twine(i) +
                        " copies a dimension the input does not have");
      e = tensor::getMixedSize(ctx.b, ctx.loc, x, i);
      if (auto attr = dyn_cast<Attribute>(e)) // index-typed: as i64
        e = ctx.b.getI64IntegerAttr(cast<IntegerAttr>(attr).getInt());
    } else if (c == -1) {
      if (inferred >= 0)
        return ctx.fail("the target shape has more than one -1");
      inferred = i;
    } else if (c && *c < 0) {
      return ctx.fail("shape entry " + Twine(*c) + " at index " + Twine(i));
    }
  }
  if (inferred >= 0)
    entries[inferred] = inferredReshapeSize(ctx, x, entries, inferred);
  return emitWithRunTimeSizes<nn::ReshapeOp>(ctx, x, entries);
}

/// Reshape to a shape computed at run time from dynamic sizes.
LogicalResult importSymbolicReshape(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return reshapeToEntries(ctx, *x, ctx.symbolic(1)->elements);
}

/// Whether the constant `shape` copies (0) a dynamic dim of `type` besides
/// inferring one size (-1) or copying another: the result's sizes are then
/// run-time ones, not one unknown the reshape infers (a bidirectional
/// LSTM's [T, B, 2, H] -> [0, 0, -1] with a symbolic batch B).
bool copiesDynamicDims(RankedTensorType type, ArrayRef<int64_t> shape) {
  int64_t unknown = 0;
  for (auto [i, s] : llvm::enumerate(shape))
    unknown += s == -1 ||
               (s == 0 && (int64_t)i < type.getRank() && type.isDynamicDim(i));
  return unknown > 1;
}

LogicalResult importReshape(NodeContext &ctx) {
  if (ctx.isSymbolic(1))
    return importSymbolicReshape(ctx);
  FailureOr<const HostTensor *> shapeTensor = ctx.requireConstant(1, "shape");
  if (failed(shapeTensor))
    return failure();
  bool allowZero = ctx.intAttr("allowzero", 0) != 0;
  if (allowZero && llvm::is_contained((*shapeTensor)->ints, 0))
    return ctx.fail(
        "allowzero = 1 with a zero-sized dimension is not supported");
  if (const HostTensor *data = ctx.constant(0)) {
    // Folding a constant reshape only changes its shape.
    HostTensor out = *data;
    SmallVector<int64_t> target((*shapeTensor)->ints.begin(),
                                (*shapeTensor)->ints.end());
    int64_t known = 1, inferred = -1;
    for (auto [i, s] : llvm::enumerate(target)) {
      if (s == 0)
        s = data->shape[i];
      if (s == -1)
        inferred = i;
      else
        known *= s;
    }
    if (inferred >= 0)
      target[inferred] = data->numElements() / std::max<int64_t>(known, 1);
    out.shape = target;
    if (out.numElements() != data->numElements())
      return ctx.fail("cannot reshape the constant to the requested shape");
    ctx.setOutputConstant(0, std::move(out));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (!allowZero && copiesDynamicDims(type, (*shapeTensor)->ints)) {
    SmallVector<OpFoldResult> entries;
    for (int64_t s : (*shapeTensor)->ints)
      entries.push_back(ctx.b.getI64IntegerAttr(s));
    return reshapeToEntries(ctx, *x, entries);
  }
  FailureOr<SmallVector<int64_t>> target =
      reshapeTarget(ctx, type, (*shapeTensor)->ints, allowZero);
  if (failed(target))
    return failure();
  return emitReshape(ctx, *x, *target);
}

LogicalResult importFlatten(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  int64_t axis = ctx.intAttr("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.fail("axis " + Twine(ctx.intAttr("axis", 1)) +
                    " is out of range for rank " + Twine(rank));
  // ONNX always makes a 2-D result: [prod(dims < axis), prod(dims >= axis)].
  if (axis == 1) {
    FailureOr<Value> y =
        ctx.create<nn::FlattenOp>(*x, {i64Attr(ctx, "axis", 1)});
    if (failed(y))
      return failure();
    ctx.setOutput(0, *y);
    return success();
  }
  int64_t inner = 1;
  for (int64_t d = axis; d < rank; ++d) {
    if (type.isDynamicDim(d))
      return ctx.fail("flattening a dynamic inner dimension is not supported");
    inner *= type.getDimSize(d);
  }
  return emitReshape(ctx, *x, {-1, inner});
}

/// One axis of ONNX's Slice, normalized: the first index read, the count
/// and the step (starts and ends clamped as ONNX specifies).
struct SliceAxis {
  int64_t offset, size, step;
};

SliceAxis normalizeSliceAxis(int64_t start, int64_t end, int64_t step,
                             int64_t dim) {
  // INT64_MIN + dim cannot overflow; INT64_MAX stays large.
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  // Both in [-1, dim]: no overflow below.
  int64_t span = step > 0 ? end - start : start - end;
  int64_t magnitude = step > 0 ? step : -step;
  int64_t size = span <= 0 ? 0 : (span + magnitude - 1) / magnitude;
  return {size == 0 ? 0 : start, size, step};
}

/// Slice with constant starts, ends, axes and steps (opset 10+; older ones
/// arrive converted). Constant data (shape arithmetic) folds.
LogicalResult importSlice(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  auto constantInts = [&](unsigned i,
                          StringRef what) -> FailureOr<SmallVector<int64_t>> {
    FailureOr<const HostTensor *> t = ctx.requireConstant(i, what);
    if (failed(t))
      return failure();
    if ((*t)->isFloat() || (*t)->shape.size() != 1)
      return FailureOr<SmallVector<int64_t>>(
          ctx.fail("input '" + what + "' must be a 1-D integer tensor"));
    return SmallVector<int64_t>((*t)->ints.begin(), (*t)->ints.end());
  };
  FailureOr<SmallVector<int64_t>> starts = constantInts(1, "starts");
  if (failed(starts))
    return failure();
  // Ends computed at run time (x[:, :t] with t read from a shape): such an
  // entry becomes a run-time size of the slice (step 1).
  SmallVector<OpFoldResult> symbolicEnds;
  FailureOr<SmallVector<int64_t>> ends = failure();
  if (ctx.isSymbolic(2)) {
    symbolicEnds = ctx.symbolic(2)->elements;
    SmallVector<int64_t> known;
    for (OpFoldResult e : symbolicEnds)
      known.push_back(getConstantIntValue(e).value_or(0));
    ends = known;
  } else {
    ends = constantInts(2, "ends");
  }
  if (failed(ends))
    return failure();
  SmallVector<int64_t> axes, steps;
  if (ctx.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = constantInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    for (int64_t d = 0; d < (int64_t)starts->size(); ++d)
      axes.push_back(d);
  }
  if (ctx.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> st = constantInts(4, "steps");
    if (failed(st))
      return failure();
    steps = *st;
  } else {
    steps.assign(starts->size(), 1);
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return ctx.fail("'starts', 'ends', 'axes' and 'steps' differ in length");
  SmallVector<int64_t> offsets(rank, 0), sizes(type->getShape()),
      strides(rank, 1);
  SmallVector<bool> seen(rank, false);
  SmallVector<Value> runTimeSizes(rank);
  for (auto [k, axis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> d = normalizeAxis(ctx, axis, rank);
    if (failed(d))
      return failure();
    if (seen[*d])
      return ctx.fail("axis " + Twine(*d) + " is sliced twice");
    seen[*d] = true;
    if (steps[k] == 0)
      return ctx.fail("a step is 0");
    int64_t dim = type->getDimSize(*d);
    if (ShapedType::isDynamic(dim))
      return ctx.fail("slices dynamic dimension " + Twine(*d));
    if (!symbolicEnds.empty() && !getConstantIntValue(symbolicEnds[k])) {
      if (steps[k] != 1)
        return ctx.fail("a run-time 'ends' entry with step " + Twine(steps[k]) +
                        " is not supported (step 1 is)");
      // ONNX's clamping, at run time: end (+ dim if negative) into
      // [0, dim], the size end - start or 0.
      SliceAxis s = normalizeSliceAxis((*starts)[k], dim, 1, dim);
      int64_t start = s.size == 0 ? dim : s.offset;
      auto index = [&](int64_t v) {
        return arith::ConstantIndexOp::create(ctx.b, ctx.loc, v).getResult();
      };
      Value end = cast<Value>(symbolicEnds[k]);
      Value negative = arith::CmpIOp::create(
          ctx.b, ctx.loc, arith::CmpIPredicate::slt, end, index(0));
      end = arith::SelectOp::create(
          ctx.b, ctx.loc, negative,
          arith::AddIOp::create(ctx.b, ctx.loc, end, index(dim)), end);
      end = arith::MinSIOp::create(
          ctx.b, ctx.loc, arith::MaxSIOp::create(ctx.b, ctx.loc, end, index(0)),
          index(dim));
      runTimeSizes[*d] = arith::MaxSIOp::create(
          ctx.b, ctx.loc,
          arith::SubIOp::create(ctx.b, ctx.loc, end, index(start)), index(0));
      offsets[*d] = start;
      continue;
    }
    SliceAxis s = normalizeSliceAxis((*starts)[k], (*ends)[k], steps[k], dim);
    offsets[*d] = s.offset;
    sizes[*d] = s.size;
    strides[*d] = s.step;
  }
  bool runTime = llvm::any_of(runTimeSizes, [](Value v) { return !!v; });
  const HostTensor *data = runTime ? nullptr : ctx.constant(0);
  if (data) {
    // Gather the elements of a constant at import time.
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * data->shape[d + 1];
    HostTensor out;
    out.dtype = data->dtype;
    out.shape = sizes;
    int64_t n = out.numElements();
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t source = 0, rem = flat;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t i = rem % sizes[d];
        rem /= sizes[d];
        source += (offsets[d] + i * strides[d]) * inStrides[d];
      }
      if (data->isFloat())
        out.floats.push_back(data->floats[source]);
      else
        out.ints.push_back(data->ints[source]);
    }
    ctx.setOutputConstant(0, std::move(out));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  // Dynamic dimensions not sliced are taken whole: -1, or with run-time
  // sizes (where every -1 takes an operand) their size read at run time.
  SmallVector<Value> operands = {*x};
  for (auto [d, size] : llvm::enumerate(sizes)) {
    if (runTimeSizes[d]) {
      size = -1;
      operands.push_back(runTimeSizes[d]);
    } else if (ShapedType::isDynamic(size)) {
      size = -1;
      if (runTime)
        operands.push_back(tensor::DimOp::create(ctx.b, ctx.loc, *x, d));
    }
  }
  return emit<nn::SliceOp>(ctx, operands,
                           {i64Array(ctx, "offsets", offsets),
                            i64Array(ctx, "sizes", sizes),
                            i64Array(ctx, "steps", strides)});
}

/// `t` with its dimensions permuted by `perm` (a valid permutation).
HostTensor hostTranspose(const HostTensor &t, ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  HostTensor out;
  out.dtype = t.dtype;
  for (int64_t p : perm)
    out.shape.push_back(t.shape[p]);
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * t.shape[d + 1];
  SmallVector<int64_t> coord(rank, 0);
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += coord[d] * strides[perm[d]];
    if (t.isFloat())
      out.floats.push_back(t.floats[src]);
    else
      out.ints.push_back(t.ints[src]);
    for (int64_t d = rank - 1; d >= 0 && ++coord[d] == out.shape[d]; --d)
      coord[d] = 0;
  }
  return out;
}

LogicalResult importTranspose(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> p = ctx.intsAttr("perm"))
    perm = *p;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  // Integer constants (shape arithmetic) and small float ones fold.
  const HostTensor *c = ctx.constant(0);
  if (c && (!c->isFloat() || c->numElements() <= 4096)) {
    SmallVector<int64_t> sorted(perm);
    llvm::sort(sorted);
    for (int64_t d = 0; d < rank; ++d)
      if ((int64_t)sorted.size() != rank || sorted[d] != d)
        return ctx.fail("'perm' is not a permutation of the input's " +
                        Twine(rank) + " dimensions");
    ctx.setOutputConstant(0, hostTranspose(*c, perm));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<nn::TransposeOp>(ctx, *x, {i64Array(ctx, "perm", perm)});
}

LogicalResult importPad(NodeContext &ctx) {
  std::string modeName = ctx.stringAttr("mode", "constant");
  std::optional<nn::PadMode> mode =
      llvm::StringSwitch<std::optional<nn::PadMode>>(modeName)
          .Case("constant", nn::PadMode::Constant)
          .Case("edge", nn::PadMode::Edge)
          .Case("reflect", nn::PadMode::Reflect)
          .Default(std::nullopt);
  if (!mode)
    return ctx.fail("mode '" + modeName +
                    "' is not supported (constant, edge and reflect are)");
  if (ctx.hasInput(3))
    return ctx.fail("input 'axes' is not supported");
  FailureOr<const HostTensor *> pads = ctx.requireConstant(1, "pads");
  if (failed(pads))
    return failure();
  double value = 0.0;
  if (ctx.hasInput(2)) {
    FailureOr<const HostTensor *> v = ctx.requireConstant(2, "constant_value");
    if (failed(v))
      return failure();
    // An empty tensor has no value (found by dlas-fuzz-onnx).
    if ((*v)->numElements() != 1)
      return ctx.fail("input 'constant_value' must hold one value, got " +
                      Twine((*v)->numElements()));
    value = (*v)->at(0);
  }
  for (int64_t p : (*pads)->ints)
    if (p < 0)
      return ctx.fail("negative pads (cropping) are not supported");
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<nn::PadOp>(
      ctx, *x,
      {i64Array(ctx, "pads", (*pads)->ints), f64Attr(ctx, "value", value),
       ctx.b.getNamedAttr("mode",
                          nn::PadModeAttr::get(ctx.b.getContext(), *mode))});
}

/// Resize of NCHW tensors: nearest (every rounding), linear and cubic, with
/// every coordinate transform (tf_crop_and_resize with a constant roi); constant scales or
/// sizes.
LogicalResult importResize(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() != 4)
    return ctx.fail("Resize of a rank-" + Twine(type.getRank()) +
                    " tensor is not supported (NCHW, rank 4, is)");
  if (ctx.intsAttr("axes"))
    return ctx.fail("attribute 'axes' is not supported");
  std::string policy = ctx.stringAttr("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch")
    return ctx.fail("keep_aspect_ratio_policy '" + policy +
                    "' is not supported (stretch is)");
  // Sizes from shape arithmetic on dynamic sizes, as F.interpolate(size=
  // ...) exports them: a run-time batch or channel entry must be the
  // input's own size there (kept); a run-time height or width (-1 in the
  // op's `sizes`) becomes a `sizes` operand.
  std::optional<HostTensor> resolvedSizes;
  SmallVector<Value> runTimeSizes;
  if (ctx.isSymbolic(3)) {
    std::optional<SymbolicInts> symbolic = ctx.symbolic(3);
    std::vector<int64_t> entries;
    for (auto [d, e] : llvm::enumerate(symbolic->elements)) {
      if (std::optional<int64_t> c = getConstantIntValue(e)) {
        entries.push_back(*c);
      } else if (d < 2 && isDimOf(e, *x, d)) {
        entries.push_back(type.getDimSize(d));
      } else if (d == 2 || d == 3) {
        entries.push_back(-1);
        runTimeSizes.push_back(cast<Value>(e));
      } else {
        return ctx.fail("'sizes' entry " + Twine(d) +
                        " is known only at run time");
      }
    }
    resolvedSizes = HostTensor::ofInts(symbolic->shape, std::move(entries));
  }
  // The given, non-empty one of scales (input 2) and sizes (input 3).
  auto given = [&](unsigned i) -> FailureOr<const HostTensor *> {
    if (i == 3 && resolvedSizes)
      return &*resolvedSizes;
    if (!ctx.hasInput(i))
      return (const HostTensor *)nullptr;
    FailureOr<const HostTensor *> t =
        ctx.requireConstant(i, i == 2 ? "scales" : "sizes");
    if (failed(t) || (*t)->numElements() == 0)
      return failed(t) ? t : (const HostTensor *)nullptr;
    return t;
  };
  FailureOr<const HostTensor *> scales = given(2), sizes = given(3);
  if (failed(scales) || failed(sizes))
    return failure();
  if (!*scales == !*sizes)
    return ctx.fail("needs exactly one of 'scales' and 'sizes'");
  const HostTensor &factors = **(*scales ? scales : sizes);
  if (factors.numElements() != 4)
    return ctx.fail(Twine(*scales ? "'scales'" : "'sizes'") +
                    " must have 4 entries");
  for (int d = 0; d < 2; ++d) {
    bool unchanged = *scales ? factors.at(d) == 1.0
                             : factors.at(d) == type.getDimSize(d);
    if (!unchanged)
      return ctx.fail("resizing the batch or channel dimension is not "
                      "supported");
  }

  std::string mode = ctx.stringAttr("mode", "nearest");
  std::optional<nn::ResizeMode> resizeMode =
      llvm::StringSwitch<std::optional<nn::ResizeMode>>(mode)
          .Case("nearest", nn::ResizeMode::Nearest)
          .Case("linear", nn::ResizeMode::Bilinear)
          .Case("cubic", nn::ResizeMode::Bicubic)
          .Default(std::nullopt);
  if (!resizeMode)
    return ctx.fail("mode '" + mode + "' is not supported");
  std::string coordinates =
      ctx.stringAttr("coordinate_transformation_mode", "half_pixel");
  std::optional<nn::ResizeCoordinates> coordinateMode =
      nn::symbolizeResizeCoordinates(coordinates);
  if (!coordinateMode)
    return ctx.fail("coordinate_transformation_mode '" + coordinates +
                    "' is not supported");
  std::string rounding = ctx.stringAttr("nearest_mode", "round_prefer_floor");
  std::optional<nn::NearestRounding> nearestMode =
      nn::symbolizeNearestRounding(rounding);
  if (!nearestMode)
    return ctx.fail("nearest_mode '" + rounding + "' is not supported");
  bool excludeOutside = ctx.intAttr("exclude_outside", 0) != 0;
  if (excludeOutside && *resizeMode != nn::ResizeMode::Bicubic)
    return ctx.fail("exclude_outside = 1 is supported for cubic mode only");

  SmallVector<NamedAttribute> attrs;
  if (*coordinateMode == nn::ResizeCoordinates::TfCropAndResize) {
    // The box, per axis as fractions of the input: [starts..., ends...].
    FailureOr<const HostTensor *> roi = ctx.requireConstant(1, "roi");
    if (failed(roi))
      return failure();
    if ((*roi)->numElements() != 8)
      return ctx.fail("input 'roi' must have 8 entries (starts and ends of "
                      "N, C, H, W), got " +
                      Twine((*roi)->numElements()));
    const HostTensor &box = **roi;
    if (box.at(0) != 0 || box.at(1) != 0 || box.at(4) != 1 || box.at(5) != 1)
      return ctx.fail("a 'roi' that crops the batch or channel dimension is "
                      "not supported");
    attrs.push_back(ctx.b.getNamedAttr(
        "roi", ctx.b.getDenseF64ArrayAttr(
                   {box.at(2), box.at(3), box.at(6), box.at(7)})));
    attrs.push_back(f64Attr(ctx, "extrapolation_value",
                            ctx.floatAttr("extrapolation_value", 0.0f)));
  }
  attrs.append({
      ctx.b.getNamedAttr("mode", nn::ResizeModeAttr::get(ctx.b.getContext(),
                                                         *resizeMode)),
      ctx.b.getNamedAttr("coordinates",
                         nn::ResizeCoordinatesAttr::get(ctx.b.getContext(),
                                                        *coordinateMode)),
      ctx.b.getNamedAttr("nearest_mode",
                         nn::NearestRoundingAttr::get(ctx.b.getContext(),
                                                      *nearestMode)),
      f64Attr(ctx, "cubic_coeff_a", ctx.floatAttr("cubic_coeff_a", -0.75f)),
      ctx.b.getNamedAttr("exclude_outside", ctx.b.getBoolAttr(excludeOutside))});
  if (*scales)
    attrs.push_back(ctx.b.getNamedAttr(
        "scales", ctx.b.getDenseF64ArrayAttr({factors.at(2), factors.at(3)})));
  else
    attrs.push_back(i64Array(ctx, "sizes",
                             {(int64_t)factors.at(2), (int64_t)factors.at(3)}));
  SmallVector<Value> operands = {*x};
  operands.append(runTimeSizes);
  return emit<nn::ResizeOp>(ctx, operands, attrs);
}

LogicalResult importIdentity(NodeContext &ctx) {
  // Dropout in inference is the identity; its mask output is not.
  if (ctx.node.op_type() == "Dropout") {
    if (failed(ctx.requireOutputsUnused(1)))
      return failure();
    // Training mode drops elements at random: a value known only at run
    // time could ask for it, and the identity would be a wrong answer.
    if (ctx.hasInput(2) && !ctx.constant(2))
      return ctx.fail("input 'training_mode' ('" + ctx.node.input(2) +
                      "') must be a constant known at import time (DLAS "
                      "runs Dropout for inference: training_mode false)");
    if (const HostTensor *training = ctx.constant(2)) {
      if (training->numElements() != 1)
        return ctx.fail("input 'training_mode' must hold one value, got " +
                        Twine(training->numElements()));
      // Training with ratio 0 keeps every element and scales by 1.
      const HostTensor *ratio = ctx.constant(1);
      bool zeroRatio = ratio && ratio->numElements() == 1 && ratio->at(0) == 0;
      if (training->at(0) != 0 && !zeroRatio)
        return ctx.fail("training_mode = true is not supported (unless the "
                        "ratio is a constant 0)");
    }
  }
  if (const HostTensor *t = ctx.constant(0)) {
    ctx.setOutputConstant(0, *t);
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  return success();
}

LogicalResult importConstant(NodeContext &ctx) {
  if (const onnx::AttributeProto *a = ctx.attr("value")) {
    std::string message;
    FailureOr<HostTensor> t = hostTensorFromProto(a->t(), message);
    if (failed(t))
      return ctx.fail(message);
    ctx.setOutputConstant(0, std::move(*t));
  } else if (const onnx::AttributeProto *a = ctx.attr("value_float")) {
    ctx.setOutputConstant(0, HostTensor::ofFloats({}, {a->f()}));
  } else if (const onnx::AttributeProto *a = ctx.attr("value_floats")) {
    ctx.setOutputConstant(
        0, HostTensor::ofFloats({(int64_t)a->floats_size()},
                                {a->floats().begin(), a->floats().end()}));
  } else if (const onnx::AttributeProto *a = ctx.attr("value_int")) {
    ctx.setOutputConstant(0, HostTensor::ofInts({}, {a->i()}));
  } else if (const onnx::AttributeProto *a = ctx.attr("value_ints")) {
    ctx.setOutputConstant(
        0, HostTensor::ofInts({(int64_t)a->ints_size()},
                              {a->ints().begin(), a->ints().end()}));
  } else {
    return ctx.fail("only tensor, float(s) and int(s) constants are supported");
  }
  return success();
}

LogicalResult importShape(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  int64_t start = ctx.intAttr("start", 0), end = ctx.intAttr("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  // A dynamic dimension's size is read at run time (shape arithmetic).
  SymbolicInts dims;
  dims.shape = {std::max<int64_t>(end - start, 0)};
  for (int64_t d = start; d < end; ++d) {
    if (!type->isDynamicDim(d)) {
      dims.elements.push_back(ctx.b.getI64IntegerAttr(type->getDimSize(d)));
      continue;
    }
    FailureOr<Value> x = ctx.input(0);
    if (failed(x))
      return failure();
    dims.elements.push_back(
        tensor::DimOp::create(ctx.b, ctx.loc, *x, d).getResult());
  }
  ctx.setOutputSymbolic(0, std::move(dims));
  return success();
}

HostTensor hostBool(ArrayRef<int64_t> shape, std::vector<int64_t> values) {
  HostTensor t = HostTensor::ofInts(shape, std::move(values));
  t.dtype = onnx::TensorProto::BOOL;
  return t;
}

/// Comparisons, logic and Mod on run-time values.
LogicalResult importRunTimeBinary(NodeContext &ctx) {
  StringRef op = ctx.node.op_type();
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  SmallVector<Value, 2> operands = {*a, *b};
  std::optional<nn::ComparePredicate> predicate =
      llvm::StringSwitch<std::optional<nn::ComparePredicate>>(op)
          .Case("Equal", nn::ComparePredicate::Eq)
          .Case("Less", nn::ComparePredicate::Lt)
          .Case("LessOrEqual", nn::ComparePredicate::Le)
          .Case("Greater", nn::ComparePredicate::Gt)
          .Case("GreaterOrEqual", nn::ComparePredicate::Ge)
          .Default(std::nullopt);
  if (predicate)
    return emit<nn::CompareOp>(
        ctx, operands,
        {ctx.b.getNamedAttr("predicate", nn::ComparePredicateAttr::get(
                                             ctx.b.getContext(), *predicate))});
  std::optional<nn::LogicalKind> kind =
      llvm::StringSwitch<std::optional<nn::LogicalKind>>(op)
          .Case("And", nn::LogicalKind::And)
          .Case("Or", nn::LogicalKind::Or)
          .Case("Xor", nn::LogicalKind::Xor)
          .Default(std::nullopt);
  if (kind)
    return emit<nn::LogicalOp>(
        ctx, operands,
        {ctx.b.getNamedAttr("kind", nn::LogicalKindAttr::get(
                                        ctx.b.getContext(), *kind))});
  assert(op == "Mod" && "importRunTimeBinary: an op without a lowering");
  bool fmod = ctx.intAttr("fmod", 0) != 0;
  if (isa<FloatType>(getElementTypeOrSelf(a->getType())) && !fmod)
    return ctx.fail("Mod of floats needs fmod = 1");
  return emit<nn::ModOp>(
      ctx, operands, {ctx.b.getNamedAttr("fmod", ctx.b.getBoolAttr(fmod))});
}

/// Comparisons, logic and Mod: small import-time constants fold (shape
/// arithmetic: masks and paddings computed from static shapes); anything
/// else becomes an nn op.
LogicalResult importFoldedBinary(NodeContext &ctx) {
  const HostTensor *a = ctx.constant(0), *b = ctx.constant(1);
  StringRef op = ctx.node.op_type();
  if (!a || !b || std::max(a->numElements(), b->numElements()) > 4096)
    return importRunTimeBinary(ctx);
  FailureOr<SmallVector<int64_t>> shape = hostBroadcastShape(ctx, {a, b});
  if (failed(shape))
    return failure();
  bool floats = a->isFloat() || b->isFloat();
  bool fmod = ctx.intAttr("fmod", 0) != 0;
  if (op == "Mod" && floats && !fmod)
    return ctx.fail("Mod of floats needs fmod = 1");
  int64_t n = product(*shape);
  if (failed(checkFoldSize(ctx, n, op)))
    return failure();
  std::vector<int64_t> ints;
  std::vector<double> fvalues;
  for (int64_t i = 0; i < n; ++i) {
    double x = a->at(hostBroadcastIndex(*a, *shape, i));
    double y = b->at(hostBroadcastIndex(*b, *shape, i));
    if (op == "Mod") {
      if (!floats && y == 0)
        return ctx.fail("integer Mod by zero");
      if (floats) {
        fvalues.push_back(a->dtype == onnx::TensorProto::FLOAT
                              ? (double)(float)std::fmod(x, y)
                              : std::fmod(x, y));
        continue;
      }
      int64_t xi = (int64_t)x, yi = (int64_t)y, r = xi % yi;
      // fmod = 0: the result takes the divisor's sign (Python's %).
      if (!fmod && r != 0 && ((r < 0) != (yi < 0)))
        r += yi;
      ints.push_back(r);
      continue;
    }
    bool r;
    if (op == "Equal")
      r = x == y;
    else if (op == "Less")
      r = x < y;
    else if (op == "LessOrEqual")
      r = x <= y;
    else if (op == "Greater")
      r = x > y;
    else if (op == "GreaterOrEqual")
      r = x >= y;
    else if (op == "And")
      r = x != 0 && y != 0;
    else if (op == "Or")
      r = x != 0 || y != 0;
    else if (op == "Xor")
      r = (x != 0) != (y != 0);
    else
      llvm_unreachable("importFoldedBinary: an op without a folding rule");
    ints.push_back(r);
  }
  if (op == "Mod")
  {
    HostTensor out = floats ? HostTensor::ofFloats(*shape, fvalues)
                            : HostTensor::ofInts(*shape, ints);
    out.dtype = a->dtype;
    ctx.setOutputConstant(0, std::move(out));
  }
  else
    ctx.setOutputConstant(0, hostBool(*shape, std::move(ints)));
  return success();
}

LogicalResult importNot(NodeContext &ctx) {
  const HostTensor *x = ctx.constant(0);
  if (!x) {
    FailureOr<Value> input = ctx.input(0);
    if (failed(input))
      return failure();
    return emit<nn::NotOp>(ctx, *input, {});
  }
  std::vector<int64_t> values;
  for (int64_t i = 0; i < x->numElements(); ++i)
    values.push_back(x->at(i) == 0);
  ctx.setOutputConstant(0, hostBool(x->shape, std::move(values)));
  return success();
}

/// Where: small constants fold (masks built from static shapes); else
/// nn.select.
LogicalResult importWhere(NodeContext &ctx) {
  const HostTensor *c = ctx.constant(0), *x = ctx.constant(1),
                   *y = ctx.constant(2);
  if (!c || !x || !y ||
      std::max({c->numElements(), x->numElements(), y->numElements()}) > 4096) {
    FailureOr<SmallVector<Value>> operands = inputsUpTo(ctx, 3, 3);
    if (failed(operands))
      return failure();
    return emit<nn::SelectOp>(ctx, *operands, {});
  }
  if (x->isFloat() != y->isFloat())
    return ctx.fail("Where's branches have different element types");
  FailureOr<SmallVector<int64_t>> shape = hostBroadcastShape(ctx, {c, x, y});
  if (failed(shape))
    return failure();
  if (failed(checkFoldSize(ctx, product(*shape), "Where")))
    return failure();
  HostTensor out = hostBroadcastTo(*y, *shape);
  HostTensor taken = hostBroadcastTo(*x, *shape);
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    if (c->at(hostBroadcastIndex(*c, *shape, i)) == 0)
      continue;
    if (out.isFloat())
      out.floats[i] = taken.floats[i];
    else
      out.ints[i] = taken.ints[i];
  }
  ctx.setOutputConstant(0, std::move(out));
  return success();
}

/// ConstantOfShape's 'value' attribute (0.0f without one).
FailureOr<HostTensor> constantOfShapeFill(NodeContext &ctx) {
  HostTensor fill = HostTensor::ofFloats({1}, {0.0f});
  if (const onnx::AttributeProto *value = ctx.attr("value")) {
    std::string message;
    FailureOr<HostTensor> parsed = hostTensorFromProto(value->t(), message);
    if (failed(parsed))
      return ctx.fail("'value': " + message);
    if (parsed->numElements() != 1)
      return ctx.fail("'value' must hold one element");
    fill = std::move(*parsed);
  }
  return fill;
}

/// ConstantOfShape to a shape computed at run time (PyTorch's zero initial
/// state of an LSTM or GRU with a symbolic batch): the fill, a tensor of
/// one element, broadcast to the run-time sizes.
LogicalResult importSymbolicConstantOfShape(NodeContext &ctx) {
  FailureOr<HostTensor> fill = constantOfShapeFill(ctx);
  if (failed(fill))
    return failure();
  Type element = elementTypeFromONNX(ctx.b.getContext(), fill->dtype);
  if (!element)
    return ctx.fail("ConstantOfShape of a " + onnxTypeName(fill->dtype) +
                    " value to a shape known only at run time");
  SmallVector<OpFoldResult> entries(ctx.symbolic(0)->elements);
  for (OpFoldResult e : entries) {
    std::optional<int64_t> c = getConstantIntValue(e);
    if (c && *c < 1)
      return ctx.fail("ConstantOfShape to a run-time shape with a size "
                      "below 1 is not supported");
  }
  if (entries.empty())
    return ctx.fail("ConstantOfShape to a rank-0 run-time shape");
  // A [1] tensor broadcasts to any rank (numpy rules).
  Value value = fill->isFloat()
                    ? ctx.scalar(static_cast<float>(fill->floats[0]), element)
                    : ctx.intScalar(fill->ints[0], element);
  return emitWithRunTimeSizes<nn::BroadcastToOp>(ctx, value, entries);
}

/// ConstantOfShape: a constant shape filled with the 'value' attribute's
/// element (0.0f without one).
LogicalResult importConstantOfShape(NodeContext &ctx) {
  if (ctx.isSymbolic(0))
    return importSymbolicConstantOfShape(ctx);
  FailureOr<const HostTensor *> shapeTensor = ctx.requireConstant(0, "shape");
  if (failed(shapeTensor))
    return failure();
  SmallVector<int64_t> shape((*shapeTensor)->ints.begin(),
                             (*shapeTensor)->ints.end());
  if (llvm::any_of(shape, [](int64_t s) { return s < 0; }))
    return ctx.fail("ConstantOfShape with a negative size");
  FailureOr<HostTensor> parsedFill = constantOfShapeFill(ctx);
  if (failed(parsedFill))
    return failure();
  HostTensor fill = std::move(*parsedFill);
  int64_t n = product(shape);
  if (failed(checkFoldSize(ctx, n, "ConstantOfShape")))
    return failure();
  HostTensor out = fill.isFloat()
                       ? HostTensor::ofFloats(shape, std::vector<double>(n, fill.floats[0]))
                       : HostTensor::ofInts(shape, std::vector<int64_t>(n, fill.ints[0]));
  out.dtype = fill.dtype;
  ctx.setOutputConstant(0, std::move(out));
  return success();
}

/// Range whose start or limit is known only at run time (a sequence's
/// positions, torch.arange(x.shape[1]) exported with a symbolic length):
/// integers, a constant delta. Its length max(ceil((limit - start) /
/// delta), 0) is computed at run time; the values are an exclusive
/// cumulative sum of that many ones, times delta, plus start.
LogicalResult importRunTimeRange(NodeContext &ctx) {
  std::optional<SymbolicInts> start = ctx.symbolic(0), limit = ctx.symbolic(1);
  const HostTensor *delta = ctx.constant(2);
  if (!start || !limit || start->elements.size() != 1 ||
      limit->elements.size() != 1 || !delta || delta->isFloat() ||
      delta->numElements() != 1)
    return ctx.fail("Range with a start or limit known only at run time "
                    "needs integer scalars and a constant integer delta");
  int64_t step = delta->ints[0];
  if (step == 0)
    return ctx.fail("Range needs a delta not 0");
  Type element = elementTypeFromONNX(ctx.b.getContext(), start->dtype);
  if (!element || !element.isSignlessInteger() || element.isInteger(1))
    return ctx.fail("Range of " + onnxTypeName(start->dtype) +
                    " values to a length known only at run time");
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value first = getValueOrCreateConstantIndexOp(b, loc, start->elements[0]);
  Value last = getValueOrCreateConstantIndexOp(b, loc, limit->elements[0]);
  // ceil(span / |delta|) for the span in delta's direction, at least 0.
  Value span = step > 0 ? arith::SubIOp::create(b, loc, last, first)
                        : arith::SubIOp::create(b, loc, first, last);
  int64_t magnitude = step > 0 ? step : -step;
  Value count = arith::FloorDivSIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, span, arith::ConstantIndexOp::create(b, loc, magnitude - 1)),
      arith::ConstantIndexOp::create(b, loc, magnitude));
  count = arith::MaxSIOp::create(b, loc, count,
                                 arith::ConstantIndexOp::create(b, loc, 0));
  Type i64 = b.getI64Type();
  FailureOr<Value> ones = createWithRunTimeSizes<nn::BroadcastToOp>(
      ctx, ctx.intScalar(1, i64), {OpFoldResult(count)});
  if (failed(ones))
    return failure();
  FailureOr<Value> positions = ctx.create<nn::CumSumOp>(
      *ones, {i64Attr(ctx, "axis", 0),
              ctx.b.getNamedAttr("exclusive", ctx.b.getBoolAttr(true))});
  if (failed(positions))
    return failure();
  if (step != 1) {
    positions = ctx.create<nn::MulOp>({*positions, ctx.intScalar(step, i64)});
    if (failed(positions))
      return failure();
  }
  std::optional<int64_t> knownStart = getConstantIntValue(start->elements[0]);
  Value offset =
      knownStart
          ? ctx.intScalar(*knownStart, i64)
          : tensor::FromElementsOp::create(
                b, loc, RankedTensorType::get({1}, i64),
                ValueRange{arith::IndexCastOp::create(b, loc, i64, first)})
                .getResult();
  if (!knownStart || *knownStart != 0) {
    positions = ctx.create<nn::AddOp>({*positions, offset});
    if (failed(positions))
      return failure();
  }
  ctx.setOutput(0, castTo(ctx, *positions, element));
  return success();
}

/// Range on constants: start, limit and delta are scalars.
LogicalResult importRange(NodeContext &ctx) {
  if (ctx.isSymbolic(0) || ctx.isSymbolic(1))
    return importRunTimeRange(ctx);
  const HostTensor *start = ctx.constant(0), *limit = ctx.constant(1),
                   *delta = ctx.constant(2);
  if (!start || !limit || !delta)
    return ctx.fail("Range is supported on import-time constants and on "
                    "integers whose start or limit is a size known at run "
                    "time (its length fixes the result's shape)");
  if (start->numElements() != 1 || limit->numElements() != 1 ||
      delta->numElements() != 1)
    return ctx.fail("Range's start, limit and delta must be scalars");
  double s = start->at(0), l = limit->at(0), d = delta->at(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
    return ctx.fail("Range needs finite start and limit and a delta not 0");
  double count = std::max(std::ceil((l - s) / d), 0.0);
  if (!(count <= (double)kMaxFoldedElements))
    return checkFoldSize(ctx, -1, "Range");
  int64_t n = (int64_t)count;
  if (start->isFloat()) {
    HostTensor out = HostTensor::ofFloats({n}, {});
    out.dtype = start->dtype;
    for (int64_t i = 0; i < n; ++i)
      out.pushFloat(s + i * d);
    ctx.setOutputConstant(0, std::move(out));
  } else {
    std::vector<int64_t> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back((int64_t)s + i * (int64_t)d);
    ctx.setOutputConstant(0, HostTensor::ofInts({n}, std::move(values)));
  }
  return success();
}

/// ScatterND on constants (reduction 'none'): updates replace the slices
/// of data that the last dimension of indices addresses.
LogicalResult importScatterND(NodeContext &ctx) {
  const HostTensor *data = ctx.constant(0), *indices = ctx.constant(1),
                   *updates = ctx.constant(2);
  if (!data || !indices || !updates)
    return ctx.fail("ScatterND is supported on import-time constants only");
  if (ctx.stringAttr("reduction", "none") != "none")
    return ctx.fail("ScatterND reduction '" +
                    ctx.stringAttr("reduction", "none") + "' is not supported");
  if (data->isFloat() != updates->isFloat() || indices->shape.empty())
    return ctx.fail("ScatterND operands do not match");
  int64_t depth = indices->shape.back();
  if (depth < 1 || depth > (int64_t)data->shape.size())
    return ctx.fail("ScatterND index depth " + Twine(depth) +
                    " does not fit the data's rank");
  int64_t sliceSize = 1;
  for (size_t d = depth; d < data->shape.size(); ++d)
    sliceSize *= data->shape[d];
  int64_t count = indices->numElements() / depth;
  if (updates->numElements() != count * sliceSize)
    return ctx.fail("ScatterND updates do not match its indices");
  HostTensor out = *data;
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int64_t j = 0; j < depth; ++j) {
      int64_t extent = data->shape[j];
      int64_t idx = (int64_t)indices->at(k * depth + j);
      if (idx < 0)
        idx += extent;
      if (idx < 0 || idx >= extent)
        return ctx.fail("ScatterND index " + Twine(idx) +
                        " is out of range for size " + Twine(extent));
      offset = offset * extent + idx;
    }
    for (int64_t i = 0; i < sliceSize; ++i) {
      if (out.isFloat())
        out.floats[offset * sliceSize + i] = updates->floats[k * sliceSize + i];
      else
        out.ints[offset * sliceSize + i] = updates->ints[k * sliceSize + i];
    }
  }
  ctx.setOutputConstant(0, std::move(out));
  return success();
}

/// Gather of a run-time tensor at constant indices: one nn.slice per run
/// of consecutive indices, concatenated, then reshaped to the indices'
/// shape in place of the axis.
LogicalResult gatherConstantIndices(NodeContext &ctx, const HostTensor &indices) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t extent = type.getDimSize(*axis);
  if (ShapedType::isDynamic(extent))
    return ctx.fail("Gather along a dynamic dimension");
  SmallVector<int64_t> idx;
  for (int64_t k = 0; k < indices.numElements(); ++k) {
    int64_t i = (int64_t)indices.at(k);
    if (i < -extent || i >= extent)
      return ctx.fail("index " + Twine(i) + " is out of range for size " +
                      Twine(extent));
    idx.push_back(i < 0 ? i + extent : i);
  }
  if (idx.empty())
    return ctx.fail("Gather with no indices");
  // Runs of consecutive indices, each one slice.
  SmallVector<std::pair<int64_t, int64_t>> runs; // (first, length)
  for (int64_t i : idx) {
    if (!runs.empty() && runs.back().first + runs.back().second == i)
      ++runs.back().second;
    else
      runs.push_back({i, 1});
  }
  if (!type.hasStaticShape()) {
    // Slices need static sizes; nn.gather takes the dynamic ones.
    FailureOr<Value> idx = ctx.input(1);
    if (failed(idx))
      return failure();
    return emit<nn::GatherOp>(ctx, ValueRange{*x, *idx},
                              {i64Attr(ctx, "axis", *axis)});
  }
  if (runs.size() > 256)
    return ctx.fail("Gather of " + Twine(runs.size()) +
                    " scattered constant indices (at most 256 runs)");
  SmallVector<Value> pieces;
  for (auto [first, length] : runs) {
    SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
        steps(rank, 1);
    offsets[*axis] = first;
    sizes[*axis] = length;
    FailureOr<Value> piece = ctx.create<nn::SliceOp>(
        *x, {i64Array(ctx, "offsets", offsets), i64Array(ctx, "sizes", sizes),
             i64Array(ctx, "steps", steps)});
    if (failed(piece))
      return failure();
    pieces.push_back(*piece);
  }
  FailureOr<Value> gathered = pieces.front();
  if (pieces.size() > 1)
    gathered = ctx.create<nn::ConcatOp>(pieces, {i64Attr(ctx, "axis", *axis)});
  if (failed(gathered))
    return failure();
  SmallVector<int64_t> shape(type.getShape().take_front(*axis));
  shape.append(indices.shape.begin(), indices.shape.end());
  shape.append(type.getShape().begin() + *axis + 1, type.getShape().end());
  FailureOr<Value> y = reshapeTo(ctx, *gathered, shape);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult importGather(NodeContext &ctx) {
  const HostTensor *data = ctx.constant(0), *indices = ctx.constant(1);
  if (!indices) {
    // Run-time indices: nn.gather (an embedding lookup when data is a
    // constant).
    FailureOr<Value> x = ctx.input(0), idx = ctx.input(1);
    if (failed(x) || failed(idx))
      return failure();
    return emit<nn::GatherOp>(ctx, ValueRange{*x, *idx},
                              {i64Attr(ctx, "axis", ctx.intAttr("axis", 0))});
  }
  if (!data)
    return gatherConstantIndices(ctx, *indices);
  int64_t rank = data->shape.size();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t outer = 1, inner = 1, extent = data->shape[*axis];
  for (int64_t d = 0; d < *axis; ++d)
    outer *= data->shape[d];
  for (int64_t d = *axis + 1; d < rank; ++d)
    inner *= data->shape[d];
  HostTensor out;
  out.dtype = data->dtype;
  out.shape.assign(data->shape.begin(), data->shape.begin() + *axis);
  out.shape.append(indices->shape.begin(), indices->shape.end());
  out.shape.append(data->shape.begin() + *axis + 1, data->shape.end());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < indices->numElements(); ++k) {
      int64_t idx = (int64_t)indices->at(k);
      if (idx < 0)
        idx += extent;
      if (idx < 0 || idx >= extent)
        return ctx.fail("index " + Twine((int64_t)indices->at(k)) +
                        " is out of range for size " + Twine(extent));
      for (int64_t i = 0; i < inner; ++i) {
        int64_t src = (o * extent + idx) * inner + i;
        if (data->isFloat())
          out.floats.push_back(data->floats[src]);
        else
          out.ints.push_back(data->ints[src]);
      }
    }
  ctx.setOutputConstant(0, std::move(out));
  return success();
}

/// GatherElements onto nn.gather_elements.
LogicalResult importGatherElements(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), idx = ctx.input(1);
  if (failed(x) || failed(idx))
    return failure();
  return emit<nn::GatherElementsOp>(ctx, ValueRange{*x, *idx},
                                    {i64Attr(ctx, "axis", ctx.intAttr("axis", 0))});
}

/// Unsqueeze and Squeeze: constants fold; tensors become nn.reshape.
LogicalResult importSqueezeLike(NodeContext &ctx) {
  bool unsqueeze = ctx.node.op_type() == "Unsqueeze";
  SmallVector<int64_t> axes;
  if (ctx.opset >= 13 && ctx.hasInput(1)) {
    FailureOr<const HostTensor *> a = ctx.requireConstant(1, "axes");
    if (failed(a))
      return failure();
    axes.assign((*a)->ints.begin(), (*a)->ints.end());
  } else if (auto a = ctx.intsAttr("axes")) {
    axes = *a;
  }
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  SmallVector<int64_t> shape(type->getShape());
  if (unsqueeze) {
    int64_t outRank = shape.size() + axes.size();
    for (int64_t &a : axes)
      a = a < 0 ? a + outRank : a;
    llvm::sort(axes);
    for (int64_t a : axes) {
      if (a < 0 || a > (int64_t)shape.size())
        return ctx.fail("axis " + Twine(a) + " is out of range");
      shape.insert(shape.begin() + a, 1);
    }
  } else {
    int64_t rank = shape.size();
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < rank; ++d) {
      bool listed = axes.empty() ? shape[d] == 1
                                 : llvm::is_contained(axes, d) ||
                                       llvm::is_contained(axes, d - rank);
      if (listed && shape[d] != 1)
        return ctx.fail("cannot squeeze dimension " + Twine(d) + " of size " +
                        Twine(shape[d]));
      if (!listed)
        kept.push_back(shape[d]);
    }
    shape = kept;
  }
  if (const HostTensor *t = ctx.constant(0)) {
    HostTensor out = *t;
    out.shape = shape;
    ctx.setOutputConstant(0, std::move(out));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  // Squeezing and unsqueezing keep the input's sizes in order: the n-th
  // run-time size of the result is the input's n-th (a sequence model's
  // batch and length, both symbolic).
  SmallVector<int64_t> dynamicDims;
  for (auto [d, size] : llvm::enumerate(type->getShape()))
    if (ShapedType::isDynamic(size))
      dynamicDims.push_back(d);
  SmallVector<OpFoldResult> sizes;
  auto nextDynamic = dynamicDims.begin();
  for (int64_t size : shape)
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(tensor::DimOp::create(ctx.b, ctx.loc, *x,
                                                             *nextDynamic++)
                                           .getResult())
                        : OpFoldResult(ctx.b.getIndexAttr(size)));
  FailureOr<Value> y = reshapeToSizes(ctx, *x, sizes);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Folds a Cast of a constant to ONNX type `to`.
FailureOr<HostTensor> foldCast(NodeContext &ctx, const HostTensor &t,
                               int32_t to) {
  HostTensor out;
  out.shape = t.shape;
  out.dtype = to;
  unsigned width = 64;
  if (Type element = elementTypeFromONNX(ctx.b.getContext(), to);
      element && element.isInteger())
    width = element.getIntOrFloatBitWidth();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = t.at(i);
    if (out.isFloat()) {
      out.pushFloat(v);
    } else if (to == onnx::TensorProto::BOOL) {
      out.ints.push_back(v != 0);
    } else {
      // Truncation toward zero; C++ leaves out-of-range conversions
      // undefined, so they are refused rather than folded to garbage.
      if (!(std::fabs(v) < 9.2e18))
        return ctx.fail("cannot fold the Cast of " + std::to_string(v) +
                        " to an integer type");
      int64_t value = (int64_t)std::trunc(v);
      if (width < 64) // wraps as a narrowing conversion does
        value = APInt(64, (uint64_t)value).trunc(width).getSExtValue();
      out.ints.push_back(value);
    }
  }
  return out;
}

/// Cast and CastLike: constants fold; run-time values become nn.cast.
LogicalResult importCast(NodeContext &ctx) {
  int64_t to = ctx.intAttr("to", onnx::TensorProto::FLOAT);
  if (ctx.node.op_type() == "CastLike") {
    if (const HostTensor *like = ctx.constant(1)) {
      to = like->dtype;
    } else {
      FailureOr<RankedTensorType> likeType = ctx.inputType(1);
      if (failed(likeType))
        return failure();
      to = onnxTypeOf(likeType->getElementType());
    }
  }
  Type toType = elementTypeFromONNX(ctx.b.getContext(), to);
  if (!toType)
    return ctx.fail("Cast to ONNX element type " + onnxTypeName(to) +
                    " is not supported (floats, BOOL and signed integers "
                    "are)");
  if (const HostTensor *t = ctx.constant(0)) {
    FailureOr<HostTensor> folded = foldCast(ctx, *t, to);
    if (failed(folded))
      return failure();
    ctx.setOutputConstant(0, std::move(*folded));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getElementType() == toType) {
    ctx.setOutput(0, *x);
    return success();
  }
  ctx.setOutput(0, nn::CastOp::create(ctx.b, ctx.loc, type.clone(toType), *x));
  return success();
}

/// CumSum along a constant axis.
LogicalResult importCumSum(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<const HostTensor *> axis = ctx.requireConstant(1, "axis");
  if (failed(axis))
    return failure();
  if ((*axis)->isFloat() || (*axis)->numElements() != 1)
    return ctx.fail("input 'axis' must be one integer");
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  FailureOr<int64_t> normalized = normalizeAxis(ctx, (*axis)->ints[0], rank);
  if (failed(normalized))
    return failure();
  return emit<nn::CumSumOp>(
      ctx, *x,
      {i64Attr(ctx, "axis", *normalized),
       ctx.b.getNamedAttr("exclusive",
                          ctx.b.getBoolAttr(ctx.intAttr("exclusive", 0) != 0)),
       ctx.b.getNamedAttr("reverse",
                          ctx.b.getBoolAttr(ctx.intAttr("reverse", 0) != 0))});
}

/// TopK with a constant k (it fixes the result's shape).
LogicalResult importTopK(NodeContext &ctx) {
  FailureOr<const HostTensor *> k = ctx.requireConstant(1, "K");
  if (failed(k))
    return failure();
  if ((*k)->numElements() != 1)
    return ctx.fail("input 'K' must hold one value, got " +
                    Twine((*k)->numElements()));
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Operation *> op = ctx.createInferredOp(
      nn::TopKOp::getOperationName(), *x,
      {i64Attr(ctx, "k", (int64_t)(*k)->at(0)),
       i64Attr(ctx, "axis", ctx.intAttr("axis", -1)),
       ctx.b.getNamedAttr("largest",
                          ctx.b.getBoolAttr(ctx.intAttr("largest", 1) != 0)),
       ctx.b.getNamedAttr("sorted",
                          ctx.b.getBoolAttr(ctx.intAttr("sorted", 1) != 0))},
      2);
  if (failed(op))
    return failure();
  ctx.setOutput(0, (*op)->getResult(0));
  ctx.setOutput(1, (*op)->getResult(1));
  return success();
}

/// Size: the element count of a static shape.
LogicalResult importSize(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  if (!type->hasStaticShape())
    return ctx.fail("Size of a tensor with dynamic dimensions cannot be "
                    "folded");
  ctx.setOutputConstant(0, HostTensor::ofInts({}, {type->getNumElements()}));
  return success();
}

} // namespace

FailureOr<ConvAttributes>
onnximport::convAttributes(NodeContext &ctx, RankedTensorType inputType,
                           ArrayRef<int64_t> weightShape) {
  ConvAttributes attrs;
  SmallVector<int64_t> kernel(weightShape.drop_front(2));
  size_t rank = kernel.size();
  attrs.strides =
      ctx.intsAttr("strides").value_or(SmallVector<int64_t>(rank, 1));
  attrs.dilations =
      ctx.intsAttr("dilations").value_or(SmallVector<int64_t>(rank, 1));
  attrs.groups = ctx.intAttr("group", 1);
  if (attrs.strides.size() != rank || attrs.dilations.size() != rank) {
    (void)ctx.fail("'strides' and 'dilations' of a " + Twine(rank) +
                   "-D convolution must have " + Twine(rank) + " values");
    return failure();
  }
  FailureOr<SmallVector<int64_t>> pads =
      spatialPads(ctx, inputType, kernel, attrs.strides, attrs.dilations);
  if (failed(pads))
    return failure();
  attrs.pads = std::move(*pads);
  return attrs;
}

FailureOr<Value> onnximport::createConv(NodeContext &ctx, Value x, Value w,
                                        Value bias,
                                        const ConvAttributes &attrs) {
  SmallVector<Value> operands{x, w};
  if (bias)
    operands.push_back(bias);
  if (cast<RankedTensorType>(w.getType()).getRank() == 5)
    return ctx.create<nn::Conv3DOp>(
        operands, {i64Array(ctx, "strides", attrs.strides),
                   i64Array(ctx, "padding", attrs.pads),
                   i64Array(ctx, "dilations", attrs.dilations),
                   i64Attr(ctx, "groups", attrs.groups)});
  return ctx.create<nn::Conv2DOp>(
      operands, {i64Array(ctx, "strides", attrs.strides),
                 i64Array(ctx, "padding", attrs.pads),
                 i64Array(ctx, "dilations", attrs.dilations),
                 i64Attr(ctx, "groups", attrs.groups)});
}

LogicalResult onnximport::importMatMulNode(NodeContext &ctx) {
  return importMatMul(ctx);
}

ArrayRef<OpSupport> onnximport::supportedOps() {
  static const OpSupport table[] = {
      {"Abs", unary<nn::AbsOp>, "nn.abs", "floats"},
      {"Acos", unary<nn::AcosOp>, "nn.acos", ""},
      {"Acosh", unary<nn::AcoshOp>, "nn.acosh", ""},
      {"Add", binary<nn::AddOp>, "nn.add",
       "numpy broadcasting; constants fold"},
      {"And", importFoldedBinary, "nn.logical", "booleans; numpy broadcasting; constants fold"},
      {"ArgMax", importArgReduce<nn::ArgMaxOp>, "nn.arg_max", "floats; axis, keepdims, select_last_index"},
      {"ArgMin", importArgReduce<nn::ArgMinOp>, "nn.arg_min", "floats; axis, keepdims, select_last_index"},
      {"Asin", unary<nn::AsinOp>, "nn.asin", ""},
      {"Asinh", unary<nn::AsinhOp>, "nn.asinh", ""},
      {"Atan", unary<nn::AtanOp>, "nn.atan", ""},
      {"Atanh", unary<nn::AtanhOp>, "nn.atanh", ""},
      {"AveragePool", importPool3DAsTwo2D<nn::AvgPool2DOp>, "nn.avg_pool2d",
       "1-D (as 2-D), 2-D and 3-D (two 2-D pools); pads, auto_pad, ceil_mode, count_include_pad"},
      {"BatchNormalization", channelsAs4D<importBatchNormalization, true>, "nn.batch_norm",
       "inference form (training_mode = 0), spatial; rank 2 and up (other ranks viewed as 4-D)"},
      {"Cast", importCast, "nn.cast", "floats (f64, f32, f16, bf16), BOOL, signed integers; constants fold"},
      {"CastLike", importCast, "nn.cast", "as Cast"},
      {"Ceil", unary<nn::CeilOp>, "nn.ceil", ""},
      {"Celu", importCelu, "nn.div + nn.elu + nn.mul", "alpha"},
      {"Clip", importClip, "nn.clip (integers: nn.max + nn.min)", "min/max must be constants"},
      {"Concat", importConcat, "nn.concat", "1-D constants fold"},
      {"Constant", importConstant, "import-time constant",
       "value, value_float(s), value_int(s)"},
      {"ConstantOfShape", importConstantOfShape, "folded; nn.broadcast_to", "value attribute; shape constant, or computed at run time"},
      {"Conv", spatial1DAs2D<importConv, true>, "nn.conv2d, nn.conv3d",
       "1-D (as 2-D), 2-D and 3-D; strides, pads, auto_pad, dilations, group, bias"},
      {"ConvInteger", importConvInteger, "nn.conv2d (i8 -> i32) (+ nn.pad, nn.sub)",
       "2-D; constant weight within int8 once its zero point is taken away; scalar input zero point; UINT8 held as i8 - 128"},
      {"ConvTranspose", spatial1DAs2D<importConvTranspose, true>, "nn.conv_transpose2d",
       "1-D (as 2-D) and 2-D; pads, output_padding, output_shape, auto_pad, strides, dilations, group"},
      {"Cos", unary<nn::CosOp>, "nn.cos", ""},
      {"Cosh", unary<nn::CoshOp>, "nn.cosh", ""},
      {"CumSum", importCumSum, "nn.cumsum", "axis constant; exclusive, reverse"},
      {"DepthToSpace", importDepthSpace, "nn.reshape + nn.transpose + nn.reshape", "NCHW; DCR and CRD"},
      {"DequantizeLinear", importDequantizeLinear, "nn.dequantize",
       "INT8, UINT8, INT32; per tensor or per axis; FLOAT scale; constants fold (weights of QDQ models)"},
      {"Div", binary<nn::DivOp>, "nn.div",
       "numpy broadcasting; constants fold"},
      {"Dropout", importIdentity, "identity", "inference only; no mask output"},
      {"Einsum", importEinsum, "nn.batch_matmul (+ nn.transpose, nn.reshape, nn.reduce)",
       "1 or 2 operands, ellipsis, implicit output; no diagonals"},
      {"Elu", importElu, "nn.elu", "alpha"},
      {"Equal", importFoldedBinary, "nn.compare", "numpy broadcasting; constants fold"},
      {"Erf", unary<nn::ErfOp>, "nn.erf", ""},
      {"Exp", unary<nn::ExpOp>, "nn.exp", ""},
      {"Expand", importExpand, "nn.broadcast_to", "shape constant; constants fold"},
      {"EyeLike", importEyeLike, "import-time constant", "2-D static shape; k, dtype"},
      {"Flatten", importFlatten, "nn.flatten / nn.reshape", "any axis"},
      {"Floor", unary<nn::FloorOp>, "nn.floor", ""},
      {"Gather", importGather,
       "nn.slice (+ nn.concat, nn.reshape) for constant indices, nn.gather for "
       "run-time ones; constants fold",
       "any axis; negative indices"},
      {"GatherElements", importGatherElements, "nn.gather_elements",
       "any axis; negative indices"},
      {"GatherND", importGatherND, "nn.slice/compare/select/mul/add to row numbers + nn.reshape + nn.gather", "any number of coordinates; negative indices; batch_dims (static indices)"},
      {"Gemm", importGemm, "nn.linear (+ nn.transpose, nn.mul, nn.add)",
       "alpha, beta, transA, transB, broadcast C"},
      {"GlobalAveragePool", channelsAs4D<importGlobalAveragePool, false>, "nn.global_avg_pool2d",
       "rank 3 and up (other ranks viewed as 4-D)"},
      {"GlobalMaxPool", importGlobalMaxPool, "nn.reduce max", "rank 3 and up"},
      {"Greater", importFoldedBinary, "nn.compare", "numpy broadcasting; constants fold"},
      {"GreaterOrEqual", importFoldedBinary, "nn.compare", "numpy broadcasting; constants fold"},
      {"GRU", importRecurrent<nn::GruOp>, "nn.gru",
       "forward/reverse/bidirectional, layout 0/1, sequence_lens, initial_h, "
       "activations with alpha/beta, clip, linear_before_reset"},
      {"Hardmax", importHardmax, "nn.arg_max + nn.compare + nn.cast", "any axis from opset 13; flattened at axis before; static size along axis"},
      {"HardSigmoid", importHardSigmoid, "nn.hard_sigmoid", "alpha, beta"},
      {"HardSwish", unary<nn::HardSwishOp>, "nn.hard_swish", ""},
      {"Identity", importIdentity, "identity", ""},
      {"InstanceNormalization", importInstanceNormalization, "nn.layer_norm (spatial dims) + nn.mul, nn.add", "any rank from 3; epsilon"},
      {"IsInf", importIsInf, "nn.compare (+ nn.logical)", "detect_positive, detect_negative"},
      {"IsNaN", importIsNaN, "nn.compare ne of x with itself", ""},
      {"LayerNormalization", importLayerNormalization, "nn.layer_norm (nn.reduce mean, nn.sub/mul/add/sqrt/div where Mean or InvStdDev is read)", "any axis; epsilon; optional bias; Mean and InvStdDev outputs"},
      {"LeakyRelu", importLeakyRelu, "nn.leaky_relu", "alpha"},
      {"Less", importFoldedBinary, "nn.compare", "numpy broadcasting; constants fold"},
      {"LessOrEqual", importFoldedBinary, "nn.compare", "numpy broadcasting; constants fold"},
      {"Log", unary<nn::LogOp>, "nn.log", ""},
      {"LogSoftmax", importSoftmax<nn::LogSoftmaxOp>, "nn.log_softmax",
       "any axis from opset 13; the last axis before"},
      {"LRN", importLRN, "nn.mul + nn.avg_pool2d over channels + nn.pow + nn.div", "rank 3 and up; static channel and spatial sizes; size, alpha, beta, bias"},
      {"LSTM", importRecurrent<nn::LstmOp>, "nn.lstm",
       "forward/reverse/bidirectional, layout 0/1, sequence_lens, initial_h/c, "
       "peepholes, activations with alpha/beta, clip, input_forget"},
      {"MatMul", importMatMul, "nn.matmul / nn.batch_matmul (+ nn.reshape, nn.broadcast_to)",
       "any ranks (numpy matmul): 1-D operands, a shared 2-D right operand as one GEMM, batch broadcasting"},
      {"MatMulInteger", importMatMulInteger, "nn.matmul (i8 -> i32) (+ nn.sub)",
       "constant 2-D b within int8 once its zero point is taken away; scalar a zero point"},
      {"Max", variadic<nn::MaxOp>, "nn.max", "any number of inputs, broadcasting"},
      {"MaxPool", importPool3DAsTwo2D<nn::MaxPool2DOp>, "nn.max_pool2d",
       "1-D (as 2-D), 2-D and 3-D (two 2-D pools); pads, auto_pad, dilations, ceil_mode; Indices output (1-D and 2-D: nn.max_pool2d_with_indices, storage_order 0 and 1)"},
      {"Mean", importMean, "nn.add + nn.div", "any number of inputs, broadcasting"},
      {"MeanVarianceNormalization", importMeanVarianceNormalization, "nn.reduce mean, nn.sub/mul/add/sqrt/div", "axes"},
      {"Min", variadic<nn::MinOp>, "nn.min", "any number of inputs, broadcasting"},
      {"Mod", importFoldedBinary, "nn.mod", "fmod (floats need fmod = 1); integer division by 0 gives 0; constants fold"},
      {"Mul", binary<nn::MulOp>, "nn.mul",
       "numpy broadcasting; constants fold"},
      {"Neg", unary<nn::NegOp>, "nn.neg", "floats"},
      {"Not", importNot, "nn.not", "constants fold"},
      {"OneHot", importOneHot, "nn.compare with an index ramp + nn.select", "depth constant; any axis; negative indices; values at run time"},
      {"Or", importFoldedBinary, "nn.logical", "booleans; numpy broadcasting; constants fold"},
      {"PRelu", importPRelu, "nn.max + nn.min + nn.mul + nn.add", "slope broadcast (numpy rules)"},
      {"Pad", importPad, "nn.pad", "constant, edge and reflect modes; pads and value constant"},
      {"Pow", importPow, "nn.pow (+ nn.cast)", "numpy broadcasting; any exponent type (cast to the base's); integer bases raised in f64"},
      {"QLinearConv", importQLinearConv, "nn.conv2d (i8 -> i32) + nn.dequantize + nn.quantize",
       "2-D; integer kernels for a constant weight within int8 once its zero point is taken away, else dequantize + f32 conv + quantize"},
      {"QLinearMatMul", importQLinearMatMul, "nn.matmul (i8 -> i32) + nn.dequantize + nn.quantize",
       "integer kernels for a constant 2-D b within int8 once its zero point is taken away, else in f32"},
      {"QuantizeLinear", importQuantizeLinear, "nn.quantize",
       "FLOAT to INT8 or UINT8; per tensor or per axis; no block_size"},
      {"Range", importRange, "folded; nn.broadcast_to + nn.cumsum", "import-time constants; integers with a start or limit known at run time (a symbolic length) and a constant delta"},
      {"Reciprocal", unary<nn::ReciprocalOp>, "nn.reciprocal", ""},
      {"ReduceL1", importReduce<nn::ReduceKind::L1>, "nn.reduce", "any axes, keepdims"},
      {"ReduceL2", importReduce<nn::ReduceKind::L2>, "nn.reduce", "any axes, keepdims"},
      {"ReduceLogSum", importReduce<nn::ReduceKind::LogSum>, "nn.reduce", "any axes, keepdims"},
      {"ReduceLogSumExp", importReduce<nn::ReduceKind::LogSumExp>, "nn.reduce", "any axes, keepdims; max-shifted"},
      {"ReduceMax", importReduce<nn::ReduceKind::Max>, "nn.reduce", "any axes, keepdims"},
      {"ReduceMean", importReduce<nn::ReduceKind::Mean>, "nn.reduce (nn.global_avg_pool2d for H, W of 4-D)",
       "any axes, keepdims"},
      {"ReduceMin", importReduce<nn::ReduceKind::Min>, "nn.reduce", "any axes, keepdims"},
      {"ReduceProd", importReduce<nn::ReduceKind::Prod>, "nn.reduce", "any axes, keepdims"},
      {"ReduceSum", importReduce<nn::ReduceKind::Sum>, "nn.reduce", "any axes (attribute, or a constant input from opset 13), keepdims, noop_with_empty_axes"},
      {"ReduceSumSquare", importReduce<nn::ReduceKind::SumSquare>, "nn.reduce", "any axes, keepdims"},
      {"Relu", unary<nn::ReluOp>, "nn.relu", ""},
      {"Reshape", importReshape, "nn.reshape",
       "constant shape; 0 copies, -1 infers"},
      {"Resize", importResize, "nn.resize",
       "NCHW; scales constant, sizes constant or (H, W) computed at run time; nearest (any nearest_mode), linear, cubic (cubic_coeff_a, exclude_outside); every coordinate mode (tf_crop_and_resize: roi constant, extrapolation_value)"},
      {"RNN", importRecurrent<nn::RnnOp>, "nn.rnn",
       "forward/reverse/bidirectional, layout 0/1, sequence_lens, initial_h, "
       "activations with alpha/beta, clip"},
      {"Round", unary<nn::RoundOp>, "nn.round", "halves to even"},
      {"ScatterND", importScatterND, "folded", "import-time constants only; reduction none"},
      {"Selu", importSelu, "nn.selu", "alpha, gamma"},
      {"Shape", importShape, "folded", "start/end; dynamic dimensions read at run time, and the shape arithmetic on them (Gather, Concat, Unsqueeze, Squeeze, Slice, Add, Sub, Mul, Div, Equal, Where, Cast) kept symbolic for Reshape and Expand"},
      {"Shrink", importShrink, "nn.compare + nn.select + nn.add/sub", "lambd, bias"},
      {"Sigmoid", unary<nn::SigmoidOp>, "nn.sigmoid", ""},
      {"Sign", unary<nn::SignOp>, "nn.sign", "floats and signed integers"},
      {"Sin", unary<nn::SinOp>, "nn.sin", ""},
      {"Sinh", unary<nn::SinhOp>, "nn.sinh", ""},
      {"Size", importSize, "folded", "static shapes"},
      {"Slice", importSlice, "nn.slice", "starts, axes and steps constant; ends constant or computed at run time (step 1); steps of either sign; constant data folds"},
      {"Softmax", importSoftmax<nn::SoftmaxOp>, "nn.softmax",
       "any axis from opset 13; the last axis before"},
      {"Softplus", unary<nn::SoftplusOp>, "nn.softplus", ""},
      {"Softsign", unary<nn::SoftsignOp>, "nn.softsign", ""},
      {"SpaceToDepth", importDepthSpace, "nn.reshape + nn.transpose + nn.reshape", "NCHW"},
      {"Split", importSplit, "nn.slice per output", "split sizes (input from opset 13, or attribute) constant, or equal parts; the split axis static"},
      {"Sqrt", unary<nn::SqrtOp>, "nn.sqrt", ""},
      {"Squeeze", importSqueezeLike, "nn.reshape", "constants fold"},
      {"Sub", binary<nn::SubOp>, "nn.sub",
       "numpy broadcasting; constants fold"},
      {"Sum", variadic<nn::AddOp>, "nn.add", "any number of inputs, broadcasting"},
      {"Tan", unary<nn::TanOp>, "nn.tan", ""},
      {"Tanh", unary<nn::TanhOp>, "nn.tanh", ""},
      {"ThresholdedRelu", importThresholdedRelu, "nn.compare + nn.select", "alpha"},
      {"Tile", importTile, "nn.reshape + nn.broadcast_to + nn.reshape", "repeats constant"},
      {"TopK", importTopK, "nn.top_k", "K constant; axis, largest; always sorted, ties by lower index"},
      {"Transpose", importTranspose, "nn.transpose", "perm (default: reverse)"},
      {"Trilu", importTrilu, "nn.select by a mask", "upper/lower; k constant or at run time; last two dimensions static"},
      {"Unsqueeze", importSqueezeLike, "nn.reshape", "constants fold"},
      {"Where", importWhere, "nn.select", "numpy broadcasting of all three; constants fold"},
      {"Xor", importFoldedBinary, "nn.logical", "booleans; numpy broadcasting; constants fold"},
  };
  return table;
}
