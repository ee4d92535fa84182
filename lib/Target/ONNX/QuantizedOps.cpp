//===- QuantizedOps.cpp - ONNX's quantization ops onto nn ops -------------===//
//
// QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul,
// ConvInteger and MatMulInteger: models quantized elsewhere (onnxruntime's
// quantizer, PyTorch's exporter) come in as they are.
//
// Quantized values are i8 tensors. A UINT8 tensor is held as i8 with 128
// subtracted (and its zero point likewise): the map is exact, keeps order
// (so max pooling and data movement work on it unchanged), and lets one
// signed int8 kernel serve both types. Such values never leave the graph:
// the importer refuses a UINT8 graph input or output and any other op
// reading one (GraphImporter::importNode).
//
// QLinearConv and QLinearMatMul with a constant weight whose zero point
// leaves it in int8 range (every symmetric int8 weight, and a UINT8 one
// with zero point 128) run as an integer convolution or matmul into i32,
// one nn.dequantize whose zero point removes the input's zero point
// (times each channel's weight sum) and adds the bias, and nn.quantize:
// the form dlas-mixed-precision{policy=int8} produces, with the same
// kernels. Other cases run as ONNX defines them, in f32: the inputs
// dequantized (constants at import time), the float op, the result
// quantized.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <functional>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::onnximport;

namespace {

/// Scales and zero points of one quantized tensor. UINT8 zero points are
/// held less 128, as UINT8 values are.
struct Quantization {
  SmallVector<float> scales;
  SmallVector<int64_t> zeroPoints;
  /// INT8, UINT8 or INT32: the type of the quantized tensor.
  int32_t dtype = onnx::TensorProto::UINT8;

