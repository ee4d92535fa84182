//===- QuantizeResiduals.cpp - the dlas-quantize-residuals pass -----------===//
//
// Residual adds read the dequantized i8 tensor that the next int8 layer
// quantizes anyway, so that the block's output is stored in i8 only (see
// Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_QUANTIZERESIDUALS
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nn;

namespace {

/// The per-tensor quantize with the largest scale among `value`'s users,
/// when every user is such a quantize or an nn.add and at least one add
/// reads `value`; null otherwise.
QuantizeOp widestQuantizeOfResidual(Value value) {
  QuantizeOp widest;
  bool readByAdd = false;
  for (Operation *user : value.getUsers()) {
    if (isa<AddOp>(user)) {
      readByAdd = true;
      continue;
    }
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || quantize.getScales().size() != 1)
      return nullptr;
    if (!widest || quantize.getScales()[0] > widest.getScales()[0])
      widest = quantize;
  }
  return readByAdd ? widest : nullptr;
}

struct QuantizeResidualsPass
    : nn::impl::QuantizeResidualsBase<QuantizeResidualsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Value, QuantizeOp>> residuals;
    getOperation()->walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (getElementTypeOrSelf(result.getType()).isF32())
          if (QuantizeOp widest = widestQuantizeOfResidual(result))
            residuals.emplace_back(result, widest);
    });
    DominanceInfo dominance(getOperation());
    for (auto [value, quantize] : residuals)
      rewireAdds(value, quantize, dominance);
  }

  /// Each nn.add reading `value` reads it dequantized from `quantize`.
  void rewireAdds(Value value, QuantizeOp quantize, DominanceInfo &dominance) {
    OpBuilder b(quantize.getContext());
    for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
      auto add = dyn_cast<AddOp>(use.getOwner());
      if (!add)
        continue;
      // The add reads the quantize's result now (the policy puts it
      // before the first layer that reads it, a block's first convolution,
      // which comes before the next block's add).
      if (!dominance.properlyDominates(quantize.getOperation(), add))
        continue;
      // Next to its add, so that dlas-outline-layers takes it into the
      // add's layer, where the kernel's epilogue dequantizes on the fly.
      b.setInsertionPoint(add);
      auto dequantize = DequantizeOp::create(
          b, add.getLoc(), value.getType(), quantize.getResult(),
          quantize.getScalesAttr(), quantize.getZeroPointsAttr(),
          quantize.getAxisAttr());
      use.set(dequantize.getResult());
      ++numRewired;
    }
  }
};
} // namespace
