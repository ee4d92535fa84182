//===- MemRefCopyToLinalg.cpp - the dlas-memref-copy-to-linalg pass -------===//
#include "DLAS/Transforms/Buffers.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALG
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {
struct MemRefCopyToLinalgPass
    : dlas::impl::MemRefCopyToLinalgBase<MemRefCopyToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    // Contiguous copies (a concatenation's inputs into their channel
    // ranges of an NCHW result, whole buffers) stay memref.copy: they
    // become memcpy, which is faster than the loops and leaves LLVM
    // nothing to vectorize (DenseNet-121's 58 concatenations were a
    // sixth of its LLVM dialect).
    getOperation()->walk([&](memref::CopyOp op) {
      if (!dlas::isContiguousMemRef(op.getSource().getType()) ||
          !dlas::isContiguousMemRef(op.getTarget().getType()))
        copies.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};
} // namespace