  bool perTensor() const { return scales.size() == 1; }
  float scale(int64_t c) const { return scales[perTensor() ? 0 : c]; }
  int64_t zeroPoint(int64_t c) const {
    return zeroPoints[perTensor() ? 0 : c];
  }
};

constexpr int64_t kU8Offset = 128;

/// The zero point 0 of `dtype` as DLAS holds it (UINT8 less 128).
int64_t heldZero(int32_t dtype) {
  return dtype == onnx::TensorProto::UINT8 ? -kU8Offset : 0;
}

bool isQuantizedType(int32_t dtype) {
  return dtype == onnx::TensorProto::INT8 ||
         dtype == onnx::TensorProto::UINT8 ||
         dtype == onnx::TensorProto::INT32;
}

/// The quantized elements of constant `t` (of `dtype`) as the i8 or i32
/// values DLAS holds them as.
std::vector<int64_t> heldValues(const HostTensor &t) {
  std::vector<int64_t> values(t.ints.begin(), t.ints.end());
  if (t.dtype == onnx::TensorProto::UINT8)
    for (int64_t &v : values)
      v -= kU8Offset;
  return values;
}

/// The scale (input `scaleIndex`) and zero point (input `zeroIndex`,
/// optional: then 0 of `defaultType`) of a quantized tensor; both must be
/// import-time constants of rank 0 or 1 and the same size.
FailureOr<Quantization> readQuantization(NodeContext &ctx, unsigned scaleIndex,
                                         unsigned zeroIndex,
                                         int32_t defaultType) {
  const onnx::NodeProto &node = ctx.node;
  FailureOr<const HostTensor *> scale =
      ctx.requireConstant(scaleIndex, node.input(scaleIndex));
  if (failed(scale))
    return failure();
  const HostTensor &s = **scale;
  if (s.dtype != onnx::TensorProto::FLOAT)
    return ctx.fail("scale '" + node.input(scaleIndex) + "' is " +
                    onnxTypeName(s.dtype) + "; only FLOAT scales are supported");
  if (s.shape.size() > 1 || s.numElements() == 0)
    return ctx.fail("scale '" + node.input(scaleIndex) +
                    "' must be a scalar or a non-empty 1-D tensor");
  Quantization q;
  for (double v : s.floats) {
    if (!(v > 0) || !std::isfinite(v))
      return ctx.fail("scale '" + node.input(scaleIndex) + "' holds " +
                      std::to_string(v) + "; scales must be positive and finite");
    q.scales.push_back(static_cast<float>(v));
  }
  q.dtype = defaultType;
  if (!ctx.hasInput(zeroIndex)) {
    q.zeroPoints.assign(q.scales.size(), heldZero(q.dtype));
    return q;
  }
  FailureOr<const HostTensor *> zero =
      ctx.requireConstant(zeroIndex, node.input(zeroIndex));
  if (failed(zero))
    return failure();
  const HostTensor &z = **zero;
  if (!isQuantizedType(z.dtype))
    return ctx.fail("zero point '" + node.input(zeroIndex) + "' is " +
                    onnxTypeName(z.dtype) +
                    "; INT8, UINT8 and INT32 are supported");
  if (z.numElements() != static_cast<int64_t>(q.scales.size()))
    return ctx.fail("zero point '" + node.input(zeroIndex) + "' has " +
                    Twine(z.numElements()) + " elements and its scale " +
                    Twine(q.scales.size()));
  q.dtype = z.dtype;
  llvm::append_range(q.zeroPoints, heldValues(z));
  if (q.dtype == onnx::TensorProto::INT32 &&
      llvm::any_of(q.zeroPoints, [](int64_t v) { return v != 0; }))
    return ctx.fail("an INT32 zero point must be 0 ('" + node.input(zeroIndex) +
                    "')");
  return q;
}

/// The channel count `q` needs along `axis` of `type` (1 per tensor);
/// fails unless per-channel parameters match a static dimension.
LogicalResult checkAxis(NodeContext &ctx, const Quantization &q,
                        RankedTensorType type, int64_t axis) {
  if (q.perTensor())
    return success();
  if (axis < 0 || axis >= type.getRank())
    return ctx.fail("axis " + Twine(axis) + " is out of range for rank " +
                    Twine(type.getRank()));
  if (type.getDimSize(axis) != static_cast<int64_t>(q.scales.size()))
    return ctx.fail("per-axis scale has " + Twine(q.scales.size()) +
                    " elements but dimension " + Twine(axis) + " has size " +
                    (type.isDynamicDim(axis)
                         ? std::string("?")
                         : std::to_string(type.getDimSize(axis))));
  return success();
}

/// The `axis` attribute normalized against `rank` (default 1). ONNX ignores
/// it for per-tensor parameters (a rank-1 input keeps the default axis 1).
FailureOr<int64_t> axisAttr(NodeContext &ctx, int64_t rank,
                            const Quantization &q) {
  int64_t axis = ctx.intAttr("axis", 1);
  if (q.perTensor())
    return int64_t(1);
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return ctx.fail("axis " + Twine(axis) + " is out of range for rank " +
                    Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

LogicalResult refuseBlocks(NodeContext &ctx) {
  if (ctx.intAttr("block_size", 0) != 0)
    return ctx.fail("blocked quantization (block_size) is not supported");
  return success();
}

/// An i8 or i32 constant tensor of `shape` holding `values`.
Value integerConstant(NodeContext &ctx, ArrayRef<int64_t> shape,
                      ArrayRef<int64_t> values, unsigned width,
                      StringRef name) {
  auto type = RankedTensorType::get(shape, ctx.b.getIntegerType(width));
  std::vector<char> bytes(values.size() * width / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    if (width == 8) {
      bytes[i] = static_cast<char>(static_cast<int8_t>(values[i]));
      continue;
    }
    int32_t word = static_cast<int32_t>(values[i]);
    std::memcpy(&bytes[i * 4], &word, 4);
  }
  return createConstant(ctx.b, ctx.loc, type, bytes, name);
}

/// The ONNX type input `i` stands for: a constant's own, INT32 for i32,
/// UINT8 for an i8 value held offset, INT8 for other i8; nullopt when the
/// input is missing.
std::optional<int32_t> quantizedTypeOf(NodeContext &ctx, unsigned i) {
  if (const HostTensor *t = ctx.constant(i))
    return t->dtype;
  FailureOr<RankedTensorType> type = ctx.inputType(i);
  if (failed(type))
    return std::nullopt;
  Type element = type->getElementType();
  if (element.isInteger(32))
    return onnx::TensorProto::INT32;
  if (element.isInteger(8))
    return ctx.isOffsetU8(i) ? onnx::TensorProto::UINT8
                             : onnx::TensorProto::INT8;
  return onnxTypeOf(element);
}

/// Fails unless input `i` is of `dtype`, the type its zero point says.
LogicalResult checkQuantizedType(NodeContext &ctx, unsigned i, int32_t dtype) {
  std::optional<int32_t> actual = quantizedTypeOf(ctx, i);
  if (!actual)
    return failure();
  if (*actual != dtype)
    return ctx.fail("input '" + ctx.node.input(i) + "' is " +
                    onnxTypeName(*actual) + " but its zero point is " +
                    onnxTypeName(dtype));
  return success();
}

/// Input `i`, a quantized tensor of `dtype`, as the i8 (or i32) value
/// DLAS holds it as.
FailureOr<Value> quantizedInput(NodeContext &ctx, unsigned i, int32_t dtype) {
  if (failed(checkQuantizedType(ctx, i, dtype)))
    return failure();
  if (const HostTensor *t = ctx.constant(i))
    return integerConstant(ctx, t->shape, heldValues(*t),
                           dtype == onnx::TensorProto::INT32 ? 32 : 8,
                           ctx.node.input(i) + "_q");
  return ctx.input(i);
}

Value dequantizeOp(NodeContext &ctx, Value q, ArrayRef<float> scales,
                   ArrayRef<int64_t> zeroPoints, int64_t axis) {
  auto type = cast<RankedTensorType>(q.getType());
  return nn::DequantizeOp::create(
      ctx.b, ctx.loc, type.clone(ctx.b.getF32Type()), q,
      ctx.b.getDenseF32ArrayAttr(scales), ctx.b.getDenseI64ArrayAttr(zeroPoints),
      ctx.b.getI64IntegerAttr(axis));
}

Value quantizeOp(NodeContext &ctx, Value x, const Quantization &q,
                 int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  return nn::QuantizeOp::create(
      ctx.b, ctx.loc, type.clone(ctx.b.getI8Type()), x,
      ctx.b.getDenseF32ArrayAttr(q.scales), ctx.b.getDenseI64ArrayAttr(q.zeroPoints),
      ctx.b.getI64IntegerAttr(axis));
}

/// Sets output 0 to `y`, quantized as `q` describes (a UINT8 output is
/// held offset).
void setQuantizedOutput(NodeContext &ctx, Value y, const Quantization &q) {
  ctx.setOutput(0, y);
  if (q.dtype == onnx::TensorProto::UINT8)
    ctx.markOutputOffsetU8(0);
}

/// The elements of constant `t` (quantized as `q` along `axis`) in f32:
/// `float(x - zero_point) * scale`, as ONNX's DequantizeLinear.
HostTensor dequantizedHost(const HostTensor &t, const Quantization &q,
                           int64_t axis) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < t.shape.size(); ++d)
    inner *= t.shape[d];
  int64_t channels = q.perTensor() ? 1 : t.shape[axis];
  std::vector<int64_t> held = heldValues(t);
  std::vector<double> values(held.size());
  for (size_t i = 0; i < held.size(); ++i) {
    int64_t c = q.perTensor() ? 0 : (i / inner) % channels;
    values[i] = static_cast<float>(held[i] - q.zeroPoint(c)) * q.scale(c);
  }
  return HostTensor::ofFloats(t.shape, std::move(values));
}

/// Constant input `i` dequantized as `q` describes along `axis`, at
/// import time.
FailureOr<HostTensor> dequantizedConstant(NodeContext &ctx, unsigned i,
                                          const Quantization &q,
                                          int64_t axis) {
  const HostTensor &t = *ctx.constant(i);
  if (failed(checkQuantizedType(ctx, i, q.dtype)) ||
      failed(checkAxis(ctx, q, *ctx.inputType(i), axis)))
    return failure();
  return dequantizedHost(t, q, axis);
}

/// Input `i` dequantized as `q` describes along `axis`: folded at import
/// time when it is a constant.
FailureOr<Value> dequantizedInput(NodeContext &ctx, unsigned i,
                                  const Quantization &q, int64_t axis) {
  if (ctx.constant(i)) {
    FailureOr<HostTensor> f = dequantizedConstant(ctx, i, q, axis);
    if (failed(f))
      return failure();
    std::vector<float> data(f->floats.begin(), f->floats.end());
    return createF32Constant(ctx.b, ctx.loc, f->shape, data,
                             ctx.node.input(i) + "_dequantized");
  }
  FailureOr<Value> v = quantizedInput(ctx, i, q.dtype);
  if (failed(v) ||
      failed(checkAxis(ctx, q, cast<RankedTensorType>(v->getType()), axis)))
    return failure();
  return dequantizeOp(ctx, *v, q.scales, q.zeroPoints, axis);
}

} // namespace

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear
//===----------------------------------------------------------------------===//

