//===- VectorizeReductions.cpp - the dlas-vectorize-reductions pass -------===//
//
// A reduction along the contiguous last dimension (softmax's maximum and
// sum, a reduce-mean over features, LayerNorm's moments) becomes, per output
// element, vector accumulators over the row, one horizontal reduction and a
// scalar tail. Left to LLVM, the loop is a chain of dependent scalar adds
// through the output buffer: floating-point reassociation is not allowed,
// so it neither vectorizes nor interleaves it (3136 rows of 96: 0.23 ms,
// where the vector form reads the 1.2 MB at memory speed). Upstream's
// linalg vectorizer would need the op tiled to vector-sized rows first and
// lowers the resulting vector.multi_reduction into one accumulator chain;
// this pass emits the independent accumulators an add's latency needs.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace mlir::dlas {
#define GEN_PASS_DEF_VECTORIZEREDUCTIONS
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// Independent accumulators per row: enough to cover an add's latency (3-4
/// cycles) at two vector adds a cycle without spilling.
constexpr int64_t kAccumulators = 4;

/// A reduction this pass rewrites: `combiner` folds `values` (computed
/// elementwise from the inputs) into the output: one value, or the two
/// factors of a `math.fma` that adds their product (a sum of squares).
struct InnerReduction {
  mutable linalg::GenericOp op;
  unsigned dim;   // the reduction loop
  int64_t extent; // its trip count
  Operation *combiner;
  vector::CombiningKind kind;
  double identity; // the combiner's neutral value
  SmallVector<Value, 2> values;
};

/// The vector combining kind and identity of `combiner`, or nullopt.
std::optional<std::pair<vector::CombiningKind, double>>
combiningKind(Operation *combiner) {
  double inf = std::numeric_limits<double>::infinity();
  return TypeSwitch<Operation *,
                    std::optional<std::pair<vector::CombiningKind, double>>>(
             combiner)
      .Case([](arith::AddFOp) {
        return std::pair(vector::CombiningKind::ADD, 0.0);
      })
      .Case([](arith::MulFOp) {
        return std::pair(vector::CombiningKind::MUL, 1.0);
      })
      .Case([&](arith::MaximumFOp) {
        return std::pair(vector::CombiningKind::MAXIMUMF, -inf);
      })
      .Case([&](arith::MinimumFOp) {
        return std::pair(vector::CombiningKind::MINIMUMF, inf);
      })
      .Case([&](arith::MaxNumFOp) {
        return std::pair(vector::CombiningKind::MAXNUMF, -inf);
      })
      .Case([&](arith::MinNumFOp) {
        return std::pair(vector::CombiningKind::MINNUMF, inf);
      })
      .Case([](math::FmaOp) {
        return std::pair(vector::CombiningKind::ADD, 0.0);
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `type` is a static f32 buffer whose innermost stride is 1.
bool isContiguousF32Buffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() == 0 ||
      !memref.getElementType().isF32())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// Whether the ops of `op`'s body other than the combiner and the yield
/// map elementwise over vectors: arith and math ops of scalars.
bool hasVectorizableBody(linalg::GenericOp op, Operation *combiner) {
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (&inner == combiner)
      continue;
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) ||
        inner.getNumRegions() != 0)
      return false;
    if (!isa<arith::ConstantOp>(inner) &&
        !OpTrait::hasElementwiseMappableTraits(&inner))
      return false;
    for (Type t : inner.getResultTypes())
      if (!t.isIntOrIndexOrFloat() || t.isIndex())
        return false;
  }
  return true;
}

