//===- AffineParallelizeLarge.cpp - the dlas-affine-parallelize pass ------===//
//
// Upstream affine-parallelize, but only for loop nests with enough work to
// pay for an OpenMP region's fork and join (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_AFFINEPARALLELIZELARGE
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using affine::AffineForOp;

namespace {

/// The iterations of `loop`'s nest: its trip count times (one plus the
/// iterations of the nests directly inside it). Nullopt where some trip
/// count is not a constant.
std::optional<uint64_t> nestIterations(AffineForOp loop) {
  std::optional<uint64_t> trips = affine::getConstantTripCount(loop);
  if (!trips)
    return std::nullopt;
  uint64_t inner = 1;
  bool known = true;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](AffineForOp child) {
    std::optional<uint64_t> iterations = nestIterations(child);
    if (!iterations) {
      known = false;
      return WalkResult::interrupt();
    }
    inner = llvm::SaturatingAdd(inner, *iterations);
    return WalkResult::skip();
  });
  if (!known)
    return std::nullopt;
  return llvm::SaturatingMultiply(*trips, inner);
}

/// affine.parallel ops around `loop` up to its affine scope.
unsigned parallelAncestors(AffineForOp loop) {
  unsigned count = 0;
  for (Operation *op = loop->getParentOp();
       op && !op->hasTrait<OpTrait::AffineScope>(); op = op->getParentOp())
    count += isa<affine::AffineParallelOp>(op);
  return count;
}

struct AffineParallelizeLargePass
    : dlas::impl::AffineParallelizeLargeBase<AffineParallelizeLargePass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t floor = minIterations;
    if (floor < 0) {
      getOperation()->emitError("dlas-affine-parallelize: min-iterations must "
                                "be at least 0, got ")
          << floor;
      return signalPassFailure();
    }
    // Pre-order: outer loops first, so that max-nested counts the parallel
    // loops made around each candidate.
    SmallVector<AffineForOp> candidates;
    getOperation()->walk<WalkOrder::PreOrder>([&](AffineForOp loop) {
      if (!affine::isLoopParallel(loop))
        return;
      std::optional<uint64_t> iterations = nestIterations(loop);
      if (iterations && *iterations < static_cast<uint64_t>(floor)) {
        ++numTooSmall;
        return;
      }
      candidates.push_back(loop);
    });
    for (AffineForOp loop : candidates) {
      if (parallelAncestors(loop) >= maxNested)
        continue;
      // A loop the utility cannot convert stays sequential, as upstream.
      if (succeeded(affine::affineParallelize(loop)))
        ++numParallelized;
    }
  }
};

} // namespace