LogicalResult onnximport::importQuantizeLinear(NodeContext &ctx) {
  if (failed(refuseBlocks(ctx)))
    return failure();
  int32_t outputType = ctx.intAttr("output_dtype", 0);
  FailureOr<Quantization> q =
      readQuantization(ctx, 1, 2,
                       outputType ? outputType : onnx::TensorProto::UINT8);
  if (failed(q))
    return failure();
  if (q->dtype == onnx::TensorProto::INT32)
    return ctx.fail("quantizing to INT32 is not supported (INT8 and UINT8 "
                    "are)");
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (!type.getElementType().isF32())
    return ctx.fail("input '" + ctx.node.input(0) + "' is " +
                    onnxTypeName(onnxTypeOf(type.getElementType())) +
                    "; only FLOAT inputs are quantized");
  FailureOr<int64_t> axis = axisAttr(ctx, type.getRank(), *q);
  if (failed(axis) || failed(checkAxis(ctx, *q, type, *axis)))
    return failure();
  setQuantizedOutput(ctx, quantizeOp(ctx, *x, *q, q->perTensor() ? 1 : *axis),
                     *q);
  return success();
}

LogicalResult onnximport::importDequantizeLinear(NodeContext &ctx) {
  if (failed(refuseBlocks(ctx)))
    return failure();
  // The zero point's type, or without one the input's.
  FailureOr<Quantization> q = readQuantization(
      ctx, 1, 2, quantizedTypeOf(ctx, 0).value_or(onnx::TensorProto::UINT8));
  if (failed(q))
    return failure();
  FailureOr<RankedTensorType> type = ctx.inputType(0);
  if (failed(type))
    return failure();
  FailureOr<int64_t> axis = axisAttr(ctx, type->getRank(), *q);
  if (failed(axis))
    return failure();
  if (ctx.constant(0)) {
    // A weight: dequantized once, here.
    FailureOr<HostTensor> f = dequantizedConstant(ctx, 0, *q, *axis);
    if (failed(f))
      return failure();
    ctx.setOutputConstant(0, std::move(*f));
    return success();
  }
  FailureOr<Value> y =
      dequantizedInput(ctx, 0, *q, q->perTensor() ? 1 : *axis);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// Integer convolution and matmul
//===----------------------------------------------------------------------===//

namespace {

/// A constant weight less its zero point (per tensor, or per element of
/// dimension `axis`), when every element fits in i8: the form the integer
/// kernels take.
std::optional<std::vector<int64_t>>
centeredWeight(const HostTensor &w, const Quantization &q, int64_t axis) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < w.shape.size(); ++d)
    inner *= w.shape[d];
  int64_t channels = w.shape.empty() ? 1 : w.shape[axis];
  std::vector<int64_t> values = heldValues(w);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t c = q.perTensor() ? 0 : (i / inner) % channels;
    values[i] -= q.zeroPoint(c);
    if (values[i] < -128 || values[i] > 127)
      return std::nullopt;
  }
  return values;
}