/// Matches `op` as a reduction along its inputs' contiguous last dimension.
std::optional<InnerReduction> matchInnerReduction(linalg::GenericOp op,
                                                  int64_t vectorWidth) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.hasIndexSemantics())
    return std::nullopt;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned dim = reductions.front();
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap initMap = op.getMatchingIndexingMap(init);
  if (!isContiguousF32Buffer(init->get().getType()) ||
      !initMap.isProjectedPermutation() || initMap.isFunctionOfDim(dim))
    return std::nullopt;
  bool readsRows = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!isContiguousF32Buffer(input->get().getType()) ||
        !map.isProjectedPermutation())
      return std::nullopt;
    if (!map.isFunctionOfDim(dim))
      continue;
    // The reduced dim must be the input's innermost, contiguous one.
    if (map.getResult(map.getNumResults() - 1) !=
        getAffineDimExpr(dim, op.getContext()))
      return std::nullopt;
    readsRows = true;
  }
  int64_t extent = op.getStaticLoopRanges()[dim];
  if (!readsRows || ShapedType::isDynamic(extent) || extent < vectorWidth)
    return std::nullopt;
  // yield(combine(out, value)), `out` used by the combiner alone.
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  BlockArgument out = op.getMatchingBlockArgument(init);
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != op.getBody() || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combiner)
    return std::nullopt;
  std::optional<std::pair<vector::CombiningKind, double>> kind =
      combiningKind(combiner);
  if (!kind || !hasVectorizableBody(op, combiner))
    return std::nullopt;
  SmallVector<Value, 2> values;
  if (isa<math::FmaOp>(combiner)) {
    // out + a * b: the accumulator is the addend.
    if (combiner->getOperand(2) != out)
      return std::nullopt;
    values = {combiner->getOperand(0), combiner->getOperand(1)};
  } else {
    values = {combiner->getOperand(0) == out ? combiner->getOperand(1)
                                             : combiner->getOperand(0)};
  }
  if (llvm::is_contained(values, out))
    return std::nullopt;
  return InnerReduction{op,          dim,          extent, combiner,
                        kind->first, kind->second, values};
}

class Emitter {
public:
  Emitter(OpBuilder &b, const InnerReduction &r, int64_t vw, bool parallel)
      : b(b), loc(r.op.getLoc()), r(r), vw(vw), parallel(parallel) {}

  void emit() {
    SmallVector<int64_t> ranges = r.op.getStaticLoopRanges();
    SmallVector<unsigned> outer;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (d != r.dim)
        outer.push_back(d);
    dims.assign(ranges.size(), Value());
    nest(outer, 0, parallel, ranges);
  }

private:
  OpBuilder &b;
  Location loc;
  const InnerReduction &r;
  int64_t vw;
  bool parallel;
  /// The current value of every loop dim (the reduced one: its position).
  SmallVector<Value> dims;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Loops over the outer dims (the first with more than one iteration
  /// in parallel when asked), the row's reduction inside.
  void nest(ArrayRef<unsigned> outer, size_t at, bool parallelLeft,
            ArrayRef<int64_t> ranges) {
    if (at == outer.size())
      return reduceRow();
    unsigned d = outer[at];
    if (ranges[d] == 1) {
      dims[d] = index(0);
      return nest(outer, at + 1, parallelLeft, ranges);
    }
    auto body = [&](OpBuilder &nested, Location, ValueRange ivs) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(nested.getBlock());
      dims[d] = ivs[0];
      nest(outer, at + 1, false, ranges);
    };
    if (parallelLeft) {
      scf::ParallelOp::create(b, loc, ValueRange{index(0)},
                              ValueRange{index(ranges[d])},
                              ValueRange{index(1)}, body);
      return;
    }
    dlas::buildForLoop(b, loc, index(0), index(ranges[d]), 1, [&](Value iv) {
      dims[d] = iv;
      nest(outer, at + 1, false, ranges);
    });
  }

  SmallVector<Value> indicesOf(OpOperand *operand) {
    SmallVector<Value> result;
    for (AffineExpr e : r.op.getMatchingIndexingMap(operand).getResults())
      result.push_back(dims[cast<AffineDimExpr>(e).getPosition()]);
    return result;
  }

  /// The body's values the combiner folds, at position `k` of the row:
  /// `lanes` lanes (0: scalars) from the inputs, the body's ops cloned on
  /// them.
  SmallVector<Value, 2> bodyValues(Value k, int64_t lanes) {
    dims[r.dim] = k;
    IRMapping mapping;
    Block *body = r.op.getBody();
    for (OpOperand *input : r.op.getDpsInputOperands()) {
      Value buffer = input->get();
      bool row = r.op.getMatchingIndexingMap(input).isFunctionOfDim(r.dim);
      Value v;
      if (row && lanes) {
        v = vector::LoadOp::create(b, loc,
                                   VectorType::get({lanes}, b.getF32Type()),
                                   buffer, indicesOf(input));
      } else {
        v = memref::LoadOp::create(b, loc, buffer, indicesOf(input));
        if (lanes)
          v = vector::BroadcastOp::create(
              b, loc, VectorType::get({lanes}, v.getType()), v);
      }
      mapping.map(r.op.getMatchingBlockArgument(input), v);
    }
    // Values from outside the body, and constants, are scalars: a vector
    // op takes them broadcast (mapped to the broadcast from then on).
    auto vectorOperand = [&](Value v) -> Value {
      Value mapped = mapping.lookupOrDefault(v);
      if (!lanes || isa<VectorType>(mapped.getType()))
        return mapped;
      Value wide = vector::BroadcastOp::create(
          b, loc, VectorType::get({lanes}, mapped.getType()), mapped);
      mapping.map(v, wide);
      return wide;
    };
    for (Operation &inner : body->without_terminator()) {
      if (&inner == r.combiner)
        continue;
      if (isa<arith::ConstantOp>(inner) || !lanes) {
        b.clone(inner, mapping);
        continue;
      }
      // The op itself, on vectors: elementwise-mappable ops take any
      // shape of their scalar types.
      for (Value v : inner.getOperands())
        vectorOperand(v);
      Operation *clone = b.clone(inner, mapping);
      for (Value result : clone->getResults())
        result.setType(VectorType::get({lanes}, result.getType()));
    }
    SmallVector<Value, 2> result;
    for (Value v : r.values)
      result.push_back(vectorOperand(v));
    return result;
  }

