//===- Int8Policy.cpp - dlas-mixed-precision's int8 rewrite ---------------===//
//
// Static post-training quantization of one layer at a time:
//
//   q   = nn.quantize x            (per tensor: the calibrated range)
//   acc = nn.conv2d q, w_q : i32   (per-channel symmetric weights, no bias)
//   y   = nn.dequantize acc        (scale s_x * s_w[c], zero point
//                                   zp_x * sum(w_q[c]) - bias[c] / scale)
//
// The zero point of the input is taken out of the accumulator by the
// per-channel constant zp_x * sum(w_q[c]), which holds where every window
// is whole: a padded convolution reads its border as zp_x (an explicit
// nn.pad), the value that stands for 0. The bias joins that constant in
// accumulator units, as ONNX QLinearConv's i32 bias does. Activations
// between layers stay f32: each layer quantizes its own input.
//
//===----------------------------------------------------------------------===//
#include "Int8Policy.h"
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nn;

namespace {

/// A layer's parts as the rewrite needs them.
struct LayerParts {
  Value input, weight, bias;
  /// Output channels and the weight's rows (one per output channel) in
  /// row-major order.
  int64_t channels = 0;
  std::vector<float> rows;
  /// The result's channel dimension.
  int64_t channelAxis = 1;
};

FailureOr<LayerParts> layerParts(Operation *op) {
  LayerParts parts;
  parts.input = op->getOperand(0);
  std::optional<std::vector<float>> weights;
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    parts.weight = conv.getFilter();
    parts.bias = conv.getBias();
    parts.channels = conv.getFilter().getType().getDimSize(0);
    parts.channelAxis = conv.getLayout() == Layout::NHWC ? 3 : 1;
    weights = readF32Constant(parts.weight);
    if (weights)
      parts.rows = std::move(*weights);
  } else if (auto linear = dyn_cast<LinearOp>(op)) {
    parts.weight = linear.getWeight();
    parts.bias = linear.getBias();
    parts.channels = linear.getWeight().getType().getDimSize(0);
    weights = readF32Constant(parts.weight);
    if (weights)
      parts.rows = std::move(*weights);
  } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
    // K x N: the channels are the columns; rows for quantization are its
    // transpose.
    parts.weight = matmul.getRhs();
    auto type = matmul.getRhs().getType();
    int64_t k = type.getDimSize(0), n = type.getDimSize(1);
    parts.channels = n;
    weights = readF32Constant(parts.weight);
    if (weights) {
      parts.rows.resize(weights->size());
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j)
          parts.rows[j * k + i] = (*weights)[i * n + j];
    }
  }
  if (!weights)
    return failure();
  return parts;
}

/// The int8 weight constant in the layer's own layout.
Value int8Weight(OpBuilder &b, Operation *op, const LayerParts &parts,
                 const QuantizedWeights &quantized) {
  auto type = cast<RankedTensorType>(parts.weight.getType());
  std::vector<int8_t> values = quantized.values;
  if (isa<MatmulOp>(op)) {
    int64_t k = type.getDimSize(0), n = type.getDimSize(1);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        values[i * n + j] = quantized.values[j * k + i];
  }
  auto i8Type = type.clone(b.getI8Type());
  ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                       values.size());
  std::string name = "int8_weight";
  if (auto source = parts.weight.getDefiningOp<arith::ConstantOp>())
    if (auto resource =
            dyn_cast<DenseResourceElementsAttr>(source.getValue()))
      name = resource.getRawHandle().getKey().str() + "_i8";
  return createConstant(b, op->getLoc(), i8Type, bytes, name);
}