/// Sum of `values` per element of dimension `axis` of `shape`.
std::vector<int64_t> sumsAlong(ArrayRef<int64_t> values,
                               ArrayRef<int64_t> shape, int64_t axis) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  std::vector<int64_t> sums(shape[axis], 0);
  for (size_t i = 0; i < values.size(); ++i)
    sums[(i / inner) % shape[axis]] += values[i];
  return sums;
}

bool fitsI32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() &&
         v <= std::numeric_limits<int32_t>::max();
}

/// `x` padded by `pads` (ONNX order, the two spatial dims of NCHW) with
/// the value `zeroPoint` stands for 0 in.
FailureOr<Value> padWithZeroPoint(NodeContext &ctx, Value x,
                                  ArrayRef<int64_t> pads, int64_t zeroPoint) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int d = 0; d < 2; ++d)
    if (!ShapedType::isDynamic(shape[2 + d]))
      shape[2 + d] += pads[d] + pads[d + 2];
  return nn::PadOp::create(
             ctx.b, ctx.loc, type.clone(shape), x,
             ctx.b.getDenseI64ArrayAttr(
                 {0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]}),
             ctx.b.getF64FloatAttr(static_cast<double>(zeroPoint)),
             nn::PadModeAttr::get(ctx.b.getContext(), nn::PadMode::Constant))
      .getResult();
}

