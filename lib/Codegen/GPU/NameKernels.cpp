//===- NameKernels.cpp - the dlas-gpu-name-kernels pass --------------------===//
//
// Names each gpu.launch after the layer dlas-gpu-map-kernels recorded for
// it, so that outlined kernels (and the runtime's profile labels) say which
// layer they compute, and puts a function's kernels in one module.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_GPUNAMEKERNELS
#include "DLAS/Codegen/GPU/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

namespace {
struct GPUNameKernelsPass
    : dlas::impl::GPUNameKernelsBase<GPUNameKernelsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation().walk([&](func::FuncOp func) {
      auto names = func->getAttrOfType<ArrayAttr>(kGPUKernelNamesAttrName);
      if (!names)
        return;
      func->removeAttr(kGPUKernelNamesAttrName);
      SmallVector<gpu::LaunchOp> launches;
      func.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
      if (launches.empty())
        return;
      if (launches.size() != names.size()) {
        func.emitWarning() << "dlas-gpu-name-kernels: " << launches.size()
                           << " kernels for " << names.size()
                           << " recorded layers; the kernels keep "
                              "outlining's names";
        return;
      }
      // One module for the function's kernels: one binary to build and
      // one to load.
      auto module = FlatSymbolRefAttr::get(
          context, (func.getName() + "_kernels").str());
      for (auto [index, launch, name] : llvm::enumerate(
               launches, names.getAsValueRange<StringAttr>())) {
        launch.setModuleAttr(module);
        launch.setFunctionAttr(FlatSymbolRefAttr::get(
            context, (name + "_" + Twine(index)).str()));
      }
    });
  }
};
} // namespace
