//===- GemmContraction.h - dlas-gemm-microkernel internals ------*- C++ -*-===//
//
// The contraction dlas-gemm-microkernel matches and the neighbours it folds
// into its kernel (GemmNeighbours.cpp), shared by the pass's files.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_LIB_CODEGEN_CPU_GEMMCONTRACTION_H
#define DLAS_LIB_CODEGEN_CPU_GEMMCONTRACTION_H

#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"

namespace mlir::dlas::gemm {

/// A contraction C[..m..n] += A[m, k...] * B[.., n + f(k...)] (see
/// Passes.td), with the roles of its loop dimensions.
struct Gemm {
  mutable linalg::LinalgOp op;
  OpOperand *a, *b, *c;
  unsigned m, n;
  SmallVector<unsigned> k; // reduction dims, in A's order
  SmallVector<unsigned> batch;
  /// Batch dims A is indexed by too (a grouped convolution's group), in
  /// A's order: A is packed per value of them.
  SmallVector<unsigned> aBatch;
  SmallVector<int64_t> ranges;
  int64_t sizeM, sizeN, sizeK;
  /// B's rows may jump: B[.., n + (n floordiv rowWidth) * rowSkip + f(k)]
  /// (a compact flat convolution: output row n / OW reads the padded input
  /// row, Wp - OW further on per row). 0: B's rows are contiguous in n.
  int64_t rowWidth = 0, rowSkip = 0;
};

/// A buffer the kernel reads at its tile's positions: `map` takes the
/// contraction's loop dims to the buffer's indices. It never involves k;
/// when it involves n, n is its last result and the read is a vector.
struct TileRead {
  Value buffer;
  AffineMap map;
  /// The buffer has the uncollapsed output's shape: the kernel reads it
  /// through a collapse_shape like C's (`view`, made at emission).
  bool collapse = false;
  Value view;
};

/// What a kernel folds around its contraction: the one write that
/// initializes C and the elementwise ops that consume C after it, so that
/// C is written once, from registers, with its final values.
struct Neighbours {
  /// The buffer C views through one collapse_shape (or C itself): the
  /// folded ops index it; `groups` list its dims in each dim of C.
  Value full;
  memref::CollapseShapeOp cView;
  SmallVector<ReassociationIndices> groups;
  /// A linalg.fill (`initValue`) or linalg.broadcast (`initRead`) of full.
  Operation *init = nullptr;
  Value initValue;
  std::optional<TileRead> initRead;
  /// Further ops the init folds away, in erasure order (a flat
  /// convolution's padded init: the copy into full, the source's write).
  SmallVector<Operation *> initDead;
  /// Elementwise generics in order; per input, how it is read (nullopt:
  /// the running value).
  SmallVector<linalg::GenericOp> epilogues;
  SmallVector<SmallVector<std::optional<TileRead>>> epilogueReads;
  /// The full-shaped buffer the final values go to, and C's view of it.
  Value result, resultView;
};

/// C's init and the chain of elementwise ops that follows the contraction
/// up to the first op that could observe or change memory; with a
/// `decision` (made on tensors), no more than it decided, and a warning
/// when fewer are found.
Neighbours findNeighbours(const Gemm &g, DominanceInfo &dom,
                          MicrokernelAttr decision = {});

/// Builds, before the contraction, the collapsed views the kernel reads and
/// writes through, and moves the result's allocation above it.
void prepareViews(OpBuilder &b, const Gemm &g, Neighbours &nb);

/// The epilogues of `nb` applied to accumulator `acc` (a vector of `width`
/// lanes); `read` gives an epilogue input's vector at acc's position.
Value applyEpilogues(OpBuilder &b, Location loc, const Neighbours &nb,
                     Value acc, int64_t width,
                     function_ref<Value(const TileRead &)> read);

} // namespace mlir::dlas::gemm

#endif // DLAS_LIB_CODEGEN_CPU_GEMMCONTRACTION_H
