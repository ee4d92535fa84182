//===- InitAllPasses.h - register every DLAS pass and pipeline --*- C++ -*-===//
#ifndef DLAS_INITALLPASSES_H
#define DLAS_INITALLPASSES_H

#include "DLAS/Codegen/GPU/Passes.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Conversion/Passes.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"
#include "DLAS/Dialect/Sparse/Transforms/Passes.h"
#include "DLAS/Pipelines/Pipelines.h"
#include "DLAS/Transforms/Passes.h"

namespace mlir::dlas {
inline void registerAllPasses() {
  registerDLASCodegenPasses();
  registerDLASCodegenGPUPasses();
  registerDLASConversionPasses();
  nn::registerNNTransformsPasses();
  sparse::registerSparseTransformsPasses();
  registerDLASTransformsPasses();
  registerDLASPipelines();
}
} // namespace mlir::dlas

#endif // DLAS_INITALLPASSES_H
