//===- Calibration.cpp - int8 calibration: layers, ranges, files ----------===//
#include "DLAS/Dialect/NN/Transforms/Calibration.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::dlas;

static constexpr llvm::StringLiteral kFormat = "dlas-calibration";
static constexpr int64_t kVersion = 1;

static bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

bool nn::isQuantizableLayer(Operation *op) {
  Value weight;
  if (auto conv = dyn_cast<nn::Conv2DOp>(op))
    weight = conv.getFilter();
  else if (auto linear = dyn_cast<nn::LinearOp>(op))
    weight = linear.getWeight();
  else if (auto matmul = dyn_cast<nn::MatmulOp>(op))
    weight = matmul.getRhs();
  else
    return false;
  if (!isF32Tensor(op->getOperand(0).getType()) ||
      !isF32Tensor(op->getResult(0).getType()) ||
      !isF32Tensor(weight.getType()) ||
      !cast<RankedTensorType>(weight.getType()).hasStaticShape())
    return false;
  // A constant: an arith.constant (inline or a blob) of f32.
  return weight.getDefiningOp<arith::ConstantOp>() != nullptr;
}

std::vector<nn::QuantizableLayer>
nn::quantizableLayers(FunctionOpInterface func) {
  std::vector<QuantizableLayer> layers;
  StringRef name = func.getName();
  if (auto source = func->getAttrOfType<StringAttr>(kSourceNameAttrName))
    name = source.getValue();
  func->walk([&](Operation *op) {
    if (!isQuantizableLayer(op))
      return;
    std::string key = (name + "#" + llvm::Twine(layers.size())).str();
    // The op, its name where it has one (ONNX node names), and its
    // weight's shape: what identifies the layer in another compilation
    // of the model (a source file's path or line would not).
    std::string description = op->getName().stripDialect().str();
    if (auto name = dyn_cast<NameLoc>(op->getLoc()))
      description += " \"" + name.getName().str() + "\"";
    auto weight = cast<RankedTensorType>(op->getOperand(1).getType());
    description += " weight ";
    llvm::raw_string_ostream os(description);
    llvm::interleave(weight.getShape(), os, "x");
    layers.push_back({std::move(key), std::move(description), op});
  });
  return layers;
}

/// `description` without its quoted node name (`op "name" weight AxB` ->
/// `op weight AxB`); whether it had one in `named`.
static std::string withoutName(llvm::StringRef description, bool &named) {
  size_t open = description.find(" \"");
  size_t close = open == llvm::StringRef::npos
                     ? llvm::StringRef::npos
                     : description.find("\" weight ", open + 2);
  named = close != llvm::StringRef::npos;
  if (!named)
    return description.str();
  return (description.take_front(open) + description.drop_front(close + 1))
      .str();
}

bool nn::describesSameLayer(llvm::StringRef recorded, llvm::StringRef current) {
  if (recorded == current)
    return true;
  bool recordedNamed, currentNamed;
  std::string recordedBare = withoutName(recorded, recordedNamed);
  std::string currentBare = withoutName(current, currentNamed);
  // Two names that differ are two layers; a missing one says nothing.
  return recordedNamed != currentNamed && recordedBare == currentBare;
}

static llvm::Error calibrationError(llvm::StringRef path,
                                    const llvm::Twine &message) {
  return llvm::createStringError("calibration file '" + path +
                                 "': " + message);
}

llvm::Expected<nn::CalibrationTable>
nn::readCalibration(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return calibrationError(path, "cannot read it: " +
                                      buffer.getError().message());
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return calibrationError(path, "not JSON: " +
                                      llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != kFormat)
    return calibrationError(path, "not a calibration file (no \"format\": "
                                  "\"dlas-calibration\"); make one with "
                                  "dlas-run --calibrate");
  if (root->getInteger("version") != kVersion)
    return calibrationError(path, "version must be 1");
  CalibrationTable table;
  if (std::optional<llvm::StringRef> method = root->getString("method"))
    table.method = method->str();
  table.percentile = root->getNumber("percentile").value_or(100.0);
  table.samples = root->getInteger("samples").value_or(0);
  const llvm::json::Array *layers = root->getArray("layers");
  if (!layers)
    return calibrationError(path, "no \"layers\" array");
  for (const llvm::json::Value &entry : *layers) {
    const llvm::json::Object *layer = entry.getAsObject();
    std::optional<llvm::StringRef> key =
        layer ? layer->getString("key") : std::nullopt;
    if (!key)
      return calibrationError(path, "a layer without a \"key\" string");
    std::optional<double> min = layer->getNumber("min");
    std::optional<double> max = layer->getNumber("max");
    if (!min || !max || !std::isfinite(*min) || !std::isfinite(*max) ||
        *min > *max)
      return calibrationError(path, "layer '" + *key +
                                        "' needs finite \"min\" <= \"max\"");
    ActivationRange range;
    range.layer = layer->getString("layer").value_or("").str();
    range.min = *min;
    range.max = *max;
    if (!table.ranges.try_emplace(*key, range).second)
      return calibrationError(path, "layer '" + *key + "' appears twice");
    table.keys.push_back(key->str());
  }
  return table;
}

