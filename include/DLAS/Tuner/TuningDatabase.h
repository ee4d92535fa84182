//===- TuningDatabase.h - measured kernel parameters, kept ------*- C++ -*-===//
//
// What dlas-tune has measured: per kernel (target CPU, tuning-file section,
// shape key) and thread count, the time with the cost model's parameters
// and with each candidate tried. Kept in a JSON file across runs, so that a
// kernel tuned once costs nothing the next time, and read by transfer-tuning,
// which tries the best parameters of a kernel class's shapes. Format:
//
//   {"dlas_tuning_db": 1,
//    "kernels": [
//      {"target": "znver5", "section": "blocked_conv",
//       "key": "c64_f64_o56x56_k3x3_s1x1", "threads": 1, "default_ms": 0.91,
//       "results": [{"params": {"rows": 7, "vectors": 2}, "ms": 0.86}]}]}
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_TUNER_TUNINGDATABASE_H
#define DLAS_TUNER_TUNINGDATABASE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mlir::dlas {

/// One tuning-file entry's value: a positive integer (a tile size) or a
/// name (an algorithm, a thread split).
using TuningValue = std::variant<int64_t, std::string>;

/// One candidate's parameters: tuning-file entries.
using TuningParams = std::map<std::string, TuningValue>;

/// "7", "im2col".
std::string formatValue(const TuningValue &value);
/// The value as JSON: a number or a string.
llvm::json::Value toJSONValue(const TuningValue &value);
/// "rows=7 vectors=2", for progress lines.
std::string formatParams(const TuningParams &params);

/// One kernel's measurements.
struct KernelRecord {
  std::string target, section, key;
  /// The OpenMP threads the times were measured on ("threads", 1 when the
  /// file leaves it out): parameters that win on one thread may lose on
  /// two, so measurements of different counts are kept apart.
  int64_t threads = 1;
  /// With no tuning entry (the cost model's parameters); nullopt: not
  /// measured yet.
  std::optional<double> defaultMs;
  struct Result {
    TuningParams params;
    double ms;
  };
  std::vector<Result> results;

  /// The fastest result, or null when none.
  const Result *best() const;
  /// True when `params` has been measured.
  bool tried(const TuningParams &params) const;
};

class TuningDatabase {
public:
  /// Reads `path`; errors name the file and what is wrong in it.
  static llvm::Expected<TuningDatabase> load(llvm::StringRef path);
  /// Writes the database to `path` (through a temporary file, so that an
  /// interrupted run leaves the last complete one).
  llvm::Error save(llvm::StringRef path) const;

  /// The record of a kernel measured on `threads` threads: null when
  /// missing (find), created empty then (getOrCreate).
  KernelRecord *find(llvm::StringRef target, llvm::StringRef section,
                     llvm::StringRef key, int64_t threads);
  KernelRecord &getOrCreate(llvm::StringRef target, llvm::StringRef section,
                            llvm::StringRef key, int64_t threads);

  const std::vector<KernelRecord> &records() const { return kernels; }

private:
  std::vector<KernelRecord> kernels;
};

} // namespace mlir::dlas

#endif // DLAS_TUNER_TUNINGDATABASE_H
