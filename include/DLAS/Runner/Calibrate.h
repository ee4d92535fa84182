//===- Calibrate.h - recording activation ranges for int8 -------*- C++ -*-===//
//
// dlas-run --calibrate: a model compiled with dlas-calibration-probes
// returns each quantizable layer's input after its own results; running it
// on sample inputs and recording those values' ranges gives the calibration
// file that dlas-mixed-precision{policy=int8} reads.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_CALIBRATE_H
#define DLAS_RUNNER_CALIBRATE_H

#include "DLAS/Dialect/NN/Transforms/Calibration.h"
#include "DLAS/Support/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::dlas {

/// One probe of the entry: the layer it observes and the result that
/// carries the layer's input.
struct CalibrationProbe {
  std::string key, layer;
  unsigned result;
};

/// The probes of `entry` from the module's dlas.calibration_probes; an
/// error when the module has none (it was not compiled with
/// dlas-calibration-probes).
llvm::Expected<std::vector<CalibrationProbe>>
calibrationProbes(ModuleOp module, llvm::StringRef entry);

/// The samples in `dir`, each a list of .npy paths, one per entry input:
/// for one input, every *.npy file in it; for several, every
/// subdirectory, holding one .npy per input (taken in name order). Sorted
/// by name; an error when there are none or a subdirectory holds another
/// number of files.
llvm::Expected<std::vector<std::vector<std::string>>>
calibrationSamples(llvm::StringRef dir, unsigned numInputs);

/// Accumulates the ranges of the probes over samples: `minmax` takes the
/// extremes of all samples; `percentile` takes, per sample, the values at
/// `percentile` and 100 - `percentile` percent (clipping outliers) and
/// averages them over the samples.
class CalibrationRecorder {
public:
  CalibrationRecorder(std::vector<CalibrationProbe> probes, std::string method,
                      double percentile);

  /// Adds one sample's probe values (`values[i]` for probe i). An error
  /// when a value is not finite: a range over NaN or infinity quantizes
  /// nothing.
  llvm::Error record(llvm::ArrayRef<NpyArray> values);

  nn::CalibrationTable table() const;
  int64_t samples() const { return numSamples; }

private:
  std::vector<CalibrationProbe> probes;
  std::string method;
  double percentile;
  int64_t numSamples = 0;
  std::vector<double> low, high;
};

} // namespace mlir::dlas

#endif // DLAS_RUNNER_CALIBRATE_H
