//===- OpImporters.cpp - one handler per supported ONNX op ----------------===//
//
// Each handler maps one ONNX node onto nn ops, or folds it at import time
// when all its inputs are constants (shape arithmetic, Constant, Identity).
// Anything a handler cannot represent faithfully is refused by name.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

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

/// Normalizes a possibly negative axis; fails outside [-rank, rank).
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    (void)ctx.fail("axis " + Twine(axis) + " is out of range for rank " +
                   Twine(rank));
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

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
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return emit<OpTy>(ctx, *x);
}

/// Broadcast arithmetic on import-time constants (numpy rules).
FailureOr<HostTensor> foldBinary(NodeContext &ctx, const HostTensor &a,
                                 const HostTensor &b, StringRef op) {
  size_t rank = std::max(a.shape.size(), b.shape.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da =
        i + a.shape.size() >= rank ? a.shape[i + a.shape.size() - rank] : 1;
    int64_t db =
        i + b.shape.size() >= rank ? b.shape[i + b.shape.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      (void)ctx.fail("constant operands do not broadcast");
      return failure();
    }
    shape[i] = std::max(da, db);
  }
  HostTensor out;
  out.dtype = a.isFloat() || b.isFloat() ? onnx::TensorProto::FLOAT
                                         : onnx::TensorProto::INT64;
  out.shape = shape;
  int64_t n = out.numElements();
  auto index = [&](const HostTensor &t, int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (int64_t d = rank - 1, rem = flat; d >= 0; --d) {
      int64_t coord = rem % shape[d];
      rem /= shape[d];
      int64_t td = d - (int64_t)(rank - t.shape.size());
      if (td >= 0) {
        if (t.shape[td] != 1)
          idx += coord * stride;
        stride *= t.shape[td];
      }
    }
    return idx;
  };
  for (int64_t i = 0; i < n; ++i) {
    double x = a.at(index(a, i)), y = b.at(index(b, i));
    double r;
    if (op == "Add")
      r = x + y;
    else if (op == "Sub")
      r = x - y;
    else if (op == "Mul")
      r = x * y;
    else if (op == "Div")
      r = out.isFloat() ? x / y : std::trunc(x / y);
    else if (op == "Pow")
      r = std::pow(x, y);
    else
      llvm_unreachable("foldBinary: an op without a folding rule");
    if (out.isFloat())
      out.floats.push_back((float)r);
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
        *result, ctx.scalar(static_cast<float>(ctx.node.input_size()))});
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Resolves auto_pad to explicit [top, left, bottom, right] pads.
FailureOr<SmallVector<int64_t>> spatialPads(NodeContext &ctx,
                                            RankedTensorType inputType,
                                            ArrayRef<int64_t> kernel,
                                            ArrayRef<int64_t> strides,
                                            ArrayRef<int64_t> dilations) {
  std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    SmallVector<int64_t> pads =
        ctx.intsAttr("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
    if (pads.size() != 4) {
      (void)ctx.fail("only 2-D pads are supported, got " + Twine(pads.size()) +
                     " values");
      return failure();
    }
    return pads;
  }
  if (autoPad == "VALID")
    return SmallVector<int64_t>{0, 0, 0, 0};
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    (void)ctx.fail("auto_pad '" + autoPad + "' is not supported");
    return failure();
  }
  SmallVector<int64_t> pads(4);
  for (int i = 0; i < 2; ++i) {
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
    pads[i + 2] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

LogicalResult importConv(NodeContext &ctx) {
  FailureOr<RankedTensorType> wType = ctx.inputType(1);
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w) || failed(wType))
    return failure();
  if (wType->getRank() != 4)
    return ctx.fail("only 2-D convolutions are supported (weight rank " +
                    Twine(wType->getRank()) + ")");
  SmallVector<int64_t> strides =
      ctx.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      ctx.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> kernel{wType->getDimSize(2), wType->getDimSize(3)};
  FailureOr<SmallVector<int64_t>> pads = spatialPads(
      ctx, cast<RankedTensorType>(x->getType()), kernel, strides, dilations);
  if (failed(pads))
    return failure();
  FailureOr<SmallVector<Value>> operands = inputsUpTo(ctx, 2, 3);
  if (failed(operands))
    return failure();
  return emit<nn::Conv2DOp>(ctx, *operands,
                            {i64Array(ctx, "strides", strides),
                             i64Array(ctx, "padding", *pads),
                             i64Array(ctx, "dilations", dilations),
                             i64Attr(ctx, "groups", ctx.intAttr("group", 1))});
}

