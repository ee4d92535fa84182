//===- LoopOrder.h - reorder a linalg op's loops ----------------*- C++ -*-===//
#ifndef DLAS_TRANSFORMS_LOOPORDER_H
#define DLAS_TRANSFORMS_LOOPORDER_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {

/// `op` with its loops in `order` (position -> `op`'s loop; upstream's
/// interchangeGenericOp convention): a named op becomes a linalg.generic
/// first, since only generics can be interchanged. Fails (without a
/// diagnostic) when upstream cannot generalize or interchange it.
inline FailureOr<linalg::GenericOp>
interchangeLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                 ArrayRef<unsigned> order) {
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  return linalg::interchangeGenericOp(rewriter, generic, order);
}

} // namespace mlir::dlas

#endif // DLAS_TRANSFORMS_LOOPORDER_H