/// The integer convolution into i32 of a quantized input `x` whose zero
/// point is `xZero` and a centred constant weight `w` (of shape `wShape`):
/// sum(x * w), the padding holding the zero point so that it drops out
/// with the caller's xZero * weight-sum term.
FailureOr<Value> integerConv(NodeContext &ctx, Value x, int64_t xZero,
                             ArrayRef<int64_t> w, ArrayRef<int64_t> wShape) {
  Value filter = integerConstant(ctx, wShape, w, 8, ctx.node.output(0) + "_w");
  FailureOr<ConvAttributes> attrs =
      convAttributes(ctx, cast<RankedTensorType>(x.getType()), wShape);
  if (failed(attrs))
    return failure();
  if (xZero != 0 && llvm::any_of(attrs->pads, [](int64_t p) { return p; })) {
    FailureOr<Value> padded = padWithZeroPoint(ctx, x, attrs->pads, xZero);
    if (failed(padded))
      return failure();
    x = *padded;
    attrs->pads.assign(4, 0);
  }
  return createConv(ctx, x, filter, Value(), *attrs);
}

/// ONNX MatMul's import (any rank of `a`, numpy rules) of `a` and `b`,
/// with `then` applied to the product: the node's output.
LogicalResult matmulThen(NodeContext &ctx, Value a, Value b,
                         std::function<FailureOr<Value>(Value)> then) {
  ctx.inputOverrides[0] = a;
  ctx.inputOverrides[1] = b;
  ctx.outputTransform = std::move(then);
  LogicalResult result = importMatMulNode(ctx);
  ctx.inputOverrides.clear();
  ctx.outputTransform = nullptr;
  return result;
}

/// The zero points that requantize `acc` (i32): per channel, the input's
/// zero point times the weight sum, less the bias; nullopt when one
/// leaves i32 (the f32 path then).
std::optional<SmallVector<int64_t>>
accumulatorZeroPoints(int64_t xZero, ArrayRef<int64_t> weightSums,
                      ArrayRef<int64_t> bias) {
  SmallVector<int64_t> zeroPoints;
  for (size_t c = 0; c < weightSums.size(); ++c) {
    zeroPoints.push_back(xZero * weightSums[c] - (bias.empty() ? 0 : bias[c]));
    if (!fitsI32(zeroPoints.back()))
      return std::nullopt;
  }
  return zeroPoints;
}

/// `acc` (i32) dequantized along `axis` with scale `xScale * w.scale(c)`
/// and `zeroPoints`, then quantized as `y`.
Value requantize(NodeContext &ctx, Value acc, float xScale,
                 const Quantization &w, ArrayRef<int64_t> zeroPoints,
                 const Quantization &y, int64_t axis) {
  SmallVector<float> scales;
  for (size_t c = 0; c < zeroPoints.size(); ++c)
    scales.push_back(xScale * w.scale(c));
  Value f = dequantizeOp(ctx, acc, scales, zeroPoints, axis);
  return quantizeOp(ctx, f, y, 1);
}

/// Constant i32 bias of `count` elements (input `i`), or empty when absent.
FailureOr<std::vector<int64_t>> constantBias(NodeContext &ctx, unsigned i,
                                             int64_t count, bool &isConstant) {
  isConstant = true;
  if (!ctx.hasInput(i))
    return std::vector<int64_t>();
  const HostTensor *b = ctx.constant(i);
  if (!b) {
    isConstant = false;
    return std::vector<int64_t>();
  }
  if (b->dtype != onnx::TensorProto::INT32 || b->numElements() != count)
    return ctx.fail("bias '" + ctx.node.input(i) + "' must be INT32 with " +
                    Twine(count) + " elements");
  return std::vector<int64_t>(b->ints.begin(), b->ints.end());
}

/// QLinearConv's and QLinearMatMul's three quantizations: of the input
/// (inputs 1, 2), the weight (4, 5) and the output (6, 7).
struct QLinearParams {
  Quantization x, w, y;
};
FailureOr<QLinearParams> readQLinearParams(NodeContext &ctx) {
  FailureOr<Quantization> x =
      readQuantization(ctx, 1, 2, onnx::TensorProto::UINT8);
  FailureOr<Quantization> w =
      readQuantization(ctx, 4, 5, onnx::TensorProto::UINT8);
  FailureOr<Quantization> y =
      readQuantization(ctx, 6, 7, onnx::TensorProto::UINT8);
  if (failed(x) || failed(w) || failed(y))
    return failure();
  return QLinearParams{*x, *w, *y};
}

} // namespace