LogicalResult importConvTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  if (ctx.attr("output_shape"))
    return ctx.fail("attribute 'output_shape' is not supported; give pads "
                    "and output_padding");
  if (ctx.stringAttr("auto_pad", "NOTSET") != "NOTSET")
    return ctx.fail("auto_pad is not supported for ConvTranspose");
  FailureOr<SmallVector<Value>> operands = inputsUpTo(ctx, 2, 3);
  if (failed(operands))
    return failure();
  return emit<nn::ConvTranspose2DOp>(
      ctx, *operands,
      {i64Array(ctx, "strides",
                ctx.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1})),
       i64Array(
           ctx, "padding",
           ctx.intsAttr("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0})),
       i64Array(
           ctx, "output_padding",
           ctx.intsAttr("output_padding").value_or(SmallVector<int64_t>{0, 0})),
       i64Array(ctx, "dilations",
                ctx.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1})),
       i64Attr(ctx, "groups", ctx.intAttr("group", 1))});
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

LogicalResult importMatMul(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  int64_t ra = cast<RankedTensorType>(a->getType()).getRank();
  int64_t rb = cast<RankedTensorType>(b->getType()).getRank();
  FailureOr<Value> y = failure();
  if (ra == 2 && rb == 2)
    y = ctx.create<nn::MatmulOp>(ValueRange{*a, *b});
  else if (ra == 3 && rb == 3)
    y = ctx.create<nn::BatchMatmulOp>(ValueRange{*a, *b});
  else
    return ctx.fail("MatMul of rank " + Twine(ra) + " by rank " + Twine(rb) +
                    " is not supported (2x2 and 3x3 are)");
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
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
  if (failed(ctx.requireOutputsUnused(1)))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::optional<SmallVector<int64_t>> kernel = ctx.intsAttr("kernel_shape");
  if (!kernel || kernel->size() != 2)
    return ctx.fail("needs a 2-D 'kernel_shape'");
  if (ctx.intAttr("storage_order", 0) != 0)
    return ctx.fail("storage_order = 1 is not supported");
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
  // All constant: fold (shape vectors built from pieces).
  bool allConstant = true;
  for (int i = 0; i < ctx.node.input_size(); ++i)
    allConstant &= ctx.constant(i) != nullptr;
  if (allConstant && ctx.constant(0)->shape.size() == 1) {
    HostTensor out = *ctx.constant(0);
    for (int i = 1; i < ctx.node.input_size(); ++i) {
      const HostTensor *t = ctx.constant(i);
      if (t->isFloat() != out.isFloat())
        return ctx.fail("constant inputs of different types");
      out.floats.insert(out.floats.end(), t->floats.begin(), t->floats.end());
      out.ints.insert(out.ints.end(), t->ints.begin(), t->ints.end());
      out.shape[0] += t->shape[0];
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

LogicalResult importReshape(NodeContext &ctx) {
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
  FailureOr<SmallVector<int64_t>> target =
      reshapeTarget(ctx, cast<RankedTensorType>(x->getType()),
                    (*shapeTensor)->ints, allowZero);
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
  FailureOr<SmallVector<int64_t>> ends = constantInts(2, "ends");
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
    SliceAxis s = normalizeSliceAxis((*starts)[k], (*ends)[k], steps[k], dim);
    offsets[*d] = s.offset;
    sizes[*d] = s.size;
    strides[*d] = s.step;
  }
  if (const HostTensor *data = ctx.constant(0)) {
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
  return emit<nn::SliceOp>(ctx, *x,
                           {i64Array(ctx, "offsets", offsets),
                            i64Array(ctx, "sizes", sizes),
                            i64Array(ctx, "steps", strides)});
}

LogicalResult importTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> p = ctx.intsAttr("perm"))
    perm = *p;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  return emit<nn::TransposeOp>(ctx, *x, {i64Array(ctx, "perm", perm)});
}

LogicalResult importPad(NodeContext &ctx) {
  std::string mode = ctx.stringAttr("mode", "constant");
  if (mode != "constant")
    return ctx.fail("mode '" + mode + "' is not supported (constant is)");
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
      {i64Array(ctx, "pads", (*pads)->ints), f64Attr(ctx, "value", value)});
}

