//===- Tuner.h - dlas-tune: measured kernel parameters ----------*- C++ -*-===//
//
// The auto-tuner behind dlas-tune. It compiles a model up to the lowering
// decisions to learn its tunable kernels (each microkernel decision and
// each GSPC packing, by tuning-file section and shape key) and the layer
// functions holding them; then it measures candidate parameters in
// rounds: each round gives every kernel one untried candidate in a tuning
// file, runs the model once through dlas-run --profile and charges each
// layer's median time to its kernels' candidates. So one compile and run
// measures a candidate of every kernel at once. Results go to a
// TuningDatabase; the best parameters that beat the cost model's become a
// tuning file that dlas-run, dlas-compile and the pipeline read.
//
// Transfer-tuning: a kernel that the database has not measured takes as
// candidates the best parameters of the same section's other shapes in a
// second database (another model's), instead of the whole space.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_TUNER_TUNER_H
#define DLAS_TUNER_TUNER_H

#include "DLAS/Pipelines/Pipelines.h"
#include "DLAS/Tuner/TuningDatabase.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::dlas {

/// One tunable kernel of a model.
struct TunableKernel {
  /// The tuning-file section and shape key.
  std::string section, key;
  /// The layer functions (dlas-outline-layers) that hold it.
  std::vector<std::string> layers;
  /// Candidate constraints: the target's f32 lanes and vector registers;
  /// blocked_conv: output channel blocks (a tile's vectors divide them);
  /// gspc: input and output channels per group.
  int64_t lanes = 0, registers = 0, outputBlocks = 0;
  int64_t groupInputs = 0, groupOutputs = 0;
};

/// The tunable kernels of `module` (compiled, on a copy, up to the
/// decisions with `options`) and its target's CPU name.
FailureOr<std::vector<TunableKernel>>
findTunableKernels(ModuleOp module, const CPUPipelineOptions &options,
                   std::string &cpu);

/// The parameters worth measuring for `kernel`, the space's order.
std::vector<TuningParams> candidateSpace(const TunableKernel &kernel);

/// The candidates transfer-tuning tries for `kernel`: the best parameters
/// of the same section's other kernels in `from` on `cpu`, fastest
/// relative to their default first, valid for `kernel`, at most `limit`.
std::vector<TuningParams> transferCandidates(const TunableKernel &kernel,
                                             const TuningDatabase &from,
                                             StringRef cpu, size_t limit);

struct TunerOptions {
  std::string model, dlasRun, target = "host", dbPath, transferFrom, output;
  /// Stop starting rounds after this many seconds.
  double budgetSeconds = 600;
  int64_t repeat = 10, warmup = 2, threads = 1;
  /// At most this many candidates per kernel (0: all).
  size_t maxCandidates = 0;
  /// A best result must beat the default by this fraction to be kept.
  double minGain = 0.03;
  /// Head-to-head runs (default, then tuned) that confirm the winners: a
  /// kernel's best is kept only when its median gain over these pairs
  /// still reaches minGain (a search round's single measurement may be
  /// noise). 0: keep what the search found.
  int64_t confirmPairs = 3;
  /// Measure the model with and without the tuning file at the end.
  bool verify = true;
  /// Only list the tunable kernels and their candidate counts.
  bool listOnly = false;
};

/// Tunes `module` (read from options.model): updates the database, writes
/// the tuning file, prints progress and a summary to `os`.
llvm::Error tuneModel(ModuleOp module, const TunerOptions &options,
                      llvm::raw_ostream &os);

} // namespace mlir::dlas

#endif // DLAS_TUNER_TUNER_H
