//===- GemmMicrokernel.cpp - the dlas-gemm-microkernel pass ---------------===//
//
// Lowers GEMM-shaped contractions on memrefs to packed, cache-blocked,
// register-blocked vector microkernels (see Passes.td for the scheme).
//
// A hand-built register tile rather than upstream's lowering: on sgemm 1024
// for x86-64-v3 (1 thread, Zen 5 host) this kernel runs 21.4 ms (100
// GFLOP/s, 91% of the AVX2 peak) where upstream's loops (linalg to affine,
// LLVM's vectorizer, dlas-cpu-pipeline microkernels=false) run 52.4 ms.
// Upstream's data tiling (linalg.pack to M0 x 1 / N0 x 1 tiles, linalg.mmt4d
// vectorized to vector.contract and lowered to outer products, its best
// tile per target; bench/upstream_mmt4d.py, results in
// bench/results/2026-11-24-upstream-mmt4d.md) comes close on a bare sgemm
// but not level: v3 1024 28.6 ms (4x16) against 25.6, 1536 82.3 ms (6x16)
// against 81.4; v4 1024 14.4 ms (8x32) against 13.1, 1536 45.8 against
// 41.8 (1.01-1.16x). What keeps this kernel besides the margin: it folds
// the init and the elementwise epilogue into the tile, packs constant
// weights at compile time, blocks for the caches and splits the work
// across threads, none of which that path does.
//
//===----------------------------------------------------------------------===//
#include "GemmContraction.h"
#include "Decisions.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Support/ConstantData.h"
#include "DLAS/Codegen/TuningFile.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/bit.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <cstring>

namespace mlir::dlas {
#define GEN_PASS_DEF_GEMMMICROKERNEL
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using mlir::dlas::DecisionSource;
using mlir::dlas::GemmPins;
using mlir::dlas::Int8Multiply;
using mlir::dlas::constantBytes;
using mlir::dlas::globalBehindReshapes;
using mlir::dlas::constantGlobalValue;
using mlir::dlas::createConstantGlobal;
using mlir::dlas::isContiguousF32;
using mlir::dlas::isMultiplyAccumulate;
using mlir::dlas::KernelTypes;
using mlir::dlas::MicrokernelAttr;
using mlir::dlas::MicrokernelKind;
using mlir::dlas::TargetShape;
using mlir::dlas::TensorFusion;
using mlir::dlas::TuningTable;
using namespace mlir::dlas::gemm;

namespace {

/// Name of the per-op parameter override.
constexpr llvm::StringLiteral kGemmTilesAttrName = "dlas.gemm_tiles";
/// The tuning file's section for this pass.
constexpr llvm::StringLiteral kTuningSection = "gemm";

/// From how many bytes of A packed per call (quads from vector loads) the
/// threads share the packing.
constexpr int64_t kMinParallelPackBytes = 64 * 1024;

/// From how many batches a batched GEMM with B packed gives its threads
/// whole batches (Winograd's 16 or 36 positions, 16+ groups): enough that
/// a few threads divide them nearly evenly.
constexpr int64_t kMinThreadBatches = 16;

struct KernelParams {
  int64_t m0, vectors, kc, mc;
  /// Copy B into contiguous column-tile panels per k block.
  bool packB;
  /// How the threads share the work (`automatic`: from the tile and panel
  /// counts, in emit()).
  dlas::ThreadSplit split = dlas::ThreadSplit::automatic;
  /// Column tiles per B block (BLIS's nc): a kc x nc slice of B, an eighth
  /// of L2, stays there next to the A block (half of L2) across the row
  /// blocks. Derived from kc after the overrides (a quarter and a half of
  /// L2 measured 10% and 35% slower on sgemm 2048).
  int64_t ncTiles = 1;
};

/// Matches `op` as a Gemm; on failure `why` says what does not fit.
FailureOr<Gemm> matchGemm(linalg::LinalgOp op, std::string &why) {
  auto reject = [&](StringRef reason) {
    why = reason.str();
    return failure();
  };
  if (!(op.hasPureBufferSemantics() || op.hasPureTensorSemantics()) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return reject("not a two-input, one-output op");
  // f32 accumulators; operands of f32, or bf16/f16 widened on load.
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type || !type.hasStaticShape())
      return reject("needs static operands");
  }
  Type lhsType = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  Type rhsType = getElementTypeOrSelf(op.getDpsInputOperand(1)->get());
  Type outType = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (lhsType != rhsType || !dlas::isKernelInputType(lhsType) ||
      outType != dlas::kernelAccumulatorType(lhsType))
    return reject("needs f32, bf16 or f16 inputs of one type with an f32 "
                  "output, or i8 inputs with an i32 output");
  if (!isMultiplyAccumulate(op))
    return reject("body is not out + lhs * rhs");
  Gemm g;
  g.op = op;
  g.c = op.getDpsInitOperand(0);
  g.ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  MLIRContext *ctx = op->getContext();
  unsigned numLoops = op.getNumLoops();
  AffineMap cMap = op.getMatchingIndexingMap(g.c);
  if (!cMap.isProjectedPermutation() || cMap.getNumResults() == 0)
    return reject("output map is not a projected permutation");
  g.n = cMap.getDimPosition(cMap.getNumResults() - 1);
  if (!dlas::isContiguous(g.c->get()))
    return reject("output is not contiguous");

  // B is the input whose last index moves with n.
  OpOperand *in0 = op.getDpsInputOperand(0), *in1 = op.getDpsInputOperand(1);
  auto involvesN = [&](OpOperand *o) {
    return llvm::any_of(op.getMatchingIndexingMap(o).getResults(),
                        [&](AffineExpr e) { return e.isFunctionOfDim(g.n); });
  };
  if (involvesN(in0) == involvesN(in1))
    return reject("exactly one input must run along the output's last dim");
  g.b = involvesN(in0) ? in0 : in1;
  g.a = g.b == in0 ? in1 : in0;
  if (!dlas::isContiguous(g.b->get()))
    return reject("the streamed input is not contiguous");
  AffineMap bMap = op.getMatchingIndexingMap(g.b);
  AffineExpr nExpr = getAffineDimExpr(g.n, ctx);
  AffineExpr bLast = bMap.getResults().back();
  AffineExpr offset = simplifyAffineExpr(bLast - nExpr, numLoops, 0);
  // A row jump (n floordiv W) * S, as a compact flat convolution has: W
  // from the floordiv, S the offset's step from n = 0 to n = W (other dims
  // at 0); whatever the form, what remains must not involve n.
  offset.walk([&](AffineExpr e) {
    auto div = dyn_cast<AffineBinaryOpExpr>(e);
    if (!div || div.getKind() != AffineExprKind::FloorDiv ||
        div.getLHS() != nExpr)
      return;
    if (auto width = dyn_cast<AffineConstantExpr>(div.getRHS());
        width && width.getValue() > 0)
      g.rowWidth = width.getValue();
  });
  if (g.rowWidth) {
    auto offsetAt = [&](int64_t nValue) -> std::optional<int64_t> {
      SmallVector<AffineExpr> dims(numLoops, getAffineConstantExpr(0, ctx));
      dims[g.n] = getAffineConstantExpr(nValue, ctx);
      auto value = dyn_cast<AffineConstantExpr>(
          simplifyAffineExpr(offset.replaceDims(dims), numLoops, 0));
      return value ? std::optional<int64_t>(value.getValue()) : std::nullopt;
    };
    std::optional<int64_t> first = offsetAt(0), next = offsetAt(g.rowWidth);
    g.rowSkip = first && next ? *next - *first : 0;
    if (g.rowSkip > 0)
      offset = simplifyAffineExpr(
          offset - nExpr.floorDiv(g.rowWidth) * g.rowSkip, numLoops, 0);
    else
      g.rowWidth = g.rowSkip = 0;
  }
  if (!bLast.isFunctionOfDim(g.n) || offset.isFunctionOfDim(g.n))
    return reject("the streamed input's last index is not n + offset");
  for (AffineExpr e : bMap.getResults().drop_back())
    if (e.isFunctionOfDim(g.n))
      return reject("the streamed input moves with n in an outer dim");

  // A: every reduction dim, and parallel dims of C: m, the last of them
  // that B does not read, and batch dims before it (a grouped
  // convolution's group, which B reads too).
  AffineMap aMap = op.getMatchingIndexingMap(g.a);
  if (!aMap.isProjectedPermutation())
    return reject("the packed input's map is not a projected permutation");
  std::optional<unsigned> m;
  SmallVector<unsigned> aParallel;
  for (unsigned p = 0; p < aMap.getNumResults(); ++p) {
    unsigned d = aMap.getDimPosition(p);
    if (iterators[d] == utils::IteratorType::reduction)
      g.k.push_back(d);
    else
      aParallel.push_back(d);
  }
  for (unsigned d : aParallel)
    if (!bMap.isFunctionOfDim(d))
      m = d;
  if (!m || !cMap.isFunctionOfDim(*m))
    return reject("no m dim shared by the packed input and the output only");
  for (unsigned d : aParallel) {
    if (d == *m)
      continue;
    if (!cMap.isFunctionOfDim(d) || !bMap.isFunctionOfDim(d))
      return reject("the packed input has a parallel dim that is not a "
                    "batch dim of the output and the streamed input");
    g.aBatch.push_back(d);
  }
  g.m = *m;
  if (g.k.size() != op.getNumReductionLoops() || g.k.empty())
    return reject("the packed input must hold every reduction dim");
  for (unsigned d = 0; d < numLoops; ++d) {
    if (iterators[d] != utils::IteratorType::parallel || d == g.m || d == g.n)
      continue;
    if (!cMap.isFunctionOfDim(d))
      return reject("a parallel dim missing from the output");
    g.batch.push_back(d);
  }
  g.sizeM = g.ranges[g.m];
  g.sizeN = g.ranges[g.n];
  g.sizeK = 1;
  for (unsigned d : g.k)
    g.sizeK *= g.ranges[d];
  return g;
}

/// Values of the outermost k dim per k block (the kernels' k loop), at
/// least one; `kc` counts k values of all k dims.
int64_t innerK(const Gemm &g) { return g.sizeK / g.ranges[g.k[0]]; }
int64_t kBlockOuter(const Gemm &g, const KernelParams &p) {
  return std::max<int64_t>(1, p.kc / innerK(g));
}
int64_t kBlocks(const Gemm &g, const KernelParams &p) {
  return llvm::divideCeil(g.ranges[g.k[0]], kBlockOuter(g, p));
}

/// Whether a compact flat B's rows are whole vectors: the kernel's column
/// vectors start at multiples of the vector width, so each then lies in
/// one row and loads as a plain vector.
bool rowsOfWholeVectors(const Gemm &g, int64_t vectorWidth) {
  return g.rowWidth && g.rowWidth % vectorWidth == 0;
}

/// Masked loads per B vector of a compact flat B (1 otherwise): a vector
/// of `vectorWidth` lanes starting anywhere in a row of rowWidth touches at
/// most this many rows.
int64_t rowSegments(const Gemm &g, int64_t vectorWidth) {
  return g.rowWidth && !rowsOfWholeVectors(g, vectorWidth)
             ? 1 + llvm::divideCeil(vectorWidth - 1, g.rowWidth)
             : 1;
}

/// The tuning-file key of a contraction: "m<M>_n<N>_k<K>", prefixed by
/// "b<B>_" when batch dims (groups, Winograd tiles) repeat it B times.
std::string shapeKey(const Gemm &g) {
  int64_t batches = 1;
  for (unsigned d : g.batch)
    batches *= g.ranges[d];
  std::string key;
  llvm::raw_string_ostream os(key);
  if (batches > 1)
    os << "b" << batches << "_";
  os << "m" << g.sizeM << "_n" << g.sizeN << "_k" << g.sizeK;
  return key;
}

/// Bytes of an element of the packed operand A (and of B).
int64_t elementBytes(const Gemm &g) {
  return getElementTypeOrSelf(g.a->get().getType()).getIntOrFloatBitWidth() /
         8;
}

/// Vector registers a tile leaves free where B is read in place on a
/// 16-register target (see chooseParams). Measured on Zen 3 (x86-64-v3, 1
/// thread, min of 300 runs), flat 3x3 convolutions: 40->80 channels at
/// 56x56 4x24 2.36-2.41 ms, 6x16 (15 registers) 2.34-2.38, 5x16 (13)
/// 2.26, 3x24 (13) 2.30, 4x16 (11) 2.21; 60->120 at 28x28 4x24 1.36-1.40,
/// 3x24 1.28, 4x16 1.23-1.25; 4-channel groups (M = 4, 64 channels, 56x56)
/// 4x24 0.25, 4x16 0.23; 2-channel groups (M = 2) 2x32 (13) 0.031, 2x24
/// 0.042. The tuner had found 4x16 over 4x24 on googlenet's and
/// mobilenet_v2's flat layers (5-14%,
/// bench/results/2026-11-27-x86-64-v3-tuning.md).
constexpr int64_t kInPlaceBSpareRegisters = 3;

/// The heuristic: the register tile with the fewest estimated cycles per
/// unit of k over the whole (padded) problem. Per k a tile of m0 rows and
/// `vectors` vectors issues m0 * vectors FMAs and m0 + vectors loads; with
/// two FMA and two load ports it takes the larger half of either. Among
/// the tiles within 3% of the cheapest, the one with the fewest loads per
/// FMA wins (at N = 49 the estimates of 5x4, 6x4 and 12x2 differ by 0.2%
/// and 5x4, the cheapest, measured 10-15% slower than the other two).
/// `extraRegisters`: vector registers the kernel's multiply needs beyond
/// the tile, its B vectors and a broadcast (vpmaddubsw pairs: the i16
/// products); `maxVectors`: the widest tile in vectors.
///
/// `bInPlace`: B is read where it lies (a flat convolution's shifted
/// rows), not from packed panels. On a 16-register target LLVM then loads
/// the next k step's B vectors ahead of the current step's FMAs, and a
/// tile that leaves no room for them spills: the 4x24 tile of a grouped
/// flat convolution stored and reloaded a B vector every k step
/// (x86-64-v3 assembly). Such a tile leaves kInPlaceBSpareRegisters free.
KernelParams chooseParams(const Gemm &g, const TargetShape &t,
                          int64_t extraRegisters, int64_t maxVectors,
                          bool bInPlace) {
  struct Candidate {
    int64_t m0, vectors;
    double cost, loadRatio;
  };
  SmallVector<Candidate> candidates;
  double cheapest = std::numeric_limits<double>::max();
  for (int64_t vectors = 1; vectors <= maxVectors; ++vectors) {
    for (int64_t m0 = 1; m0 <= 16; ++m0) {
      int64_t aheadRegisters =
          bInPlace && t.vectorRegisters <= 16 ? kInPlaceBSpareRegisters : 0;
      if (m0 * vectors + vectors + 1 + extraRegisters + aheadRegisters >
          t.vectorRegisters)
        break;
      double tiles = llvm::divideCeil(g.sizeN, vectors * t.vectorWidth) *
                     llvm::divideCeil(g.sizeM, m0);
      int64_t loads = m0 + vectors * rowSegments(g, t.vectorWidth);
      double cycles = std::max(m0 * vectors, loads) / 2.0;
      double loadRatio = double(loads) / double(m0 * vectors);
      candidates.push_back({m0, vectors, tiles * cycles, loadRatio});
      cheapest = std::min(cheapest, tiles * cycles);
    }
  }
  KernelParams best{1, 1, 1, 1, false};
  double bestLoadRatio = std::numeric_limits<double>::max();
  for (const Candidate &c : candidates) {
    if (c.cost > cheapest * 1.03 || c.loadRatio >= bestLoadRatio)
      continue;
    best.m0 = c.m0;
    best.vectors = c.vectors;
    bestLoadRatio = c.loadRatio;
  }
  // The B micro-panel (kc rows of n0 floats) fills half of L1; the A block
  // (mc rows of kc floats) half of L2.
  int64_t n0 = best.vectors * t.vectorWidth;
  int64_t bytes = elementBytes(g);
  best.kc = std::clamp<int64_t>(t.l1Bytes / 2 / (n0 * bytes), 16, g.sizeK);
  best.mc = std::max<int64_t>(best.m0, (t.l2Bytes / 2 / (best.kc * bytes)) /
                                           best.m0 * best.m0);
  // Copying B into contiguous panels was measured (bench/results) to cost
  // more than it saves up to 2048^3 on 32-register targets (the copy is per
  // k block and the prefetcher streams B's 256-byte row segments well): B
  // is read in place there unless asked. With 16 registers the tile is at
  // most 24 floats wide, and reading such narrow segments of kc rows in
  // place starves the FMAs: x86-64-v3 code on a Zen 5 host, sgemm 1024
  // 30.0 -> 22.2 ms and 2048 237 -> 176 ms with B packed (OpenBLAS-Haswell
  // 21 and 172 ms).
  best.packB = t.vectorRegisters <= 16;
  return best;
}

/// Applies `attr`, a `dlas.gemm_tiles` override of `op` or its tuning-file
/// entry (null: none); fails on a malformed one.
LogicalResult applyOverride(linalg::LinalgOp op, Attribute attr,
                            KernelParams &p) {
  if (!attr)
    return success();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return op->emitError() << "'" << kGemmTilesAttrName
                           << "' must be a dictionary";
  for (NamedAttribute entry : dict) {
    auto value = dyn_cast<IntegerAttr>(entry.getValue());
    StringRef key = entry.getName().getValue();
    if (key == "pack_b") {
      auto flag = dyn_cast<BoolAttr>(entry.getValue());
      if (!flag)
        return op->emitError() << "'" << kGemmTilesAttrName
                               << "' entry 'pack_b' must be a bool";
      p.packB = flag.getValue();
      continue;
    }
    if (key == "split") {
      auto name = dyn_cast<StringAttr>(entry.getValue());
      std::optional<dlas::ThreadSplit> split =
          name ? dlas::symbolizeThreadSplit(name.getValue()) : std::nullopt;
      if (!split)
        return op->emitError() << "'" << kGemmTilesAttrName
                               << "' entry 'split' must be \"auto\", "
                                  "\"tiles\" or \"rows\"";
      p.split = *split;
      continue;
    }
    int64_t *slot = key == "m0"        ? &p.m0
                    : key == "vectors" ? &p.vectors
                    : key == "kc"      ? &p.kc
                    : key == "mc"      ? &p.mc
                                       : nullptr;
    if (!slot)
      return op->emitError()
             << "'" << kGemmTilesAttrName << "' has unknown key '" << key
             << "' (expected m0, vectors, kc, mc, pack_b, split)";
    if (!value || value.getInt() < 1)
      return op->emitError() << "'" << kGemmTilesAttrName << "' entry '" << key
                             << "' must be a positive integer";
    *slot = value.getInt();
  }
  return success();
}

/// B can be copied into panels: one k dim, read through a permutation.
bool packableB(const Gemm &g) {
  return g.k.size() == 1 &&
         g.op.getMatchingIndexingMap(g.b).isProjectedPermutation();
}

/// Whether an int8 GEMM can read A and B in k quads: B packed (one k dim,
/// read through a permutation) and no row width.
bool quadsPossible(const Gemm &g, Type input) {
  return input.isInteger(8) && packableB(g) && !g.rowWidth;
}

/// Whether a bf16 GEMM can run on vdpbf16ps: A and B read in k pairs (B
/// packed: one k dim, read through a permutation, no row width) and the
/// target has the instruction at this vector width.
bool bf16PairsPossible(const Gemm &g, Type input, int64_t vectorWidth) {
  return input.isBF16() && packableB(g) && !g.rowWidth &&
         dlas::hasBF16DotProduct(dlas::lookupCPUTarget(g.op), vectorWidth);
}

/// AMX tiles as DLAS uses them: 16 rows of 64 bytes.
constexpr int64_t kAmxRows = 16;
constexpr int64_t kAmxRowBytes = 64;

/// Whether a GEMM can run on AMX tiles: the target has them for its
/// operands, B can be packed in k groups (one k dim, no row jumps), vectors
/// are 16 lanes (a C tile row is one accumulator vector), A has at least
/// half a tile of rows (a batch-1 linear layer, M = 1, streams its weights
/// once, which the vector kernel reads in place where AMX would copy them
/// into pairs first) and K is at least two k steps of a tile (64 bf16,
/// 128 i8): MobileNetV2's 1x1 layers with K = 16-96 padded K to a whole
/// step and its int8 model ran 6.1 ms on AMX against 4.6 on vpdpbusd.
bool amxPossible(const Gemm &g, Type input, int64_t vectorWidth) {
  int64_t kStep = kAmxRowBytes / (input.getIntOrFloatBitWidth() / 8);
  return vectorWidth == 16 && packableB(g) && !g.rowWidth &&
         g.sizeM >= kAmxRows / 2 && g.sizeK >= 2 * kStep &&
         dlas::hasAmxTilesFor(dlas::lookupCPUTarget(g.op), input);
}

/// Whether parameters `p` describe an AMX tile: m0 and n0 of 16 or 32 (up
/// to four C tiles, two A and two B tiles: the eight tile registers), B
/// packed.
bool amxParams(const KernelParams &p, int64_t vectorWidth) {
  int64_t n0 = p.vectors * vectorWidth;
  return p.packB && (p.m0 == 16 || p.m0 == 32) && (n0 == 16 || n0 == 32);
}

/// The multiply of an int8 GEMM: vpdpbusd where the target has it (four k
/// values per 32-bit lane); vpmaddubsw pairs where it has those and A's
/// bytes, known at compile time (`aBytes`; empty when A is not a
/// constant), are all within +-kPairProductLimit, the range it multiplies
/// exactly (weights quantized for such a target are: see Int8Policy);
/// both read A and B in k quads. Otherwise the widening kernel.
Int8Multiply int8MultiplyFor(const Gemm &g, const KernelParams &p, Type input,
                             int64_t vectorWidth, ArrayRef<int8_t> aBytes) {
  if (!p.packB || !quadsPossible(g, input))
    return Int8Multiply::widen;
  Int8Multiply multiply =
      dlas::int8MultiplyOf(dlas::lookupCPUTarget(g.op), vectorWidth);
  if (multiply != Int8Multiply::pairs)
    return multiply;
  bool exact = !aBytes.empty() && llvm::all_of(aBytes, [](int8_t v) {
    return std::abs(static_cast<int64_t>(v)) <= dlas::kPairProductLimit;
  });
  return exact ? Int8Multiply::pairs : Int8Multiply::widen;
}

/// The k block of a GEMM whose packed B tile (kc x n0 elements of
/// `bytes`) should stay in a quarter of L2: all of K where it fits, else
/// the most that does (never below `p`'s kc), in whole k groups of `group`.
int64_t oneBlockKc(const Gemm &g, const KernelParams &p,
                   const TargetShape &target, int64_t bytes, int64_t group) {
  int64_t n0 = p.vectors * target.vectorWidth;
  int64_t fits = target.l2Bytes / 4 / (n0 * bytes);
  return std::min<int64_t>(
      llvm::alignTo(std::clamp<int64_t>(fits, p.kc, g.sizeK), group), g.sizeK);
}

/// The kernel parameters a decision records.
KernelParams paramsOf(MicrokernelAttr decision) {
  KernelParams p{decision.getRows(), decision.getVectors(), decision.getKc(),
                 decision.getMc(), decision.getPackB()};
  p.split = decision.getSplit();
  return p;
}
} // namespace

