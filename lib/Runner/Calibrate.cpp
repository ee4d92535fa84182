//===- Calibrate.cpp - recording activation ranges for int8 ---------------===//
#include "DLAS/Runner/Calibrate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dlas;

llvm::Expected<std::vector<CalibrationProbe>>
dlas::calibrationProbes(ModuleOp module, llvm::StringRef entry) {
  auto attr =
      module->getAttrOfType<ArrayAttr>("dlas.calibration_probes");
  if (!attr)
    return llvm::createStringError(
        "the compiled module has no calibration probes: compile it with "
        "dlas-calibration-probes (the built-in pipeline does with "
        "--calibrate)");
  std::vector<CalibrationProbe> probes;
  for (Attribute element : attr) {
    auto probe = dyn_cast<DictionaryAttr>(element);
    auto function = probe ? probe.getAs<StringAttr>("function") : nullptr;
    auto key = probe ? probe.getAs<StringAttr>("key") : nullptr;
    auto layer = probe ? probe.getAs<StringAttr>("layer") : nullptr;
    auto result = probe ? probe.getAs<IntegerAttr>("result") : nullptr;
    if (!function || !key || !layer || !result)
      return llvm::createStringError(
          "malformed dlas.calibration_probes entry (needs function, key, "
          "layer and result)");
    if (function.getValue() == entry)
      probes.push_back({key.str(), layer.str(),
                        static_cast<unsigned>(result.getInt())});
  }
  if (probes.empty())
    return llvm::createStringError(
        "entry '" + entry +
        "' has no layer to calibrate (conv2d, linear or matmul with a "
        "constant f32 weight)");
  return probes;
}

static std::vector<std::string> npyFilesIn(llvm::StringRef dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".npy") &&
        it->type() != llvm::sys::fs::file_type::directory_file)
      files.push_back(it->path());
  llvm::sort(files);
  return files;
}

llvm::Expected<std::vector<std::vector<std::string>>>
dlas::calibrationSamples(llvm::StringRef dir, unsigned numInputs) {
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError("calibration samples '" + dir +
                                   "' is not a directory");
  std::vector<std::vector<std::string>> samples;
  if (numInputs == 1) {
    for (std::string &file : npyFilesIn(dir))
      samples.push_back({std::move(file)});
  } else {
    std::vector<std::string> subdirs;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::fs::is_directory(it->path()))
        subdirs.push_back(it->path());
    llvm::sort(subdirs);
    for (const std::string &subdir : subdirs) {
      std::vector<std::string> files = npyFilesIn(subdir);
      if (files.size() != numInputs)
        return llvm::createStringError(
            "calibration sample '" + subdir + "' holds " +
            llvm::Twine(files.size()) + " .npy file(s) but the entry takes " +
            llvm::Twine(numInputs) + " inputs");
      samples.push_back(std::move(files));
    }
  }
  if (samples.empty())
    return llvm::createStringError(
        "calibration samples '" + dir + "' holds no sample (" +
        (numInputs == 1 ? llvm::Twine("a .npy file per sample")
                        : llvm::Twine("a subdirectory per sample, with one "
                                      ".npy per input")) +
        ")");
  return samples;
}

CalibrationRecorder::CalibrationRecorder(std::vector<CalibrationProbe> probes,
                                         std::string method,
                                         double percentile)
    : probes(std::move(probes)), method(std::move(method)),
      percentile(percentile),
      low(this->probes.size(), std::numeric_limits<double>::infinity()),
      high(this->probes.size(), -std::numeric_limits<double>::infinity()) {
  // Percentiles are summed per sample and averaged; extremes start empty.
  if (this->method == "percentile") {
    low.assign(low.size(), 0.0);
    high.assign(high.size(), 0.0);
  }
}

llvm::Error CalibrationRecorder::record(llvm::ArrayRef<NpyArray> values) {
  for (auto [i, value] : llvm::enumerate(values)) {
    int64_t n = value.numElements();
    std::vector<double> data(n);
    for (int64_t k = 0; k < n; ++k) {
      data[k] = value.at(k);
      if (!std::isfinite(data[k]))
        return llvm::createStringError(
            "layer '" + probes[i].key + "' (" + probes[i].layer +
            "): its input holds a non-finite value in sample " +
            llvm::Twine(numSamples));
    }
    if (n == 0)
      continue;
    if (method == "percentile") {
      // The values at both percentiles of this sample, averaged below.
      auto rank = [&](double fraction) {
        return static_cast<int64_t>(std::llround(fraction * (n - 1)));
      };
      int64_t hiRank = rank(percentile / 100.0);
      int64_t loRank = rank(1.0 - percentile / 100.0);
      std::nth_element(data.begin(), data.begin() + hiRank, data.end());
      double hiValue = data[hiRank];
      std::nth_element(data.begin(), data.begin() + loRank, data.end());
      low[i] += data[loRank];
      high[i] += hiValue;
    } else {
      auto [lo, hi] = std::minmax_element(data.begin(), data.end());
      low[i] = std::min(low[i], *lo);
      high[i] = std::max(high[i], *hi);
    }
  }
  ++numSamples;
  return llvm::Error::success();
}

nn::CalibrationTable CalibrationRecorder::table() const {
  nn::CalibrationTable table;
  table.method = method;
  table.percentile = percentile;
  table.samples = numSamples;
  for (auto [i, probe] : llvm::enumerate(probes)) {
    nn::ActivationRange range;
    range.layer = probe.layer;
    range.min = low[i];
    range.max = high[i];
    if (method == "percentile" && numSamples > 0) {
      range.min /= numSamples;
      range.max /= numSamples;
    }
    if (!std::isfinite(range.min) || !std::isfinite(range.max))
      range.min = range.max = 0.0; // a probe of only empty tensors
    table.ranges[probe.key] = range;
    table.keys.push_back(probe.key);
  }
  return table;
}
