//===- Tuner.h - dlas-tune: measured kernel parameters ----------*- C++ -*-===//
//
// The auto-tuner behind dlas-tune. It compiles a model up to the lowering
// decisions to learn its tunable kernels (each microkernel decision and
// each GSPC packing, by tuning-file section and shape key) and the layer
// functions holding them; then it measures candidate parameters one layer
// at a time (LayerBench: the layer alone, its kernels decided with the
// candidate in a tuning file, compiled and timed in this process), in
// rounds of one candidate per kernel. Results go to a TuningDatabase; the
// best parameters that beat the cost model's, confirmed head to head,
// become a tuning file that dlas-run, dlas-compile and the pipeline read.
//
// Dense convolutions' algorithms are chosen first (a `conv_algorithm`
// stage), then the microkernels of the chosen algorithms are tuned.
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
  /// A `gspc` kernel of a grouped convolution that the cost model runs as
  /// a flat GEMM: its candidates switch the algorithm to GSPC.
  bool otherAlgorithm = false;
  /// `conv_algorithm`: the algorithms measured against each other.
  std::vector<std::string> choices;
  /// `gemm`: how the cost model's kernel splits its work between threads
  /// ("tiles" or "rows"); with more than one thread the other split is a
  /// candidate.
  std::string threadSplit;
  /// The OpenMP threads the kernel is tuned for.
  int64_t threads = 1;
  /// The cost model's parameters, in the section's names: a candidate that
  /// sets only these values is the default and is not measured again.
  TuningParams defaults;
};

/// True when `candidate` sets only what `kernel`'s cost model chose anyway.
bool isDefaultCandidate(const TunableKernel &kernel,
                        const TuningParams &candidate);

/// The tunable kernels of `laidOut` (a model through layOutModel; its
/// kernels are decided on a copy with `options`) and its target's CPU
/// name. Besides the decided kernels, every f32 grouped convolution that
/// the cost model does not pack is a `gspc` kernel whose candidates make
/// it GSPC: the tuner chooses between the two algorithms; and every f32
/// dense NCHW convolution with a choice of algorithms (flat, im2col,
/// Winograd: dlas-select-conv-algorithm's) is a `conv_algorithm` kernel.
/// The microkernels of a convolution are those of its algorithm in
/// `options` (its tuning file included): dlas-tune chooses the algorithms
/// first, then tunes the kernels they make.
FailureOr<std::vector<TunableKernel>>
findTunableKernels(ModuleOp laidOut, const CPUPipelineOptions &options,
                   std::string &cpu);

/// Sets each kernel's thread count; with more than one, a GEMM's thread
/// split joins its defaults (so that its candidates include the other).
void setTuningThreads(std::vector<TunableKernel> &kernels, int64_t threads);

/// The parameters worth measuring for `kernel`, the space's order.
std::vector<TuningParams> candidateSpace(const TunableKernel &kernel);

/// How many candidates transfer-tuning tries per kernel unless
/// --max-candidates says otherwise.
inline constexpr size_t kTransferCandidates = 2;

/// The shape distance between two keys of tuning-file section `section`
/// when they are of the same kernel class, nullopt otherwise. Keys are
/// `_`-separated fields of a tag and numbers ("c64_f128_o28x28_k3x3_s2x2");
/// the same class has the same tags (so the same pooling kind, and GEMMs
/// with and without batch dims apart) and, in the convolution and pooling
/// sections, the same window, stride and dilation (the `k`, `s` and `d`
/// fields); its distance is the sum of |log(a / b)| over the other numbers
/// (channels, sizes): 0 for the same shape.
std::optional<double> kernelClassDistance(StringRef section, StringRef a,
                                          StringRef b);

/// The candidates transfer-tuning tries for `kernel`: the best parameters
/// of the kernels of its class (kernelClassDistance) in `from` measured on
/// `cpu` with `threads` threads that beat their default by `minGain` or more,
/// nearest shape first (the same shape, tuned in another model, at distance 0;
/// then the larger gain), valid for `kernel`, at most `limit`.
std::vector<TuningParams> transferCandidates(const TunableKernel &kernel,
                                             const TuningDatabase &from,
                                             StringRef cpu, int64_t threads,
                                             size_t limit, double minGain);

struct TunerOptions {
  std::string model, dlasRun, target = "host", dbPath, transferFrom, output;
  /// Stop starting rounds after this many seconds.
  double budgetSeconds = 600;
  /// Timed and untimed runs of a layer per measurement; OpenMP threads.
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
  /// Measure the whole model (through dlas-run) with and without the
  /// tuning file at the end.
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