LogicalResult onnximport::importQLinearConv(NodeContext &ctx) {
  FailureOr<QLinearParams> params = readQLinearParams(ctx);
  if (failed(params))
    return failure();
  Quantization *xq = &params->x, *wq = &params->w, *yq = &params->y;
  if (!xq->perTensor() || !yq->perTensor())
    return ctx.fail("the input's and the output's scale and zero point must "
                    "be per tensor");
  if (yq->dtype == onnx::TensorProto::INT32 ||
      xq->dtype == onnx::TensorProto::INT32 ||
      wq->dtype == onnx::TensorProto::INT32)
    return ctx.fail("INT32 inputs and outputs are not supported (INT8 and "
                    "UINT8 are)");
  FailureOr<Value> x = quantizedInput(ctx, 0, xq->dtype);
  FailureOr<RankedTensorType> wType = ctx.inputType(3);
  if (failed(x) || failed(wType))
    return failure();
  if (wType->getRank() != 4)
    return ctx.fail("only 2-D convolutions are supported (weight rank " +
                    Twine(wType->getRank()) + ")");
  if (!wq->perTensor() &&
      static_cast<int64_t>(wq->scales.size()) != wType->getDimSize(0))
    return ctx.fail("the weight's per-channel scale has " +
                    Twine(wq->scales.size()) + " elements for " +
                    Twine(wType->getDimSize(0)) + " output channels");
  int64_t channels = wType->getDimSize(0);
  bool biasConstant;
  FailureOr<std::vector<int64_t>> bias =
      constantBias(ctx, 8, channels, biasConstant);
  if (failed(bias))
    return failure();
  const HostTensor *w = ctx.constant(3);
  std::optional<std::vector<int64_t>> centred;
  std::optional<SmallVector<int64_t>> zeroPoints;
  if (w && biasConstant && (centred = centeredWeight(*w, *wq, 0)))
    zeroPoints = accumulatorZeroPoints(
        xq->zeroPoint(0), sumsAlong(*centred, w->shape, 0), *bias);
  if (zeroPoints) {
    FailureOr<Value> acc =
        integerConv(ctx, *x, xq->zeroPoint(0), *centred, w->shape);
    if (failed(acc))
      return failure();
    setQuantizedOutput(
        ctx, requantize(ctx, *acc, xq->scale(0), *wq, *zeroPoints, *yq, 1),
        *yq);
    return success();
  }
  // As ONNX defines it, in f32.
  FailureOr<Value> xf = dequantizedInput(ctx, 0, *xq, 1);
  FailureOr<Value> wf = dequantizedInput(ctx, 3, *wq, 0);
  if (failed(xf) || failed(wf))
    return failure();
  Value biasF;
  if (ctx.hasInput(8)) {
    SmallVector<float> scales;
    for (int64_t c = 0; c < channels; ++c)
      scales.push_back(xq->scale(0) * wq->scale(c));
    Quantization bq{scales, SmallVector<int64_t>(channels, 0),
                    onnx::TensorProto::INT32};
    FailureOr<Value> b = dequantizedInput(ctx, 8, bq, 0);
    if (failed(b))
      return failure();
    biasF = *b;
  }
  FailureOr<ConvAttributes> attrs = convAttributes(
      ctx, cast<RankedTensorType>(xf->getType()), wType->getShape());
  if (failed(attrs))
    return failure();
  FailureOr<Value> yf = createConv(ctx, *xf, *wf, biasF, *attrs);
  if (failed(yf))
    return failure();
  setQuantizedOutput(ctx, quantizeOp(ctx, *yf, *yq, 1), *yq);
  return success();
}

