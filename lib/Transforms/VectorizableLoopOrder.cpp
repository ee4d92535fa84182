//===- VectorizableLoopOrder.cpp - the dlas-vectorizable-loop-order pass --===//
#include "DLAS/Transforms/LoopOrder.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_VECTORIZABLELOOPORDER
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// The loop order that makes the output's contiguous dimension innermost,
/// reductions just outside it; empty when there is nothing to gain.
SmallVector<unsigned> vectorizableOrder(linalg::LinalgOp op,
                                         int64_t maxInnerReduction) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return {};
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outputMap.getNumResults() == 0)
    return {};
  auto last = dyn_cast<AffineDimExpr>(outputMap.getResults().back());
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (!last || iterators[last.getPosition()] != utils::IteratorType::parallel)
    return {};
  unsigned inner = last.getPosition();
  // Worth it only if some input is also contiguous along that loop (not,
  // say, a row reduction, whose input runs along the reduced loop).
  bool contiguousInput = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    AffineMap map = op.getMatchingIndexingMap(in);
    return map.getNumResults() > 0 &&
           map.getResults().back().isFunctionOfDim(inner);
  });
  if (!contiguousInput)
    return {};
  // Short reductions (convolution windows) go inside the contiguous loop:
  // LLVM unrolls them fully, then vectorizes the contiguous loop with the
  // window's products summed in registers (one load/store of the output
  // per window instead of per product).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto isShortReduction = [&](unsigned d) {
    return iterators[d] == utils::IteratorType::reduction &&
           !ShapedType::isDynamic(ranges[d]) && ranges[d] <= maxInnerReduction;
  };
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (d != inner && iterators[d] == utils::IteratorType::parallel)
      order.push_back(d);
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::reduction && !isShortReduction(d))
      order.push_back(d);
  order.push_back(inner);
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (isShortReduction(d))
      order.push_back(d);
  bool identity = llvm::all_of(llvm::enumerate(order), [](auto p) {
    return p.index() == p.value();
  });
  return identity ? SmallVector<unsigned>{} : order;
}

struct VectorizableLoopOrderPass
    : dlas::impl::VectorizableLoopOrderBase<VectorizableLoopOrderPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<unsigned> order = vectorizableOrder(op, maxInnerReduction);
      if (order.empty())
        continue;
      if (succeeded(dlas::interchangeLoops(rewriter, op, order)))
        ++numReordered;
    }
  }
};
} // namespace
