//===- SeparateEmptyTensors.cpp - dlas-gpu-separate-empty-tensors ---------===//
//
// Undoes CSE's merging of tensor.empty ops before bufferization, so that
// layer outputs do not share buffers (see the pass description).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_GPUSEPARATEEMPTYTENSORS
#include "DLAS/Codegen/GPU/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {
struct GPUSeparateEmptyTensorsPass
    : dlas::impl::GPUSeparateEmptyTensorsBase<GPUSeparateEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared) {
      // Every use but the first gets a clone right before its user (the
      // dynamic sizes dominate the original, so they dominate there too).
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder builder(use->getOwner());
        use->set(builder.clone(*empty)->getResult(0));
      }
    }
  }
};
} // namespace