dlas::ThreadSplit dlas::gemmThreadSplit(ThreadSplit requested, int64_t sizeM,
                                        int64_t sizeN, int64_t m0,
                                        int64_t tileColumns, bool packB) {
  int64_t tiles = llvm::divideCeil(sizeN, tileColumns);
  int64_t fullPanels = sizeM / m0;
  if (requested == ThreadSplit::rows && fullPanels >= 2)
    return ThreadSplit::rows;
  if (requested == ThreadSplit::tiles && tiles >= 2)
    return ThreadSplit::tiles;
  bool rows = packB ? tiles < 2 * kMinParallelTiles && fullPanels >= 2 * tiles
                    : tiles < kMinParallelTiles && fullPanels >= 2;
  return rows ? ThreadSplit::rows : ThreadSplit::tiles;
}

LogicalResult dlas::decideGemm(linalg::LinalgOp op, const TargetShape &target,
                               const TuningTable *tuning, const GemmPins &pins,
                               MicrokernelAttr &decision, std::string &why) {
  decision = {};
  FailureOr<Gemm> gemm = matchGemm(op, why);
  if (failed(gemm))
    return success();
  // The pair kernel's products need a register of their own (its vector
  // of ones is a memory operand), and tiles of 3 or more vectors ran at
  // half speed: on x86-64-v3 (Zen 3, resnet18 int8, one tile for every
  // GEMM) 6x2 31.9 ms, 5x2 32.6, 4x2 33.4, 2x4 36.2, 3x3 44.7, 4x3 45.0.
  Type inputType = getElementTypeOrSelf(gemm->a->get().getType());
  Int8Multiply multiply =
      inputType.isInteger(8)
          ? dlas::int8MultiplyOf(dlas::lookupCPUTarget(op), target.vectorWidth)
          : Int8Multiply::widen;
  bool pairs = multiply == Int8Multiply::pairs;
  bool plainB = packableB(*gemm);
  KernelParams params =
      chooseParams(*gemm, target, pairs ? 1 : 0, pairs ? 2 : 4, !plainB);
  DecisionSource source = DecisionSource::cost_model;
  int64_t *slots[] = {&params.m0, &params.vectors, &params.kc, &params.mc};
  for (auto [slot, value] : llvm::zip(slots, pins.tiles)) {
    if (value > 0) {
      *slot = value;
      source = DecisionSource::override;
    }
  }
  // A copy of B pays where several row panels of A reuse it; with one
  // (M <= m0: a linear layer at batch 1) every element of B is read once
  // either way, and the copy only adds its traffic: ResNet-50's classifier
  // (M = 1, K = 2048, N = 1000, x86-64-v3 on Zen 3) 0.47 -> 0.21 ms alone,
  // 1.06 -> 0.71 ms in the model, where its 8 MB come from DRAM.
  if (gemm->sizeM <= params.m0)
    params.packB = false;
  // vpdpbusd and vpmaddubsw read B in k quads, which only a packed B
  // provides. One k block where the packed B tile (kc x n0 bytes) fits a
  // quarter of L2, as on AMX below: the accumulators then start from the
  // init and end in the epilogue with no partial sums through memory, and
  // B is packed, and the threads fork, once per call instead of once per
  // k block. (The L1 rule gave kc = 768: two or three blocks for K = 1024
  // to 2304. ResNet-50's int8 layers with such K ran 3-7% faster with one
  // block at 1 and 2 threads on Zen 5, e.g. 3x3 256 at 14x14 0.259 ->
  // 0.247 ms, 1x1 1024 -> 256 0.116 -> 0.110.)
  if (quadsPossible(*gemm, inputType) && multiply != Int8Multiply::widen) {
    params.packB = true;
    params.kc = oneBlockKc(*gemm, params, target, /*bytes=*/1, /*group=*/4);
  }
  // So does vdpbf16ps (k pairs), where several row panels share B; one k
  // block under the same rule as the quads' (ResNet-50's bf16 layers with
  // K >= 1024, Zen 5: 0-7% faster at 1 and 2 threads, e.g. 3x3 256 at
  // 14x14 0.304 -> 0.284 ms at 2 threads).
  if (bf16PairsPossible(*gemm, inputType, target.vectorWidth) &&
      gemm->sizeM > params.m0) {
    params.packB = true;
    params.kc = oneBlockKc(*gemm, params, target, /*bytes=*/2, /*group=*/2);
  }
  // AMX: up to 2 x 2 C tiles of 16 x 16, k blocks of whole 64-byte steps.
  if (amxPossible(*gemm, inputType, target.vectorWidth)) {
    params.m0 = gemm->sizeM > kAmxRows ? 2 * kAmxRows : kAmxRows;
    params.vectors = gemm->sizeN > target.vectorWidth ? 2 : 1;
    int64_t bytes = inputType.getIntOrFloatBitWidth() / 8;
    int64_t kStep = kAmxRowBytes / bytes;
    // One k block where the packed B tile (kc x n0) fits a quarter of
    // L2: it is reused from L2 by every row panel, and with one k block
    // the tiles start from zero (no accumulators through memory on the
    // way in, no partial sums stored between blocks). The A block fills
    // half of L2, as in chooseParams.
    int64_t n0 = params.vectors * target.vectorWidth;
    params.kc =
        llvm::alignTo(std::clamp<int64_t>(target.l2Bytes / 4 / (n0 * bytes),
                                          kStep, gemm->sizeK),
                      kStep);
    params.mc =
        std::max<int64_t>(params.m0, target.l2Bytes / 2 / (params.kc * bytes) /
                                         params.m0 * params.m0);
    params.packB = true;
  }
  if (pins.packB == "always")
    params.packB = plainB;
  else if (pins.packB == "never")
    params.packB = false;
  std::string key = shapeKey(*gemm);
  DictionaryAttr tuned =
      tuning ? tuning->lookup(kTuningSection, key, targetCpu(op)) : nullptr;
  Attribute override = op->getAttr(kGemmTilesAttrName);
  if (failed(applyOverride(op, tuned, params)) ||
      failed(applyOverride(op, override, params)))
    return failure();
  if (tuned)
    source = DecisionSource::tuning_file;
  if (override)
    source = DecisionSource::override;
  if (params.packB && !plainB)
    params.packB = false; // shifted or multi-dim rows: read in place
  if (!(amxPossible(*gemm, inputType, target.vectorWidth) &&
        amxParams(params, target.vectorWidth)) &&
      params.m0 * params.vectors + params.vectors + 1 > target.vectorRegisters)
    op->emitWarning() << "the " << params.m0 << "x" << params.vectors
                      << " register tile needs more than the "
                      << target.vectorRegisters << " vector registers";
  TensorFusion fusion = tensorFusionPartners(op);
  Type input = getElementTypeOrSelf(gemm->a->get().getType());
  Type acc = getElementTypeOrSelf(gemm->c->get().getType());
  decision = MicrokernelAttr::get(
      op->getContext(), MicrokernelKind::gemm, params.m0, params.vectors,
      /*lines=*/1, target.vectorWidth, params.kc, params.mc, params.packB,
      input, acc, fusion.init, fusion.epilogues, /*padding=*/false, key, source,
      /*group=*/0, params.split);
  return success();
}

namespace {
std::vector<float> constantData(Value v, SymbolTable &symbols) {
  return dlas::widenedFloatValues(constantGlobalValue(v, symbols))
      .value_or(std::vector<float>());
}

/// Where element (A batch `bl`, row m, linear k) of a constant A sits in
/// its row-major data: what compile-time packing reads.
struct ConstantAIndex {
  explicit ConstantAIndex(const Gemm &g) {
    auto source = cast<MemRefType>(g.a->get().getType());
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    strides = computeSuffixProduct(source.getShape());
    // Position in A's shape of m, of each k dim and of each A batch dim.
    auto position = [&](unsigned d) {
      return *aMap.getResultPosition(getAffineDimExpr(d, aMap.getContext()));
    };
    mPos = position(g.m);
    SmallVector<int64_t> kExtents, batchExtents;
    for (unsigned d : g.k) {
      kPos.push_back(position(d));
      kExtents.push_back(g.ranges[d]);
    }
    for (unsigned d : g.aBatch) {
      batchPos.push_back(position(d));
      batchExtents.push_back(g.ranges[d]);
    }
    kBasis = computeSuffixProduct(kExtents);
    batchBasis = computeSuffixProduct(batchExtents);
    batches = computeProduct(batchExtents);
  }

  int64_t offset(int64_t bl, int64_t m, int64_t kl) const {
    int64_t result = m * strides[mPos];
    for (auto [pos, index] : llvm::zip(batchPos, delinearize(bl, batchBasis)))
      result += index * strides[pos];
    for (auto [pos, index] : llvm::zip(kPos, delinearize(kl, kBasis)))
      result += index * strides[pos];
    return result;
  }

  SmallVector<int64_t> strides, kBasis, batchBasis;
  unsigned mPos;
  SmallVector<unsigned> kPos, batchPos;
  int64_t batches;
};

/// The convolution input behind an im2col GEMM's B: B = collapse(P),
/// P[n, q, oh, ow] = X[n, c, oh*sh + th*dh, ow*sw + tw*dw] for q = (c, th,
/// tw) written by a `dlas.im2col` copy. Where B is packed, the packing
/// reads X directly (lanes of one output row are sw apart in one row of X)
/// and the copy, KH*KW times the input (KH*KW / (sh*sw) at stride s), is
/// never written: at 3x3 on 56x56 with 64 channels P is 3.6 MB, more than
/// L2, and writing and re-reading it was most of the bf16 layer's time on
/// AMX.
struct PatchSource {
  /// X as [N, C * Hp * Wp] (once the emitter has it).
  Value input;
  /// Per row q of B, its offset in X's flat channels: c * Hp * Wp +
  /// th * dh * Wp + tw * dw (the emitter's table).
  Value rowOffsets;
  linalg::GenericOp copy;
  memref::CollapseShapeOp view;
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t inputWidth, outputWidth;
  /// Whether the target loads X's elements under a mask in one
  /// instruction (see loadRowOfB).
  bool fastMaskedLoads = false;
};

/// Whether an op strictly between `from` and `to` (one block) may write
/// or free the buffer `base`: writes to other allocations are fine,
/// unknown effects and unknown buffers are not.
bool mayWriteBetween(Operation *from, Operation *to, Value base) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || (op->getNumRegions() > 0 && !isa<linalg::LinalgOp>(op)))
      return true;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      auto written = dyn_cast_or_null<MemrefValue>(effect.getValue());
      if (!written)
        return true;
      Value buffer = memref::skipViewLikeOps(written);
      if (buffer == base || !buffer.getDefiningOp<memref::AllocOp>())
        return true;
    }
  }
  return false;
}

/// B's patch source when B is an im2col copy that only this GEMM reads.
std::optional<PatchSource> findPatchSource(const Gemm &g, int64_t vectorWidth) {
  auto view = g.b->get().getDefiningOp<memref::CollapseShapeOp>();
  if (!view || !view->hasOneUse() || view.getSrcType().getRank() != 4 ||
      view.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}})
    return std::nullopt;
  AffineMap bMap = g.op.getMatchingIndexingMap(g.b);
  if (g.k.size() != 1 || bMap.getNumResults() != 3 ||
      bMap.getResult(1) != getAffineDimExpr(g.k[0], bMap.getContext()) ||
      bMap.getResult(2) != getAffineDimExpr(g.n, bMap.getContext()))
    return std::nullopt;
  Value patches = view.getSrc();
  if (!patches.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  linalg::GenericOp copy;
  for (Operation *user : patches.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (generic && generic->hasAttr(dlas::kIm2ColAttrName) && !copy &&
        generic.getNumDpsInits() == 1 && generic.getDpsInits()[0] == patches &&
        generic.getNumDpsInputs() == 1) {
      copy = generic;
      continue;
    }
    if (user != view && !isa<memref::DeallocOp>(user))
      return std::nullopt;
  }
  if (!copy || copy->getBlock() != g.op->getBlock() ||
      !copy->isBeforeInBlock(g.op))
    return std::nullopt;
  auto window = copy->getAttrOfType<DenseI64ArrayAttr>(dlas::kIm2ColAttrName);
  if (!window || window.size() != 6)
    return std::nullopt;
  Value input = copy.getDpsInputs()[0];
  auto inputType = dyn_cast<MemRefType>(input.getType());
  auto patchType = cast<MemRefType>(patches.getType());
  if (!inputType || inputType.getRank() != 4 ||
      !inputType.getLayout().isIdentity() || !inputType.hasStaticShape())
    return std::nullopt;
  PatchSource source;
  source.fastMaskedLoads = dlas::hasFastMaskedMoves(dlas::lookupCPUTarget(g.op),
                                                    inputType.getElementType());
  source.copy = copy;
  source.view = view;
  source.input = input;
  source.kh = window[0];
  source.kw = window[1];
  source.sh = window[2];
  source.sw = window[3];
  source.dh = window[4];
  source.dw = window[5];
  source.inputWidth = inputType.getDimSize(3);
  source.outputWidth = patchType.getDimSize(3);
  int64_t oh = patchType.getDimSize(2);
  // The copy's shape is the window's (as dlas-select-conv-algorithm
  // builds it); anything else keeps the copy.
  if (patchType.getDimSize(0) != inputType.getDimSize(0) ||
      patchType.getDimSize(1) !=
          inputType.getDimSize(1) * source.kh * source.kw ||
      (oh - 1) * source.sh + (source.kh - 1) * source.dh >=
          inputType.getDimSize(2) ||
      (source.outputWidth - 1) * source.sw + (source.kw - 1) * source.dw >=
          source.inputWidth)
    return std::nullopt;
  if (mayWriteBetween(copy, g.op,
                      memref::skipViewLikeOps(cast<MemrefValue>(input))))
    return std::nullopt;
  // A row vector of B takes a masked load per output row it touches:
  // ResNet-50's 3x3 layers in bf16 on AMX (1 thread, best of 10) went
  // from 0.99 to 0.51 ms at 56x56 (two rows a vector) and from 0.54 to
  // 0.37 ms at 14x14 (three), but not at 7x7 (four: 0.60 against 0.57
  // ms), where the copy's rows load whole and M = 512 packs B six times.
  if (1 + llvm::divideCeil(vectorWidth - 1, source.outputWidth) > 3)
    return std::nullopt;
  return source;
}

