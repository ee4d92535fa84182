//===- NestedDynamicLinalgToLoops.cpp - dlas-nested-dynamic-linalg-to-loops ===//
//
// Linalg ops whose run-time sizes are not valid affine dimensions (nested
// in an scf loop) become scf loops before the affine lowering (see
// Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_NESTEDDYNAMICLINALGTOLOOPS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// Whether an operand of `op` has a size known only at run time.
bool hasDynamicSizes(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  });
}

/// Whether the affine lowering may not take `op`: on buffers, with
/// run-time sizes, and not at the top of its function (where the buffers
/// it reads the sizes of are defined in a loop, a branch or a region of
/// their own).
bool needsScfLoops(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() && hasDynamicSizes(op) &&
         !isa<FunctionOpInterface>(op->getParentOp());
}

struct NestedDynamicLinalgToLoopsPass
    : dlas::impl::NestedDynamicLinalgToLoopsBase<
          NestedDynamicLinalgToLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (needsScfLoops(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToLoops(rewriter, op))) {
        op->emitError("cannot lower this op with run-time sizes to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
