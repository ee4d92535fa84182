//===- SplitMaskedStores.cpp - the dlas-split-masked-stores pass ----------===//
//
// A constant-mask vector store becomes unmasked stores of the lanes it
// enables, on targets whose masked stores are slow (vmaskmovps: about 14
// cycles each on AMD Zen 3) or absent (8- and 16-bit elements before
// AVX-512BW, which LLVM scalarizes). See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_SPLITMASKEDSTORES
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using mlir::dlas::CPUTargetAttr;

namespace {

/// The lanes [first, first + count) of a 1-D mask.
struct LaneRun {
  int64_t first = 0, count = 0;
};

/// The one run of lanes a constant 1-D `mask` enables (count 0 when it
/// enables none); nothing when the mask is not a constant or has gaps.
std::optional<LaneRun> constantLaneRun(Value mask) {
  auto type = dyn_cast<VectorType>(mask.getType());
  if (!type || type.getRank() != 1 || type.isScalable())
    return std::nullopt;
  int64_t lanes = type.getDimSize(0);
  if (auto constantMask = mask.getDefiningOp<vector::ConstantMaskOp>())
    return LaneRun{0, constantMask.getMaskDimSizes()[0]};
  if (auto createMask = mask.getDefiningOp<vector::CreateMaskOp>()) {
    std::optional<int64_t> bound =
        getConstantIntValue(createMask.getOperands()[0]);
    if (!bound)
      return std::nullopt;
    return LaneRun{0, std::clamp<int64_t>(*bound, 0, lanes)};
  }
  DenseIntElementsAttr bits;
  if (!matchPattern(mask, m_Constant(&bits)))
    return std::nullopt;
  // A splat's values iterate all its lanes too.
  SmallVector<bool> on = llvm::to_vector(bits.getValues<bool>());
  auto firstOn = llvm::find(on, true);
  if (firstOn == on.end())
    return LaneRun{0, 0};
  auto end = std::find(firstOn, on.end(), false);
  if (std::find(end, on.end(), true) != on.end())
    return std::nullopt; // a gap
  return LaneRun{firstOn - on.begin(), end - firstOn};
}

/// Replaces `store` by unmasked stores of the lanes in `run`, the largest
/// power-of-two piece first; returns how many it emitted.
int64_t storeLaneRun(vector::MaskedStoreOp store, LaneRun run) {
  OpBuilder b(store);
  Location loc = store.getLoc();
  Value value = store.getValueToStore();
  VectorType type = store.getVectorType();
  // bf16/f16 lanes move as i16: without AVX512-BF16 LLVM widens shuffles
  // of bf16 vectors to f32 and rounds back through __truncsfbf2, a call
  // the JIT cannot resolve.
  Type element = type.getElementType();
  bool asBits = element.isBF16() || element.isF16();
  if (asBits)
    value = arith::BitcastOp::create(b, loc, type.clone(b.getIntegerType(16)),
                                     value);
  SmallVector<Value> indices(store.getIndices());
  Value lastIndex = indices.back();
  int64_t pieces = 0;
  for (int64_t offset = run.first, left = run.count; left > 0; ++pieces) {
    int64_t size = llvm::bit_floor(static_cast<uint64_t>(left));
    Value piece = value;
    if (size != type.getDimSize(0))
      piece = vector::ExtractStridedSliceOp::create(b, loc, value, {offset},
                                                    {size}, {1});
    if (asBits)
      piece = arith::BitcastOp::create(b, loc, VectorType::get({size}, element),
                                       piece);
    indices.back() = lastIndex;
    if (offset != 0)
      indices.back() = arith::AddIOp::create(
          b, loc, lastIndex, arith::ConstantIndexOp::create(b, loc, offset));
    vector::StoreOp::create(b, loc, piece, store.getBase(), indices);
    offset += size;
    left -= size;
  }
  store.erase();
  return pieces;
}

struct SplitMaskedStoresPass
    : dlas::impl::SplitMaskedStoresBase<SplitMaskedStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    CPUTargetAttr target = dlas::lookupCPUTarget(getOperation());
    SmallVector<std::pair<vector::MaskedStoreOp, LaneRun>> stores;
    getOperation()->walk([&](vector::MaskedStoreOp store) {
      if (dlas::hasFastMaskedMoves(target,
                                   store.getVectorType().getElementType()))
        return;
      if (std::optional<LaneRun> run = constantLaneRun(store.getMask()))
        stores.push_back({store, *run});
    });
    for (auto [store, run] : stores) {
      numPieces += storeLaneRun(store, run);
      ++numSplit;
    }
  }
};

} // namespace