LogicalResult onnximport::importQLinearMatMul(NodeContext &ctx) {
  FailureOr<QLinearParams> params = readQLinearParams(ctx);
  if (failed(params))
    return failure();
  Quantization *aq = &params->x, *bq = &params->w, *yq = &params->y;
  if (!yq->perTensor())
    return ctx.fail("the output's scale and zero point must be per tensor");
  if (llvm::is_contained({aq->dtype, bq->dtype, yq->dtype},
                         (int32_t)onnx::TensorProto::INT32))
    return ctx.fail("INT32 inputs and outputs are not supported (INT8 and "
                    "UINT8 are)");
  FailureOr<RankedTensorType> aType = ctx.inputType(0);
  FailureOr<RankedTensorType> bType = ctx.inputType(3);
  if (failed(aType) || failed(bType))
    return failure();
  if (aType->getRank() < 2 || bType->getRank() < 2)
    return ctx.fail("both operands must have rank 2 or more");
  // Per-row scales of a run along its rows, per-column ones of b along
  // its columns.
  int64_t aAxis = aType->getRank() - 2, bAxis = bType->getRank() - 1;
  const HostTensor *b = ctx.constant(3);
  if (!bq->perTensor() &&
      static_cast<int64_t>(bq->scales.size()) != bType->getDimSize(bAxis))
    return ctx.fail("the per-column scale of '" + ctx.node.input(3) +
                    "' has " + Twine(bq->scales.size()) + " elements for " +
                    Twine(bType->getDimSize(bAxis)) + " columns");
  std::optional<std::vector<int64_t>> centred;
  std::optional<SmallVector<int64_t>> zeroPoints;
  if (aq->perTensor() && b && bType->getRank() == 2 &&
      (centred = centeredWeight(*b, *bq, 1)))
    zeroPoints = accumulatorZeroPoints(aq->zeroPoint(0),
                                       sumsAlong(*centred, b->shape, 1), {});
  if (zeroPoints) {
    FailureOr<Value> a = quantizedInput(ctx, 0, aq->dtype);
    if (failed(a))
      return failure();
    Value rhs = integerConstant(ctx, b->shape, *centred, 8,
                                ctx.node.input(3) + "_q");
    int64_t axis = aType->getRank() - 1;
    if (failed(matmulThen(ctx, *a, rhs, [&](Value acc) -> FailureOr<Value> {
          return requantize(ctx, acc, aq->scale(0), *bq, *zeroPoints, *yq,
                            axis);
        })))
      return failure();
    if (yq->dtype == onnx::TensorProto::UINT8)
      ctx.markOutputOffsetU8(0);
    return success();
  }
  FailureOr<Value> af = dequantizedInput(ctx, 0, *aq, aAxis);
  FailureOr<Value> bf = dequantizedInput(ctx, 3, *bq, bAxis);
  if (failed(af) || failed(bf))
    return failure();
  if (failed(matmulThen(ctx, *af, *bf, [&](Value yf) -> FailureOr<Value> {
        return quantizeOp(ctx, yf, *yq, 1);
      })))
    return failure();
  if (yq->dtype == onnx::TensorProto::UINT8)
    ctx.markOutputOffsetU8(0);
  return success();
}

namespace {

/// The i32 result `acc - term[c]` along `axis` (a broadcast constant),
/// or `acc` when every term is 0.
FailureOr<Value> subtractPerChannel(NodeContext &ctx, Value acc,
                                    ArrayRef<int64_t> term, int64_t axis) {
  if (llvm::all_of(term, [](int64_t v) { return v == 0; }))
    return acc;
  if (!llvm::all_of(term, fitsI32))
    return ctx.fail("the zero point's correction leaves INT32");
  auto type = cast<RankedTensorType>(acc.getType());
  SmallVector<int64_t> shape(type.getRank(), 1);
  shape[axis] = term.size();
  Value c = integerConstant(ctx, shape, term, 32, ctx.node.output(0) + "_zp");
  return ctx.create<nn::SubOp>({acc, c});
}

/// ConvInteger and MatMulInteger: the weight (input 1) must be constant
/// and in int8 range once its zero point is taken away.
FailureOr<std::vector<int64_t>> centredIntegerWeight(NodeContext &ctx,
                                                     const Quantization &q,
                                                     int64_t axis) {
  FailureOr<const HostTensor *> w = ctx.requireConstant(1, "w");
  if (failed(w))
    return failure();
  if ((*w)->dtype != q.dtype)
    return ctx.fail("weight '" + ctx.node.input(1) + "' is " +
                    onnxTypeName((*w)->dtype) + " but its zero point is " +
                    onnxTypeName(q.dtype));
  std::optional<std::vector<int64_t>> centred = centeredWeight(**w, q, axis);
  if (!centred)
    return ctx.fail("weight '" + ctx.node.input(1) +
                    "' less its zero point leaves the INT8 range; DLAS's "
                    "integer kernels take int8 weights");
  return *centred;
}

/// The zero point of input `i` of an integer op (scalar; UINT8 without
/// one), with `valueType` the type of the value it belongs to.
FailureOr<Quantization> integerZeroPoint(NodeContext &ctx, unsigned zeroIndex,
                                         unsigned valueIndex,
                                         int64_t channels) {
  Quantization q;
  q.dtype = quantizedTypeOf(ctx, valueIndex).value_or(onnx::TensorProto::UINT8);
  if (!ctx.hasInput(zeroIndex)) {
    q.scales.assign(1, 1.0f);
    q.zeroPoints.assign(1, heldZero(q.dtype));
    return q;
  }
  FailureOr<const HostTensor *> z =
      ctx.requireConstant(zeroIndex, ctx.node.input(zeroIndex));
  if (failed(z))
    return failure();
  int64_t n = (*z)->numElements();
  if (n != 1 && n != channels)
    return ctx.fail("zero point '" + ctx.node.input(zeroIndex) + "' has " +
                    Twine(n) + " elements; 1 or " + Twine(channels) +
                    " are supported");
  if ((*z)->dtype != onnx::TensorProto::INT8 &&
      (*z)->dtype != onnx::TensorProto::UINT8)
    return ctx.fail("zero point '" + ctx.node.input(zeroIndex) + "' is " +
                    onnxTypeName((*z)->dtype) + "; INT8 and UINT8 are");
  q.dtype = (*z)->dtype;
  q.scales.assign(n, 1.0f);
  llvm::append_range(q.zeroPoints, heldValues(**z));
  return q;
}

} // namespace

