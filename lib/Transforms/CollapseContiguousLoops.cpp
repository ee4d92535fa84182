//===- CollapseContiguousLoops.cpp - dlas-collapse-contiguous-loops -------===//
#include "DLAS/Dialect/DLAS/DLASDialect.h"
#include "DLAS/Transforms/Buffers.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_COLLAPSECONTIGUOUSLOOPS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// Operands a collapse_shape views in the same order: contiguous buffers
/// and scalars.
bool isCollapsibleOperand(Type type) {
  return isa<ShapedType>(type) ? dlas::isContiguousMemRef(type) : true;
}

/// The op's loops grouped into maximal runs that one loop can walk, or an
/// empty list when nothing merges.
SmallVector<ReassociationIndices> contiguousLoopRuns(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.hasIndexSemantics() ||
      op->hasAttr(dlas::DLASDialect::kLoweringAttrName))
    return {};
  if (!llvm::all_of(op->getOperandTypes(), isCollapsibleOperand))
    return {};
  // Strided windows (d4 * 2 + d2) and other affine expressions do not
  // collapse; upstream asserts on them.
  if (!op.hasOnlyProjectedPermutations())
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<ReassociationIndices> runs;
  bool merged = false;
  for (unsigned d = 0; d < iterators.size(); ++d) {
    if (!runs.empty() && iterators[runs.back().front()] == iterators[d]) {
      ReassociationIndices longer = runs.back();
      longer.push_back(d);
      if (linalg::areDimSequencesPreserved(maps, {longer})) {
        runs.back() = longer;
        merged = true;
        continue;
      }
    }
    runs.push_back({static_cast<int64_t>(d)});
  }
  if (!merged)
    return {};
  return runs;
}

struct CollapseContiguousLoopsPass
    : dlas::impl::CollapseContiguousLoopsBase<CollapseContiguousLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<ReassociationIndices>>>
        ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (SmallVector<ReassociationIndices> runs = contiguousLoopRuns(op);
          !runs.empty())
        ops.push_back({op, std::move(runs)});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, runs] : ops) {
      rewriter.setInsertionPoint(op);
      // collapseOpIterationDims takes generics and copies only.
      if (!isa<linalg::GenericOp, linalg::CopyOp>(op.getOperation())) {
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic))
          continue;
        op = *generic;
      }
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, runs, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
      ++numCollapsed;
    }
  }
};

} // namespace