LogicalResult importIdentity(NodeContext &ctx) {
  // Dropout in inference is the identity; its mask output is not.
  if (ctx.node.op_type() == "Dropout") {
    if (failed(ctx.requireOutputsUnused(1)))
      return failure();
    if (const HostTensor *training = ctx.constant(2)) {
      if (training->numElements() != 1)
        return ctx.fail("input 'training_mode' must hold one value, got " +
                        Twine(training->numElements()));
      if (training->at(0) != 0)
        return ctx.fail("training_mode = true is not supported");
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
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) {
    if (type->isDynamicDim(d))
      return ctx.fail("Shape of a dynamic dimension cannot be folded");
    dims.push_back(type->getDimSize(d));
  }
  ctx.setOutputConstant(0, HostTensor::ofInts({(int64_t)dims.size()}, dims));
  return success();
}

LogicalResult importGather(NodeContext &ctx) {
  const HostTensor *data = ctx.constant(0), *indices = ctx.constant(1);
  if (!data || !indices)
    return ctx.fail("only Gather on import-time constants (shape arithmetic) "
                    "is supported");
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
  for (int64_t &s : shape)
    if (ShapedType::isDynamic(s))
      s = -1;
  if (llvm::count(shape, -1) > 1)
    return ctx.fail("more than one dynamic dimension");
  return emitReshape(ctx, *x, shape);
}

LogicalResult importCast(NodeContext &ctx) {
  int64_t to = ctx.intAttr("to", onnx::TensorProto::FLOAT);
  if (const HostTensor *t = ctx.constant(0)) {
    HostTensor out;
    out.shape = t->shape;
    bool toFloat =
        to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE;
    out.dtype = toFloat ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64;
    for (int64_t i = 0; i < t->numElements(); ++i) {
      if (toFloat)
        out.floats.push_back((float)t->at(i));
      else
        out.ints.push_back((int64_t)t->at(i));
    }
    ctx.setOutputConstant(0, std::move(out));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (to != onnx::TensorProto::FLOAT ||
      !cast<RankedTensorType>(x->getType()).getElementType().isF32())
    return ctx.fail("only casts of constants, or f32 to f32, are supported");
  ctx.setOutput(0, *x);
  return success();
}

} // namespace

ArrayRef<OpSupport> onnximport::supportedOps() {
  static const OpSupport table[] = {
      {"Abs", unary<nn::AbsOp>, "nn.abs", "floats"},
      {"Add", binary<nn::AddOp>, "nn.add",
       "numpy broadcasting; constants fold"},
      {"AveragePool", importPool<nn::AvgPool2DOp>, "nn.avg_pool2d",
       "2-D; pads, auto_pad, ceil_mode, count_include_pad"},
      {"BatchNormalization", importBatchNormalization, "nn.batch_norm",
       "inference form (training_mode = 0), spatial"},
      {"Cast", importCast, "folded / identity",
       "constants of any type; f32 to f32"},
      {"Ceil", unary<nn::CeilOp>, "nn.ceil", ""},
      {"Clip", importClip, "nn.clip", "min/max must be constants"},
      {"Concat", importConcat, "nn.concat", "1-D constants fold"},
      {"Constant", importConstant, "import-time constant",
       "value, value_float(s), value_int(s)"},
      {"Conv", importConv, "nn.conv2d",
       "2-D; strides, pads, auto_pad, dilations, group, bias"},
      {"ConvTranspose", importConvTranspose, "nn.conv_transpose2d",
       "2-D; pads, output_padding, strides, dilations, group (no "
       "output_shape)"},
      {"Cos", unary<nn::CosOp>, "nn.cos", ""},
      {"Div", binary<nn::DivOp>, "nn.div",
       "numpy broadcasting; constants fold"},
      {"Dropout", importIdentity, "identity", "inference only; no mask output"},
      {"Elu", importElu, "nn.elu", "alpha"},
      {"Erf", unary<nn::ErfOp>, "nn.erf", ""},
      {"Exp", unary<nn::ExpOp>, "nn.exp", ""},
      {"Flatten", importFlatten, "nn.flatten / nn.reshape", "any axis"},
      {"Floor", unary<nn::FloorOp>, "nn.floor", ""},
      {"Gather", importGather, "folded",
       "import-time constants only (shape arithmetic)"},
      {"Gemm", importGemm, "nn.linear (+ nn.transpose, nn.mul, nn.add)",
       "alpha, beta, transA, transB, broadcast C"},
      {"GlobalAveragePool", importGlobalAveragePool, "nn.global_avg_pool2d",
       "4-D"},
      {"HardSigmoid", importHardSigmoid, "nn.hard_sigmoid", "alpha, beta"},
      {"HardSwish", unary<nn::HardSwishOp>, "nn.hard_swish", ""},
      {"Identity", importIdentity, "identity", ""},
      {"LeakyRelu", importLeakyRelu, "nn.leaky_relu", "alpha"},
      {"Log", unary<nn::LogOp>, "nn.log", ""},
      {"LogSoftmax", importSoftmax<nn::LogSoftmaxOp>, "nn.log_softmax",
       "any axis from opset 13; the last axis before"},
      {"MatMul", importMatMul, "nn.matmul / nn.batch_matmul",
       "2-D x 2-D, 3-D x 3-D"},
      {"Max", variadic<nn::MaxOp>, "nn.max", "any number of inputs, broadcasting"},
      {"Mean", importMean, "nn.add + nn.div", "any number of inputs, broadcasting"},
      {"MaxPool", importPool<nn::MaxPool2DOp>, "nn.max_pool2d",
       "2-D; pads, auto_pad, dilations, ceil_mode; no Indices output"},
      {"Min", variadic<nn::MinOp>, "nn.min", "any number of inputs, broadcasting"},
      {"Mul", binary<nn::MulOp>, "nn.mul",
       "numpy broadcasting; constants fold"},
      {"Neg", unary<nn::NegOp>, "nn.neg", "floats"},
      {"PRelu", importPRelu, "nn.max + nn.min + nn.mul + nn.add", "slope broadcast (numpy rules)"},
      {"Pad", importPad, "nn.pad", "constant mode; pads and value constant"},
      {"Pow", binary<nn::PowOp>, "nn.pow", "floats; numpy broadcasting"},
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
      {"Round", unary<nn::RoundOp>, "nn.round", "halves to even"},
      {"Selu", importSelu, "nn.selu", "alpha, gamma"},
      {"Shape", importShape, "folded", "static dimensions; start/end"},
      {"Sigmoid", unary<nn::SigmoidOp>, "nn.sigmoid", ""},
      {"Sin", unary<nn::SinOp>, "nn.sin", ""},
      {"Slice", importSlice, "nn.slice", "starts, ends, axes and steps constant; steps of either sign; constant data folds"},
      {"Softmax", importSoftmax<nn::SoftmaxOp>, "nn.softmax",
       "any axis from opset 13; the last axis before"},
      {"Softplus", unary<nn::SoftplusOp>, "nn.softplus", ""},
      {"Softsign", unary<nn::SoftsignOp>, "nn.softsign", ""},
      {"Sqrt", unary<nn::SqrtOp>, "nn.sqrt", ""},
      {"Squeeze", importSqueezeLike, "nn.reshape", "constants fold"},
      {"Sub", binary<nn::SubOp>, "nn.sub",
       "numpy broadcasting; constants fold"},
      {"Sum", variadic<nn::AddOp>, "nn.add", "any number of inputs, broadcasting"},
      {"Tanh", unary<nn::TanhOp>, "nn.tanh", ""},
      {"Transpose", importTranspose, "nn.transpose", "perm (default: reverse)"},
      {"Unsqueeze", importSqueezeLike, "nn.reshape", "constants fold"},
  };
  return table;
}