LogicalResult onnximport::importConvInteger(NodeContext &ctx) {
  FailureOr<RankedTensorType> wType = ctx.inputType(1);
  if (failed(wType))
    return failure();
  if (wType->getRank() != 4)
    return ctx.fail("only 2-D convolutions are supported (weight rank " +
                    Twine(wType->getRank()) + ")");
  FailureOr<Quantization> xq = integerZeroPoint(ctx, 2, 0, 1);
  FailureOr<Quantization> wq =
      integerZeroPoint(ctx, 3, 1, wType->getDimSize(0));
  if (failed(xq) || failed(wq))
    return failure();
  if (!xq->perTensor())
    return ctx.fail("the input's zero point must be a scalar");
  FailureOr<Value> x = quantizedInput(ctx, 0, xq->dtype);
  FailureOr<std::vector<int64_t>> w = centredIntegerWeight(ctx, *wq, 0);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> acc =
      integerConv(ctx, *x, xq->zeroPoint(0), *w, wType->getShape());
  if (failed(acc))
    return failure();
  std::vector<int64_t> term = sumsAlong(*w, wType->getShape(), 0);
  for (int64_t &t : term)
    t *= xq->zeroPoint(0);
  FailureOr<Value> y = subtractPerChannel(ctx, *acc, term, 1);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult onnximport::importMatMulInteger(NodeContext &ctx) {
  FailureOr<RankedTensorType> aType = ctx.inputType(0);
  FailureOr<RankedTensorType> bType = ctx.inputType(1);
  if (failed(aType) || failed(bType))
    return failure();
  if (aType->getRank() < 2 || bType->getRank() != 2)
    return ctx.fail("a must have rank 2 or more and b rank 2 (a constant "
                    "weight)");
  FailureOr<Quantization> aq = integerZeroPoint(ctx, 2, 0, 1);
  FailureOr<Quantization> bq =
      integerZeroPoint(ctx, 3, 1, bType->getDimSize(1));
  if (failed(aq) || failed(bq))
    return failure();
  if (!aq->perTensor())
    return ctx.fail("a's zero point must be a scalar (per-row zero points "
                    "are not supported)");
  FailureOr<Value> a = quantizedInput(ctx, 0, aq->dtype);
  FailureOr<std::vector<int64_t>> b = centredIntegerWeight(ctx, *bq, 1);
  if (failed(a) || failed(b))
    return failure();
  std::vector<int64_t> term = sumsAlong(*b, bType->getShape(), 1);
  for (int64_t &t : term)
    t *= aq->zeroPoint(0);
  Value rhs =
      integerConstant(ctx, bType->getShape(), *b, 8, ctx.node.input(1) + "_q");
  int64_t axis = aType->getRank() - 1;
  if (failed(matmulThen(ctx, *a, rhs, [&](Value acc) {
        return subtractPerChannel(ctx, acc, term, axis);
      })))
    return failure();
  return success();
}