/// The input quantized, with a convolution's padding made explicit as the
/// zero point (the value that stands for 0) when that is not 0.
Value quantizedInput(OpBuilder &b, Operation *op, Value input,
                     QuantizationParams params) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(input.getType());
  Value q = QuantizeOp::create(
      b, loc, type.clone(b.getI8Type()), input,
      b.getDenseF32ArrayAttr({params.scale}),
      b.getDenseI64ArrayAttr({params.zeroPoint}), b.getI64IntegerAttr(1));
  auto conv = dyn_cast<Conv2DOp>(op);
  if (!conv || params.zeroPoint == 0 ||
      llvm::all_of(conv.getPadding(), [](int64_t p) { return p == 0; }))
    return q;
  ArrayRef<int64_t> pad = conv.getPadding(); // top, left, bottom, right
  SmallVector<int64_t> pads =
      conv.getLayout() == Layout::NHWC
          ? SmallVector<int64_t>{0, pad[0], pad[1], 0, 0, pad[2], pad[3], 0}
          : SmallVector<int64_t>{0, 0, pad[0], pad[1], 0, 0, pad[2], pad[3]};
  SmallVector<int64_t> shape(type.getShape());
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d)
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] += pads[d] + pads[d + rank];
  auto paddedType = RankedTensorType::get(shape, b.getI8Type());
  conv.setPaddingAttr(b.getDenseI64ArrayAttr({0, 0, 0, 0}));
  return PadOp::create(b, loc, paddedType, q, b.getDenseI64ArrayAttr(pads),
                       b.getF64FloatAttr(static_cast<double>(params.zeroPoint)),
                       PadModeAttr::get(b.getContext(), PadMode::Constant));
}

class Int8Rewriter {
public:
  Int8Rewriter(FunctionOpInterface func, const CalibrationTable &table,
               Guards guards, double maxWeightError, bool print,
               Int8Stats &stats)
      : func(func), table(table), guards(guards),
        maxWeightError(maxWeightError), print(print), stats(stats) {}

  LogicalResult run();

private:
  /// Why the layer stays f32 ("" when it is quantized, after the rewrite).
  FailureOr<std::string> quantize(const QuantizableLayer &layer,
                                  const ActivationRange &range);
  void report(const QuantizableLayer &layer, StringRef choice,
              const Twine &reason) {
    if (print)
      llvm::outs() << "dlas-mixed-precision: " << layer.description << ": "
                   << choice << " (" << reason << ")\n";
  }

  FunctionOpInterface func;
  const CalibrationTable &table;
  Guards guards;
  double maxWeightError;
  bool print;
  Int8Stats &stats;
};

LogicalResult Int8Rewriter::run() {
  Operation *firstConv = nullptr, *classifier = nullptr;
  func->walk([&](Operation *op) {
    if (!firstConv && isa<Conv2DOp>(op))
      firstConv = op;
    if (isa<LinearOp, MatmulOp>(op))
      classifier = op;
  });
  for (const QuantizableLayer &layer : quantizableLayers(func)) {
    auto entry = table.ranges.find(layer.key);
    if (entry == table.ranges.end())
      return layer.op->emitError("dlas-mixed-precision: the calibration has "
                                 "no range for layer '")
             << layer.key << "' (" << layer.description
             << "): it was made for another model or pipeline";
    if (!entry->second.layer.empty() &&
        !describesSameLayer(entry->second.layer, layer.description))
      return layer.op->emitError("dlas-mixed-precision: calibration entry '")
             << layer.key << "' was recorded for " << entry->second.layer
             << ", but that layer is " << layer.description
             << ": the calibration was made for another model or pipeline";
    if (guards.firstConv && layer.op == firstConv) {
      report(layer, "f32", "first convolution");
      ++stats.kept;
      continue;
    }
    if (guards.classifier && layer.op == classifier) {
      report(layer, "f32", "classifier");
      ++stats.kept;
      continue;
    }
    if (guards.depthwise && isDepthwiseConv(layer.op)) {
      report(layer, "f32", "depthwise");
      ++stats.kept;
      continue;
    }
    FailureOr<std::string> kept = quantize(layer, entry->second);
    if (failed(kept))
      return failure();
    if (!kept->empty()) {
      report(layer, "f32", *kept);
      ++stats.kept;
    }
  }
  return success();
}

