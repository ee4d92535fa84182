//===- FillPadBorders.cpp - the dlas-fill-pad-borders pass ----------------===//
//
// A bufferized tensor.pad fills its whole buffer, then copies the source
// into the interior. Where nothing reads the buffer between the two, only
// the border needs the fill (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Buffers.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_FILLPADBORDERS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// A fill of a whole buffer: what it writes and where.
struct WholeFill {
  Operation *op;
  Value value;
  Value buffer;
};

/// `op` as a fill of a fresh static buffer (a linalg.fill, or a linalg.map
/// without inputs whose body yields a value from outside it), if it is one.
std::optional<WholeFill> wholeFillOf(Operation *op) {
  Value value, buffer;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (!fill.hasPureBufferSemantics())
      return std::nullopt;
    value = fill.value();
    buffer = fill.output();
  } else if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.hasPureBufferSemantics() || !map.getInputs().empty())
      return std::nullopt;
    Value yielded = map.getBody()->getTerminator()->getOperand(0);
    if (map->isAncestor(yielded.getParentRegion()->getParentOp()))
      return std::nullopt;
    value = yielded;
    buffer = map.getInit();
  } else {
    return std::nullopt;
  }
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !buffer.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  return WholeFill{op, value, buffer};
}

/// The target of a copy (linalg.copy or memref.copy) and its source.
std::optional<std::pair<Value, Value>> copyOf(Operation *op) {
  if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
    if (!copy.hasPureBufferSemantics())
      return std::nullopt;
    return std::make_pair(copy.getInputs()[0], copy.getOutputs()[0]);
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return std::make_pair(copy.getSource(), copy.getTarget());
  return std::nullopt;
}

/// The static unit-stride subview of the buffer that the first op after
/// `fill` to access the buffer (through any view) copies into, if that op
/// is such a copy from elsewhere.
memref::SubViewOp interiorCopiedAfter(const WholeFill &fill) {
  llvm::SmallPtrSet<Value, 8> aliases = dlas::aliasesOf(fill.buffer);
  for (Operation *op = fill.op->getNextNode(); op; op = op->getNextNode()) {
    if (std::optional<std::pair<Value, Value>> copy = copyOf(op)) {
      auto [source, target] = *copy;
      auto subview = target.getDefiningOp<memref::SubViewOp>();
      if (!subview || subview.getSource() != fill.buffer ||
          aliases.contains(source) || !dlas::isStaticBox(subview))
        return nullptr;
      return subview;
    }
    // A view reads and writes nothing.
    if (isa<ViewLikeOpInterface>(op) && op->getNumRegions() == 0 &&
        isMemoryEffectFree(op))
      continue;
    if (dlas::touches(op, aliases))
      return nullptr;
  }
  return nullptr;
}

/// Fills `buffer` outside the box [offsets, offsets + sizes) with `value`:
/// per dim, the slabs before and after the box, the earlier dims limited
/// to the box and the later ones whole.
void fillComplement(OpBuilder &b, Location loc, Value value, Value buffer,
                    ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  auto fillSlab = [&](int64_t dim, int64_t begin, int64_t end) {
    if (begin >= end)
      return;
    SmallVector<int64_t> slabOffsets(rank, 0), slabSizes(shape);
    for (int64_t d = 0; d < dim; ++d) {
      slabOffsets[d] = offsets[d];
      slabSizes[d] = sizes[d];
    }
    slabOffsets[dim] = begin;
    slabSizes[dim] = end - begin;
    Value slab = memref::SubViewOp::create(b, loc, buffer, slabOffsets,
                                           slabSizes, strides);
    linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{slab});
  };
  for (int64_t d = 0; d < rank; ++d) {
    fillSlab(d, 0, offsets[d]);
    fillSlab(d, offsets[d] + sizes[d], shape[d]);
  }
}

struct FillPadBordersPass : dlas::impl::FillPadBordersBase<FillPadBordersPass> {
  void runOnOperation() override {
    SmallVector<WholeFill> fills;
    getOperation()->walk([&](Operation *op) {
      if (std::optional<WholeFill> fill = wholeFillOf(op))
        fills.push_back(*fill);
    });
    IRRewriter rewriter(&getContext());
    for (const WholeFill &fill : fills) {
      memref::SubViewOp interior = interiorCopiedAfter(fill);
      if (!interior)
        continue;
      rewriter.setInsertionPoint(fill.op);
      fillComplement(rewriter, fill.op->getLoc(), fill.value, fill.buffer,
                     interior.getStaticOffsets(), interior.getStaticSizes());
      rewriter.eraseOp(fill.op);
    }
  }
};
} // namespace