llvm::Error nn::writeCalibration(llvm::StringRef path,
                                 const CalibrationTable &table) {
  llvm::json::Array layers;
  for (const std::string &key : table.keys) {
    const ActivationRange &range = table.ranges.lookup(key);
    layers.push_back(llvm::json::Object{{"key", key},
                                        {"layer", range.layer},
                                        {"min", range.min},
                                        {"max", range.max}});
  }
  llvm::json::Object root{{"format", kFormat},
                          {"version", kVersion},
                          {"method", table.method},
                          {"samples", table.samples},
                          {"layers", std::move(layers)}};
  if (table.method == "percentile")
    root["percentile"] = table.percentile;
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return calibrationError(path, "cannot write it: " + ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return llvm::Error::success();
}

nn::QuantizationParams nn::activationParams(const ActivationRange &range) {
  double lo = std::min(range.min, 0.0), hi = std::max(range.max, 0.0);
  QuantizationParams params;
  float scale = static_cast<float>((hi - lo) / 255.0);
  if (!(scale > 0.0f) || !std::isfinite(scale))
    return params;
  params.scale = scale;
  double zeroPoint = std::nearbyint(-128.0 - lo / static_cast<double>(scale));
  params.zeroPoint =
      static_cast<int64_t>(std::clamp(zeroPoint, -128.0, 127.0));
  return params;
}

/// f32 division and ties to even (nearbyint in the default rounding
/// mode), as numpy's float32 arithmetic: a reference reproduces it.
static float quantizeValue(float w, float scale, float lowest = -127.0f) {
  return std::clamp(std::nearbyint(w / scale), lowest, 127.0f);
}

/// The scale largest / k for the largest k <= 128 at which every element
/// of `row` is an integer multiple (within float rounding) of it in
/// [-128, 127]: the scale a weight quantized to int8 elsewhere was made
/// with (PyTorch's symmetric per-channel scales reach -128). Null when
/// there is none.
static std::optional<float> int8Grid(llvm::ArrayRef<float> row, float largest) {
  for (int k = 128; k >= 1; --k) {
    float scale = largest / static_cast<float>(k);
    bool onGrid = llvm::all_of(row, [&](float w) {
      return std::fabs(quantizeValue(w, scale, -128.0f) * scale - w) <=
             1e-5f * largest;
    });
    if (onGrid)
      return scale;
  }
  return std::nullopt;
}

nn::QuantizedWeights nn::quantizeWeightRows(llvm::ArrayRef<float> weights,
                                            int64_t channels,
                                            WeightScale choice) {
  QuantizedWeights result;
  size_t rowLength = channels ? weights.size() / channels : 0;
  result.values.resize(weights.size());
  double errorSquares = 0.0, normSquares = 0.0;
  for (int64_t c = 0; c < channels; ++c) {
    llvm::ArrayRef<float> row = weights.slice(c * rowLength, rowLength);
    float largest = 0.0f;
    for (float w : row)
      largest = std::max(largest, std::fabs(w));
    float levels = choice == WeightScale::MaxOver63 ? 63.0f : 127.0f;
    float scale = largest > 0.0f ? largest / levels : 1.0f;
    float lowest = -levels;
    if (choice == WeightScale::RecoverInt8Grid && largest > 0.0f) {
      if (std::optional<float> grid = int8Grid(row, largest)) {
        scale = *grid;
        lowest = -128.0f;
      }
    }
    int64_t sum = 0;
    for (size_t i = 0; i < rowLength; ++i) {
      float q = quantizeValue(row[i], scale, lowest);
      result.values[c * rowLength + i] = static_cast<int8_t>(q);
      sum += static_cast<int64_t>(q);
      double error = static_cast<double>(q) * scale - row[i];
      errorSquares += error * error;
      normSquares += static_cast<double>(row[i]) * row[i];
    }
    result.scales.push_back(scale);
    result.sums.push_back(sum);
  }
  result.relativeError =
      normSquares > 0.0 ? std::sqrt(errorSquares / normSquares) : 0.0;
  return result;
}
