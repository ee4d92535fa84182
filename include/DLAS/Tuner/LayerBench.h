//===- LayerBench.h - one layer compiled and timed in-process ---*- C++ -*-===//
//
// What dlas-tune measures a candidate with: one layer function of the
// model, compiled alone (its kernel decisions made again with the
// candidate's tuning file, then the rest of the CPU pipeline and the JIT)
// and timed on seeded random inputs in this process. A layer compiles in a
// fraction of the whole model's time, so a search can afford many more
// candidates, and one layer's time is not mixed with the others'.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_TUNER_LAYERBENCH_H
#define DLAS_TUNER_LAYERBENCH_H

#include "DLAS/Pipelines/Pipelines.h"
#include "DLAS/Runner/Entry.h"
#include "DLAS/Runner/JIT.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace mlir::dlas {

/// Runs the CPU pipeline's stages up to the activation layout (target,
/// nn-to-linalg with the layer functions, dlas-blocked-layout) on a copy
/// of `model`: the layout is the whole model's decision, so layers are
/// cut from this module, not from the model.
FailureOr<OwningOpRef<ModuleOp>> layOutModel(ModuleOp model,
                                             const CPUPipelineOptions &options);

/// One layer compiled alone, with its inputs, ready to time.
class CompiledLayer {
public:
  /// The median of `repeat` timed runs after `warmup` untimed ones, in ms.
  llvm::Expected<double> time(int64_t warmup, int64_t repeat);

private:
  friend class LayerBench;
  CompiledLayer() = default;
  // Destroyed in reverse order: the runner (which frees the last results
  // and refers to the signature and inputs) before the engine.
  std::unique_ptr<JIT> engine;
  EntrySignature signature;
  SmallVector<NpyArray> inputs;
  std::unique_ptr<EntryRunner> runner;
};

/// Compiles layer functions of a laid-out model (layOutModel) one at a
/// time for the model's target.
class LayerBench {
public:
  /// `laidOut` and `options` (the pipeline the model is tuned for; each
  /// compile replaces its tuning file) must outlive the bench.
  LayerBench(ModuleOp laidOut, const CPUPipelineOptions &options)
      : laidOut(laidOut), options(options) {}

  /// Layer function `layer` in a module of its own (the model's attributes,
  /// its declarations and the layer, made public), its kernels decided
  /// with `tuningFile` ("": the cost model's), lowered and JIT-compiled;
  /// its inputs are seeded random values. Errors name the layer.
  llvm::Expected<std::unique_ptr<CompiledLayer>> compile(StringRef layer,
                                                         StringRef tuningFile);

private:
  ModuleOp laidOut;
  const CPUPipelineOptions &options;
};

} // namespace mlir::dlas

#endif // DLAS_TUNER_LAYERBENCH_H