/// `op` rewritten into int8 with `input`'s quantization of its input;
/// the reason it stays f32 when it does ("" after the rewrite), with
/// `detail` describing the weights' error.
FailureOr<std::string> lowerLayer(Operation *op, QuantizationParams input,
                                  double maxWeightError, WeightScale choice,
                                  std::string &detail) {
  FailureOr<LayerParts> parts = layerParts(op);
  if (failed(parts))
    return std::string("weight is not a readable f32 constant");
  QuantizedWeights weights =
      quantizeWeightRows(parts->rows, parts->channels, choice);
  std::string errorText;
  llvm::raw_string_ostream(errorText)
      << llvm::format("%.2e", weights.relativeError);
  detail = "weight error " + errorText;
  if (weights.relativeError > maxWeightError)
    return "weight error " + errorText + " > max-weight-error";
  std::vector<float> bias(parts->channels, 0.0f);
  if (parts->bias) {
    std::optional<std::vector<float>> values = readF32Constant(parts->bias);
    if (!values)
      return std::string("bias is not a constant");
    bias = std::move(*values);
  }
  // The epilogue's parameters: scale per channel, and the zero point that
  // removes the input's zero point and adds the bias, in accumulator units.
  SmallVector<float> scales;
  SmallVector<int64_t> zeroPoints;
  for (int64_t c = 0; c < parts->channels; ++c) {
    float scale = input.scale * weights.scales[c];
    double biasUnits = std::nearbyint(static_cast<double>(bias[c]) / scale);
    double zeroPoint =
        static_cast<double>(input.zeroPoint) * weights.sums[c] - biasUnits;
    if (!(std::fabs(zeroPoint) <= std::numeric_limits<int32_t>::max()))
      return std::string("bias beyond the i32 accumulator's range");
    scales.push_back(scale);
    zeroPoints.push_back(static_cast<int64_t>(zeroPoint));
  }
  OpBuilder b(op);
  Value q = quantizedInput(b, op, parts->input, input);
  Value wq = int8Weight(b, op, *parts, weights);
  Value result = op->getResult(0);
  auto resultType = cast<RankedTensorType>(result.getType());
  // The same op on integers, without its bias (now in the zero point).
  op->setOperands({q, wq});
  result.setType(resultType.clone(b.getI32Type()));
  b.setInsertionPointAfter(op);
  auto dequantized = DequantizeOp::create(
      b, op->getLoc(), resultType, result, b.getDenseF32ArrayAttr(scales),
      b.getDenseI64ArrayAttr(zeroPoints),
      b.getI64IntegerAttr(parts->channelAxis));
  result.replaceAllUsesExcept(dequantized, dequantized);
  return std::string();
}

FailureOr<std::string> Int8Rewriter::quantize(const QuantizableLayer &layer,
                                              const ActivationRange &range) {
  QuantizationParams input = activationParams(range);
  // A target whose int8 GEMM multiplies on vpmaddubsw gets exact products
  // only for broadcast operands within +-64: the weights of the layers
  // whose GEMM broadcasts them (dense NCHW convolutions: im2col and 1x1,
  // weights x activations) get 7 bits there. Others (grouped, NHWC,
  // linear: activations broadcast) keep 8 on the widening kernel.
  CPUTargetAttr target = lookupCPUTarget(layer.op);
  auto conv = dyn_cast<Conv2DOp>(layer.op);
  bool sevenBits =
      target &&
      int8MultiplyOf(target, target.lanes(32)) == Int8Multiply::pairs && conv &&
      conv.getGroups() == 1 && conv.getLayout() == Layout::NCHW;
  std::string detail;
  FailureOr<std::string> kept = lowerLayer(
      layer.op, input, maxWeightError,
      sevenBits ? WeightScale::MaxOver63 : WeightScale::MaxOver127, detail);
  if (failed(kept) || !kept->empty())
    return kept;
  ++stats.lowered;
  report(layer, "int8",
         llvm::formatv("{0}{1}, input scale {2:e3} zero point {3}",
                       sevenBits ? "7-bit weights, " : "", detail, input.scale,
                       input.zeroPoint)
             .str());
  return std::string();
}

} // namespace

FailureOr<std::string> nn::lowerLayerToInt8(Operation *op,
                                            QuantizationParams input,
                                            double maxWeightError,
                                            WeightScale choice,
                                            std::string &detail) {
  return lowerLayer(op, input, maxWeightError, choice, detail);
}

bool nn::isDepthwiseConv(Operation *op) {
  auto conv = dyn_cast<Conv2DOp>(op);
  return conv && conv.getGroups() > 1 &&
         conv.getFilter().getType().getDimSize(1) == 1;
}

LogicalResult nn::quantizeFunctionToInt8(FunctionOpInterface func,
                                         const CalibrationTable &table,
                                         Guards guards, double maxWeightError,
                                         bool print, Int8Stats &stats) {
  return Int8Rewriter(func, table, guards, maxWeightError, print, stats).run();
}