  Value combine(Value acc, Value v) {
    return vector::makeArithReduction(b, loc, r.kind, acc, v);
  }

  /// `acc` with the body's values at `k` folded in.
  Value accumulate(Value acc, Value k, int64_t lanes) {
    SmallVector<Value, 2> values = bodyValues(k, lanes);
    if (isa<math::FmaOp>(r.combiner))
      return math::FmaOp::create(b, loc, values[0], values[1], acc);
    return combine(acc, values[0]);
  }

  /// Accumulates [lo, hi) in steps of `count` vectors into `accs`.
  SmallVector<Value> vectorLoop(int64_t lo, int64_t hi, ArrayRef<Value> accs) {
    int64_t step = accs.size() * vw;
    auto loop = scf::ForOp::create(
        b, loc, index(lo), index(hi), index(step), accs,
        [&](OpBuilder &nested, Location, Value k, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          SmallVector<Value> next;
          for (auto [j, acc] : llvm::enumerate(carried)) {
            Value at = arith::AddIOp::create(b, loc, k, index(j * vw));
            next.push_back(accumulate(acc, at, vw));
          }
          scf::YieldOp::create(b, loc, next);
        });
    return SmallVector<Value>(loop.getResults());
  }

  void reduceRow() {
    auto vecType = VectorType::get({vw}, b.getF32Type());
    Value identity = arith::ConstantOp::create(
        b, loc, vecType,
        DenseElementsAttr::get(vecType,
                               b.getF32FloatAttr(r.identity).getValue()));
    int64_t vectors = r.extent / vw;
    int64_t accs = std::min<int64_t>(kAccumulators, vectors);
    int64_t mainEnd = vectors / accs * accs * vw;
    SmallVector<Value> acc(accs, identity);
    acc = vectorLoop(0, mainEnd, acc);
    Value total = acc[0];
    for (Value other : ArrayRef<Value>(acc).drop_front())
      total = combine(total, other);
    if (mainEnd < vectors * vw)
      total = vectorLoop(mainEnd, vectors * vw, {total})[0];
    Value scalar =
        vector::ReductionOp::create(b, loc, r.kind, total).getResult();
    if (vectors * vw < r.extent) {
      auto tail = scf::ForOp::create(
          b, loc, index(vectors * vw), index(r.extent), index(1),
          ValueRange{scalar},
          [&](OpBuilder &nested, Location, Value k, ValueRange carried) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(nested.getBlock());
            scf::YieldOp::create(b, loc, accumulate(carried[0], k, 0));
          });
      scalar = tail.getResult(0);
    }
    OpOperand *init = r.op.getDpsInitOperand(0);
    SmallVector<Value> at = indicesOf(init);
    Value old = memref::LoadOp::create(b, loc, init->get(), at);
    memref::StoreOp::create(b, loc, combine(old, scalar), init->get(), at);
  }
};

struct VectorizeReductionsPass
    : dlas::impl::VectorizeReductionsBase<VectorizeReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t lanes = vectorWidth;
    if (lanes <= 0) {
      dlas::CPUTargetAttr target = dlas::lookupCPUTarget(getOperation());
      if (!target) {
        getOperation()->emitError()
            << "no target: set the module's '"
            << dlas::DLASDialect::kTargetAttrName
            << "' (dlas-attach-target, dlas-cpu-pipeline{target=...}) or "
               "give vector-width";
        return signalPassFailure();
      }
      lanes = target.lanes(32);
    }
    SmallVector<InnerReduction> found;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<InnerReduction> r = matchInnerReduction(op, lanes))
        found.push_back(*r);
    });
    for (const InnerReduction &r : found) {
      OpBuilder b(r.op);
      Emitter(b, r, lanes, parallel).emit();
      r.op->erase();
      ++numReductions;
    }
  }
};

} // namespace