/// Emits the microkernel nest for one Gemm.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, const Gemm &g, const KernelParams &p,
                const Neighbours &nb, KernelTypes types, int64_t vectorWidth,
                bool parallel, int64_t prefetchBytes, int64_t chunks,
                Int8Multiply multiply, bool amx, bool bf16Pairs,
                int64_t l2Bytes)
      : b(b), loc(g.op.getLoc()), g(g), p(p), nb(nb), types(types),
        vw(vectorWidth), parallel(parallel), prefetchBytes(prefetchBytes),
        chunks(chunks), multiply(multiply), amx(amx), bf16Pairs(bf16Pairs),
        l2Bytes(l2Bytes), quadLayout(multiply != Int8Multiply::widen ||
                                     (amx && types.input.isInteger(8))),
        tileVectors(p.vectors), vecType(types.accVector(vw)),
        inVecType(types.inputVector(vw)),
        bElement(widensWhenPacked(types) && !amx && !bf16Pairs ? types.acc
                                                               : types.input),
        aElement(widensWhenPacked(types) && !amx && !bf16Pairs &&
                         g.sizeN > p.vectors * vw
                     ? types.acc
                     : types.input) {}

  /// bf16/f16 operands widen into f32 as they are packed (B once per k
  /// block; A at compile time or once per call), not at every FMA: the
  /// loop is then the f32 kernel's. (Converting in the loop cost two
  /// instructions more a B vector and two an A broadcast.) A stays narrow
  /// when the GEMM has one column tile: each A value is then used once,
  /// and the kernel streams A (a batch-1 linear layer's weights), so
  /// half the bytes beats the conversions.
  static bool widensWhenPacked(KernelTypes types) {
    return isa<FloatType>(types.input) && types.input != types.acc;
  }
  /// A packed value (elements `element`) as accumulator elements.
  Value fromPacked(Value v, Type element) {
    return element == types.acc ? v : types.promote(b, loc, v);
  }
  /// The element type of the packed A panels.
  Type packedAElementType() const { return aElement; }

  /// k values per k block: the decision's, a multiple of the k group
  /// with quads or pairs (a group never straddles two blocks).
  int64_t blockK() const {
    int64_t k = kBlockOuter(g, p);
    if (amx)
      return llvm::alignTo(k, amxKStep());
    return grouped() ? llvm::alignTo(k, kGroup()) : k;
  }
  /// Whether A and B are packed in k groups of 32 bits, one group a lane:
  /// int8 quads (vpdpbusd, vpmaddubsw) or bf16 pairs (vdpbf16ps).
  bool grouped() const { return quadLayout || bf16Pairs; }
  /// k values per group: 4 (quads), 2 (bf16 pairs), else 1.
  int64_t kGroup() const { return quadLayout ? 4 : bf16Pairs ? 2 : 1; }
  /// AMX: k values per tile row (64 bytes), and per 32-bit element of B's
  /// packing (2 bf16, 4 i8).
  int64_t amxKStep() const { return kAmxRowBytes / types.inputBytes(); }
  int64_t amxGroup() const { return 4 / types.inputBytes(); }
  /// k groups per k block (quads, pairs).
  int64_t blockGroups() const { return blockK() / kGroup(); }

  /// Quads: A packed in k quads, Ap[g..][K/kc][M/m0][kc/4][m0 * 4] (the four
  /// k values of a row next to each other: one 32-bit broadcast), zero
  /// past K and M; and the sum of each row of A (rowSums[g..][M]), which
  /// undoes the bias of B's u8 form: the kernel reads B + 128 (vpdpbusd
  /// multiplies unsigned by signed bytes), and sum_k A (B + 128) =
  /// sum_k A B + 128 sum_k A.
  Value packQuadsAtRunTime() {
    auto type = packedType();
    Value packed =
        memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    SmallVector<int64_t> sumsShape;
    for (unsigned d : g.aBatch)
      sumsShape.push_back(g.ranges[d]);
    sumsShape.push_back(llvm::alignTo(g.sizeM, p.m0));
    rowSums = memref::AllocOp::create(
        b, loc, MemRefType::get(sumsShape, b.getI32Type()),
        b.getI64IntegerAttr(64));
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    Value zero8 = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
    Value zero32 = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    int64_t sizeK = g.ranges[g.k[0]];
    int64_t quads = llvm::divideCeil(sizeK, 4);
    int64_t panels = llvm::divideCeil(g.sizeM, p.m0);
    // Full panels of an A whose rows are its contiguous dim in vectors;
    // the rest (all panels otherwise) row by row below.
    int64_t firstScalarPanel = 0;
    if (aRowsContiguous()) {
      firstScalarPanel = vectorPanels();
      packQuadPanelsFromColumns(packed, firstScalarPanel);
    }
    loopNest(g.aBatch, 0, [&](ArrayRef<Value> aBatchIvs) {
      loop(firstScalarPanel, panels, [&](Value panel) {
        Value rowBase = arith::MulIOp::create(b, loc, panel, index(p.m0));
        loop(0, p.m0, [&](Value i) {
          SmallVector<Value> dims = dimValues();
          for (auto [d, v] : llvm::zip(g.aBatch, aBatchIvs))
            dims[d] = v;
          Value row = arith::AddIOp::create(b, loc, rowBase, i);
          Value rowInside = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, row, index(g.sizeM));
          // Rows past M read row M - 1 and store zeros.
          dims[g.m] = min(row, index(g.sizeM - 1));
          auto quadLoop = scf::ForOp::create(
              b, loc, index(0), index(quads), index(1), ValueRange{zero32},
              [&](OpBuilder &nested, Location, Value q, ValueRange sum) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPointToStart(nested.getBlock());
                Value total = sum[0];
                SmallVector<Value> bytes;
                Value k0 = arith::MulIOp::create(b, loc, q, index(4));
                for (int64_t t = 0; t < 4; ++t) {
                  Value k = add(k0, t);
                  Value inside = arith::AndIOp::create(
                      b, loc, rowInside,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            k, index(sizeK)));
                  dims[g.k[0]] = min(k, index(sizeK - 1));
                  Value v = memref::LoadOp::create(b, loc, g.a->get(),
                                                   indices(aMap, dims));
                  v = arith::SelectOp::create(b, loc, inside, v, zero8);
                  bytes.push_back(v);
                  total = arith::AddIOp::create(
                      b, loc, total, arith::ExtSIOp::create(b, loc, i32, v));
                }
                Value quad = vector::FromElementsOp::create(
                    b, loc, VectorType::get({4}, i8), bytes);
                Value block =
                    arith::DivUIOp::create(b, loc, q, index(blockGroups()));
                Value within =
                    arith::RemUIOp::create(b, loc, q, index(blockGroups()));
                Value lane = arith::MulIOp::create(b, loc, i, index(4));
                vector::StoreOp::create(
                    b, loc, quad, packed,
                    packedIndices(dims,
                                  ValueRange{block, panel, within, lane}));
                scf::YieldOp::create(b, loc, total);
              });
          SmallVector<Value> sumIdx = packedIndices(dims, ValueRange{row});
          memref::StoreOp::create(b, loc, quadLoop.getResult(0), rowSums,
                                  sumIdx);
        });
      });
    });
    return packed;
  }

  /// Four byte vectors of `lanes` values (k, k+1, k+2, k+3 of `lanes`
  /// rows or columns) as `lanes` k quads, vector<4 * lanes x i8>: byte
  /// 4i + t holds rows[t][i]. Two byte-wise interleaves, then one of
  /// their 16-bit pairs.
  Value interleaveQuads(ArrayRef<Value> rows) {
    int64_t lanes = cast<VectorType>(rows[0].getType()).getNumElements();
    auto interleave = [&](Value x, Value y) {
      SmallVector<int64_t> mask;
      for (int64_t l = 0; l < lanes; ++l)
        llvm::append_values(mask, l, lanes + l);
      return vector::ShuffleOp::create(b, loc, x, y, mask).getResult();
    };
    auto pairsType = VectorType::get({lanes}, b.getI16Type());
    Value pairs01 = vector::BitCastOp::create(b, loc, pairsType,
                                              interleave(rows[0], rows[1]));
    Value pairs23 = vector::BitCastOp::create(b, loc, pairsType,
                                              interleave(rows[2], rows[3]));
    return vector::BitCastOp::create(
        b, loc, VectorType::get({4 * lanes}, b.getI8Type()),
        interleave(pairs01, pairs23));
  }

  /// Whether A's rows (m) are its contiguous dim, as in a transposed
  /// convolution GEMM's activations X[K, P] read as A[p, k]: a k value of
  /// m0 consecutive rows is one vector load.
  bool aRowsContiguous() const {
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    auto type = dyn_cast<MemRefType>(g.a->get().getType());
    return type && type.getLayout().isIdentity() && g.k.size() == 1 &&
           aMap.getNumResults() > 0 &&
           aMap.getResults().back() ==
               getAffineDimExpr(g.m, aMap.getContext()) &&
           aMap.isProjectedPermutation();
  }

  /// Rows per load in packQuadPanelsFromColumns: m0 rounded up to a power
  /// of two (odd widths made LLVM insert byte by byte).
  int64_t panelLoadRows() const { return llvm::PowerOf2Ceil(p.m0); }
  /// The panels whose loads of panelLoadRows rows stay inside A.
  int64_t vectorPanels() const {
    int64_t rows = panelLoadRows();
    return g.sizeM < rows ? 0 : (g.sizeM - rows) / p.m0 + 1;
  }

  /// Quads of A's first `fullPanels` panels from vectors along its rows
  /// (aRowsContiguous): per panel and quad, four loads of m0 rows (k, k+1,
  /// k+2, k+3; each of panelLoadRows, the first m0 kept), interleaved into
  /// the m0 quads of packQuadsAtRunTime's layout (zero past K), and the
  /// panel's row sums in one vector. Row by row it took four scalar loads
  /// and selects per quad: 43 of 148 us on an int8 1x1 layer at 7x7
  /// (K = 2048).
  void packQuadPanelsFromColumns(Value packed, int64_t fullPanels) {
    int64_t sizeK = g.ranges[g.k[0]];
    int64_t quads = llvm::divideCeil(sizeK, 4);
    int64_t m0 = p.m0, lanes = panelLoadRows();
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    auto rowsType = VectorType::get({lanes}, i8);
    auto sumsType = VectorType::get({lanes}, i32);
    Value zeroRows = types.zero(b, loc, rowsType);
    Value zeroSums = types.zero(b, loc, sumsType);
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    forEachVectorPanel(fullPanels, [&](Value panel, SmallVector<Value> dims) {
      auto quadLoop = scf::ForOp::create(
          b, loc, index(0), index(quads), index(1), ValueRange{zeroSums},
          [&](OpBuilder &nested, Location, Value q, ValueRange carried) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(nested.getBlock());
            Value sums = carried[0];
            SmallVector<Value> rows;
            Value k0 = arith::MulIOp::create(b, loc, q, index(4));
            for (int64_t t = 0; t < 4; ++t) {
              Value k = add(k0, t);
              SmallVector<Value> at = dims;
              at[g.k[0]] = sizeK % 4 == 0 ? k : min(k, index(sizeK - 1));
              Value row = vector::LoadOp::create(b, loc, rowsType, g.a->get(),
                                                 indices(aMap, at));
              if (sizeK % 4 != 0)
                row = arith::SelectOp::create(
                    b, loc,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                          index(sizeK)),
                    row, zeroRows);
              sums = arith::AddIOp::create(
                  b, loc, sums, arith::ExtSIOp::create(b, loc, sumsType, row));
              rows.push_back(row);
            }
            Value quadsOfRows = interleaveQuads(rows);
            if (lanes != m0)
              quadsOfRows = vector::ExtractStridedSliceOp::create(
                  b, loc, quadsOfRows, ArrayRef<int64_t>{0},
                  ArrayRef<int64_t>{4 * m0}, ArrayRef<int64_t>{1});
            Value block =
                arith::DivUIOp::create(b, loc, q, index(blockGroups()));
            Value within =
                arith::RemUIOp::create(b, loc, q, index(blockGroups()));
            vector::StoreOp::create(
                b, loc, quadsOfRows, packed,
                packedIndices(dims,
                              ValueRange{block, panel, within, index(0)}));
            scf::YieldOp::create(b, loc, sums);
          });
      Value sums = quadLoop.getResult(0);
      if (lanes != m0)
        sums = vector::ExtractStridedSliceOp::create(
            b, loc, sums, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{m0},
            ArrayRef<int64_t>{1});
      vector::StoreOp::create(b, loc, sums, rowSums,
                              packedIndices(dims, ValueRange{dims[g.m]}));
    });
  }

  /// `body(panel, dims)` for A's panels [0, fullPanels) of every A batch,
  /// `dims` the loop dims with the batch and the panel's first row set.
  /// The threads split the panels of an A packed per call from
  /// kMinParallelPackBytes up (the 7x7 3x3 int8 layer's 49 x 4608 bytes:
  /// 10 us of a 0.155 ms call packed by one thread at 2 threads); a small
  /// one is not worth a fork.
  void forEachVectorPanel(int64_t fullPanels,
                          function_ref<void(Value, SmallVector<Value>)> body) {
    bool inParallel =
        parallel && g.sizeM * g.ranges[g.k[0]] * types.inputBytes() >=
                        kMinParallelPackBytes;
    loopNest(g.aBatch, 0, [&](ArrayRef<Value> aBatchIvs) {
      forEachTile(index(0), index(fullPanels), inParallel, [&](Value panel) {
        SmallVector<Value> dims = dimValues();
        for (auto [d, v] : llvm::zip(g.aBatch, aBatchIvs))
          dims[d] = v;
        dims[g.m] = arith::MulIOp::create(b, loc, panel, index(p.m0));
        body(panel, std::move(dims));
      });
    });
  }

  /// Pairs of A's first `fullPanels` panels from vectors along its rows
  /// (aRowsContiguous), for k pairs [0, K/2): per panel and pair, two loads
  /// of panelLoadRows rows (k, k+1) interleaved into the m0 pairs of
  /// packPairsOfAAtRunTime's layout, the threads splitting the panels of
  /// an A of 64 KiB or more. Element by element it took a 16-bit insert per
  /// value: 15 us of a bf16 1x1 2048 -> 512 layer at 7x7, by one thread.
  void packPairPanelsFromColumns(Value packed, int64_t fullPanels) {
    int64_t sizeK = g.ranges[g.k[0]];
    int64_t m0 = p.m0, lanes = panelLoadRows();
    Type i16 = b.getI16Type();
    auto rowType = VectorType::get({lanes}, types.input);
    auto bitsType = VectorType::get({lanes}, i16);
    auto pairsType = VectorType::get({2 * m0}, types.input);
    SmallVector<int64_t> interleave;
    for (int64_t l = 0; l < m0; ++l)
      llvm::append_values(interleave, l, lanes + l);
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    forEachVectorPanel(fullPanels, [&](Value panel, SmallVector<Value> dims) {
      loop(0, sizeK / 2, [&](Value q) {
        Value k0 = arith::MulIOp::create(b, loc, q, index(2));
        SmallVector<Value> rows;
        for (int64_t t = 0; t < 2; ++t) {
          SmallVector<Value> at = dims;
          at[g.k[0]] = add(k0, t);
          // As i16: without AVX512-BF16 LLVM widens bf16 shuffles.
          rows.push_back(vector::BitCastOp::create(
              b, loc, bitsType,
              vector::LoadOp::create(b, loc, rowType, g.a->get(),
                                     indices(aMap, at))));
        }
        Value pairs = vector::BitCastOp::create(
            b, loc, pairsType,
            vector::ShuffleOp::create(b, loc, rows[0], rows[1], interleave));
        Value block = arith::DivUIOp::create(b, loc, q, index(blockGroups()));
        Value within = arith::RemUIOp::create(b, loc, q, index(blockGroups()));
        vector::StoreOp::create(
            b, loc, pairs, packed,
            packedIndices(dims, ValueRange{block, panel, within, index(0)}));
      });
    });
  }

  /// The row sums of A that packQuadsAtRunTime computed (quads), to free.
  Value rowSumsBuffer() const { return rowSums; }
  /// Quads with A packed at compile time: its row sums, a constant too.
  void useRowSums(Value sums) { rowSums = sums; }

  /// B's column tiles were packed at compile time into `panels`,
  /// Bp[tile][k][n0] over all of K (residentBType): no k block packs them,
  /// and the kernels read Bp at the absolute k.
  void useResidentB(Value panels) { residentB = panels; }
  /// The element type of B's packed panels.
  Type packedBElementType() const { return bElement; }
  /// The type of B's panels packed at compile time.
  MemRefType residentBType() const {
    int64_t n0 = p.vectors * vw;
    // int8 quads: Bp[tile][ceil(K/4)][n0 * 4], packQuadsOfB's layout.
    if (quadLayout)
      return MemRefType::get(
          {static_cast<int64_t>(llvm::divideCeil(g.sizeN, n0)),
           static_cast<int64_t>(llvm::divideCeil(g.ranges[g.k[0]], 4)), 4 * n0},
          types.input);
    // bf16 pairs: Bp[tile][ceil(K/2)][n0 * 2], packPairsOfB's layout.
    if (bf16Pairs)
      return MemRefType::get(
          {static_cast<int64_t>(llvm::divideCeil(g.sizeN, n0)),
           static_cast<int64_t>(llvm::divideCeil(g.ranges[g.k[0]], 2)), 2 * n0},
          bElement);
    return MemRefType::get({static_cast<int64_t>(llvm::divideCeil(g.sizeN, n0)),
                            g.ranges[g.k[0]], n0},
                           bElement);
  }

  /// B's packing reads the patches from `source`'s input instead of B.
  /// Each row's offset in the flat input (channel and tap) goes to a
  /// table first, once per call, so the packing loads it instead of
  /// dividing the row index by the window; the caller frees the table.
  Value readPatchesFrom(PatchSource source) {
    auto inputType = cast<MemRefType>(source.input.getType());
    int64_t planeSize = inputType.getDimSize(2) * inputType.getDimSize(3);
    source.input = memref::CollapseShapeOp::create(
        b, loc, source.input,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    int64_t rows = g.ranges[g.k[0]];
    source.rowOffsets = memref::AllocOp::create(
        b, loc, MemRefType::get({rows}, b.getIndexType()),
        b.getI64IntegerAttr(64));
    MLIRContext *ctx = b.getContext();
    AffineExpr q = getAffineDimExpr(0, ctx);
    int64_t taps = source.kh * source.kw;
    AffineMap offsetOf = AffineMap::get(
        1, 0,
        q.floorDiv(taps) * planeSize +
            (q % taps).floorDiv(source.kw) * (source.dh * source.inputWidth) +
            (q % source.kw) * source.dw);
    loop(0, rows, [&](Value row) {
      Value offset = affine::AffineApplyOp::create(b, loc, offsetOf, row);
      memref::StoreOp::create(b, loc, offset, source.rowOffsets, row);
    });
    patchSource = source;
    return source.rowOffsets;
  }

  /// bf16 pairs: A packed in k pairs, Ap[g..][K/kc][M/m0][kc/2][m0 * 2]
  /// (a row's two k values next to each other: one 32-bit broadcast feeds
  /// vdpbf16ps), zero past K and M; moved as i16 bit patterns (see
  /// packAtRunTime). Constant weights are packed at compile time instead.
  Value packPairsOfAAtRunTime() {
    auto type = packedType();
    Value packed =
        memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    Type i16 = b.getI16Type();
    Value zero = arith::ConstantOp::create(b, loc, b.getI16IntegerAttr(0));
    int64_t sizeK = g.ranges[g.k[0]];
    auto bitsType = VectorType::get({2 * p.m0}, i16);
    auto pairsType = VectorType::get({2 * p.m0}, types.input);
    // Pairs [lo, hi) of a panel of `rows` rows; `oddTail`: the pair of an
    // odd K's last value, whose second half is zero.
    auto packPairs = [&](Value panel, ArrayRef<Value> aBatchIvs, int64_t rows,
                         int64_t lo, int64_t hi, bool oddTail) {
      Value rowBase = arith::MulIOp::create(b, loc, panel, index(p.m0));
      loop(lo, hi, [&](Value q) {
        SmallVector<Value> dims = dimValues();
        for (auto [d, v] : llvm::zip(g.aBatch, aBatchIvs))
          dims[d] = v;
        Value k0 = arith::MulIOp::create(b, loc, q, index(2));
        SmallVector<Value> elements;
        for (int64_t i = 0; i < p.m0; ++i) {
          for (int64_t t = 0; t < 2; ++t) {
            if (i >= rows || (oddTail && t == 1)) {
              elements.push_back(zero);
              continue;
            }
            dims[g.m] = add(rowBase, i);
            dims[g.k[0]] = add(k0, t);
            Value v =
                memref::LoadOp::create(b, loc, g.a->get(), indices(aMap, dims));
            elements.push_back(arith::BitcastOp::create(b, loc, i16, v));
          }
        }
        Value pairs = vector::BitCastOp::create(
            b, loc, pairsType,
            vector::FromElementsOp::create(b, loc, bitsType, elements));
        Value block = arith::DivUIOp::create(b, loc, q, index(blockGroups()));
        Value within = arith::RemUIOp::create(b, loc, q, index(blockGroups()));
        vector::StoreOp::create(
            b, loc, pairs, packed,
            packedIndices(dims, ValueRange{block, panel, within, index(0)}));
      });
    };
    auto packPanels = [&](int64_t lb, int64_t ub, int64_t rows) {
      loopNest(g.aBatch, 0, [&](ArrayRef<Value> aBatchIvs) {
        loop(lb, ub, [&](Value panel) {
          packPairs(panel, aBatchIvs, rows, 0, sizeK / 2, false);
          if (sizeK % 2 != 0)
            packPairs(panel, aBatchIvs, rows, sizeK / 2, sizeK / 2 + 1, true);
        });
      });
    };
    int64_t fullPanels = g.sizeM / p.m0;
    // Full panels of an A whose rows are its contiguous dim (the transposed
    // convolution GEMM's activations) from vectors; an odd K's last pair
    // and the other panels element by element.
    int64_t firstScalarPanel = 0;
    if (aRowsContiguous()) {
      firstScalarPanel = std::min(vectorPanels(), fullPanels);
      packPairPanelsFromColumns(packed, firstScalarPanel);
      if (sizeK % 2 != 0)
        loopNest(g.aBatch, 0, [&](ArrayRef<Value> aBatchIvs) {
          loop(0, firstScalarPanel, [&](Value panel) {
            packPairs(panel, aBatchIvs, p.m0, sizeK / 2, sizeK / 2 + 1, true);
          });
        });
    }
    packPanels(firstScalarPanel, fullPanels, p.m0);
    if (g.sizeM % p.m0 != 0)
      packPanels(fullPanels, fullPanels + 1, g.sizeM % p.m0);
    return packed;
  }

  /// Copies A into panels at run time: per panel and k, the m0 values of
  /// a column of A become one contiguous vector store (rows past M zero).
  Value packAtRunTime() {
    if (amx)
      return packAmxAtRunTime();
    if (quadLayout)
      return packQuadsAtRunTime();
    if (bf16Pairs)
      return packPairsOfAAtRunTime();
    auto type = packedType();
    Value packed = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    // 16-bit floats gather as i16 bit patterns: an insertelement of bf16
    // would make LLVM round-trip each value through f32 (and call
    // __truncsfbf2 on targets without AVX512-BF16).
    bool asBits = !types.input.isF32();
    Type gatherType = asBits ? b.getIntegerType(types.inputBytes() * 8)
                             : types.input;
    auto panelType = VectorType::get({p.m0}, gatherType);
    Value zero = types.zero(b, loc, gatherType);
    auto packPanels = [&](Value lb, Value ub, int64_t rows) {
      loopNest(g.aBatch, 0, [&](ArrayRef<Value> aBatchIvs) {
      loop(lb, ub, 1, [&](Value panel) {
        Value rowBase = arith::MulIOp::create(b, loc, panel, index(p.m0));
        loopNest(g.k, 0, [&](ArrayRef<Value> ks) {
          SmallVector<Value> dims = dimValues();
          for (auto [d, v] : llvm::zip(g.aBatch, aBatchIvs))
            dims[d] = v;
          for (auto [d, v] : llvm::zip(g.k, ks))
            dims[d] = v;
          SmallVector<Value> column;
          for (int64_t i = 0; i < p.m0; ++i) {
            if (i >= rows) {
              column.push_back(zero);
              continue;
            }
            dims[g.m] = add(rowBase, i);
            Value value = memref::LoadOp::create(b, loc, g.a->get(),
                                                 indices(aMap, dims));
            if (asBits)
              value = arith::BitcastOp::create(b, loc, gatherType, value);
            column.push_back(value);
          }
          Value v = vector::FromElementsOp::create(b, loc, panelType, column);
          if (asBits)
            v = vector::BitCastOp::create(
                b, loc, VectorType::get({p.m0}, types.input), v);
          if (aElement != types.input)
            v = types.promote(b, loc, v);
          Value block = arith::DivUIOp::create(b, loc, ks[0],
                                               index(kBlockOuter(g, p)));
          Value blockStart = arith::MulIOp::create(
              b, loc, block, index(kBlockOuter(g, p) * innerK(g)));
          Value within = arith::SubIOp::create(b, loc, linearK(ks), blockStart);
          vector::StoreOp::create(
              b, loc, v, packed,
              packedIndices(dims, ValueRange{block, panel, within, index(0)}));
        });
      });
      });
    };
    int64_t fullPanels = g.sizeM / p.m0;
    packPanels(index(0), index(fullPanels), p.m0);
    if (g.sizeM % p.m0 != 0)
      packPanels(index(fullPanels), index(fullPanels + 1), g.sizeM % p.m0);
    return packed;
  }

  /// Ap[aBatch...][K/kc][M/m0][kc][m0]: k-block-major, so that the
  /// kernels of one k block read A as one sequential stream whatever the
  /// panel order (a weight matrix that streams from memory once, as in
  /// ResNet-50's layer4, was latency-bound on K-long jumps between panels).
  MemRefType packedType() const {
    SmallVector<int64_t> shape;
    for (unsigned d : g.aBatch)
      shape.push_back(g.ranges[d]);
    int64_t panels = llvm::divideCeil(g.sizeM, p.m0);
    if (amx) {
      llvm::append_values(shape, llvm::divideCeil(g.ranges[g.k[0]], blockK()),
                          panels, blockK() / amxKStep(), p.m0, amxKStep());
      return MemRefType::get(shape, types.input);
    }
    if (grouped()) {
      llvm::append_values(shape, llvm::divideCeil(g.ranges[g.k[0]], blockK()),
                          panels, blockGroups(), p.m0 * kGroup());
      return MemRefType::get(shape, types.input);
    }
    llvm::append_values(shape, kBlocks(g, p), panels,
                        kBlockOuter(g, p) * innerK(g), p.m0);
    return MemRefType::get(shape, aElement);
  }

  /// Indices into Ap: the A batch values (from `dims`), then `rest`.
  SmallVector<Value> packedIndices(ArrayRef<Value> dims, ValueRange rest) {
    SmallVector<Value> result;
    for (unsigned d : g.aBatch)
      result.push_back(dims[d]);
    llvm::append_range(result, rest);
    return result;
  }

  /// The whole nest, reading A from `packed`.
  void emit(Value packed) {
    ap = packed;
    int64_t n0 = p.vectors * vw;
    int64_t tiles = llvm::divideCeil(g.sizeN, n0);
    // kc counts k values; the blocked loop is the outermost k dim.
    int64_t kcOuter = blockK();
    singleKBlock = kcOuter >= g.ranges[g.k[0]];
    // AMX: each chunk of parallel work packs the column tile it is about
    // to multiply into a slot of its own (numbered by the chunk's first
    // tile or row panel), where the tile stays in L1 for all the row
    // panels (packing all of a k block first sent it through L3 and back:
    // a 64 x 576 x 3136 GEMM took 0.94 ms, bound by that traffic). C's
    // tiles pass through the same slot of cScratch.
    int64_t slots = std::max<int64_t>({tiles, g.sizeM / p.m0, 1});
    slot = index(0);
    if (amx)
      bp = memref::AllocOp::create(
          b, loc,
          MemRefType::get({slots, kcOuter / amxGroup(), n0 * amxGroup()},
                          types.input),
          b.getI64IntegerAttr(64));
    else if (residentB)
      bp = residentB;
    else if (p.packB)
      bp = memref::AllocOp::create(
          b, loc,
          grouped() ? MemRefType::get({tiles, blockGroups(), n0 * kGroup()},
                                      types.input)
                    : MemRefType::get({tiles, kcOuter, n0}, bElement),
          b.getI64IntegerAttr(64));
    if (amx)
      cScratch = memref::AllocOp::create(
          b, loc, MemRefType::get({slots, p.m0, n0}, types.acc),
          b.getI64IntegerAttr(64));
    int64_t fullPanels = g.sizeM / p.m0;
    int64_t tailRows = g.sizeM % p.m0;
    // One parallel region per contraction, outside the k blocks, so that
    // each thread keeps its part of C to itself across k: chunks of column
    // tiles, or, when there are few tiles (N = 49 at 7x7), chunks of row
    // panels. (Forking per k block measured up to 2x slower at 2 threads.)
    // B packing is shared by all threads per k block and keeps the split
    // of tiles inside it.
    enum class Split {
      None,
      Tiles,
      Rows,
      TilesPerKBlock,
      RowsPerKBlock
    } split = Split::None;
    // With B packed per k block, the threads share the packing and then
    // split the tiles; where the tiles are few against the row panels
    // (int8 at 7x7: N = 49 is 4 tiles of 16, the last of one vector; at
    // 14x14 13 tiles against 42 panels of 6 rows), they split the panels
    // instead, which balance: ResNet-50's int8 layer4 scaled 1.65x at 2
    // threads (now 1.92x), its 14x14 layers 1.75x (now 1.9x).
    // A decision's `split` (from a tuning file: dlas-tune measures both)
    // overrides these rules where its side has two chunks to give.
    // B packed at compile time is read like B in place: each thread takes
    // its column tiles through all k blocks, in slices of ncTiles that stay
    // in L2 (packing per k block made every k block sweep all of C).
    bool packPerKBlock = p.packB && !residentB;
    bool splitRows =
        dlas::gemmThreadSplit(p.split, g.sizeM, g.sizeN, p.m0, n0,
                              packPerKBlock) == dlas::ThreadSplit::rows;
    if (parallel && packPerKBlock)
      split = splitRows ? Split::RowsPerKBlock : Split::TilesPerKBlock;
    else if (parallel && !splitRows &&
             (tiles >= dlas::kMinParallelTiles ||
              p.split == dlas::ThreadSplit::tiles))
      split = Split::Tiles;
    else if (parallel && splitRows)
      split = Split::Rows;
    Value kEnd = index(g.ranges[g.k[0]]);
    lastK = kEnd;
    // AMX packs each column tile of B where a chunk of work multiplies it,
    // so that it stays in L1 for the chunk's row panels. Where B's whole
    // k block fits half of L2 and each tile would be packed again by the
    // same thread (row blocks of mc rows, or a tail panel), all tiles are
    // packed once per k block instead: ResNet-50's 3x3 layer on 7x7
    // (M = 512 in six row blocks, N = 49 in two tiles) packed its B six
    // times (0.93 -> 0.47 ms at 1 thread). Threads splitting the row
    // panels of one row block still each pack every tile, in parallel:
    // one parallel region fewer measured faster on a 0.1 ms layer at 2
    // threads (1x1, M = 1024, N = 196: 0.15 against 0.17 ms).
    int64_t panels = llvm::divideCeil(g.sizeM, p.m0);
    int64_t rowBlocks =
        llvm::divideCeil(panels, std::max<int64_t>(1, p.mc / p.m0));
    bool prePackB = amx &&
                    tiles * kcOuter * n0 * types.inputBytes() <= l2Bytes / 2 &&
                    (rowBlocks > 1 || (tailRows != 0 && fullPanels > 0));
    // Quads and pairs (not AMX, which packs per tile on its own) pack each
    // column tile where the row panels use it, when one row block holds
    // them all and the threads (if any) split the tiles.
    bool packWhereUsed = !amx && grouped() && packPerKBlock && rowBlocks == 1 &&
                         (split == Split::TilesPerKBlock ||
                          (split == Split::None && !residentB));
    auto kBlocks = [&](function_ref<void(Value, Value)> body) {
      loop(index(0), kEnd, kcOuter,
           [&](Value kc) { body(kc, min(add(kc, kcOuter), kEnd)); });
    };
    // Rows [first, end) of full panels, then the tail panel, over tiles
    // [tileFirst, tileEnd).
    auto allPanels = [&](Value kc, Value kcEnd, Value tileFirst, Value tileEnd,
                         bool parallelTiles) {
      if (fullPanels > 0)
        emitPanels(index(0), index(fullPanels), p.m0, kc, kcEnd, tileFirst,
                   tileEnd, parallelTiles);
      if (tailRows != 0)
        emitPanels(index(fullPanels), index(fullPanels + 1), tailRows, kc,
                   kcEnd, tileFirst, tileEnd, parallelTiles);
    };
    // Row panels [first, end) of all of them, the tail panel (tailRows
    // rows) last, so that the threads that split the panels share the tail
    // too: run after their region, it kept one thread waiting (at M = 256
    // in 13-row panels, 19 panels and 9 rows, 13% of a 2-thread int8
    // layer's samples were a thread waiting).
    auto panelsWithTail = [&](Value first, Value end, Value kc, Value kcEnd,
                              int64_t tiles) {
      if (fullPanels > 0)
        emitPanels(first, min(end, index(fullPanels)), p.m0, kc, kcEnd,
                   index(0), index(tiles), false);
      if (tailRows == 0)
        return;
      Value hasTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                            end, index(fullPanels));
      scf::IfOp::create(b, loc, hasTail, [&](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nested.getBlock());
        emitPanels(index(fullPanels), index(fullPanels + 1), tailRows, kc,
                   kcEnd, index(0), index(tiles), false);
        scf::YieldOp::create(b, loc);
      });
    };
    // Column tiles [first, end) in B blocks of ncTiles tiles, each through
    // all k blocks, so that a kc x nc slice of B stays in L2 across the row
    // blocks (one chunk per thread spans all of N at 1 thread: sgemm 2048
    // took 112 ms without this, 80 with it).
    auto tileRange = [&](Value first, Value end) {
      loop(first, end, p.ncTiles, [&](Value nc) {
        Value ncEnd = min(add(nc, p.ncTiles), end);
        kBlocks([&](Value kc, Value kcEnd) {
          allPanels(kc, kcEnd, nc, ncEnd, false);
        });
      });
    };
    // A batched GEMM (groups, Winograd positions) that would split its
    // column tiles, or not split at all, shares one parallel region among
    // its (batch, tile) pairs instead of forking once per batch: WRN-40-2's
    // 16 groups of 2-4 channels forked 16 times a layer and ran slower at 2
    // threads than at 1. Row splits with B read in place do the same over
    // (batch, panel) pairs (below).
    SmallVector<int64_t> batchBasis;
    for (unsigned d : g.batch)
      batchBasis.push_back(g.ranges[d]);
    int64_t batches = computeProduct(batchBasis);
    // The batch ivs of linear batch number `batch`.
    auto enterBatch = [&](Value batch) {
      auto ivs =
          affine::AffineDelinearizeIndexOp::create(b, loc, batch, batchBasis);
      batchValues.assign(ivs.getResults().begin(), ivs.getResults().end());
    };
    // One parallel region over the (batch, item) pairs, `perBatch` items a
    // batch: each chunk enters the batches it touches and calls
    // `body(first, end)` with its items of each, numbered within the batch.
    auto chunksOfBatches = [&](int64_t perBatch,
                               function_ref<void(Value, Value)> body) {
      dlas::parallelChunks(
          b, loc, g.op, batches * perBatch, chunks,
          [&](Value first, Value end) {
            Value items = index(perBatch);
            Value firstBatch = arith::DivUIOp::create(b, loc, first, items);
            Value endBatch = arith::CeilDivUIOp::create(b, loc, end, items);
            loop(firstBatch, endBatch, 1, [&](Value batch) {
              enterBatch(batch);
              Value base = arith::MulIOp::create(b, loc, batch, items);
              Value itemFirst = arith::SubIOp::create(
                  b, loc, arith::MaxUIOp::create(b, loc, first, base), base);
              Value itemEnd = arith::SubIOp::create(
                  b, loc, min(end, add(base, perBatch)), base);
              body(itemFirst, itemEnd);
            });
          });
    };
    // With B packed per k block the threads fork twice per batch and k
    // block (the shared packing, then the tiles): 72 regions a call for
    // Winograd F(4x4)'s 36 positions, whose GEMMs take 20-40 us each. From
    // kMinThreadBatches batches the threads take whole batches instead,
    // each packing B into a buffer of its own, in one region.
    if (batches >= kMinThreadBatches && packPerKBlock && !amx && !prePackB &&
        (split == Split::TilesPerKBlock || split == Split::RowsPerKBlock)) {
      dlas::parallelChunks(
          b, loc, g.op, batches, chunks, [&](Value first, Value end) {
            Value shared = bp;
            bp = memref::AllocOp::create(b, loc,
                                         cast<MemRefType>(shared.getType()),
                                         b.getI64IntegerAttr(64));
            bool wasParallel = parallel;
            parallel = false;
            loop(first, end, 1, [&](Value batch) {
              enterBatch(batch);
              kBlocks([&](Value kc, Value kcEnd) {
                packBlockOfB(kc, kcEnd, tiles);
                allPanels(kc, kcEnd, index(0), index(tiles), false);
              });
            });
            parallel = wasParallel;
            memref::DeallocOp::create(b, loc, bp);
            bp = shared;
          });
    } else if (batches > 1 &&
               (split == Split::Tiles ||
                (parallel && !packPerKBlock && split == Split::None))) {
      chunksOfBatches(tiles, tileRange);
    } else if (batches > 1 && split == Split::Rows && !amx) {
      // B is read in place (nothing shared to pack per batch), so the
      // (batch, row panel) pairs share one region too. Forking per batch,
      // WRN-40-2's 64 channels at 16x16 in 8 groups of 8 (2 panels of 4
      // rows a group) ran slower at 2 threads than at 1 (0.031 against
      // 0.028 ms; now 0.018), and Winograd F(4x4)'s 36 positions of
      // ResNet's 64-channel 56x56 layer took 0.59 ms (now 0.41; 0.81 at
      // 1 thread), x86-64-v4 on Zen 4.
      chunksOfBatches(panels, [&](Value panelFirst, Value panelEnd) {
        kBlocks([&](Value kc, Value kcEnd) {
          panelsWithTail(panelFirst, panelEnd, kc, kcEnd, tiles);
        });
      });
    } else {
      loopNest(g.batch, 0, [&](ArrayRef<Value> batchIvs) {
        batchValues.assign(batchIvs.begin(), batchIvs.end());
        switch (split) {
        case Split::Tiles: {
          dlas::parallelChunks(b, loc, g.op, tiles, chunks, tileRange);
          return;
        }
        case Split::Rows: {
          if (!amx) {
            dlas::parallelChunks(
                b, loc, g.op, panels, chunks, [&](Value first, Value end) {
                  kBlocks([&](Value kc, Value kcEnd) {
                    panelsWithTail(first, end, kc, kcEnd, tiles);
                  });
                });
            return;
          }
          dlas::parallelChunks(b, loc, g.op, fullPanels, chunks,
                               [&](Value first, Value end) {
                                 kBlocks([&](Value kc, Value kcEnd) {
                                   emitPanels(first, end, p.m0, kc, kcEnd,
                                              index(0), index(tiles), false);
                                 });
                               });
          if (tailRows != 0)
            kBlocks([&](Value kc, Value kcEnd) {
              emitPanels(index(fullPanels), index(fullPanels + 1), tailRows, kc,
                         kcEnd, index(0), index(tiles), false);
            });
          return;
        }
        case Split::RowsPerKBlock:
          kBlocks([&](Value kc, Value kcEnd) {
            bPrePacked = prePackB;
            if (!amx || prePackB)
              packBlockOfB(kc, kcEnd, tiles);
            if (!amx) {
              dlas::parallelChunks(
                  b, loc, g.op, panels, chunks, [&](Value first, Value end) {
                    panelsWithTail(first, end, kc, kcEnd, tiles);
                  });
              bPrePacked = false;
              return;
            }
            dlas::parallelChunks(b, loc, g.op, fullPanels, chunks,
                                 [&](Value first, Value end) {
                                   slot = first;
                                   emitPanels(first, end, p.m0, kc, kcEnd,
                                              index(0), index(tiles), false);
                                 });
            slot = index(0);
            if (tailRows != 0)
              emitPanels(index(fullPanels), index(fullPanels + 1), tailRows, kc,
                         kcEnd, index(0), index(tiles), false);
            bPrePacked = false;
          });
          return;
        case Split::None:
          if (residentB)
            return tileRange(index(0), index(tiles));
          [[fallthrough]];
        case Split::TilesPerKBlock:
          if (packWhereUsed)
            return kBlocks([&](Value kc, Value kcEnd) {
              emitTilesPackedWhereUsed(kc, kcEnd, tiles,
                                       split == Split::TilesPerKBlock);
            });
          kBlocks([&](Value kc, Value kcEnd) {
            bPrePacked = prePackB;
            if ((p.packB && !amx) || prePackB)
              packBlockOfB(kc, kcEnd, tiles);
            allPanels(kc, kcEnd, index(0), index(tiles),
                      split == Split::TilesPerKBlock);
            bPrePacked = false;
          });
          return;
        }
      });
    }
    if (packPerKBlock)
      memref::DeallocOp::create(b, loc, bp);
    if (cScratch)
      memref::DeallocOp::create(b, loc, cScratch);
  }

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  void loop(int64_t lb, int64_t ub, function_ref<void(Value)> body) {
    loop(index(lb), index(ub), 1, body);
  }
  void loop(Value lb, Value ub, int64_t step, function_ref<void(Value)> body) {
    dlas::buildForLoop(b, loc, lb, ub, step, body);
  }

  /// Full-range loops over `dims` (from position `from`), body gets the ivs.
  void loopNest(ArrayRef<unsigned> dims, unsigned from,
                function_ref<void(ArrayRef<Value>)> body,
                SmallVector<Value> ivs = {}) {
    if (from == dims.size())
      return body(ivs);
    loop(0, g.ranges[dims[from]], [&](Value iv) {
      SmallVector<Value> next = ivs;
      next.push_back(iv);
      loopNest(dims, from + 1, body, next);
    });
  }

  /// One value per loop dim: the batch ivs where known, 0 elsewhere.
  SmallVector<Value> dimValues() {
    SmallVector<Value> dims(g.ranges.size(), index(0));
    for (auto [d, v] : llvm::zip(g.batch, batchValues))
      dims[d] = v;
    return dims;
  }

  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> dims) {
    SmallVector<Value> result;
    for (AffineExpr e : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        result.push_back(dims[d.getPosition()]);
        continue;
      }
      result.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, e), dims));
    }
    return result;
  }

  /// k index into the packed panel: the k ivs linearized in A's order.
  Value linearK(ArrayRef<Value> ks) {
    Value lin = ks[0];
    for (unsigned i = 1; i < ks.size(); ++i) {
      lin = arith::MulIOp::create(b, loc, lin, index(g.ranges[g.k[i]]));
      lin = arith::AddIOp::create(b, loc, lin, ks[i]);
    }
    return lin;
  }

  Value add(Value v, int64_t c) {
    return c == 0 ? v : arith::AddIOp::create(b, loc, v, index(c)).getResult();
  }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }

  /// Runs `body(tile)` over the column tiles, in parallel when asked.
  void forEachTile(Value first, Value end, bool inParallel,
                   function_ref<void(Value)> body) {
    if (!inParallel)
      return loop(first, end, 1, body);
    scf::ParallelOp::create(b, loc, ValueRange{first}, ValueRange{end},
                            ValueRange{index(1)},
                            [&](OpBuilder &nested, Location, ValueRange ivs) {
                              OpBuilder::InsertionGuard guard(b);
                              b.setInsertionPointToStart(nested.getBlock());
                              body(ivs[0]);
                            });
  }

  /// The lanes of a vector of B's columns [col, col + vw) per output row
  /// of `width` columns it touches: lanes [lo, hi) of mask s belong to
  /// the s-th row (1 + ceil((vw - 1) / width) masks), each also within
  /// `extra` where given.
  SmallVector<Value> rowSegmentMasks(Value col, int64_t width, Value extra) {
    auto maskType = VectorType::get({vw}, b.getI1Type());
    Value lo = index(0);
    Value hi = arith::SubIOp::create(
        b, loc, index(width),
        arith::RemUIOp::create(b, loc, col, index(width)));
    SmallVector<Value> result;
    for (int64_t s = 0, e = 1 + llvm::divideCeil(vw - 1, width); s < e; ++s) {
      Value lanes = arith::XOrIOp::create(
          b, loc,
          vector::CreateMaskOp::create(b, loc, maskType, ValueRange{hi}),
          vector::CreateMaskOp::create(b, loc, maskType, ValueRange{lo}));
      if (extra)
        lanes = arith::AndIOp::create(b, loc, lanes, extra);
      result.push_back(lanes);
      lo = hi;
      hi = add(hi, width);
    }
    return result;
  }

  /// Elements 0, sw, 2 * sw, ... of `wide` as a vector of `type`: where
  /// sw elements make a 16, 32 or 64-bit integer, its low bits (a
  /// truncation, vpmovdw and the like), else a shuffle (which LLVM
  /// scalarizes for bf16: the stride-2 layers ran 2.4x slower with it).
  Value pickEvery(Value wide, VectorType type, int64_t sw,
                  ArrayRef<int64_t> every) {
    int64_t bits = type.getElementTypeBitWidth();
    if (!llvm::is_contained({16, 32, 64}, bits * sw))
      return vector::ShuffleOp::create(b, loc, wide, wide, every);
    auto groups = VectorType::get({vw}, b.getIntegerType(bits * sw));
    auto narrow = VectorType::get({vw}, b.getIntegerType(bits));
    Value low = arith::TruncIOp::create(
        b, loc, narrow, vector::BitCastOp::create(b, loc, groups, wide));
    return vector::BitCastOp::create(b, loc, type, low);
  }

  /// Lanes [col, col + vw) of B's row k (`dims` holds both), as a vector of
  /// `type`; `mask` (optional) keeps lanes, the others read zero.
  Value loadRowOfB(VectorType type, ArrayRef<Value> dims, Value mask) {
    SmallVector<Value> idx = indices(g.op.getMatchingIndexingMap(g.b), dims);
    Value zeros = types.zero(b, loc, type);
    if (!patchSource) {
      if (!mask)
        return vector::LoadOp::create(b, loc, type, g.b->get(), idx);
      return vector::MaskedLoadOp::create(b, loc, type, g.b->get(), idx, mask,
                                          zeros);
    }
    // Row q = (c, th, tw) at output position p = oh * OW + ow reads X's
    // flat position p * sw + oh * (sh * Wp - OW * sw) + th * dh * Wp +
    // tw * dw: the lanes of each output row the vector touches are one
    // masked load (of sw times the lanes, every sw-th element kept, where
    // W's stride is sw > 1).
    const PatchSource &src = *patchSource;
    Value n = idx[0], col = idx[2];
    auto divide = [&](Value v, int64_t d) {
      return arith::DivUIOp::create(b, loc, v, index(d)).getResult();
    };
    auto times = [&](Value v, int64_t f) {
      return arith::MulIOp::create(b, loc, v, index(f)).getResult();
    };
    auto sum = [&](Value x, Value y) {
      return arith::AddIOp::create(b, loc, x, y).getResult();
    };
    Value rowOffset = memref::LoadOp::create(b, loc, src.rowOffsets, idx[1]);
    int64_t sw = src.sw;
    int64_t skip = src.sh * src.inputWidth - src.outputWidth * sw;
    Value firstRow = divide(col, src.outputWidth);
    auto maskType = VectorType::get({vw}, b.getI1Type());
    auto wideType = VectorType::get({vw * sw}, type.getElementType());
    // Element e of the wide load belongs to lane e / sw when e % sw == 0
    // (index vw: the second, all-false operand, elsewhere); lane l is
    // element l * sw.
    SmallVector<int64_t> spread, every;
    Value none, wideZeros;
    if (sw > 1) {
      for (int64_t e = 0; e < vw * sw; ++e)
        spread.push_back(e % sw == 0 ? e / sw : vw);
      for (int64_t l = 0; l < vw; ++l)
        every.push_back(l * sw);
      none = arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(maskType, false));
      wideZeros = types.zero(b, loc, wideType);
    }
    Value result = zeros;
    for (auto [segment, lanes] :
         llvm::enumerate(rowSegmentMasks(col, src.outputWidth, mask))) {
      Value position = sum(
          sum(times(col, sw), times(add(firstRow, segment), skip)), rowOffset);
      if (sw == 1 && src.fastMaskedLoads) {
        result = vector::MaskedLoadOp::create(
            b, loc, type, src.input, ValueRange{n, position}, lanes, result);
        continue;
      }
      Value picked;
      if (sw == 1) {
        picked = loadInsideX(type, n, position, lanes, zeros);
      } else {
        Value elements = vector::ShuffleOp::create(b, loc, lanes, none, spread);
        Value wide = loadInsideX(wideType, n, position, elements, wideZeros);
        picked = pickEvery(wide, type, sw, every);
      }
      result = arith::SelectOp::create(b, loc, lanes, picked, result);
    }
    return result;
  }

  /// The elements of the patch source's X at [n, position...) where `mask`
  /// keeps them (others: `passThru` or X's neighbours; the caller selects
  /// its lanes). Without one-instruction masked loads (bytes and halves
  /// below AVX512BW: LLVM inserts each lane separately, 29% of an int8 3x3
  /// layer on x86-64-v3) a vector that lies inside X loads whole, and only
  /// one that reaches past X's end (the last positions of the last
  /// channel) loads under the mask.
  Value loadInsideX(VectorType type, Value n, Value position, Value mask,
                    Value passThru) {
    const PatchSource &src = *patchSource;
    if (src.fastMaskedLoads)
      return vector::MaskedLoadOp::create(
          b, loc, type, src.input, ValueRange{n, position}, mask, passThru);
    int64_t size = cast<MemRefType>(src.input.getType()).getDimSize(1);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                         add(position, type.getNumElements()),
                                         index(size));
    auto ifOp = scf::IfOp::create(
        b, loc, inside,
        [&](OpBuilder &nested, Location) {
          Value whole = vector::LoadOp::create(nested, loc, type, src.input,
                                               ValueRange{n, position});
          scf::YieldOp::create(nested, loc, whole);
        },
        [&](OpBuilder &nested, Location) {
          Value masked = vector::MaskedLoadOp::create(
              nested, loc, type, src.input, ValueRange{n, position}, mask,
              passThru);
          scf::YieldOp::create(nested, loc, masked);
        });
    return ifOp.getResult(0);
  }

  /// Packing B: every column tile of [0, tiles) into its own slot of Bp
  /// (in parallel where the kernel is), or, with `onlyTile`, that tile
  /// into `slot` (AMX: each thread packs the tile it is about to use).
  void forEachPackedTile(int64_t tiles, Value onlyTile, Value slot,
                         function_ref<void(Value tile, Value slot)> body) {
    if (onlyTile)
      return body(onlyTile, slot);
    forEachTile(index(0), index(tiles), parallel,
                [&](Value tile) { body(tile, tile); });
  }

  /// Runs `body(false)` for a column tile that lies inside N and
  /// `body(true)` for the last, partial one (when N is not a multiple of
  /// n0), one scf.if per tile: masked loads of bytes and halves are
  /// scalarized on AVX2, so the full tiles must not pay for them.
  void splitAtPartialTile(Value col, function_ref<void(bool)> body) {
    int64_t n0 = p.vectors * vw;
    if (g.sizeN % n0 == 0)
      return body(false);
    Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                       add(col, n0), index(g.sizeN));
    auto branch = [&](bool masked) {
      return [&, masked](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nested.getBlock());
        body(masked);
        scf::YieldOp::create(b, loc);
      };
    };
    scf::IfOp::create(b, loc, full, branch(false), branch(true));
  }

  /// Copies rows [kc, kcEnd) of B into column-tile panels Bp[tile][k][n0],
  /// zero past N, so that the kernels stream it contiguously.
  void packBlockOfB(Value kc, Value kcEnd, int64_t tiles) {
    if (quadLayout)
      return packQuadsOfB(kc, kcEnd, tiles);
    if (amx || bf16Pairs)
      return packPairsOfB(kc, kcEnd, tiles);
    int64_t n0 = p.vectors * vw;
    forEachTile(index(0), index(tiles), parallel, [&](Value tile) {
      Value col = arith::MulIOp::create(b, loc, tile, index(n0));
      splitAtPartialTile(col, [&](bool masked) {
        loop(kc, kcEnd, 1, [&](Value k) {
          SmallVector<Value> dims = dimValues();
          dims[g.k[0]] = k;
          Value row = arith::SubIOp::create(b, loc, k, kc);
          for (int64_t j = 0; j < p.vectors; ++j) {
            dims[g.n] = add(col, j * vw);
            Value mask;
            if (masked) {
              Value left =
                  arith::SubIOp::create(b, loc, index(g.sizeN), dims[g.n]);
              mask = vector::CreateMaskOp::create(
                  b, loc, VectorType::get({vw}, b.getI1Type()),
                  ValueRange{left});
            }
            Value v = loadRowOfB(inVecType, dims, mask);
            if (bElement != types.input)
              v = types.promote(b, loc, v);
            vector::StoreOp::create(b, loc, v, bp,
                                    ValueRange{tile, row, index(j * vw)});
          }
        });
      });
    });
  }

  /// Quads: rows [kc, kcEnd) of B as quads, Bp[tile][kc/4][n0 * 4]: lane
  /// n's 32 bits hold B[k..k+3][n], each byte + 128 (u8 for vpdpbusd);
  /// rows past K and columns past N hold 128 (0 + 128), against zeros of A.
  void packQuadsOfB(Value kc, Value kcEnd, int64_t tiles, Value onlyTile = {},
                    Value slot = {}) {
    int64_t n0 = p.vectors * vw;
    int64_t sizeK = g.ranges[g.k[0]];
    Type i8 = b.getI8Type();
    auto byteVector = VectorType::get({vw}, i8);
    Value zeros = types.zero(b, loc, byteVector);
    Value bias = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(VectorType::get({4 * vw}, i8),
                                       b.getI8IntegerAttr(-128)));
    bool wholeQuads = sizeK % 4 == 0;
    Value quadLo = arith::DivUIOp::create(b, loc, kc, index(4));
    Value quadHi = arith::CeilDivUIOp::create(b, loc, kcEnd, index(4));
    // AMX reads whole tiles of 16 quads: the rows past K hold 128 (against
    // zeros of A).
    if (amx)
      quadHi = amxGroupsEnd(quadLo, quadHi);
    forEachPackedTile(tiles, onlyTile, slot, [&](Value tile, Value slot) {
      Value col = arith::MulIOp::create(b, loc, tile, index(n0));
      splitAtPartialTile(col, [&](bool masked) {
        loop(quadLo, quadHi, 1, [&](Value q) {
          Value row = arith::SubIOp::create(b, loc, q, quadLo);
          Value k0 = arith::MulIOp::create(b, loc, q, index(4));
          for (int64_t j = 0; j < p.vectors; ++j) {
            SmallVector<Value> dims = dimValues();
            dims[g.n] = add(col, j * vw);
            SmallVector<Value> rows;
            for (int64_t t = 0; t < 4; ++t) {
              Value k = add(k0, t);
              dims[g.k[0]] = min(k, index(sizeK - 1));
              if (!masked) {
                // Rows past K (the last quad's) read row K - 1, then zeros.
                Value row = loadRowOfB(byteVector, dims, Value());
                if (!wholeQuads)
                  row = arith::SelectOp::create(
                      b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            k, index(sizeK)),
                      row, zeros);
                rows.push_back(row);
                continue;
              }
              // Columns left in this vector, none past K.
              Value left =
                  arith::SubIOp::create(b, loc, index(g.sizeN), dims[g.n]);
              Value inK = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::slt, k, index(sizeK));
              left = arith::SelectOp::create(b, loc, inK, left, index(0));
              Value mask = vector::CreateMaskOp::create(
                  b, loc, VectorType::get({vw}, b.getI1Type()),
                  ValueRange{left});
              rows.push_back(loadRowOfB(byteVector, dims, mask));
            }
            Value quads =
                arith::XOrIOp::create(b, loc, interleaveQuads(rows), bias);
            vector::StoreOp::create(b, loc, quads, bp,
                                    ValueRange{slot, row, index(j * 4 * vw)});
          }
        });
      });
    });
  }

  /// AMX: the end of k groups [lo, hi) rounded up to whole tiles (16
  /// groups of a B tile's rows).
  Value amxGroupsEnd(Value lo, Value hi) {
    Value tiles = arith::CeilDivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, hi, lo), index(kAmxRows));
    return arith::AddIOp::create(
        b, loc, lo, arith::MulIOp::create(b, loc, tiles, index(kAmxRows)));
  }

  /// bf16 on AMX or vdpbf16ps: rows [kc, kcEnd) of B as k pairs,
  /// Bp[tile][kc/2][n0 * 2]: lane n's 32 bits hold B[k][n], B[k+1][n]
  /// (AMX's B layout for tdpbf16ps, and vdpbf16ps's operand); rows past K
  /// (on AMX to the end of the last tile) and columns past N are zeros.
  void packPairsOfB(Value kc, Value kcEnd, int64_t tiles, Value onlyTile = {},
                    Value slot = {}) {
    int64_t n0 = p.vectors * vw;
    int64_t sizeK = g.ranges[g.k[0]];
    Type i16 = b.getI16Type();
    auto halfVector = VectorType::get({vw}, types.input);
    auto bitsVector = VectorType::get({vw}, i16);
    Value pairLo = arith::DivUIOp::create(b, loc, kc, index(2));
    Value pairHi = arith::CeilDivUIOp::create(b, loc, kcEnd, index(2));
    if (amx)
      pairHi = amxGroupsEnd(pairLo, pairHi);
    SmallVector<int64_t> interleave;
    for (int64_t l = 0; l < vw; ++l)
      llvm::append_values(interleave, l, vw + l);
    forEachPackedTile(tiles, onlyTile, slot, [&](Value tile, Value slot) {
      Value col = arith::MulIOp::create(b, loc, tile, index(n0));
      splitAtPartialTile(col, [&](bool masked) {
        // Pairs with both rows inside K load whole vectors (masked by
        // columns only in the partial tile); the rest (an odd K's last
        // row, the zeros up to the end of the tile) mask by row too.
        auto pairRows = [&](Value lo, Value hi, bool insideK) {
          loop(lo, hi, 1, [&](Value pr) {
            Value row = arith::SubIOp::create(b, loc, pr, pairLo);
            Value k0 = arith::MulIOp::create(b, loc, pr, index(2));
            for (int64_t j = 0; j < p.vectors; ++j) {
              SmallVector<Value> dims = dimValues();
              dims[g.n] = add(col, j * vw);
              SmallVector<Value> rows;
              for (int64_t t = 0; t < 2; ++t) {
                Value k = add(k0, t);
                dims[g.k[0]] = insideK ? k : min(k, index(sizeK - 1));
                Value mask;
                if (!insideK || masked) {
                  // Lanes left in this vector: none past K.
                  Value left = index(vw);
                  if (masked)
                    left = arith::SubIOp::create(b, loc, index(g.sizeN),
                                                 dims[g.n]);
                  if (!insideK)
                    left = arith::SelectOp::create(
                        b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              k, index(sizeK)),
                        left, index(0));
                  mask = vector::CreateMaskOp::create(
                      b, loc, VectorType::get({vw}, b.getI1Type()),
                      ValueRange{left});
                }
                Value v = loadRowOfB(halfVector, dims, mask);
                rows.push_back(
                    vector::BitCastOp::create(b, loc, bitsVector, v));
              }
              Value pairs = vector::ShuffleOp::create(b, loc, rows[0], rows[1],
                                                      interleave);
              pairs = vector::BitCastOp::create(
                  b, loc, VectorType::get({2 * vw}, types.input), pairs);
              vector::StoreOp::create(b, loc, pairs, bp,
                                      ValueRange{slot, row, index(j * 2 * vw)});
            }
          });
        };
        Value wholeEnd = arith::MaxUIOp::create(b, loc, pairLo,
                                                min(pairHi, index(sizeK / 2)));
        pairRows(pairLo, wholeEnd, true);
        pairRows(wholeEnd, pairHi, false);
      });
    });
  }

  /// AMX: copies A into tiles at run time,
  /// Ap[g..][K/kc][M/m0][kc/step][m0][step] (a step: the 64 bytes of k of
  /// a tile row; zeros past M and K): each 16-row tile of a step is 1 KB
  /// in one piece (row-major panels put its rows kc * 2 bytes apart, each
  /// in a page of its own for K in the thousands, where the prefetchers
  /// gave up: a 256 x 2304 x 196 GEMM took 0.9 ms), with the row sums
  /// of an i8 A (see packQuadsAtRunTime). Element by element: constant
  /// weights are packed at compile time instead.
  Value packAmxAtRunTime() {
    auto type = packedType();
    Value packed =
        memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    bool int8 = types.input.isInteger(8);
    if (int8) {
      SmallVector<int64_t> sumsShape;
      for (unsigned d : g.aBatch)
        sumsShape.push_back(g.ranges[d]);
      sumsShape.push_back(llvm::alignTo(g.sizeM, p.m0));
      rowSums = memref::AllocOp::create(
          b, loc, MemRefType::get(sumsShape, b.getI32Type()),
          b.getI64IntegerAttr(64));
    }
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    Value zero = types.zero(b, loc, types.input);
    Value zero32 = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    int64_t sizeK = g.ranges[g.k[0]];
    int64_t paddedK = type.getShape().drop_back(4).back() * blockK();
    int64_t paddedM = llvm::alignTo(g.sizeM, p.m0);
    loopNest(g.aBatch, 0, [&](ArrayRef<Value> aBatchIvs) {
      loop(0, paddedM, [&](Value m) {
        SmallVector<Value> dims = dimValues();
        for (auto [d, v] : llvm::zip(g.aBatch, aBatchIvs))
          dims[d] = v;
        Value mInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              m, index(g.sizeM));
        dims[g.m] = min(m, index(g.sizeM - 1));
        auto kLoop = scf::ForOp::create(
            b, loc, index(0), index(paddedK), index(1), ValueRange{zero32},
            [&](OpBuilder &nested, Location, Value k, ValueRange sum) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(nested.getBlock());
              Value inside = arith::AndIOp::create(
                  b, loc, mInside,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                        index(sizeK)));
              dims[g.k[0]] = min(k, index(sizeK - 1));
              Value v = memref::LoadOp::create(b, loc, g.a->get(),
                                               indices(aMap, dims));
              v = arith::SelectOp::create(b, loc, inside, v, zero);
              Value block = arith::DivUIOp::create(b, loc, k, index(blockK()));
              Value within = arith::RemUIOp::create(b, loc, k, index(blockK()));
              Value step =
                  arith::DivUIOp::create(b, loc, within, index(amxKStep()));
              Value inStep =
                  arith::RemUIOp::create(b, loc, within, index(amxKStep()));
              Value panel = arith::DivUIOp::create(b, loc, m, index(p.m0));
              Value inPanel = arith::RemUIOp::create(b, loc, m, index(p.m0));
              memref::StoreOp::create(
                  b, loc, v, packed,
                  packedIndices(
                      dims, ValueRange{block, panel, step, inPanel, inStep}));
              Value total = sum[0];
              if (int8)
                total = arith::AddIOp::create(
                    b, loc, total,
                    arith::ExtSIOp::create(b, loc, b.getI32Type(), v));
              scf::YieldOp::create(b, loc, total);
            });
        if (int8)
          memref::StoreOp::create(b, loc, kLoop.getResult(0), rowSums,
                                  packedIndices(dims, ValueRange{m}));
      });
    });
    return packed;
  }

  /// Panels [first, end) of `rows` rows each, blocked for L2, over
  /// k block [kc, kcEnd).
  void emitPanels(Value first, Value end, int64_t rows, Value kc, Value kcEnd,
                  Value tileFirst, Value tileEnd, bool parallelTiles) {
    int64_t panelsPerBlock = std::max<int64_t>(1, p.mc / p.m0);
    int64_t n0 = p.vectors * vw;
    loop(first, end, panelsPerBlock, [&](Value mc) {
      Value mcEnd = min(add(mc, panelsPerBlock), end);
      auto tileBody = [&](Value tile) {
        Value col = arith::MulIOp::create(b, loc, tile, index(n0));
        bSlot = bPrePacked ? tile : slot;
        if (amx && !bPrePacked) {
          if (quadLayout)
            packQuadsOfB(kc, kcEnd, 0, tile, slot);
          else
            packPairsOfB(kc, kcEnd, 0, tile, slot);
        }
        forTileColumns(col, [&](Value tileCol, bool masked) {
          loop(mc, mcEnd, 1, [&](Value panel) {
            emitKernel(panel, tile, tileCol, kc, kcEnd, rows, masked);
          });
        });
      };
      std::optional<int64_t> lo = getConstantIntValue(tileFirst);
      std::optional<int64_t> hi = getConstantIntValue(tileEnd);
      if (!(amx && parallelTiles && lo && hi))
        return forEachTile(tileFirst, tileEnd, parallelTiles, tileBody);
      // AMX: the threads take chunks of tiles, each chunk packing into the
      // slot of its first tile.
      Value outerSlot = slot;
      dlas::parallelChunks(b, loc, g.op, *hi - *lo, chunks,
                           [&](Value chunkFirst, Value chunkEnd) {
                             slot = add(chunkFirst, *lo);
                             loop(chunkFirst, chunkEnd, 1,
                                  [&](Value t) { tileBody(add(t, *lo)); });
                           });
      slot = outerSlot;
    });
  }

  /// Runs `body(tileCol, masked)` for the column tile at `col`. The last
  /// tile computes only the vectors that hold columns of C, masked only
  /// where the last of them is partial: N = 49 in 16-wide tiles
  /// (ResNet-50's 7x7 layers) otherwise spends a whole tile on one column.
  void forTileColumns(Value col, function_ref<void(Value, bool)> body) {
    int64_t n0 = p.vectors * vw;
    splitAtPartialTile(col, [&](bool partialTile) {
      int64_t partial = g.sizeN % n0;
      if (partialTile)
        tileVectors = llvm::divideCeil(partial, vw);
      bool masked = partialTile && partial % vw != 0;
      // The partial tile is the last one: its column as a constant makes
      // the tail masks constants, whose stores dlas-split-masked-stores
      // splits where masked stores are slow.
      body(partialTile ? index(g.sizeN - partial) : col, masked);
      tileVectors = p.vectors;
    });
  }

  /// Column tiles [0, tiles) over k block [kc, kcEnd) with B packed per
  /// tile where it is used: each tile's k groups go into a slot of Bp (per
  /// chunk of tiles when the threads split them), and every row panel,
  /// the tail panel too, multiplies it there, in L1. (Packed for the whole
  /// block first, B went through L3 and back: 1.8 MB for an int8 3x3
  /// layer with 64 channels at 56x56.) Needs one row block.
  void emitTilesPackedWhereUsed(Value kc, Value kcEnd, int64_t tiles,
                                bool parallelTiles) {
    int64_t n0 = p.vectors * vw;
    int64_t fullPanels = g.sizeM / p.m0, tailRows = g.sizeM % p.m0;
    auto tileBody = [&](Value tile) {
      if (quadLayout)
        packQuadsOfB(kc, kcEnd, 0, tile, slot);
      else
        packPairsOfB(kc, kcEnd, 0, tile, slot);
      Value col = arith::MulIOp::create(b, loc, tile, index(n0));
      forTileColumns(col, [&](Value tileCol, bool masked) {
        loop(0, fullPanels, [&](Value panel) {
          emitKernel(panel, slot, tileCol, kc, kcEnd, p.m0, masked);
        });
        if (tailRows != 0)
          emitKernel(index(fullPanels), slot, tileCol, kc, kcEnd, tailRows,
                     masked);
      });
    };
    Value outerSlot = slot;
    if (!parallelTiles) {
      slot = index(0);
      loop(0, tiles, tileBody);
    } else {
      dlas::parallelChunks(b, loc, g.op, tiles, chunks,
                           [&](Value chunkFirst, Value chunkEnd) {
                             slot = chunkFirst;
                             loop(chunkFirst, chunkEnd, 1, tileBody);
                           });
    }
    slot = outerSlot;
  }

  /// rows x vectors accumulators over k in [kcLo, kcHi) of the outer k dim.
  void emitKernel(Value panel, Value tile, Value col, Value kcLo, Value kcHi,
                  int64_t rows, bool masked) {
    AffineMap bMap = g.op.getMatchingIndexingMap(g.b);
    AffineMap cMap = g.op.getMatchingIndexingMap(g.c);
    SmallVector<Value> cols, masks;
    for (int64_t j = 0; j < tileVectors; ++j) {
      cols.push_back(add(col, j * vw));
      if (masked) {
        Value left = arith::SubIOp::create(b, loc, index(g.sizeN), cols[j]);
        masks.push_back(vector::CreateMaskOp::create(
            b, loc, VectorType::get({vw}, b.getI1Type()), ValueRange{left}));
      }
    }
    // Loads are typed by their buffer: B's input elements, C's and the
    // epilogue operands' accumulator (output) elements.
    auto load = [&](Value base, ArrayRef<Value> idx, int64_t j) -> Value {
      auto type = VectorType::get(
          {vw}, cast<MemRefType>(base.getType()).getElementType());
      if (masked)
        return vector::MaskedLoadOp::create(b, loc, type, base, idx, masks[j],
                                            types.zero(b, loc, type));
      return vector::LoadOp::create(b, loc, type, base, idx);
    };
    Value rowBase = arith::MulIOp::create(b, loc, panel, index(p.m0));
    auto cIndices = [&](int64_t i, int64_t j) {
      SmallVector<Value> dims = dimValues();
      dims[g.m] = add(rowBase, i);
      dims[g.n] = cols[j];
      return indices(cMap, dims);
    };
    bRowMasks.clear();
    if (g.rowWidth && !rowsOfWholeVectors(g, vw)) {
      // The lanes of a column vector of a compact flat B fall into up to
      // `segments` output rows, each read from its own input row: lanes
      // [lo, hi) of segment s belong to the s-th row the vector touches.
      for (int64_t j = 0; j < tileVectors; ++j)
        bRowMasks.push_back(
            rowSegmentMasks(cols[j], g.rowWidth, masked ? masks[j] : Value()));
    }
    TileContext at{rowBase, cols, load};
    auto loadC = [&] {
      SmallVector<Value> values;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < tileVectors; ++j)
          values.push_back(load(g.c->get(), cIndices(i, j), j));
      return values;
    };
    auto initial = [&] {
      SmallVector<Value> values;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < tileVectors; ++j)
          values.push_back(nb.initRead ? readTile(*nb.initRead, at, i, j)
                                       : vector::BroadcastOp::create(
                                             b, loc, vecType, nb.initValue));
      return values;
    };
    // The folded init starts the first k block; later ones resume from C.
    SmallVector<Value> acc;
    if (!nb.init)
      acc = loadC();
    else if (singleKBlock)
      acc = initial();
    else
      acc = ifElse(isEqual(kcLo, index(0)), initial, loadC);

    // The k loops carry the accumulators in registers.
    std::function<SmallVector<Value>(unsigned, SmallVector<Value>,
                                     ValueRange)>
        kLoop = [&](unsigned level, SmallVector<Value> ks,
                    ValueRange carried) -> SmallVector<Value> {
      if (level == g.k.size())
        return fmaStep(panel, tile, kcLo, cols, ks, carried, rows, bMap, load);
      if (level > 0 && innerTaps(level) <= kMaxUnrolledTaps) {
        // Small windows (3x3, 7x7 rows) unroll: constant tap offsets fold
        // into the addresses and no loop carries the accumulators.
        SmallVector<Value> acc(carried.begin(), carried.end());
        for (int64_t t = 0; t < g.ranges[g.k[level]]; ++t) {
          SmallVector<Value> next = ks;
          next.push_back(index(t));
          acc = kLoop(level + 1, next, acc);
        }
        return acc;
      }
      Value lb = level == 0 ? kcLo : index(0);
      Value ub = level == 0 ? kcHi : index(g.ranges[g.k[level]]);
      auto forOp = scf::ForOp::create(
          b, loc, lb, ub, index(1), carried,
          [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(nested.getBlock());
            SmallVector<Value> next = ks;
            next.push_back(iv);
            scf::YieldOp::create(b, loc, kLoop(level + 1, next, args));
          });
      return SmallVector<Value>(forOp.getResults());
    };
    // AMX with one k block and a folded init: the tiles start from zero
    // and the init (less the int8 bias) is added to their sums, so that
    // the accumulators do not go through memory on the way in.
    bool amxFromZero = amx && nb.init && singleKBlock;
    if (quadLayout)
      acc = subtractRowSums(panel, kcLo, acc, rows);
    if (amxFromZero) {
      SmallVector<Value> sums =
          amxLoop(panel, tile, kcLo, kcHi, acc, rows, /*fromZero=*/true);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < tileVectors; ++j) {
          Value &a = acc[i * tileVectors + j];
          Value sum = sums[i * tileVectors + j];
          a = types.acc.isInteger(32)
                  ? arith::AddIOp::create(b, loc, a, sum).getResult()
                  : arith::AddFOp::create(b, loc, a, sum).getResult();
        }
    } else if (amx)
      acc = amxLoop(panel, tile, kcLo, kcHi, acc, rows);
    else if (quadLayout)
      acc = quadLoop(panel, tile, kcLo, kcHi, acc, rows);
    else if (bf16Pairs)
      acc = pairDotLoop(panel, tile, kcLo, kcHi, acc, rows);
    else
      acc = kLoop(0, {}, acc);

    auto store = [&](Value view, ArrayRef<Value> values) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < tileVectors; ++j) {
          Value v = values[i * tileVectors + j];
          if (masked)
            vector::MaskedStoreOp::create(b, loc, view, cIndices(i, j),
                                          masks[j], v);
          else
            vector::StoreOp::create(b, loc, v, view, cIndices(i, j));
        }
      }
    };
    // The epilogue runs once, on the last k block's sums.
    auto finish = [&] {
      SmallVector<Value> values = acc;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < tileVectors; ++j)
          values[i * tileVectors + j] =
              applyEpilogues(values[i * tileVectors + j], at, i, j);
      store(nb.resultView, values);
    };
    if (nb.epilogues.empty() || singleKBlock)
      return finish();
    Value last = isEqual(kcHi, lastK);
    scf::IfOp::create(
        b, loc, last,
        [&](OpBuilder &nested, Location) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          finish();
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &nested, Location) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          store(g.c->get(), acc);
          scf::YieldOp::create(b, loc);
        });
  }

  /// Where a register tile sits: its first row and column offsets, and its
  /// vector load of column vector j (masked past N).
  struct TileContext {
    Value rowBase;
    ArrayRef<Value> cols;
    function_ref<Value(Value, ArrayRef<Value>, int64_t)> loadVector;
  };

  /// The vector of `read` for row i, vector j of the tile: a (masked)
  /// vector load along n, else a broadcast scalar.
  Value readTile(const TileRead &read, const TileContext &tile, int64_t i,
                 int64_t j) {
    SmallVector<Value> dims = dimValues();
    dims[g.m] = add(tile.rowBase, i);
    dims[g.n] = tile.cols[j];
    SmallVector<Value> idx = indices(read.map, dims);
    if (!read.map.isFunctionOfDim(g.n))
      return vector::BroadcastOp::create(
          b, loc,
          VectorType::get(
              {vw}, cast<MemRefType>(read.view.getType()).getElementType()),
          memref::LoadOp::create(b, loc, read.view, idx));
    return tile.loadVector(read.view, idx, j);
  }

  /// The fused epilogues applied to accumulator `acc` of row i, vector j.
  Value applyEpilogues(Value acc, const TileContext &tile, int64_t i,
                       int64_t j) {
    return dlas::gemm::applyEpilogues(b, loc, nb, acc, vw,
                                      [&](const TileRead &read) {
      return readTile(read, tile, i, j);
    });
  }

  Value isEqual(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }

  /// An scf.if yielding `thenValues()` or `elseValues()` (vectors).
  SmallVector<Value> ifElse(Value cond,
                            function_ref<SmallVector<Value>()> thenValues,
                            function_ref<SmallVector<Value>()> elseValues) {
    auto ifOp = scf::IfOp::create(
        b, loc, cond,
        [&](OpBuilder &nested, Location) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          scf::YieldOp::create(b, loc, thenValues());
        },
        [&](OpBuilder &nested, Location) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          scf::YieldOp::create(b, loc, elseValues());
        });
    return SmallVector<Value>(ifOp.getResults());
  }

  /// Taps of the k dims from `level` inward.
  int64_t innerTaps(unsigned level) const {
    int64_t taps = 1;
    for (unsigned i = level; i < g.k.size(); ++i)
      taps *= g.ranges[g.k[i]];
    return taps;
  }
  static constexpr int64_t kMaxUnrolledTaps = 16;

  /// Quads: the first k block starts from acc - 128 * rowSums (B is read
  /// as B + 128).
  SmallVector<Value> subtractRowSums(Value panel, Value kcLo,
                                     SmallVector<Value> acc, int64_t rows) {
    Value first = isEqual(kcLo, index(0));
    Value rowBase = arith::MulIOp::create(b, loc, panel, index(p.m0));
    Value shift = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(7));
    SmallVector<Value> dims = dimValues();
    for (int64_t i = 0; i < rows; ++i) {
      Value sum = memref::LoadOp::create(
          b, loc, rowSums, packedIndices(dims, ValueRange{add(rowBase, i)}));
      Value bias = vector::BroadcastOp::create(
          b, loc, vecType, arith::ShLIOp::create(b, loc, sum, shift));
      for (int64_t j = 0; j < tileVectors; ++j) {
        Value &a = acc[i * tileVectors + j];
        a = arith::SelectOp::create(b, loc, first,
                                    arith::SubIOp::create(b, loc, a, bias), a);
      }
    }
    return acc;
  }

  /// Quads or pairs: the k loop over k groups [kcLo / G, ceil(kcHi / G))
  /// (G = kGroup()): per group the tile's B vectors (G * lanes elements),
  /// per row of A one 32-bit broadcast of its group, and
  /// `product(acc, aSplat, bVector)` for each accumulator.
  SmallVector<Value>
  groupLoop(Value panel, Value tile, Value kcLo, Value kcHi,
            SmallVector<Value> acc, int64_t rows,
            function_ref<Value(Value, Value, Value)> product) {
    int64_t group = kGroup();
    Value groupLo = arith::DivUIOp::create(b, loc, kcLo, index(group));
    Value groupHi = arith::CeilDivUIOp::create(b, loc, kcHi, index(group));
    Value block = arith::DivUIOp::create(b, loc, kcLo, index(blockK()));
    auto groupsVector = VectorType::get({group * vw}, types.input);
    auto forOp = scf::ForOp::create(
        b, loc, groupLo, groupHi, index(1), acc,
        [&](OpBuilder &nested, Location, Value q, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          Value within = arith::SubIOp::create(b, loc, q, groupLo);
          // B packed at compile time holds all of K: its absolute group.
          Value bRow = residentB ? q : within;
          SmallVector<Value> bs;
          for (int64_t j = 0; j < tileVectors; ++j)
            bs.push_back(vector::LoadOp::create(
                b, loc, groupsVector, bp,
                ValueRange{tile, bRow, index(j * group * vw)}));
          SmallVector<Value> dims = dimValues();
          SmallVector<Value> result(carried.begin(), carried.end());
          for (int64_t i = 0; i < rows; ++i) {
            Value values = vector::LoadOp::create(
                b, loc, VectorType::get({group}, types.input), ap,
                packedIndices(
                    dims, ValueRange{block, panel, within, index(i * group)}));
            Value splat = dlas::broadcastGroup(b, loc, values, vw);
            for (int64_t j = 0; j < tileVectors; ++j) {
              Value &a = result[i * tileVectors + j];
              a = product(a, splat, bs[j]);
            }
          }
          scf::YieldOp::create(b, loc, result);
        });
    return SmallVector<Value>(forOp.getResults());
  }

  /// Quads: per accumulator per quad one vpdpbusd (4 * lanes multiply-adds
  /// per instruction) or, on pairs, vpmaddubsw, vpmaddwd by ones and an
  /// add (4 * lanes in three).
  SmallVector<Value> quadLoop(Value panel, Value tile, Value kcLo, Value kcHi,
                              SmallVector<Value> acc, int64_t rows) {
    std::string intrinsic = dlas::dotProductIntrinsic(types.input, vw);
    auto i32Vector = VectorType::get({vw}, b.getI32Type());
    auto i16Vector = VectorType::get({2 * vw}, b.getI16Type());
    bool wide = vw == 16;
    std::string pairProducts =
        wide ? "llvm.x86.avx512.pmaddubs.w.512" : "llvm.x86.avx2.pmadd.ub.sw";
    std::string pairSums =
        wide ? "llvm.x86.avx512.pmaddw.d.512" : "llvm.x86.avx2.pmadd.wd";
    Value ones =
        multiply == Int8Multiply::pairs
            ? arith::ConstantOp::create(
                  b, loc, i16Vector,
                  DenseElementsAttr::get(i16Vector, static_cast<int16_t>(1)))
            : Value();
    // a += sum over 4 bytes of u8(B) * s8(A); the intrinsics take their
    // byte operands as <4*vw x i8>.
    auto quadProduct = [&](Value a, Value splat, Value bytes) -> Value {
      if (multiply == Int8Multiply::dotProduct)
        return LLVM::CallIntrinsicOp::create(b, loc, i32Vector,
                                             b.getStringAttr(intrinsic),
                                             ValueRange{a, bytes, splat})
            .getResult(0);
      // vpmaddubsw: u8(B) x s8(A) in pairs into i16, exact for |A| <= 64;
      // vpmaddwd by ones: each two of those into an i32.
      Value pairs = LLVM::CallIntrinsicOp::create(b, loc, i16Vector,
                                                  b.getStringAttr(pairProducts),
                                                  ValueRange{bytes, splat})
                        .getResult(0);
      Value sums = LLVM::CallIntrinsicOp::create(b, loc, i32Vector,
                                                 b.getStringAttr(pairSums),
                                                 ValueRange{pairs, ones})
                       .getResult(0);
      return arith::AddIOp::create(b, loc, a, sums);
    };
    return groupLoop(panel, tile, kcLo, kcHi, std::move(acc), rows,
                     quadProduct);
  }

  /// bf16 pairs: per accumulator per pair one vdpbf16ps: 2 * lanes
  /// multiply-adds of bf16 values (exact products, added in f32) where the
  /// f32 kernel's FMA does lanes, from half the bytes of A and B.
  SmallVector<Value> pairDotLoop(Value panel, Value tile, Value kcLo,
                                 Value kcHi, SmallVector<Value> acc,
                                 int64_t rows) {
    std::string intrinsic = dlas::dotProductIntrinsic(types.input, vw);
    return groupLoop(panel, tile, kcLo, kcHi, std::move(acc), rows,
                     [&](Value a, Value splat, Value pairs) -> Value {
                       return LLVM::CallIntrinsicOp::create(
                                  b, loc, vecType, b.getStringAttr(intrinsic),
                                  ValueRange{a, splat, pairs})
                           .getResult(0);
                     });
  }

  /// AMX: the k loop over [kcLo, kcHi) in steps of one tile row (32 bf16
  /// or 64 i8 values of k) on up to 2 x 2 C tiles of 16 x 16 accumulators,
  /// one tdpbf16ps (or tdpbsud: s8 A, u8 B) per C tile and step. The
  /// accumulator vectors go through the thread's C tiles in memory
  /// (`cScratch`) on the way in and out (tiles and vectors have no register
  /// moves between them), so the init, the int8 bias correction and the
  /// epilogue stay the vector kernel's.
  SmallVector<Value> amxLoop(Value panel, Value tile, Value kcLo, Value kcHi,
                             SmallVector<Value> acc, int64_t rows,
                             bool fromZero = false) {
    int64_t rowTiles = llvm::divideCeil(rows, kAmxRows);
    int64_t colTiles = tileVectors;
    bool int8 = types.input.isInteger(8);
    auto cTileType = amx::TileType::get({kAmxRows, kAmxRows}, types.acc);
    auto inTileType = amx::TileType::get({kAmxRows, amxKStep()}, types.input);
    // This thread's C tiles in memory (and its B tile, `slot`).
    auto at = [&](int64_t row, int64_t col) {
      return SmallVector<Value>{slot, index(row), index(col)};
    };
    for (int64_t i = 0; i < rows && !fromZero; ++i)
      for (int64_t j = 0; j < colTiles; ++j)
        vector::StoreOp::create(b, loc, acc[i * tileVectors + j], cScratch,
                                at(i, j * vw));
    SmallVector<Value> cTiles;
    for (int64_t r = 0; r < rowTiles; ++r)
      for (int64_t c = 0; c < colTiles; ++c)
        cTiles.push_back(
            fromZero ? amx::TileZeroOp::create(b, loc, cTileType).getResult()
                     : amx::TileLoadOp::create(b, loc, cTileType, cScratch,
                                               at(r * kAmxRows, c * kAmxRows))
                           .getResult());
    Value block = arith::DivUIOp::create(b, loc, kcLo, index(blockK()));
    Value steps = arith::CeilDivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, kcHi, kcLo), index(amxKStep()));
    SmallVector<Value> dims = dimValues();
    auto forOp = scf::ForOp::create(
        b, loc, index(0), steps, index(1), cTiles,
        [&](OpBuilder &nested, Location, Value s, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getBlock());
          Value bRow = arith::MulIOp::create(b, loc, s, index(kAmxRows));
          SmallVector<Value> aTiles, bTiles;
          for (int64_t r = 0; r < rowTiles; ++r)
            aTiles.push_back(amx::TileLoadOp::create(
                b, loc, inTileType, ap,
                packedIndices(dims,
                              ValueRange{block, panel, s, index(r * kAmxRows),
                                         index(0)})));
          for (int64_t c = 0; c < colTiles; ++c)
            bTiles.push_back(amx::TileLoadOp::create(
                b, loc, inTileType, bp,
                ValueRange{bSlot, bRow,
                           index(c * kAmxRowBytes / types.inputBytes())}));
          SmallVector<Value> next;
          for (int64_t r = 0; r < rowTiles; ++r)
            for (int64_t c = 0; c < colTiles; ++c) {
              Value sum = carried[r * colTiles + c];
              if (int8)
                next.push_back(amx::TileMulIOp::create(
                    b, loc, cTileType, aTiles[r], bTiles[c], sum,
                    /*isZextLhs=*/nullptr, b.getUnitAttr()));
              else
                next.push_back(amx::TileMulFOp::create(
                    b, loc, cTileType, aTiles[r], bTiles[c], sum));
            }
          scf::YieldOp::create(b, loc, next);
        });
    for (int64_t r = 0; r < rowTiles; ++r)
      for (int64_t c = 0; c < colTiles; ++c)
        amx::TileStoreOp::create(b, loc, cScratch,
                                 at(r * kAmxRows, c * kAmxRows),
                                 forOp.getResult(r * colTiles + c));
    SmallVector<Value> result = acc;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < colTiles; ++j)
        result[i * tileVectors + j] =
            vector::LoadOp::create(b, loc, vecType, cScratch, at(i, j * vw));
    return result;
  }

  /// One k step: `vectors` loads of B, `rows` broadcasts of A, the FMAs.
  SmallVector<Value>
  fmaStep(Value panel, Value tile, Value kcLo, ArrayRef<Value> cols,
          ArrayRef<Value> ks,
          ValueRange carried, int64_t rows, AffineMap bMap,
          function_ref<Value(Value, ArrayRef<Value>, int64_t)> load) {
    SmallVector<Value> dims = dimValues();
    for (auto [d, v] : llvm::zip(g.k, ks))
      dims[d] = v;
    SmallVector<Value> bs;
    if (p.packB) {
      // Packed panels are zero-padded: no masks needed.
      Value row =
          residentB ? ks[0] : arith::SubIOp::create(b, loc, ks[0], kcLo);
      auto packedVector = VectorType::get({vw}, bElement);
      for (int64_t j = 0; j < tileVectors; ++j)
        bs.push_back(fromPacked(
            vector::LoadOp::create(b, loc, packedVector, bp,
                                   ValueRange{tile, row, index(j * vw)}),
            bElement));
    }
    for (int64_t j = 0; j < tileVectors && !p.packB; ++j) {
      dims[g.n] = cols[j];
      // A vector within one row (or no rows): B's map gives its first
      // lane, the others follow.
      if (!g.rowWidth || rowsOfWholeVectors(g, vw)) {
        bs.push_back(types.promote(b, loc, load(g.b->get(), indices(bMap, dims), j)));
        continue;
      }
      // One masked load per output row the vector touches, merged.
      SmallVector<Value> idx = indices(bMap, dims);
      Value rowStart = idx.back();
      Value v = types.zero(b, loc, inVecType);
      for (auto [sgm, mask] : llvm::enumerate(bRowMasks[j])) {
        idx.back() = add(rowStart, static_cast<int64_t>(sgm) * g.rowSkip);
        v = vector::MaskedLoadOp::create(b, loc, inVecType, g.b->get(), idx,
                                         mask, v);
      }
      bs.push_back(types.promote(b, loc, v));
    }
    // kcLo is the first outer k value of its block.
    Value block = arith::DivUIOp::create(b, loc, kcLo, index(kBlockOuter(g, p)));
    Value within = arith::SubIOp::create(
        b, loc, linearK(ks),
        arith::MulIOp::create(b, loc, kcLo, index(innerK(g))));
    SmallVector<Value> result(carried.begin(), carried.end());
    // A streams from memory once per k block in a whole model (the weights
    // do not stay in cache between layers); a software prefetch
    // `prefetchBytes` ahead in the sequential stream hides the latency the
    // hardware prefetcher leaves (ResNet-50: 48 -> 44 ms at 1 thread).
    if (int64_t ahead =
            prefetchBytes / (p.m0 * aElement.getIntOrFloatBitWidth() / 8);
        ahead > 0)
      memref::PrefetchOp::create(
          b, loc, ap,
          packedIndices(dims,
                        ValueRange{block, panel, add(within, ahead), index(0)}),
          /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
    for (int64_t i = 0; i < rows; ++i) {
      Value a = fromPacked(
          memref::LoadOp::create(
              b, loc, ap,
              packedIndices(dims, ValueRange{block, panel, within, index(i)})),
          aElement);
      Value splat = vector::BroadcastOp::create(b, loc, vecType, a);
      for (int64_t j = 0; j < tileVectors; ++j) {
        Value &acc = result[i * tileVectors + j];
        acc = types.multiplyAdd(b, loc, splat, bs[j], acc);
      }
    }
    return result;
  }

  OpBuilder &b;
  Location loc;
  const Gemm &g;
  const KernelParams &p;
  const Neighbours &nb;
  /// Operand and accumulator element types (the decision's).
  KernelTypes types;
  int64_t vw;
  bool parallel;
  int64_t prefetchBytes;
  int64_t chunks;
  /// Int8 on vpdpbusd or vpmaddubsw pairs (`multiply`): A and B packed in
  /// k quads (`quadLayout`).
  Int8Multiply multiply;
  /// AMX tiles (bf16 or i8): A packed in whole tiles, B in k pairs or quads.
  bool amx;
  /// bf16 on vdpbf16ps: A and B packed in k pairs, not widened.
  bool bf16Pairs;
  int64_t l2Bytes;
  /// AMX: B's column tiles of the current k block are packed, each in the
  /// slot of its number (packBlockOfB), so the panels do not pack them.
  bool bPrePacked = false;
  /// AMX: the slot of Bp the tile being multiplied is in.
  Value bSlot;
  bool quadLayout;
  /// Column vectors of the register tile being emitted: p.vectors, fewer
  /// in the last, partial column tile.
  int64_t tileVectors;
  Value rowSums;
  /// Accumulator vectors; operand vectors (before `types.promote`).
  VectorType vecType, inVecType;
  /// The packed panels' elements: f32 for bf16/f16 operands (widened as
  /// they are packed; A only with several column tiles), else the
  /// operands'.
  Type bElement, aElement;
  Value ap, bp, lastK, cScratch;
  /// B's panels packed at compile time (useResidentB), or null.
  Value residentB;
  /// AMX: the calling thread's slot of Bp and cScratch (per column tile).
  Value slot;
  bool singleKBlock = false;
  /// Per column vector, the lane masks of the B rows it reads (compact
  /// flat B only).
  SmallVector<SmallVector<Value>> bRowMasks;
  SmallVector<Value> batchValues;
  /// Where B's packing reads an im2col GEMM's patches from the
  /// convolution's input (readPatchesFrom).
  std::optional<PatchSource> patchSource;
};

