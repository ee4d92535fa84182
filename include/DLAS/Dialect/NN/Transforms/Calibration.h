//===- Calibration.h - int8 calibration: layers, ranges, files --*- C++ -*-===//
//
// What dlas-calibration-probes, dlas-run --calibrate and
// dlas-mixed-precision{policy=int8} agree on: which layers are quantized,
// the key that names each one, the calibration file and the arithmetic that
// turns a recorded range into a scale and a zero point.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_DIALECT_NN_TRANSFORMS_CALIBRATION_H
#define DLAS_DIALECT_NN_TRANSFORMS_CALIBRATION_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::dlas::nn {

/// conv2d (every kind but transposed), linear, and matmul with a constant
/// right-hand side, in f32 with a constant f32 weight: the layers that int8
/// quantization rewrites and whose input calibration records.
bool isQuantizableLayer(Operation *op);

/// A function renamed by a tool (dlas-compile prefixes the entry) keeps its
/// model's name here; calibration keys use it.
inline constexpr llvm::StringLiteral kSourceNameAttrName = "dlas.source_name";

/// One quantizable layer of a function: its key ("<function>#<ordinal>",
/// ordinals in walk order) and its description (op name and location),
/// which the quantizer compares to catch a file made for another model.
struct QuantizableLayer {
  std::string key;
  std::string description;
  Operation *op;
};
std::vector<QuantizableLayer> quantizableLayers(FunctionOpInterface func);

/// Whether a calibration entry's recorded layer description and a layer's
/// own describe the same layer: equal, or equal but for the node name that
/// one side lacks (a module printed without its locations loses the names
/// the importer put there; the op and its weight's shape still match).
bool describesSameLayer(llvm::StringRef recorded, llvm::StringRef current);

/// The range of one layer's input over the calibration samples.
struct ActivationRange {
  std::string layer;
  double min = 0.0, max = 0.0;
};

/// A calibration file (JSON; docs/MixedPrecision.md, "Calibration").
struct CalibrationTable {
  std::string method = "minmax";
  double percentile = 100.0;
  int64_t samples = 0;
  /// By layer key, in the order the file lists them.
  llvm::StringMap<ActivationRange> ranges;
  std::vector<std::string> keys;
};

llvm::Expected<CalibrationTable> readCalibration(llvm::StringRef path);
llvm::Error writeCalibration(llvm::StringRef path,
                             const CalibrationTable &table);

/// Per-tensor asymmetric int8 parameters for a range: the range widened to
/// hold 0 (so that zero, the padding, is exact), scale = (hi - lo) / 255 in
/// f32, zero point = round_half_even(-128 - lo / scale) clamped to i8. An
/// empty range (all zeros) gets scale 1, zero point 0.
struct QuantizationParams {
  float scale = 1.0f;
  int64_t zeroPoint = 0;
};
QuantizationParams activationParams(const ActivationRange &range);

/// Per-channel symmetric int8 weights: scale = max |w| / 127 in f32 (1 for
/// an all-zero channel), q = round_half_even(w / scale) in [-127, 127].
struct QuantizedWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
  /// Sum of each channel's quantized values (the zero-point correction).
  std::vector<int64_t> sums;
  /// Relative L2 error of the dequantized weights against the f32 ones.
  double relativeError = 0.0;
};
/// How a channel's scale is chosen: max |w| / 127; max |w| / 63 (7 bits:
/// the range vpmaddubsw multiplies exactly, for targets whose int8 kernel
/// uses it); or (for weights that were int8 times a scale, as QDQ models'
/// are) the largest max |w| / k, k <= 128, on whose multiples in
/// [-128, 127] every weight lies, max |w| / 127 when none.
enum class WeightScale { MaxOver127, MaxOver63, RecoverInt8Grid };
/// `weights` holds `channels` contiguous rows of equal length.
QuantizedWeights
quantizeWeightRows(llvm::ArrayRef<float> weights, int64_t channels,
                   WeightScale choice = WeightScale::MaxOver127);

} // namespace mlir::dlas::nn

#endif // DLAS_DIALECT_NN_TRANSFORMS_CALIBRATION_H
