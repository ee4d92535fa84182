//===- LowerDynamicExpandShapes.cpp - dlas-lower-dynamic-expand-shapes ----===//
//
// memref.expand_shape ops that split one dimension into several run-time
// sizes become memref.reinterpret_cast, which upstream
// expand-strided-metadata cannot do for them (it allows one run-time size
// per group and crashes on more). See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_LOWERDYNAMICEXPANDSHAPES
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// True when some reassociation group of `op` holds two or more run-time
/// sizes.
bool splitsIntoSeveralRunTimeSizes(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(), [&](const auto &group) {
    return llvm::count_if(
               group, [&](int64_t dim) { return type.isDynamicDim(dim); }) > 1;
  });
}

/// `lhs * rhs`, folded when both are constants.
OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r)
    return b.getIndexAttr(*l * *r);
  if (l == 1)
    return rhs;
  if (r == 1)
    return lhs;
  return arith::MulIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, lhs),
                               getValueOrCreateConstantIndexOp(b, loc, rhs))
      .getResult();
}

/// `op` as a reinterpret_cast of its source's base buffer: the sizes are
/// the op's output_shape; within a group, each dimension's stride is the
/// source dimension's stride times the sizes after it. Where the result
/// type states a stride or the offset, the cast states the same constant
/// (the verifier compares them).
void lowerToReinterpretCast(RewriterBase &rewriter, memref::ExpandShapeOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto metadata =
      memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
  auto [sourceStrides, sourceOffset] = op.getSrcType().getStridesAndOffset();
  MemRefType resultType = op.getResultType();
  auto [resultStrides, resultOffset] = resultType.getStridesAndOffset();

  SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
  SmallVector<OpFoldResult> strides(resultType.getRank());
  for (auto [sourceDim, group] :
       llvm::enumerate(op.getReassociationIndices())) {
    OpFoldResult stride = ShapedType::isDynamic(sourceStrides[sourceDim])
                              ? OpFoldResult(metadata.getStrides()[sourceDim])
                              : rewriter.getIndexAttr(sourceStrides[sourceDim]);
    for (int64_t i = group.size() - 1; i >= 0; --i) {
      if (i + 1 < (int64_t)group.size())
        stride = multiply(rewriter, loc, stride, sizes[group[i + 1]]);
      int64_t dim = group[i];
      strides[dim] = ShapedType::isDynamic(resultStrides[dim])
                         ? stride
                         : rewriter.getIndexAttr(resultStrides[dim]);
    }
  }
  OpFoldResult offset = ShapedType::isDynamic(resultOffset)
                            ? OpFoldResult(metadata.getOffset())
                            : rewriter.getIndexAttr(resultOffset);
  rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
      op, resultType, metadata.getBaseBuffer(), offset, sizes, strides);
}

struct LowerDynamicExpandShapesPass
    : dlas::impl::LowerDynamicExpandShapesBase<LowerDynamicExpandShapesPass> {
  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation()->walk([&](memref::ExpandShapeOp op) {
      if (splitsIntoSeveralRunTimeSizes(op))
        expands.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (memref::ExpandShapeOp op : expands)
      lowerToReinterpretCast(rewriter, op);
  }
};

} // namespace