struct GemmMicrokernelPass
    : dlas::impl::GemmMicrokernelBase<GemmMicrokernelPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (packB != "auto" && packB != "always" && packB != "never")
      return failure();
    if (tiles.size() > 4)
      return failure();
    return dlas::loadTuningFile(context, tuningFile, tuningTable);
  }

  std::shared_ptr<const dlas::TuningTable> tuningTable;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetShape> targetOr =
        dlas::targetShapeFor(module, vectorWidth, vectorRegisters);
    if (failed(targetOr))
      return signalPassFailure();
    TargetShape target = *targetOr;
    if (l1CacheBytes > 0)
      target.l1Bytes = l1CacheBytes;
    if (l2CacheBytes > 0)
      target.l2Bytes = l2CacheBytes;

    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() > 0)
        ops.push_back(op);
    });
    SymbolTable moduleSymbols(module);
    DominanceInfo dominance(module);
    // One packed global per (source global, panel height).
    llvm::StringMap<memref::GlobalOp> packedGlobals;
    // Globals whose packed copies replaced reads of them.
    llvm::SetVector<StringAttr> maybeUnused;
    for (linalg::LinalgOp op : ops) {
      std::string why;
      MicrokernelAttr decision;
      GemmPins pins{tiles, packB};
      auto decide = [&](MicrokernelAttr &d, std::string &reason) {
        return dlas::decideGemm(op, target, tuningTable.get(), pins, d, reason);
      };
      if (failed(dlas::decisionFor(
              op, target, decidedOnly,
              [](MicrokernelAttr d) { return d.isGemm(); }, decide, decision,
              why)))
        return signalPassFailure();
      FailureOr<Gemm> gemm =
          decision ? matchGemm(op, why) : FailureOr<Gemm>(failure());
      if (failed(gemm)) {
        if (decision && dlas::lookupLowering(op))
          op->emitWarning() << "decided " << decision
                            << " on tensors, but the buffers do not fit the "
                               "kernel: "
                            << why;
        else if (print && op.hasPureBufferSemantics() &&
                 !dlas::lookupLowering(op) && !decidedOnly)
          op->emitRemark() << "no microkernel: " << why;
        continue;
      }
      KernelParams params = paramsOf(decision);
      std::string key = decision.getKey().str();
      params.ncTiles = std::max<int64_t>(
          1, target.l2Bytes / 8 /
                 (params.kc * params.vectors * target.vectorWidth *
                  elementBytes(*gemm)));

      Neighbours neighbours;
      if (fuse) {
        neighbours = findNeighbours(
            *gemm, dominance,
            dlas::lookupLowering(op) ? decision : MicrokernelAttr());
      } else {
        neighbours.full = neighbours.result = gemm->c->get();
      }
      OpBuilder b(op);
      prepareViews(b, *gemm, neighbours);
      // A's bytes when it is an i8 constant: packed in quads at compile
      // time, and the pair kernel's range check.
      std::vector<int8_t> aBytes;
      if (quadsPossible(*gemm, decision.getInput()))
        aBytes = constantBytes(gemm->a->get(), moduleSymbols);
      Int8Multiply multiply = int8MultiplyFor(
          *gemm, params, decision.getInput(), target.vectorWidth, aBytes);
      bool quads = multiply != Int8Multiply::widen;
      bool amx = amxPossible(*gemm, decision.getInput(), target.vectorWidth) &&
                 amxParams(params, target.vectorWidth);
      bool bf16Pairs =
          !amx && params.packB &&
          bf16PairsPossible(*gemm, decision.getInput(), target.vectorWidth);
      KernelEmitter emitter(b, *gemm, params, neighbours,
                            dlas::KernelTypes::of(decision), target.vectorWidth,
                            parallel, prefetchBytes, parallelChunks, multiply,
                            amx, bf16Pairs, target.l2Bytes);
      // Packing B reads an im2col copy's patches from its input.
      std::optional<PatchSource> patches =
          params.packB ? findPatchSource(*gemm, target.vectorWidth)
                       : std::nullopt;
      Value rowOffsets;
      if (patches)
        rowOffsets = emitter.readPatchesFrom(*patches);
      Value packed;
      bool packedNow = false;
      // AMX: constant weights in whole tiles (with an i8 A's row sums).
      if (packConstants && amx) {
        auto [panels, sums] =
            packedAmxConstant(b, moduleSymbols, packedGlobals, *gemm, params,
                              emitter.packedType(), aBytes);
        if (panels) {
          packed = panels;
          if (sums)
            emitter.useRowSums(sums);
          packedNow = true;
          ++numPackedConstants;
        }
      }
      // Compile-time packing copies f32 data, and bf16/f16 data widened
      // into f32 panels, or bf16 weights in k pairs for vdpbf16ps.
      if (packConstants && !amx &&
          (emitter.packedAElementType().isF32() || bf16Pairs)) {
        std::vector<float> data = constantData(gemm->a->get(), moduleSymbols);
        if (!data.empty()) {
          packed =
              bf16Pairs
                  ? packedPairsConstant(b, moduleSymbols, packedGlobals, *gemm,
                                        params, emitter.packedType(), data)
                  : packedConstant(b, moduleSymbols, packedGlobals, *gemm,
                                   params, emitter.packedType(), data);
          packedNow = true;
          ++numPackedConstants;
        }
      }
      // ... and i8 weights in k quads, with their row sums: at run time
      // every call re-packed them (resnet50 int8: 28 -> 25 ms).
      if (packConstants && !amx && quads && !aBytes.empty()) {
        auto [quadPanels, sums] =
            packedQuadsConstant(b, moduleSymbols, packedGlobals, *gemm, params,
                                emitter.packedType(), aBytes);
        packed = quadPanels;
        emitter.useRowSums(sums);
        packedNow = true;
        ++numPackedConstants;
      }
      if (!packed)
        packed = emitter.packAtRunTime();
      // A constant B (a dense layer's weights) in its column-tile panels,
      // packed once here instead of per k block at every call.
      Value residentB;
      if (packConstants && params.packB && !amx && !patches &&
          (multiply == Int8Multiply::widen
               ? emitter.packedBElementType().isF32() || bf16Pairs
               : quads))
        residentB = residentBConstant(b, moduleSymbols, packedGlobals, *gemm,
                                      params.vectors * target.vectorWidth,
                                      emitter.residentBType());
      if (residentB)
        emitter.useResidentB(residentB);
      emitter.emit(packed);
      if (!packedNow)
        memref::DeallocOp::create(b, op.getLoc(), packed);
      if (Value sums = emitter.rowSumsBuffer(); sums && !packedNow)
        memref::DeallocOp::create(b, op.getLoc(), sums);
      if (rowOffsets)
        memref::DeallocOp::create(b, op.getLoc(), rowOffsets);
      if (print)
        op->emitRemark()
            << "microkernel " << params.m0 << "x"
            << params.vectors * target.vectorWidth << " (m0=" << params.m0
            << ", vectors=" << params.vectors << ", kc=" << params.kc
            << ", mc=" << params.mc << (params.packB ? ", B packed" : "")
            << (params.split == dlas::ThreadSplit::automatic
                    ? ""
                    : ", threads split " +
                          dlas::stringifyThreadSplit(params.split).str())
            << (amx                                    ? ", AMX"
                : bf16Pairs                            ? ", AVX512-BF16 pairs"
                : multiply == Int8Multiply::dotProduct ? ", VNNI"
                : multiply == Int8Multiply::pairs      ? ", int8 pairs"
                                                       : "")
            << dlas::sourceNote(decision) << ") key '" << key
            << "' for M=" << gemm->sizeM << " N=" << gemm->sizeN
            << " K=" << gemm->sizeK << ", A packed "
            << (packedNow ? "at compile time" : "at run time")
            << (residentB ? ", B packed at compile time" : "") << "; init "
            << (neighbours.init ? neighbours.init->getName().getStringRef()
                                : StringRef("loaded"))
            << ", " << neighbours.epilogues.size() << " epilogue op(s) fused"
            << (patches ? "; B packed from the im2col copy's input" : "");
      Value a = gemm->a->get();
      Value bOperand = gemm->b->get();
      for (linalg::GenericOp epilogue : llvm::reverse(neighbours.epilogues))
        epilogue->erase();
      numFusedEpilogues += neighbours.epilogues.size();
      op->erase();
      for (Operation *dead : neighbours.initDead)
        dead->erase();
      if (neighbours.init)
        neighbours.init->erase();
      if (packedNow)
        eraseReplacedConstant(a, maybeUnused);
      if (residentB)
        eraseReplacedConstant(bOperand, maybeUnused);
      if (patches)
        eraseCopy(*patches);
      ++numKernels;
    }
    eraseUnusedGlobals(maybeUnused, moduleSymbols);
  }

  /// Erases an im2col copy that no packing reads any more, with its
  /// buffer.
  static void eraseCopy(PatchSource source) {
    Value buffer = source.view.getSrc();
    source.view->erase();
    source.copy->erase();
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      user->erase(); // deallocs
    buffer.getDefiningOp()->erase();
  }

  /// A private constant global holding a constant B's column-tile panels,
  /// Bp[tile][k][n0] = B[k][tile * n0 + j] (zero past N), and a read of it;
  /// for bf16 pairs (a bf16 `type`) Bp[tile][k/2][n0 * 2] in k pairs; null
  /// when B is not a constant f32 (or widened bf16/f16) global read
  /// through its k and n dims only.
  Value residentBConstant(OpBuilder &b, SymbolTable &moduleSymbols,
                          llvm::StringMap<memref::GlobalOp> &cache,
                          const Gemm &g, int64_t n0, MemRefType type) {
    AffineMap bMap = g.op.getMatchingIndexingMap(g.b);
    if (g.k.size() != 1 || g.rowWidth || bMap.getNumResults() != 2 ||
        !bMap.isProjectedPermutation())
      return nullptr;
    std::optional<unsigned> kPos =
        bMap.getResultPosition(getAffineDimExpr(g.k[0], bMap.getContext()));
    std::optional<unsigned> nPos =
        bMap.getResultPosition(getAffineDimExpr(g.n, bMap.getContext()));
    if (!kPos || !nPos)
      return nullptr;
    auto source = cast<MemRefType>(g.b->get().getType());
    SmallVector<int64_t> strides = computeSuffixProduct(source.getShape());
    memref::GetGlobalOp global = globalBehindReshapes(g.b->get());
    if (!global)
      return nullptr;
    Location loc = g.op.getLoc();
    std::string key;
    llvm::raw_string_ostream os(key);
    os << global.getName() << "/" << source << "/" << bMap << "/B/" << n0;
    if (type.getElementType().isInteger(8)) {
      // k quads: lane n's 32 bits hold B[k..k+3][n], each byte + 128 (the
      // u8 operand of vpdpbusd and vpmaddubsw, as packQuadsOfB makes it);
      // rows past K hold 128 against A's zeros there.
      std::vector<int8_t> bytes = constantBytes(g.b->get(), moduleSymbols);
      if (bytes.empty())
        return nullptr;
      os << "/quads";
      return packedGlobal<int8_t>(
          b, moduleSymbols, cache, key, loc, type,
          [&](MutableArrayRef<int8_t> packed) {
            std::fill(packed.begin(), packed.end(), static_cast<int8_t>(-128));
            int64_t sizeK = g.ranges[g.k[0]];
            int64_t quads = type.getShape()[1];
            for (int64_t k = 0; k < sizeK; ++k)
              for (int64_t n = 0; n < g.sizeN; ++n)
                packed[((n / n0) * quads + k / 4) * (4 * n0) + (n % n0) * 4 +
                       k % 4] =
                    static_cast<int8_t>(
                        bytes[k * strides[*kPos] + n * strides[*nPos]] ^ 0x80);
          });
    }
    std::vector<float> data = constantData(g.b->get(), moduleSymbols);
    if (data.empty())
      return nullptr;
    if (type.getElementType().isBF16()) {
      // k pairs: lane n's 32 bits hold B[k][n], B[k+1][n] (zero past K).
      os << "/pairs";
      return packedGlobal<uint16_t>(
          b, moduleSymbols, cache, key, loc, type,
          [&](MutableArrayRef<uint16_t> packed) {
            int64_t sizeK = g.ranges[g.k[0]];
            int64_t pairs = type.getShape()[1];
            for (int64_t k = 0; k < sizeK; ++k)
              for (int64_t n = 0; n < g.sizeN; ++n)
                packed[((n / n0) * pairs + k / 2) * (2 * n0) + (n % n0) * 2 +
                       k % 2] =
                    bf16Bits(data[k * strides[*kPos] + n * strides[*nPos]]);
          });
    }
    return packedGlobal<float>(
        b, moduleSymbols, cache, key, loc, type,
        [&](MutableArrayRef<float> packed) {
          int64_t sizeK = g.ranges[g.k[0]];
          for (int64_t k = 0; k < sizeK; ++k)
            for (int64_t n = 0; n < g.sizeN; ++n)
              packed[((n / n0) * sizeK + k) * n0 + n % n0] =
                  data[k * strides[*kPos] + n * strides[*nPos]];
        });
  }

  /// The bits of `value`, a bf16 value widened to f32 (exact: the low 16
  /// bits are zero).
  static uint16_t bf16Bits(float value) {
    return static_cast<uint16_t>(llvm::bit_cast<uint32_t>(value) >> 16);
  }

  /// A read of the private constant global `cache[key]`, created of
  /// `type` on first use from `Element` values (float for f32, the bits of
  /// bf16 as uint16_t), zeros where `fill` writes nothing.
  template <typename Element>
  static Value packedGlobal(OpBuilder &b, SymbolTable &moduleSymbols,
                            llvm::StringMap<memref::GlobalOp> &cache,
                            StringRef key, Location loc, MemRefType type,
                            function_ref<void(MutableArrayRef<Element>)> fill) {
    memref::GlobalOp &global = cache[key];
    if (!global) {
      std::vector<Element> packed(type.getNumElements(), Element());
      fill(packed);
      auto tensorType =
          RankedTensorType::get(type.getShape(), type.getElementType());
      auto value = DenseResourceElementsAttr::get(
          tensorType, "dlas_packed",
          dlas::alignedBlob(ArrayRef<Element>(packed)));
      global = createConstantGlobal(b, moduleSymbols, loc, "dlas_packed", type,
                                    value);
    }
    return memref::GetGlobalOp::create(b, loc, type, global.getSymName());
  }

  /// A private constant global holding A's panels.
  Value packedConstant(OpBuilder &b, SymbolTable &moduleSymbols,
                       llvm::StringMap<memref::GlobalOp> &cache, const Gemm &g,
                       const KernelParams &p, MemRefType type,
                       const std::vector<float> &data) {
    auto source = cast<MemRefType>(g.a->get().getType());
    Location loc = g.op.getLoc();
    // Key by the source global (through its reshapes) and panel height.
    std::string key;
    llvm::raw_string_ostream os(key);
    os << globalBehindReshapes(g.a->get()).getName() << "/"
       << source << "/" << g.op.getMatchingIndexingMap(g.a) << "/" << p.m0
       << "/" << kBlockOuter(g, p);
    return packedGlobal<float>(
        b, moduleSymbols, cache, key, loc, type,
        [&](MutableArrayRef<float> packed) {
          ConstantAIndex a(g);
          int64_t panelSize = type.getNumElements() / a.batches;
          int64_t blockLen = kBlockOuter(g, p) * innerK(g);
          int64_t panels = llvm::divideCeil(g.sizeM, p.m0);
          for (int64_t bl = 0; bl < a.batches; ++bl)
            for (int64_t m = 0; m < g.sizeM; ++m)
              for (int64_t kl = 0; kl < g.sizeK; ++kl)
                packed[bl * panelSize +
                       ((kl / blockLen * panels + m / p.m0) * blockLen +
                        kl % blockLen) *
                           p.m0 +
                       m % p.m0] = data[a.offset(bl, m, kl)];
        });
  }

  /// A private constant global holding A's elements (`bytes` each, written
  /// by `element(from, to)`, `from` an index of A's data) at the positions
  /// `at(batch, m, k)` of `type`, zeros elsewhere, and, given A's i8 values
  /// (`rowSumsOf`), one of A's row sums; returns reads of both (no sums:
  /// null). `layout` tells the packed layouts of one source apart.
  std::pair<Value, Value> packedConstantOf(
      OpBuilder &b, SymbolTable &moduleSymbols,
      llvm::StringMap<memref::GlobalOp> &cache, const Gemm &g,
      const KernelParams &p, MemRefType type, int64_t bytes, StringRef layout,
      function_ref<int64_t(int64_t, int64_t, int64_t)> at,
      function_ref<void(int64_t, char *)> element, ArrayRef<int8_t> rowSumsOf) {
    auto source = cast<MemRefType>(g.a->get().getType());
    Location loc = g.op.getLoc();
    AffineMap aMap = g.op.getMatchingIndexingMap(g.a);
    std::string key;
    llvm::raw_string_ostream os(key);
    os << globalBehindReshapes(g.a->get()).getName() << "/" << source << "/"
       << aMap << "/" << p.m0 << "/" << layout;
    memref::GlobalOp &global = cache[key];
    memref::GlobalOp &sumsGlobal = cache[key + "/sums"];
    ConstantAIndex a(g);
    int64_t paddedM = llvm::alignTo(g.sizeM, p.m0);
    SmallVector<int64_t> sumsShape;
    for (unsigned d : g.aBatch)
      sumsShape.push_back(g.ranges[d]);
    sumsShape.push_back(paddedM);
    auto sumsType = MemRefType::get(sumsShape, b.getI32Type());
    bool withSums = !rowSumsOf.empty();
    if (!global) {
      std::vector<char> packed(type.getNumElements() * bytes, 0);
      std::vector<int32_t> sums(a.batches * paddedM, 0);
      for (int64_t bl = 0; bl < a.batches; ++bl) {
        for (int64_t m = 0; m < g.sizeM; ++m) {
          int32_t sum = 0;
          for (int64_t k = 0; k < g.sizeK; ++k) {
            int64_t from = a.offset(bl, m, k);
            element(from, &packed[at(bl, m, k) * bytes]);
            if (withSums)
              sum += rowSumsOf[from];
          }
          sums[bl * paddedM + m] = sum;
        }
      }
      global = createConstantGlobal(
          b, moduleSymbols, loc, "dlas_packed", type,
          DenseResourceElementsAttr::get(
              RankedTensorType::get(type.getShape(), type.getElementType()),
              "dlas_packed",
              dlas::alignedBlob(ArrayRef<char>(packed))));
      if (withSums)
        sumsGlobal = createConstantGlobal(
            b, moduleSymbols, loc, "dlas_row_sums", sumsType,
            DenseResourceElementsAttr::get(
                RankedTensorType::get(sumsShape, b.getI32Type()),
                "dlas_row_sums",
                dlas::alignedBlob(ArrayRef<int32_t>(sums))));
    }
    Value panelsRead =
        memref::GetGlobalOp::create(b, loc, type, global.getSymName());
    Value sumsRead = withSums ? memref::GetGlobalOp::create(
                                    b, loc, sumsType, sumsGlobal.getSymName())
                                    .getResult()
                              : Value();
    return {panelsRead, sumsRead};
  }

  /// Where A's element (batch bl, row m, k) lies in `type`, A packed in
  /// k groups of `group` values ([g..][K/kc][M/m0][kc/group][m0 * group]:
  /// quads, bf16 pairs).
  static std::function<int64_t(int64_t, int64_t, int64_t)>
  groupedPosition(const Gemm &g, const KernelParams &p, MemRefType type,
                  int64_t group) {
    int64_t groupsPerBlock = type.getShape().drop_back().back();
    int64_t panelSize = type.getNumElements() / ConstantAIndex(g).batches;
    int64_t panels = llvm::divideCeil(g.sizeM, p.m0);
    int64_t m0 = p.m0;
    return [=](int64_t bl, int64_t m, int64_t k) {
      int64_t q = k / group;
      return bl * panelSize +
             ((q / groupsPerBlock * panels + m / m0) * groupsPerBlock +
              q % groupsPerBlock) *
                 (m0 * group) +
             (m % m0) * group + k % group;
    };
  }

  /// Quads: private constant globals holding A's panels in k quads
  /// (`packQuadsAtRunTime`'s layout) and A's row sums; returns reads of both.
  std::pair<Value, Value>
  packedQuadsConstant(OpBuilder &b, SymbolTable &moduleSymbols,
                      llvm::StringMap<memref::GlobalOp> &cache, const Gemm &g,
                      const KernelParams &p, MemRefType type,
                      const std::vector<int8_t> &data) {
    int64_t quadsPerBlock = type.getShape().drop_back().back();
    return packedConstantOf(
        b, moduleSymbols, cache, g, p, type, /*bytes=*/1,
        ("quads" + Twine(quadsPerBlock)).str(),
        groupedPosition(g, p, type, /*group=*/4),
        [&](int64_t from, char *to) { *to = static_cast<char>(data[from]); },
        data);
  }

  /// bf16 pairs: a private constant global holding A's panels in k pairs
  /// (`packPairsOfAAtRunTime`'s layout), from A's widened values (exact:
  /// they came from bf16); returns a read of it.
  Value packedPairsConstant(OpBuilder &b, SymbolTable &moduleSymbols,
                            llvm::StringMap<memref::GlobalOp> &cache,
                            const Gemm &g, const KernelParams &p,
                            MemRefType type, const std::vector<float> &data) {
    int64_t pairsPerBlock = type.getShape().drop_back().back();
    auto element = [&](int64_t from, char *to) {
      uint16_t half = bf16Bits(data[from]);
      std::memcpy(to, &half, 2);
    };
    return packedConstantOf(b, moduleSymbols, cache, g, p, type, /*bytes=*/2,
                            ("pairs" + Twine(pairsPerBlock)).str(),
                            groupedPosition(g, p, type, /*group=*/2), element,
                            {})
        .first;
  }

  /// AMX: a private constant global holding A's tiles
  /// (`packAmxAtRunTime`'s layout) and, for i8, one of its row sums; null
  /// values when A is not a constant. `aBytes`: an i8 A's values.
  std::pair<Value, Value>
  packedAmxConstant(OpBuilder &b, SymbolTable &moduleSymbols,
                    llvm::StringMap<memref::GlobalOp> &cache, const Gemm &g,
                    const KernelParams &p, MemRefType type,
                    ArrayRef<int8_t> aBytes) {
    bool int8 = type.getElementType().isInteger(8);
    // bf16 from the widened values (exact: they came from bf16).
    std::vector<float> aFloats;
    if (!int8)
      aFloats = constantData(g.a->get(), moduleSymbols);
    if (int8 ? aBytes.empty() : aFloats.empty())
      return {};
    int64_t kStep = type.getShape().back();
    int64_t steps = type.getShape().drop_back(2).back();
    int64_t blockLen = steps * kStep;
    int64_t panelSize = type.getNumElements() / ConstantAIndex(g).batches;
    int64_t panels = llvm::divideCeil(g.sizeM, p.m0);
    auto at = [&](int64_t bl, int64_t m, int64_t k) {
      return bl * panelSize +
             (((k / blockLen * panels + m / p.m0) * steps +
               k % blockLen / kStep) *
                  p.m0 +
              m % p.m0) *
                 kStep +
             k % kStep;
    };
    auto element = [&](int64_t from, char *to) {
      if (int8) {
        *to = static_cast<char>(aBytes[from]);
        return;
      }
      uint16_t half = bf16Bits(aFloats[from]);
      std::memcpy(to, &half, 2);
    };
    return packedConstantOf(b, moduleSymbols, cache, g, p, type,
                            /*bytes=*/int8 ? 1 : 2,
                            ("amx" + Twine(blockLen)).str(), at, element,
                            int8 ? aBytes : ArrayRef<int8_t>());
  }

  /// After A was replaced by its packed copy: erases the now dead reshapes
  /// and read of A's global, and notes the global for eraseUnusedGlobals.
  void eraseReplacedConstant(Value a, llvm::SetVector<StringAttr> &maybeUnused) {
    Operation *def = a.getDefiningOp();
    while (def && isOpTriviallyDead(def)) {
      Operation *next = def->getNumOperands() ? def->getOperand(0).getDefiningOp()
                                              : nullptr;
      if (auto read = dyn_cast<memref::GetGlobalOp>(def))
        maybeUnused.insert(read.getNameAttr().getAttr());
      def->erase();
      def = next;
    }
  }

  /// Erases the private globals of `candidates` that nothing reads any
  /// more, with one walk of the module (a walk per global was quadratic:
  /// a third of the pipeline's time on DenseNet-121).
  void eraseUnusedGlobals(const llvm::SetVector<StringAttr> &candidates,
                          SymbolTable &symbols) {
    if (candidates.empty())
      return;
    DenseSet<StringAttr> used;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(symbols.getOp()))
      for (const SymbolTable::SymbolUse &use : *uses)
        used.insert(use.getSymbolRef().getRootReference());
    for (StringAttr name : candidates) {
      auto global = symbols.lookup<memref::GlobalOp>(name);
      if (global && global.isPrivate() && !used.contains(name))
        symbols.erase(global);
    }
  }
};
} // namespace
