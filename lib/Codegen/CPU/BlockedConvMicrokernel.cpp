//===- BlockedConvMicrokernel.cpp - dlas-blocked-conv-microkernel ---------===//
//
// Lowers convolutions in the blocked NCHWc layout (dlas-blocked-layout) on
// memrefs to direct, register-blocked vector kernels: the innermost output
// dim is one vector of output channels, so a register tile is `rows`
// output columns of `vectors` channel blocks, each k step loads `vectors`
// filter vectors and broadcasts `rows` input values (see Passes.td).
//
// This is oneDNN's direct convolution for AVX-512. Unlike the NCHW flat
// GEMM, its vectors never run along the image: narrow rows (7 or 14
// wide) waste no lane, and strided convolutions read their input in place.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/GroupedConv.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Codegen/TuningFile.h"
#include "DLAS/Transforms/Buffers.h"
#include "Decisions.h"
#include "GemmContraction.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/ScopeExit.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_BLOCKEDCONVMICROKERNEL
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using mlir::dlas::DecisionSource;
using mlir::dlas::MicrokernelAttr;
using mlir::dlas::MicrokernelKind;
using mlir::dlas::TargetShape;
using mlir::dlas::TensorFusion;
using mlir::dlas::TuningTable;
using mlir::dlas::KernelTypes;
using namespace mlir::dlas::gemm;

namespace {

/// Name of the per-op parameter override.
constexpr llvm::StringLiteral kTilesAttrName = "dlas.blocked_conv_tiles";
/// The tuning file's section for this pass.
constexpr llvm::StringLiteral kTuningSection = "blocked_conv";

/// y[n, F, oh, ow, f] += x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c] *
/// w[F, C, kh, kw, c, f]: loop dims by role, and the window's steps.
/// A depthwise one, y[n, C, oh, ow, c] += x[n, C, ..., c] * w[C, kh, kw,
/// c], has F = C and f = c (`depthwise`). A grouped one (GSPC, from
/// dlas-grouped-conv-packing) has a group dim `g` after n in y and x and
/// first in w: y[n, g, F, oh, ow, f] += x[n, g, C, .., .., c] * w[g, F, C,
/// kh, kw, c, f]; its f block is a vector of at most the target's width
/// and its c block any size.
struct BlockedConv {
  mutable linalg::LinalgOp op;
  OpOperand *x, *w, *y;
  unsigned n, F, oh, ow, f, C, kh, kw, c;
  std::optional<unsigned> g;
  /// A dot-product one (dlas-blocked-layout's `int8` and `bf16`): i8 x
  /// and w into i32 y (quads, vpdpbusd) or bf16 into f32 (pairs,
  /// vdpbf16ps), the filter in k groups, y[n, F, oh, ow, f] += x[n, C,
  /// .., .., g*c + q] * w[F, C, kh, kw, c, f, q]; `c` counts groups and
  /// `q` is the dim within one.
  std::optional<unsigned> q;
  bool depthwise = false;
  int64_t sh, sw, dh, dw;
  SmallVector<int64_t> ranges;

  /// Input channels per 32-bit lane: 4 (int8), 2 (bf16), else 1.
  int64_t group() const { return q ? ranges[*q] : 1; }
  /// True for the int8 form (i8 x, u8 in the kernel).
  bool int8() const {
    return q && getElementTypeOrSelf(x->get().getType()).isInteger(8);
  }
};

/// The register tile: `rows` output columns of `vectors` channel blocks;
/// the column tails of `lines` consecutive output rows share one tile (0:
/// not chosen yet).
struct Tiles {
  int64_t rows, vectors, lines = 0;
};

/// A position in a register tile, relative to the tile's first output
/// row and column.
struct TilePosition {
  int64_t row, column;
};

/// The box of the convolution's input rows [rowBegin, rowEnd) and
/// columns [colBegin, colEnd) outside which the buffer holds zeros when
/// the convolution runs (a padded copy: a zero fill, then the source
/// copied into its interior). Taps that read only zeros contribute
/// nothing; the kernel skips them, as oneDNN's brgconv does (18% of a
/// 3x3 convolution's FMAs on a 7x7 map, 9% on 14x14).
struct ZeroMargins {
  int64_t rowBegin, rowEnd, colBegin, colEnd;
  int64_t height, width;
  /// Where the interior is one copy of a whole contiguous buffer (every
  /// dim but the rows and columns whole) that nothing writes before the
  /// convolution reads it: that buffer, and the copy. A kernel that never
  /// reads the border reads it in place, and the padded buffer goes.
  Value source;
  Operation *copy = nullptr;

  bool rows() const { return rowBegin > 0 || rowEnd < height; }
  bool columns() const { return colBegin > 0 || colEnd < width; }
  bool columnInside(int64_t column) const {
    return column >= colBegin && column < colEnd;
  }
};

/// The remark's note on the zero border the kernel skips.
std::string marginNote(const ZeroMargins &m) {
  return "; skips taps on the zero border (input rows [" +
         std::to_string(m.rowBegin) + ", " + std::to_string(m.rowEnd) +
         ") and columns [" + std::to_string(m.colBegin) + ", " +
         std::to_string(m.colEnd) + ") of " + std::to_string(m.height) + "x" +
         std::to_string(m.width) + " hold nonzeros)";
}

/// Whether `v` is a constant zero (+0.0 or an integer 0).
bool isConstantZero(Value v) {
  return v && (matchPattern(v, m_PosZeroFloat()) || matchPattern(v, m_Zero()));
}

/// Whether `v`, the padding value of cv's input, contributes nothing to
/// its products: a zero, or for an int8 kernel -128, which its flip of
/// the input to u8 (x + 128, see BlockedConvEmitter::biasInput) makes
/// zero.
bool isZeroBorder(const BlockedConv &cv, Value v) {
  if (!cv.int8())
    return isConstantZero(v);
  APInt value;
  return v && matchPattern(v, m_ConstantInt(&value)) &&
         value.getSExtValue() == -128;
}

/// The source of the one copy into `view` (a subview of a padded buffer
/// that `conv` reads) and the copy, when the view is whole in every dim
/// but the rows and columns (from `rowDim`), the source a static
/// identity-layout buffer, and nothing writes or frees the source between
/// the copy and the convolution; else nulls.
std::pair<Value, Operation *> copiedWhole(memref::SubViewOp view,
                                          Operation *conv, int64_t rowDim) {
  if (!view->hasOneUse())
    return {};
  Operation *copy = *view->getUsers().begin();
  Value source;
  if (auto c = dyn_cast<linalg::CopyOp>(copy);
      c && c.hasPureBufferSemantics() && c.getOutputs()[0] == view)
    source = c.getInputs()[0];
  else if (auto c = dyn_cast<memref::CopyOp>(copy); c && c.getTarget() == view)
    source = c.getSource();
  auto sourceType = source ? dyn_cast<MemRefType>(source.getType()) : nullptr;
  if (!sourceType || !sourceType.hasStaticShape() ||
      !sourceType.getLayout().isIdentity() ||
      copy->getBlock() != conv->getBlock() || !copy->isBeforeInBlock(conv))
    return {};
  ArrayRef<int64_t> whole = view.getSourceType().getShape();
  for (int64_t d = 0, e = whole.size(); d < e; ++d)
    if (d != rowDim && d != rowDim + 1 &&
        (view.getStaticOffsets()[d] != 0 ||
         view.getStaticSizes()[d] != whole[d]))
      return {};
  if (llvm::any_of(view.getStaticStrides(), [](int64_t s) { return s != 1; }))
    return {};
  llvm::SmallPtrSet<Value, 8> aliases = dlas::aliasesOf(source);
  for (Operation *op = copy->getNextNode(); op != conv; op = op->getNextNode())
    if (dlas::mayWrite(op, aliases) ||
        (isa<memref::DeallocOp>(op) && dlas::touches(op, aliases)))
      return {};
  return {source, copy};
}

/// cv's input as a padded buffer: a fresh allocation that a zero fill
/// writes whole, earlier in the convolution's block, and that anything
/// else writes only through static subviews, whose bounding box holds
/// the nonzeros. nullopt when that cannot be shown or nothing is zero.
std::optional<ZeroMargins> zeroMarginsOf(const BlockedConv &cv) {
  // Through reshapes of the leading dims only (GSPC splits the channel
  // blocks into groups): rows, columns and channels stay the last three.
  Value x = cv.x->get();
  Operation *reader = cv.op;
  while (Operation *def = x.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    SmallVector<ReassociationIndices> groups =
        isa<memref::ExpandShapeOp>(def)
            ? cast<memref::ExpandShapeOp>(def).getReassociationIndices()
            : cast<memref::CollapseShapeOp>(def).getReassociationIndices();
    if (groups.size() < 3 || !x.hasOneUse() ||
        llvm::any_of(
            ArrayRef(groups).take_back(3),
            [](const ReassociationIndices &g) { return g.size() != 1; }))
      return std::nullopt;
    reader = def;
    x = def->getOperand(0);
  }
  if (!x.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<MemRefType>(x.getType()).getShape();
  int64_t rank = shape.size(), rowDim = rank - 3, colDim = rank - 2;
  Operation *conv = cv.op;
  ZeroMargins m{shape[rowDim], 0,       shape[colDim], 0, shape[rowDim],
                shape[colDim], Value(), nullptr};
  bool zeroFilled = false;
  SmallVector<memref::SubViewOp> views;
  for (Operation *user : x.getUsers()) {
    if (user == reader || isa<memref::DeallocOp>(user))
      continue;
    if (auto view = dyn_cast<memref::SubViewOp>(user)) {
      ArrayRef<int64_t> offsets = view.getStaticOffsets(),
                        sizes = view.getStaticSizes(),
                        strides = view.getStaticStrides();
      if (view.getSource() != x ||
          cast<MemRefType>(view.getType()).getRank() != rank ||
          llvm::any_of(llvm::concat<const int64_t>(offsets, sizes, strides),
                       ShapedType::isDynamic))
        return std::nullopt;
      auto end = [&](int64_t d) {
        return offsets[d] + (sizes[d] - 1) * strides[d] + 1;
      };
      if (sizes[rowDim] == 0 || sizes[colDim] == 0)
        continue;
      m.rowBegin = std::min(m.rowBegin, offsets[rowDim]);
      m.rowEnd = std::max(m.rowEnd, end(rowDim));
      m.colBegin = std::min(m.colBegin, offsets[colDim]);
      m.colEnd = std::max(m.colEnd, end(colDim));
      views.push_back(view);
      continue;
    }
    if (isZeroBorder(cv, dlas::fillValue(user, x)) &&
        user->getBlock() == conv->getBlock() && user->isBeforeInBlock(conv)) {
      zeroFilled = true;
      continue;
    }
    return std::nullopt;
  }
  if (!zeroFilled || (!m.rows() && !m.columns()))
    return std::nullopt;
  // No subview: nothing but zeros (every tap skipped, the init stays).
  if (m.rowBegin > m.rowEnd || m.colBegin > m.colEnd)
    m.rowBegin = m.rowEnd = m.colBegin = m.colEnd = 0;
  if (views.size() == 1)
    std::tie(m.source, m.copy) = copiedWhole(views.front(), cv.op, rowDim);
  return m;
}

/// The window of input dim `e`: out * step + tap * dilation.
bool matchWindow(AffineExpr e, unsigned numLoops, unsigned out, unsigned tap,
                 int64_t &step, int64_t &dilation) {
  auto terms = dlas::linearTerms(e, numLoops);
  if (!terms || terms->size() != 2 || !terms->count(out) || !terms->count(tap))
    return false;
  step = terms->lookup(out);
  dilation = terms->lookup(tap);
  return step > 0 && dilation > 0;
}

/// The part the blocked forms share: `loops` loops, two inputs and an
/// output on static contiguous f32 memrefs, an out + lhs * rhs body, and
/// a 5-d output y[n, F, oh, ow, f] (6-d y[n, g, F, oh, ow, f] when
/// `grouped`) whose dims it records.
FailureOr<BlockedConv> matchBlockedOutput(linalg::LinalgOp op, unsigned loops,
                                          bool grouped, std::string &why,
                                          bool dotProduct = false) {
  auto reject = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!(op.hasPureBufferSemantics() || op.hasPureTensorSemantics()) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != loops)
    return reject("not a two-input, one-output, " + Twine(loops) +
                  "-loop op");
  if (dotProduct) {
    auto element = [](Value v) { return getElementTypeOrSelf(v); };
    Type x = element(op.getDpsInputs()[0]), w = element(op.getDpsInputs()[1]),
         y = element(op.getDpsInits()[0]);
    bool int8 = x.isInteger(8) && w.isInteger(8) && y.isInteger(32);
    bool bf16 = x.isBF16() && w.isBF16() && y.isF32();
    if (!llvm::all_of(op->getOperands(), dlas::isContiguous) || !(int8 || bf16))
      return reject("needs static contiguous i8 operands and an i32 output, "
                    "or bf16 ones and an f32 output");
  } else {
    for (OpOperand &operand : op->getOpOperands())
      if (!dlas::isContiguousF32(operand.get()))
        return reject("needs static contiguous f32 operands (the kernels "
                      "build f32 code)");
  }
  if (!dlas::isMultiplyAccumulate(op))
    return reject("body is not out + lhs * rhs");
  BlockedConv cv;
  cv.op = op;
  cv.y = op.getDpsInitOperand(0);
  cv.ranges = op.getStaticLoopRanges();
  AffineMap yMap = op.getMatchingIndexingMap(cv.y);
  unsigned rank = grouped ? 6 : 5;
  if (!yMap.isProjectedPermutation() || yMap.getNumResults() != rank)
    return reject("output map is not a " + Twine(rank) +
                  "-d projected permutation");
  unsigned at = 0;
  cv.n = yMap.getDimPosition(at++);
  if (grouped)
    cv.g = yMap.getDimPosition(at++);
  cv.F = yMap.getDimPosition(at++);
  cv.oh = yMap.getDimPosition(at++);
  cv.ow = yMap.getDimPosition(at++);
  cv.f = yMap.getDimPosition(at++);
  return cv;
}

/// Checks that cv's input is x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c]
/// (x[n, g, C, ...] when grouped; the other dims already known) and
/// records the window's steps.
LogicalResult matchInput(BlockedConv &cv, std::string &why) {
  linalg::LinalgOp op = cv.op;
  AffineMap xMap = op.getMatchingIndexingMap(cv.x);
  auto isDim = [&](AffineExpr e, unsigned d) {
    return e == getAffineDimExpr(d, op.getContext());
  };
  unsigned loops = op.getNumLoops();
  unsigned g = cv.g ? 1 : 0; // the spatial dims' shift
  // A dot-product kernel's channel within the block: g * group + element.
  auto isChannel = [&](AffineExpr e) {
    if (!cv.q)
      return isDim(e, cv.c);
    return e == getAffineDimExpr(cv.c, op.getContext()) * cv.group() +
                    getAffineDimExpr(*cv.q, op.getContext());
  };
  if (xMap.getNumResults() != 5 + g || !isDim(xMap.getResult(0), cv.n) ||
      (cv.g && !isDim(xMap.getResult(1), *cv.g)) ||
      !isDim(xMap.getResult(1 + g), cv.C) || !isChannel(xMap.getResult(4 + g)))
    why = cv.g   ? "input map is not [n, g, C, _, _, c]"
          : cv.q ? "input map is not [n, C, _, _, g*c + q]"
                 : "input map is not [n, C, _, _, c]";
  else if (!matchWindow(xMap.getResult(2 + g), loops, cv.oh, cv.kh, cv.sh,
                        cv.dh) ||
           !matchWindow(xMap.getResult(3 + g), loops, cv.ow, cv.kw, cv.sw,
                        cv.dw))
    why = "input rows/columns are not oh*sh + kh*dh, ow*sw + kw*dw";
  else
    return success();
  return failure();
}

/// Matches `op` as a BlockedConv whose channel block is `width` lanes (a
/// grouped one: whose output block is a power of two from
/// gspc::kMinOutputTile to `width`; a dot-product one, `dotProduct`: int8
/// in quads or bf16 in pairs, its filter [F, C, kh, kw, c, f, q]); on
/// failure `why` says what does not fit.
FailureOr<BlockedConv> matchBlockedConv(linalg::LinalgOp op, int64_t width,
                                        bool grouped, bool dotProduct,
                                        std::string &why) {
  auto reject = [&](StringRef reason) {
    why = reason.str();
    return failure();
  };
  FailureOr<BlockedConv> matched = matchBlockedOutput(
      op, grouped || dotProduct ? 10 : 9, grouped, why, dotProduct);
  if (failed(matched))
    return failure();
  BlockedConv cv = *matched;
  unsigned g = grouped ? 1 : 0; // the filter dims' shift
  // The output's channel dim: the filter's last, or before the group dim q.
  unsigned fAt = 5 + g, rank = fAt + (dotProduct ? 2 : 1);
  auto isFilter = [&](OpOperand *o) {
    AffineMap map = op.getMatchingIndexingMap(o);
    return map.getNumResults() == rank &&
           map.getResult(fAt) == getAffineDimExpr(cv.f, op.getContext());
  };
  OpOperand *in0 = op.getDpsInputOperand(0), *in1 = op.getDpsInputOperand(1);
  cv.w = isFilter(in0) ? in0 : isFilter(in1) ? in1 : nullptr;
  if (!cv.w)
    return reject(dotProduct
                      ? "no 7-d filter input [F, C, kh, kw, c, f, q]"
                      : "no 6-d filter input ending in the output's channel dim");
  cv.x = cv.w == in0 ? in1 : in0;
  AffineMap wMap = op.getMatchingIndexingMap(cv.w);
  if (!wMap.isProjectedPermutation() || wMap.getDimPosition(g) != cv.F ||
      (grouped && wMap.getDimPosition(0) != *cv.g))
    return reject(grouped      ? "filter map is not [g, F, C, kh, kw, c, f]"
                  : dotProduct ? "filter map is not [F, C, kh, kw, c, f, q]"
                               : "filter map is not [F, C, kh, kw, c, f]");
  cv.C = wMap.getDimPosition(1 + g);
  cv.kh = wMap.getDimPosition(2 + g);
  cv.kw = wMap.getDimPosition(3 + g);
  cv.c = wMap.getDimPosition(4 + g);
  SmallVector<unsigned> reductions = {cv.C, cv.kh, cv.kw, cv.c};
  if (dotProduct) {
    cv.q = wMap.getDimPosition(fAt + 1);
    reductions.push_back(*cv.q);
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d : reductions)
    if (iterators[d] != utils::IteratorType::reduction)
      return reject(dotProduct
                        ? "filter's C, kh, kw, c, q are not the reductions"
                        : "filter's C, kh, kw, c are not the reductions");
  if (failed(matchInput(cv, why)))
    return failure();
  int64_t lanes = cv.ranges[cv.f];
  if (dotProduct) {
    int64_t group = cv.int8() ? 4 : 2;
    if (lanes != width || cv.ranges[*cv.q] != group ||
        cv.ranges[cv.c] * group != width)
      return reject(cv.int8()
                        ? "the channel blocks are not one vector wide in quads"
                        : "the channel blocks are not one vector wide in pairs");
    return cv;
  }
  if (grouped && (!llvm::isPowerOf2_64(lanes) ||
                  lanes < dlas::gspc::kMinOutputTile || lanes > width))
    return reject("the output channel block is not a vector of " +
                  std::to_string(dlas::gspc::kMinOutputTile) + " to " +
                  std::to_string(width) + " lanes");
  if (!grouped && (lanes != width || cv.ranges[cv.c] != width))
    return reject("the channel blocks are not one vector wide");
  return cv;
}

/// Matches `op` as a blocked depthwise convolution y[n, C, oh, ow, c] +=
/// x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c] * w[C, kh, kw, c] whose channel
/// block is `width` lanes; on failure `why` says what does not fit.
FailureOr<BlockedConv> matchBlockedDepthwise(linalg::LinalgOp op,
                                             int64_t width, std::string &why) {
  auto reject = [&](StringRef reason) {
    why = reason.str();
    return failure();
  };
  FailureOr<BlockedConv> matched = matchBlockedOutput(op, 7, false, why);
  if (failed(matched))
    return failure();
  BlockedConv cv = *matched;
  cv.depthwise = true;
  cv.C = cv.F;
  cv.c = cv.f;
  auto isFilter = [&](OpOperand *o) {
    AffineMap map = op.getMatchingIndexingMap(o);
    return map.getNumResults() == 4 && map.isProjectedPermutation() &&
           map.getDimPosition(0) == cv.C && map.getDimPosition(3) == cv.c;
  };
  OpOperand *in0 = op.getDpsInputOperand(0), *in1 = op.getDpsInputOperand(1);
  cv.w = isFilter(in1) ? in1 : isFilter(in0) ? in0 : nullptr;
  if (!cv.w)
    return reject("no 4-d filter input [C, kh, kw, c]");
  cv.x = cv.w == in0 ? in1 : in0;
  AffineMap wMap = op.getMatchingIndexingMap(cv.w);
  cv.kh = wMap.getDimPosition(1);
  cv.kw = wMap.getDimPosition(2);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[cv.kh] != utils::IteratorType::reduction ||
      iterators[cv.kw] != utils::IteratorType::reduction)
    return reject("filter's kh, kw are not the reductions");
  if (failed(matchInput(cv, why)))
    return failure();
  if (cv.ranges[cv.c] != width)
    return reject("the channel block is not one vector wide");
  return cv;
}

/// Most output columns per register tile (see chooseTiles).
constexpr int64_t kMaxRows = 8;
/// On 16 registers, and for bf16 pairs on a padded input, rows up to
/// kMaxBalancedWidth wide split into tiles of at most kMaxBalancedRows
/// columns (see chooseRowTiles, chooseTiles).
constexpr int64_t kMaxBalancedWidth = 28;
constexpr int64_t kMaxBalancedRows = 5;
constexpr int64_t kMaxDepthwiseRows = 14;

/// Most output columns per register tile of `vectors` channel blocks. A
/// GSPC tile of one vector (16 output channels per group) broadcasts an
/// input value per FMA; more columns amortize its filter load: ResNet-34's
/// 64-channel 56x56 layer with g = 4 ran in 0.50 ms with 8 rows, 0.355 ms
/// with 14 (oneDNN 0.38), the 28x28 g = 8 one 0.20 -> 0.17.
int64_t rowCap(const BlockedConv &cv, int64_t vectors) {
  return cv.depthwise || (cv.g && vectors == 1) ? kMaxDepthwiseRows : kMaxRows;
}

/// Whether cv's input is a tensor.pad's result (decisions are made on
/// tensors): the kernel then reads the padded copy unless each register
/// tile is one output row's, and can read the unpadded source in place
/// (see BlockedConvEmitter::readsInPlace).
bool readsPaddedInput(const BlockedConv &cv) {
  return cv.x->get().getDefiningOp<tensor::PadOp>() != nullptr;
}

/// The tile of `vectors` channel blocks for `cv`'s rows (see chooseTiles).
Tiles chooseRowTiles(const BlockedConv &cv, int64_t registers,
                     int64_t vectors) {
  int64_t width = cv.ranges[cv.ow];
  // Accumulators: half of 32 registers (measured above); of 16, 12 (6x2
  // tiles, the filter vectors and the broadcast beside them). x86-64-v3
  // code on a Zen 5 host: 5x2 tiles ran 5-17% faster than 4x2 on
  // ResNet-50's 14x14 and 56x56 layers while each row ended in a narrow
  // tail tile; with the tails shared across rows (chooseLines) 6x2 tiles
  // took the ResNet-50 conv set from 1.07x to 1.02x oneDNN-AVX2's time
  // (dlas-tune kept rows = 6 for 10 of its 23 layers, 3-13% each).
  int64_t accumulators = registers <= 16 ? registers - 4 : registers / 2;
  int64_t maxRows = std::max<int64_t>(
      1, std::min<int64_t>(rowCap(cv, vectors), accumulators / vectors));
  if (width <= maxRows)
    return {width, vectors};
  // 16 registers, a padded window and rows up to 28 wide: balanced tiles
  // of at most 5 columns, each one row's (no shared tails), so that the
  // kernel reads the input in place and skips the border per row (see
  // dlas-blocked-conv-microkernel). x86-64-v3 on a Zen 5 host, 1 thread,
  // ResNet-34's 3x3 layers: 512 channels 7x7 2.05 -> 1.89 ms (4 + 3),
  // 256 14x14 1.97 -> 1.70 (5 + 5 + 4), 128 28x28 1.83 -> 1.78; 64
  // channels 16x16 0.156 -> 0.150 (4 x 4); at 56x56 the shared tails of
  // 6x2 tiles stay ahead (1.70 against 1.81 ms).
  if (registers <= 16 && vectors == 2 && width <= kMaxBalancedWidth &&
      cv.ranges[cv.kw] > 1) {
    int64_t perRow = llvm::divideCeil(width, kMaxBalancedRows);
    return {static_cast<int64_t>(llvm::divideCeil(width, perRow)), vectors,
            /*lines=*/1};
  }
  int64_t best = maxRows;
  auto better = [&](int64_t r) {
    int64_t tiles = llvm::divideCeil(width, r);
    int64_t bestTiles = llvm::divideCeil(width, best);
    if (tiles != bestTiles)
      return tiles < bestTiles;
    return (width % r == 0) && (width % best != 0);
  };
  for (int64_t r = maxRows - 1; r >= std::min<int64_t>(4, maxRows); --r)
    if (better(r))
      best = r;
  return {best, vectors};
}

/// Register tile for `cv`: two output-channel blocks when their count is
/// even (else one), and rows for at most half of 32 vector registers of
/// accumulators (12 of 16), at most 8: the fewest tiles per output row,
/// then no tail, then the most rows. Measured on ResNet-50's layers (1
/// thread): 7x2 and 8x2 tiles within noise of each other and 5-40% faster
/// than 14x2, 7x4, 6x4, 4x4 and 14x1 ones; tiles of 24-28 accumulators
/// lose to register pressure, single-vector ones to a broadcast per FMA.
///
/// A depthwise convolution has one channel block per tile (nothing to
/// share a broadcast across) and loads a vector per FMA; up to
/// kMaxDepthwiseRows columns amortize its filter load.
Tiles chooseTiles(const BlockedConv &cv, int64_t registers) {
  int64_t width = cv.ranges[cv.ow];
  int64_t vectors = !cv.depthwise && cv.ranges[cv.F] % 2 == 0 ? 2 : 1;
  // bf16 pairs: four channel blocks (4x4 tiles on 32 registers), half the
  // loads per vdpbf16ps of 7x2 (a pair step loads twice the filter bytes
  // per multiply-add of an int8 quad step). Zen 5, ResNet-50's layers,
  // blocked in and out, 1 thread: 4-10% faster (3x3 128 at 28x28 0.465 ->
  // 0.422 ms, 1x1 64 -> 256 at 56x56 0.228 -> 0.207); int8 quads measured
  // within 2% either way and keep 7x2.
  if (!cv.q || cv.int8() || registers < 32 || cv.ranges[cv.F] % 4 != 0)
    return chooseRowTiles(cv, registers, vectors);
  Tiles four = chooseRowTiles(cv, registers, 4);
  if (width % four.rows == 0 || !readsPaddedInput(cv))
    return four;
  // Where 4-column tiles leave a tail on a padded input, rows would share
  // tail tiles (chooseLines), which read the padded copy; tiles that are
  // each one row's read the source in place. Zen 5, the 3x3 256-channel
  // stride-2 layer (28 -> 14) at 2 threads: shared 4x4 tails 0.43-0.59
  // ms, 7x2 tiles 0.31-0.42 (oneDNN bf16 0.33). On rows up to 28 wide,
  // balanced 4-vector tiles of at most 5 columns (20 accumulators; 14 =
  // 5 + 5 + 4, 7 = 4 + 3) keep the broadcast shared by four vdpbf16ps
  // instead of two: best of interleaved runs, the 14x14 3x3 layer 0.517
  // -> 0.498-0.502 ms at 1 thread and 0.261-0.264 -> 0.252-0.253 at 2
  // (one run of three the other way), the stride-2 one 0.536 -> 0.527
  // and 0.273-0.298 -> 0.269-0.272; 7-wide maps within the VM's noise.
  if (width <= kMaxBalancedWidth) {
    int64_t perRow = llvm::divideCeil(width, kMaxBalancedRows);
    return {static_cast<int64_t>(llvm::divideCeil(width, perRow)), 4,
            /*lines=*/1};
  }
  Tiles two = chooseRowTiles(cv, registers, 2);
  return width % two.rows == 0 ? two : four;
}

/// Output rows whose column tails share one register tile. On 16
/// registers the shared tile may take all but the filter vectors and the
/// broadcast, on 32 as many positions as a full tile. Measured on x86-64-v3
/// (Zen 5 host, 1 thread) with 5x2 tiles, before they became 6x2 (see
/// chooseTiles): a 7-wide row splits 5 + 2, and the 2-column tail
/// tile, 4 accumulators for an FMA latency of 4 cycles on 2 ports, ran at
/// half speed once per row; ResNet-50's l4_3x3_512 took 3.0-3.5 ms
/// unshared, 2.53-2.59 with 2 rows' tails in a tile and 2.45-2.52 with 3
/// (12 accumulators), its l4_1x1_512_2048 1.29-1.33, 1.09 and 1.05-1.09;
/// 7 rows' tails (28 accumulators) spilled (1.25).
int64_t chooseLines(const BlockedConv &cv, const Tiles &tiles,
                    int64_t registers) {
  int64_t tail = cv.ranges[cv.ow] % tiles.rows;
  if (tail == 0)
    return 1;
  int64_t positions =
      registers <= 16
          ? std::min((registers - tiles.vectors - 1) / tiles.vectors,
                     rowCap(cv, tiles.vectors))
          : tiles.rows;
  return std::clamp<int64_t>(std::max(positions, tiles.rows) / tail, 1,
                             cv.ranges[cv.oh]);
}

/// The tuning-file key: "c<C>_f<F>_o<OH>x<OW>_k<KH>x<KW>_s<sh>x<sw>" with
/// "_d<dh>x<dw>" when dilated (channels counted in blocks times lanes).
std::string shapeKey(const BlockedConv &cv) {
  const SmallVector<int64_t> &r = cv.ranges;
  std::string key;
  llvm::raw_string_ostream os(key);
  int64_t groups = cv.g ? r[*cv.g] : 1;
  if (cv.depthwise)
    os << "dw_c" << r[cv.C] * r[cv.c] << "_o";
  else if (cv.g)
    os << "g" << groups << "_c" << groups * r[cv.C] * r[cv.c] << "_f"
       << groups * r[cv.F] * r[cv.f] << "_o";
  else if (cv.q)
    os << (cv.int8() ? "i8" : "bf16") << "_c" << r[cv.C] * r[cv.c] * cv.group()
       << "_f" << r[cv.F] * r[cv.f] << "_o";
  else
    os << "c" << r[cv.C] * r[cv.c] << "_f" << r[cv.F] * r[cv.f] << "_o";
  os << r[cv.oh] << "x" << r[cv.ow] << "_k" << r[cv.kh] << "x" << r[cv.kw]
     << "_s" << cv.sh << "x" << cv.sw;
  if (cv.dh != 1 || cv.dw != 1)
    os << "_d" << cv.dh << "x" << cv.dw;
  return key;
}

/// Inputs of an int8 kernel from this many bytes are biased to u8 by all
/// threads (see BlockedConvEmitter::biasInput).
constexpr int64_t kMinParallelBiasBytes = 64 * 1024;

/// Channels of a block per iteration of the kernel's innermost loop.
constexpr int64_t kChannelUnroll = 4;

/// A row's taps in the input's column margins, at least 1 in this many of
/// its taps, make the tiles at its ends specialize per column.
constexpr int64_t kMinSkippedColumnShare = 50;

/// Work items a fused pool's kernel splits into at least (bands of pooled
/// rows, where images and channel tiles are fewer): two threads' worth of
/// chunks twice over, while each band of a 56x56 layer's 28 pooled rows
/// recomputes one convolution row of the 14 it computes.
constexpr int64_t kMinPoolItems = 4;

/// True for the loop structures of the blocked forms: a blocked
/// convolution (9 loops, 4 reductions), a grouped one (10, 4), an int8 or
/// bf16 one (10, 5) or a depthwise one (7, 2).
bool hasBlockedLoops(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops(), reductions = op.getNumReductionLoops();
  return (reductions == 4 && (loops == 9 || loops == 10)) ||
         (loops == 10 && reductions == 5) || (loops == 7 && reductions == 2);
}

/// `op` as a blocked convolution (9 loops), grouped one (10) or blocked
/// depthwise one (7).
FailureOr<BlockedConv> matchBlocked(linalg::LinalgOp op, int64_t width,
                                    std::string &why) {
  if (op.getNumLoops() == 9 && op.getNumReductionLoops() == 4)
    return matchBlockedConv(op, width, /*grouped=*/false,
                            /*dotProduct=*/false, why);
  if (op.getNumLoops() == 10 && op.getNumReductionLoops() == 4)
    return matchBlockedConv(op, width, /*grouped=*/true,
                            /*dotProduct=*/false, why);
  if (op.getNumLoops() == 10 && op.getNumReductionLoops() == 5)
    return matchBlockedConv(op, width, /*grouped=*/false,
                            /*dotProduct=*/true, why);
  if (op.getNumLoops() == 7 && op.getNumReductionLoops() == 2)
    return matchBlockedDepthwise(op, width, why);
  why = "not a 9-loop or 10-loop (4 reductions), 10-loop (5 reductions) or "
        "7-loop (2 reductions) op";
  return failure();
}
} // namespace

LogicalResult dlas::decideBlockedConv(linalg::LinalgOp op,
                                      const TargetShape &target,
                                      const TuningTable *tuning,
                                      MicrokernelAttr &decision,
                                      std::string &why) {
  decision = {};
  FailureOr<BlockedConv> match = matchBlocked(op, target.vectorWidth, why);
  if (failed(match))
    return success();
  BlockedConv &cv = *match;
  if (cv.int8() && !dlas::hasInt8DotProduct(op, target.vectorWidth)) {
    why = "int8 without vpdpbusd at " + std::to_string(target.vectorWidth) +
          " lanes";
    return success();
  }
  if (cv.q && !cv.int8() &&
      !dlas::hasBF16DotProduct(dlas::lookupCPUTarget(op), target.vectorWidth)) {
    why = "bf16 without vdpbf16ps at " + std::to_string(target.vectorWidth) +
          " lanes";
    return success();
  }
  Tiles tiles = chooseTiles(cv, target.vectorRegisters);
  std::string key = shapeKey(cv);
  DictionaryAttr tuned =
      tuning ? tuning->lookup(kTuningSection, key, targetCpu(op)) : nullptr;
  Attribute override = op->getAttr(kTilesAttrName);
  auto slots = [&]() -> SmallVector<std::pair<StringRef, int64_t *>> {
    return {{"rows", &tiles.rows},
            {"vectors", &tiles.vectors},
            {"lines", &tiles.lines}};
  };
  if (failed(applyIntegerOverrides(op, kTilesAttrName, tuned, slots())) ||
      failed(applyIntegerOverrides(op, kTilesAttrName, override, slots())))
    return failure();
  DecisionSource source = override ? DecisionSource::override
                          : tuned  ? DecisionSource::tuning_file
                                   : DecisionSource::cost_model;
  // A depthwise tile is one channel block: nothing to share across more.
  if (cv.depthwise)
    tiles.vectors = 1;
  if (cv.ranges[cv.F] % tiles.vectors != 0)
    return op->emitError() << "'" << kTilesAttrName << "' vectors = "
                           << tiles.vectors << " does not divide the "
                           << cv.ranges[cv.F] << " output-channel blocks";
  tiles.rows = std::min(tiles.rows, cv.ranges[cv.ow]);
  if (tiles.rows * tiles.vectors + tiles.vectors + 1 > target.vectorRegisters)
    op->emitWarning() << "the " << tiles.rows << "x" << tiles.vectors
                      << " register tile needs more than the "
                      << target.vectorRegisters << " vector registers";
  // Without a tail there is nothing to share; lines left unset (0) are
  // the cost model's (overrides are positive).
  int64_t tail = cv.ranges[cv.ow] % tiles.rows;
  tiles.lines = tail == 0 ? 1
                : tiles.lines == 0
                    ? chooseLines(cv, tiles, target.vectorRegisters)
                    : std::min(tiles.lines, cv.ranges[cv.oh]);
  if (tail * tiles.lines * tiles.vectors + tiles.vectors + 1 >
      target.vectorRegisters)
    op->emitWarning() << "the shared tail tile of " << tiles.lines << " rows x "
                      << tail << " columns x " << tiles.vectors
                      << " vectors needs more than the "
                      << target.vectorRegisters << " vector registers";
  TensorFusion fusion = tensorFusionPartners(op);
  Type input = getElementTypeOrSelf(cv.x->get().getType());
  Type acc = getElementTypeOrSelf(cv.y->get().getType());
  decision = MicrokernelAttr::get(
      op->getContext(),
      cv.depthwise ? MicrokernelKind::blocked_depthwise
      : cv.g       ? MicrokernelKind::grouped_conv
                   : MicrokernelKind::blocked_conv,
      tiles.rows, tiles.vectors, tiles.lines, cv.ranges[cv.f], /*kc=*/0,
      /*mc=*/0,
      /*packB=*/false, input, acc, fusion.init, fusion.epilogues,
      /*padding=*/false, key, source, /*group=*/0, ThreadSplit::automatic);
  return success();
}

namespace {
/// A max pool (dlas-blocked-layout's `dlas.blocked_pool`) that reads the
/// convolution's final values, directly or through a padded copy: the
/// kernel pools each band of output rows from a small ring of rows and
/// stores only the pooled values (TIRAMISU's conv + ReLU + max-pool
/// fusion; the pre-pool activation never goes to memory).
struct FusedPool {
  linalg::GenericOp op;
  /// The pooled output and the value its fill starts every window from.
  Value out;
  Value initValue;
  /// The padded copy's fill value (the init value when unpadded), the
  /// padding before the first row and column, and the padded extent the
  /// pool reads.
  Value padValue;
  int64_t padTop = 0, padLeft = 0, height = 0, width = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t outH = 0, outW = 0;
  /// The ops the fused kernel replaces besides the pool, in erasure order.
  SmallVector<Operation *> dead;
};

/// The last op before `before` (in its block) that writes `buffer` with a
/// constant (a fill or a constant linalg.map), and the constant; null if
/// none. (A reused buffer has several: the convolution's zero init, then
/// the pool's -inf one.)
std::pair<Operation *, Value> constantWriter(Value buffer, Operation *before) {
  std::pair<Operation *, Value> last = {nullptr, Value()};
  for (Operation *user : buffer.getUsers()) {
    Value v = dlas::fillValue(user, buffer);
    if (!v || !v.getDefiningOp<arith::ConstantOp>() ||
        user->getBlock() != before->getBlock() || !user->isBeforeInBlock(before))
      continue;
    if (!last.first || last.first->isBeforeInBlock(user))
      last = {user, v};
  }
  return last;
}

/// Whether `op` only frees a buffer.
bool isDealloc(Operation *op) { return isa<memref::DeallocOp>(op); }

/// Erases the allocation `buffer` when nothing but its deallocations
/// uses it any more.
void eraseIfOnlyFreed(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(buffer.getUsers(), isDealloc))
    return;
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
    user->erase();
  alloc->erase();
}

/// Erases the padded buffer of `m` that a kernel reading its source in
/// place replaced: the copy into it, its views and fills, and itself
/// where nothing else uses it.
void erasePaddedCopy(const ZeroMargins &m) {
  // The copy's target (linalg.copy's init, memref.copy's target).
  auto view = cast<memref::SubViewOp>(m.copy->getOperand(1).getDefiningOp());
  Value padded = view.getSource();
  m.copy->erase();
  view->erase();
  // The reshapes that led to the convolution, now unused.
  std::function<void(Value)> eraseDeadReshapes = [&](Value v) {
    for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
      if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user))
        continue;
      eraseDeadReshapes(user->getResult(0));
      if (user->use_empty())
        user->erase();
    }
  };
  eraseDeadReshapes(padded);
  if (!llvm::all_of(padded.getUsers(), [&](Operation *user) {
        return isDealloc(user) || isConstantZero(dlas::fillValue(user, padded));
      }))
    return;
  for (Operation *user : llvm::make_early_inc_range(padded.getUsers()))
    if (!isDealloc(user))
      user->erase();
  eraseIfOnlyFreed(padded);
}

/// Whether a blocked pool reads the final values of `nb` (directly or
/// through a padded copy): a pool that could have fused.
bool isPoolReader(const Neighbours &nb) {
  if (!nb.result)
    return false;
  for (Operation *user : nb.result.getUsers()) {
    if (user->hasAttr("dlas.blocked_pool"))
      return true;
    if (auto copy = dyn_cast<linalg::CopyOp>(user))
      if (auto view = copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>())
        for (Operation *reader : view.getSource().getUsers())
          if (reader->hasAttr("dlas.blocked_pool"))
            return true;
  }
  return false;
}

/// The max pool that cv's kernel can fuse: the only reader of the final
/// values `nb.result` besides the kernel's own folded ops.
FailureOr<FusedPool> matchFusedPool(const BlockedConv &cv,
                                    const Neighbours &nb, std::string &why) {
  auto reject = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (cv.g)
    return reject("grouped convolution");
  Value result = nb.result;
  if (!result || result.getType() != cv.y->get().getType() ||
      !result.getDefiningOp<memref::AllocOp>())
    return reject("the final values are not a buffer of the output's shape");
  llvm::SmallPtrSet<Operation *, 8> folded = {cv.op.getOperation(), nb.init};
  for (linalg::GenericOp e : nb.epilogues)
    folded.insert(e);
  // The reader: a copy into the pool's padded input, or the pool. Other
  // users may only be the pool and its output's fill, where the pool's
  // output reuses the buffer (checked once the pool is known).
  Operation *reader = nullptr;
  SmallVector<Operation *> others;
  for (Operation *user : result.getUsers()) {
    if (folded.contains(user) || isDealloc(user))
      continue;
    auto copy = dyn_cast<linalg::CopyOp>(user);
    auto generic = dyn_cast<linalg::GenericOp>(user);
    bool reads =
        (copy && copy.getInputs()[0] == result) ||
        (generic && generic->hasAttr("dlas.blocked_pool") &&
         generic.getDpsInputs()[0] == result);
    if (!reads) {
      others.push_back(user);
      continue;
    }
    if (reader)
      return reject("the final values have more than one reader");
    reader = user;
  }
  if (!reader)
    return reject("no pool reads the final values");
  FusedPool p;
  // What the pool must read: the final values, or their padded copy.
  Value poolInput = result;
  if (auto copy = dyn_cast<linalg::CopyOp>(reader)) {
    auto view = copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
    if (copy.getInputs()[0] != result || !view || !view->hasOneUse())
      return reject("a copy that is not a padding");
    Value padded = view.getSource();
    if (!padded.getDefiningOp<memref::AllocOp>() ||
        !view.hasUnitStride() || view.getType().getShape() !=
                                     cast<MemRefType>(result.getType()).getShape())
      return reject("a copy into a view that is not a padding");
    auto [fill, padValue] = constantWriter(padded, copy);
    if (!fill)
      return reject("the padded buffer is not filled with a constant");
    SmallVector<int64_t> offsets(view.getStaticOffsets());
    if (offsets.size() != 5 || offsets[0] != 0 || offsets[1] != 0 ||
        offsets[4] != 0 || ShapedType::isDynamic(offsets[2]) ||
        ShapedType::isDynamic(offsets[3]))
      return reject("the padding is not of rows and columns alone");
    p.padTop = offsets[2];
    p.padLeft = offsets[3];
    p.padValue = padValue;
    for (Operation *user : padded.getUsers()) {
      if (user == fill || user == view || isDealloc(user))
        continue;
      auto pool = dyn_cast<linalg::GenericOp>(user);
      if (!pool || p.op)
        return reject("the padded buffer has readers besides one pool");
      p.op = pool;
    }
    p.dead = {copy, view, fill};
    poolInput = padded;
  } else {
    p.op = dyn_cast<linalg::GenericOp>(reader);
  }
  if (!p.op || !p.op->hasAttr("dlas.blocked_pool") ||
      p.op.getNumDpsInputs() != 2 || p.op->getBlock() != cv.op->getBlock())
    return reject("the reader is not a blocked max pool");
  linalg::GenericOp pool = p.op;
  Value pooled = pool.getDpsInputs()[0];
  if (pooled != poolInput)
    return reject("the pool does not read the final values as its input");
  auto inType = cast<MemRefType>(pooled.getType());
  p.height = inType.getDimSize(2);
  p.width = inType.getDimSize(3);
  // max(out, in) over y[n, C, oh, ow, c] and x[n, C, oh*sh + kh*dh,
  // ow*sw + kw*dw, c], as dlas-blocked-layout builds it.
  auto yield = cast<linalg::YieldOp>(pool.getBody()->getTerminator());
  auto max = yield.getOperand(0).getDefiningOp<arith::MaximumFOp>();
  Value in = pool.getBody()->getArgument(0),
        acc = pool.getBody()->getArgument(2);
  if (!max || !((max.getLhs() == in && max.getRhs() == acc) ||
                (max.getLhs() == acc && max.getRhs() == in)))
    return reject("the pool's body is not max(out, in)");
  AffineMap xMap = pool.getIndexingMapsArray()[0];
  AffineMap yMap = pool.getIndexingMapsArray()[2];
  if (!yMap.isProjectedPermutation() || yMap.getNumResults() != 5 ||
      xMap.getNumResults() != 5)
    return reject("the pool's maps are not blocked");
  SmallVector<int64_t> ranges = pool.getStaticLoopRanges();
  unsigned oh = yMap.getDimPosition(2), ow = yMap.getDimPosition(3);
  SmallVector<unsigned> reductions;
  pool.getReductionDims(reductions);
  if (reductions.size() != 2)
    return reject("the pool does not reduce over two dims");
  unsigned loops = pool.getNumLoops();
  if (xMap.getResult(0) != yMap.getResult(0) ||
      xMap.getResult(1) != yMap.getResult(1) ||
      xMap.getResult(4) != yMap.getResult(4) ||
      !matchWindow(xMap.getResult(2), loops, oh, reductions[0], p.sh, p.dh) ||
      !matchWindow(xMap.getResult(3), loops, ow, reductions[1], p.sw, p.dw))
    return reject("the pool's input is not a window of its output");
  p.kh = ranges[reductions[0]];
  p.kw = ranges[reductions[1]];
  p.out = pool.getDpsInits()[0];
  auto outType = cast<MemRefType>(p.out.getType());
  const SmallVector<int64_t> &r = cv.ranges;
  if (!dlas::isContiguousF32(p.out) || outType.getDimSize(0) != r[cv.n] ||
      outType.getDimSize(1) != r[cv.F] || outType.getDimSize(4) != r[cv.f])
    return reject("the pool's output is not the convolution's channels in "
                  "f32");
  p.outH = outType.getDimSize(2);
  p.outW = outType.getDimSize(3);
  auto [outFill, initValue] = constantWriter(p.out, pool);
  if (!outFill || folded.contains(outFill))
    return reject("the pool's output does not start from a constant fill");
  for (Operation *user : p.out.getUsers()) {
    bool replaced = user == outFill || user == pool.getOperation() ||
                    (p.out == result &&
                     (folded.contains(user) || user == reader));
    if (!replaced &&
        (user->getBlock() != pool->getBlock() || user->isBeforeInBlock(pool)))
      return reject("the pool's output is used before the pool");
  }
  for (Operation *other : others)
    if (other != pool.getOperation() && other != outFill &&
        !(p.out == result && other->getBlock() == pool->getBlock() &&
          pool->isBeforeInBlock(other)))
      return reject("the final values have readers besides the pool");
  // The pool's output may reuse the final values' buffer: its fill must
  // then come after the last read of them (the copy or the pool).
  if (p.out == result && !reader->isBeforeInBlock(outFill) &&
      reader != pool.getOperation())
    return reject("the pool's output is filled before it is read");
  p.initValue = initValue;
  if (!p.padValue)
    p.padValue = initValue;
  p.dead.push_back(outFill);
  return p;
}

/// Emits the kernel of one matched convolution before it.
class BlockedConvEmitter {
public:
  BlockedConvEmitter(OpBuilder &b, const BlockedConv &cv, Tiles tiles,
                     const Neighbours &nb, KernelTypes types, int64_t width,
                     bool parallel, std::optional<ZeroMargins> margins,
                     int64_t registers, Value quadSums = Value())
      : b(b), loc(cv.op.getLoc()), cv(cv), tiles(tiles), nb(nb), types(types),
        vw(width), parallel(parallel), margins(margins), registers(registers),
        quadSums(quadSums),
        vecType(types.accVector(width)), inVecType(types.inputVector(width)) {}

  /// Work items (image, group, channel tile, band of `lines` output
  /// rows), the band innermost so that consecutive items reuse the tile's
  /// filter from cache; each thread takes one contiguous chunk of them
  /// (for GSPC, whole groups where there are more groups than threads).
  void emit() {
    const SmallVector<int64_t> &r = cv.ranges;
    flattenInput();
    // The u8 copy's lifetime ends with the kernel (emitted before here).
    llvm::scope_exit freeBiased([&] {
      if (biased)
        memref::DeallocOp::create(b, loc, biased);
    });
    int64_t lines = tiles.lines;
    int64_t bands = llvm::divideCeil(r[cv.oh], lines);
    int64_t lastLines = r[cv.oh] - (bands - 1) * lines;
    int64_t channelTiles = r[cv.F] / tiles.vectors;
    int64_t perGroup = channelTiles * bands;
    int64_t perImage = (cv.g ? r[*cv.g] : 1) * perGroup;
    int64_t items = r[cv.n] * perImage;
    auto item = [&](Value i) {
      Value image = arith::DivUIOp::create(b, loc, i, index(perImage));
      Value rest = arith::RemUIOp::create(b, loc, i, index(perImage));
      if (cv.g) {
        group = arith::DivUIOp::create(b, loc, rest, index(perGroup));
        rest = arith::RemUIOp::create(b, loc, rest, index(perGroup));
      }
      Value tile = arith::DivUIOp::create(b, loc, rest, index(bands));
      Value band = arith::RemUIOp::create(b, loc, rest, index(bands));
      // With the border's rows skipped, the first band a channel tile runs
      // is its second: a full window, so that the tile's filter is read
      // whole and in order the first time (from memory, in a model whose
      // filters outgrow the caches), and the border bands reuse it from
      // cache. ResNet-34's 7x7 layers in the whole model (x86-64-v4, 1
      // thread): 1.22 ms with the first band first, against 1.06 without
      // skipping.
      if (margins && margins->rows() && bands > 1)
        band = arith::RemUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, band, index(1)),
            index(bands));
      Value block = arith::MulIOp::create(b, loc, tile, index(tiles.vectors));
      Value first = mul(band, lines);
      if (lastLines == lines)
        return emitBand(image, block, first, lines);
      // The last band is shorter.
      Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           band, index(bands - 1));
      scf::IfOp::create(
          b, loc, isLast,
          [&](OpBuilder &nested, Location) {
            emitBand(image, block, first, lastLines);
            scf::YieldOp::create(nested, loc);
          },
          [&](OpBuilder &nested, Location) {
            emitBand(image, block, first, lines);
            scf::YieldOp::create(nested, loc);
          });
    };
    if (!parallel || items < 2)
      return loop(index(0), index(items), 1, item);
    dlas::parallelChunks(b, loc, cv.op, items, /*parts=*/0,
                         [&](Value first, Value end) {
                           loop(first, end, 1, item);
                         });
  }

  /// Whether the kernel reads the padded buffer's unpadded source in
  /// place: a tile never reads the border (every one of its taps is
  /// skipped there) when each tile is one output row's, so with the
  /// column tails of several rows in one tile (`lines`), not.
  bool readsInPlace() const {
    return margins && margins->source &&
           (tiles.lines <= 1 || cv.ranges[cv.ow] % tiles.rows == 0);
  }

private:
  /// The input as one flat dim (`flatX`), which the tiles index.
  /// In place (see readsInPlace), the unpadded source.
  void flattenInput() {
    Value x = readsInPlace() ? margins->source : cv.x->get();
    if (cv.int8() && !flipsInRegisters())
      x = biased = biasInput(x);
    flatX = memref::CollapseShapeOp::create(
        b, loc, x,
        SmallVector<ReassociationIndices>{llvm::to_vector(
            llvm::seq<int64_t>(0, cast<MemRefType>(x.getType()).getRank()))});
  }

  /// Whether the int8 kernel flips each broadcast input word to u8 in
  /// registers (one vpxord per column and quad) instead of copying the
  /// input flipped (biasInput): where a register is left for the sign
  /// mask. Zen 5, 32 registers: ResNet-50's 1x1 layers 4-14% faster
  /// (56x56 256 -> 64 at 2 threads 0.066 -> 0.057 ms), its 3x3 ones 1-3%,
  /// the model 1-5%; x86-64-v3 with AVX-VNNI (16 registers): the model 7%
  /// slower.
  bool flipsInRegisters() const { return cv.int8() && registers >= 32; }

  /// A copy of the int8 kernel's input `x` in u8, each byte x + 128
  /// (flipping its sign bit): vpdpbusd multiplies unsigned bytes (the
  /// broadcast input) by signed ones (the filter), and quadSums' -128 *
  /// sum of w in the accumulators' start takes the bias back out. The
  /// zero point -128 of a post-ReLU layer becomes a zero border. One pass
  /// over the input, a ninth of the patches an im2col GEMM packs at 3x3;
  /// split among the threads from kMinParallelBiasBytes.
  Value biasInput(Value x) {
    auto type = cast<MemRefType>(x.getType());
    Value copy = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    auto flat = [&](Value v) {
      return memref::CollapseShapeOp::create(
                 b, loc, v,
                 SmallVector<ReassociationIndices>{
                     llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))})
          .getResult();
    };
    Value from = flat(x), to = flat(copy);
    int64_t size = type.getNumElements();
    // Whole cache lines, then the rest in channel blocks (vw bytes: the
    // innermost dim).
    int64_t line = 4 * vw, lines = size / line;
    auto flip = [&](Value at, int64_t bytes) {
      auto vector = VectorType::get({bytes}, b.getI8Type());
      Value signs = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vector, b.getI8IntegerAttr(-128)));
      Value v = vector::LoadOp::create(b, loc, vector, from, at);
      vector::StoreOp::create(b, loc, arith::XOrIOp::create(b, loc, v, signs),
                              to, at);
    };
    auto lineLoop = [&](Value first, Value end) {
      loop(first, end, 1, [&](Value i) { flip(mul(i, line), line); });
    };
    if (parallel && size >= kMinParallelBiasBytes)
      dlas::parallelChunks(b, loc, cv.op, lines, /*parts=*/0, lineLoop);
    else
      lineLoop(index(0), index(lines));
    loop(index(lines * line), index(size), vw,
         [&](Value at) { flip(at, vw); });
    return copy;
  }

  /// The shape the flat input is indexed by: x's, or in place x's with
  /// the unpadded rows and columns.
  SmallVector<int64_t> inputShape() const {
    SmallVector<int64_t> shape(
        cast<MemRefType>(cv.x->get().getType()).getShape());
    if (readsInPlace()) {
      shape[shape.size() - 3] = margins->rowEnd - margins->rowBegin;
      shape[shape.size() - 2] = margins->colEnd - margins->colBegin;
    }
    return shape;
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value v, int64_t c) {
    return c == 0 ? v : arith::AddIOp::create(b, loc, v, index(c)).getResult();
  }
  Value mul(Value v, int64_t c) {
    return c == 1 ? v : arith::MulIOp::create(b, loc, v, index(c)).getResult();
  }
  void loop(Value lb, Value ub, int64_t step, function_ref<void(Value)> body) {
    dlas::buildForLoop(b, loc, lb, ub, step, body);
  }

  /// Indices of `map` (over the op's loop dims) at the output position
  /// (image, block + j, row + at.row, col + at.column, 0).
  SmallVector<Value> outputIndices(AffineMap map, Value image, Value block,
                                   Value row, Value col, TilePosition at,
                                   int64_t j) {
    SmallVector<AffineExpr> dims(cv.ranges.size(),
                                 getAffineConstantExpr(0, b.getContext()));
    SmallVector<Value> operands;
    auto bind = [&](unsigned d, Value v) {
      dims[d] = getAffineSymbolExpr(operands.size(), b.getContext());
      operands.push_back(v);
    };
    bind(cv.n, image);
    if (cv.g)
      bind(*cv.g, group);
    bind(cv.F, add(block, j));
    bind(cv.oh, add(row, at.row));
    bind(cv.ow, add(col, at.column));
    SmallVector<Value> result;
    for (AffineExpr e : map.getResults()) {
      AffineExpr at = e.replaceDimsAndSymbols(dims, {});
      if (auto constant = dyn_cast<AffineConstantExpr>(at)) {
        result.push_back(index(constant.getValue()));
        continue;
      }
      if (auto symbol = dyn_cast<AffineSymbolExpr>(at)) {
        result.push_back(operands[symbol.getPosition()]);
        continue;
      }
      result.push_back(affine::makeComposedAffineApply(
                           b, loc, AffineMap::get(0, operands.size(), at),
                           getAsOpFoldResult(operands))
                           .getResult());
    }
    return result;
  }

  /// The vector of `read` at position `at`, vector j: a load along the
  /// channel block, else a broadcast scalar.
  Value readTile(const TileRead &read, Value image, Value block, Value row,
                 Value col, TilePosition at, int64_t j) {
    SmallVector<Value> idx =
        outputIndices(read.map, image, block, row, col, at, j);
    auto type = VectorType::get(
        {vw}, cast<MemRefType>(read.view.getType()).getElementType());
    if (!read.map.isFunctionOfDim(cv.f))
      return vector::BroadcastOp::create(
          b, loc, type, memref::LoadOp::create(b, loc, read.view, idx));
    return vector::LoadOp::create(b, loc, type, read.view, idx);
  }

  /// The position of x[image, (group,) cb, row, col, c] in the flat input.
  Value linearInputIndex(Value image, Value cb, Value row, Value col,
                         Value c) {
    SmallVector<int64_t> shape = inputShape();
    if (readsInPlace()) {
      row = arith::SubIOp::create(b, loc, row, index(margins->rowBegin));
      col = arith::SubIOp::create(b, loc, col, index(margins->colBegin));
    }
    Value at = image;
    SmallVector<Value> rest = {cb, row, col, c};
    if (cv.g)
      rest.insert(rest.begin(), group);
    for (auto [size, v] : llvm::zip_equal(ArrayRef(shape).drop_front(), rest))
      at = arith::AddIOp::create(b, loc, mul(at, size), v);
    return at;
  }

  /// Input elements between two output rows' first taps.
  int64_t inputRowStride() const {
    SmallVector<int64_t> shape = inputShape();
    return cv.sh * shape[shape.size() - 2] * shape.back();
  }

  /// The kh taps [begin, end) that read an input row inside the zero
  /// margins for some position of a tile at output row `row` whose
  /// positions are `at`; the whole window without row margins.
  std::pair<Value, Value> tapRows(Value row, ArrayRef<TilePosition> at) {
    int64_t kh = cv.ranges[cv.kh];
    if (!margins || !margins->rows())
      return {index(0), index(kh)};
    auto [lowest, highest] = std::minmax_element(
        at.begin(), at.end(),
        [](TilePosition a, TilePosition b) { return a.row < b.row; });
    MLIRContext *ctx = b.getContext();
    AffineExpr r = getAffineDimExpr(0, ctx);
    auto zero = getAffineConstantExpr(0, ctx);
    auto taps = getAffineConstantExpr(kh, ctx);
    // Input row (row + offset) * sh + tap * dh within [rowBegin, rowEnd).
    AffineExpr first =
        (margins->rowBegin - (r + highest->row) * cv.sh).ceilDiv(cv.dh);
    AffineExpr last =
        (margins->rowEnd - (r + lowest->row) * cv.sh).ceilDiv(cv.dh);
    Value begin = affine::AffineMaxOp::create(
        b, loc, AffineMap::get(1, 0, {zero, first}, ctx), ValueRange{row});
    Value end = affine::AffineMinOp::create(
        b, loc, AffineMap::get(1, 0, {taps, last}, ctx), ValueRange{row});
    return {begin, end};
  }

  /// For a tile whose first output column is known (`firstColumn`), the
  /// positions whose tap kw reads an input column inside the zero
  /// margins; empty (all) when the column is not known or nothing is
  /// skipped.
  SmallVector<bool> activeColumns(std::optional<int64_t> firstColumn,
                                  ArrayRef<TilePosition> at, int64_t kw) {
    SmallVector<bool> active;
    if (!firstColumn || !margins || !margins->columns())
      return active;
    for (TilePosition p : at)
      active.push_back(margins->columnInside((*firstColumn + p.column) * cv.sw +
                                             kw * cv.dw));
    if (llvm::all_of(active, [](bool a) { return a; }))
      active.clear();
    return active;
  }

  /// Whether a tile whose first output column is `firstColumn` has a tap
  /// that reads only the zero margins' columns at one of its positions.
  bool touchesColumnMargins(int64_t firstColumn, ArrayRef<TilePosition> at) {
    for (int64_t kw = 0; kw < cv.ranges[cv.kw]; ++kw)
      if (!activeColumns(firstColumn, at, kw).empty())
        return true;
    return false;
  }

  /// Whether the tiles at the row ends specialize per column (a kernel
  /// body per tap kw, see emitTile): where the margins' columns take at
  /// least 1/kMinSkippedColumnShare of the row's taps (7x7 and 14x14 maps
  /// in ResNets, not 56x56 ones, whose code would grow for 1%).
  bool skipsColumnTaps() const {
    if (!margins || !margins->columns())
      return false;
    if (readsInPlace())
      return true;
    int64_t width = cv.ranges[cv.ow], kw = cv.ranges[cv.kw], skipped = 0;
    for (int64_t i = 0; i < width; ++i)
      for (int64_t t = 0; t < kw; ++t)
        skipped += !margins->columnInside(i * cv.sw + t * cv.dw);
    return skipped * kMinSkippedColumnShare >= width * kw;
  }

  /// One register tile: the output positions `at` from (`row`, `col`),
  /// channel blocks [block, block + vectors), over the whole reduction.
  /// Taps that read only the input's zero margins are skipped: rows by
  /// the kh loop's bounds, columns (when `firstColumn`, the static value
  /// of `col`, is known) by one loop body per kw without those positions.
  void emitTile(Value image, Value block, Value row, Value col,
                ArrayRef<TilePosition> at,
                std::optional<int64_t> firstColumn = std::nullopt) {
    int64_t V = tiles.vectors;
    int64_t rows = at.size();
    AffineMap yMap = cv.op.getMatchingIndexingMap(cv.y);
    SmallVector<Value> acc;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < V; ++j) {
        if (nb.initRead)
          acc.push_back(
              readTile(*nb.initRead, image, block, row, col, at[i], j));
        else if (nb.init)
          acc.push_back(
              vector::BroadcastOp::create(b, loc, vecType, nb.initValue));
        else
          acc.push_back(vector::LoadOp::create(
              b, loc, vecType, cv.y->get(),
              outputIndices(yMap, image, block, row, col, at[i], j)));
      }
    // int8: the accumulators start -128 * sum of w lower, for the input's
    // u8 bias (see biasInput).
    if (cv.int8())
      for (int64_t j = 0; j < V; ++j) {
        Value sums = vector::LoadOp::create(b, loc, vecType, quadSums,
                                            ValueRange{add(block, j), index(0)});
        for (int64_t i = 0; i < rows; ++i)
          acc[i * V + j] = arith::AddIOp::create(b, loc, acc[i * V + j], sums);
      }
    // Each position's input at a constant offset from the tile's first.
    auto inputOffset = [&, rowStride = inputRowStride()](int64_t i,
                                                         int64_t channels) {
      return at[i].row * rowStride + at[i].column * cv.sw * channels;
    };
    Value w = cv.w->get();
    Value inCol = mul(col, cv.sw);
    const SmallVector<int64_t> &r = cv.ranges;
    // Every reduction dim loops, carrying the accumulators, the channels
    // within a block unrolled by `kChannelUnroll`: one step is `vectors`
    // filter loads, `rows` broadcasts and the FMAs. Taps do not unroll: at
    // stride 1 tap kw + 1 of column i reads what tap kw of column i + 1
    // does, and LLVM, sharing those broadcasts across the unrolled taps,
    // kept rows + KW of them live beside the accumulators and spilled (a
    // 14x2 tile ran at a third of peak).
    // Input channels per block: the vector width, or GSPC's TI (int8: the
    // c loop counts quads).
    int64_t ti = r[cv.c];
    int64_t blockChannels = cv.group() * ti;
    auto step = [&](Value cb, Value kh, Value kw, Value c,
                    SmallVector<Value> &s, ArrayRef<bool> active) {
      Value inRow =
          arith::AddIOp::create(b, loc, mul(row, cv.sh), mul(kh, cv.dh));
      Value inColumn = arith::AddIOp::create(b, loc, inCol, mul(kw, cv.dw));
      SmallVector<Value> ws;
      for (int64_t j = 0; j < V; ++j) {
        SmallVector<Value> at = {add(block, j), cb, kh, kw, c, index(0)};
        if (cv.g)
          at.insert(at.begin(), group);
        ws.push_back(types.promote(
            b, loc, vector::LoadOp::create(b, loc, inVecType, w, at)));
      }
      // One index into the flat input per step, the rows at constant
      // offsets from it: LLVM folds those into the addresses, where with
      // 5-d indices it kept one hoisted base pointer per row and spilled.
      Value first = linearInputIndex(image, cb, inRow, inColumn, c);
      for (int64_t i = 0; i < rows; ++i) {
        if (!active.empty() && !active[i])
          continue;
        Value in =
            types.promote(b, loc,
                          memref::LoadOp::create(
                              b, loc, flatX,
                              add(first, inputOffset(i, blockChannels))));
        Value splat = vector::BroadcastOp::create(b, loc, vecType, in);
        for (int64_t j = 0; j < V; ++j)
          s[i * V + j] = types.multiplyAdd(b, loc, splat, ws[j], s[i * V + j]);
      }
    };
    // int8 (bf16): per quad (pair) of input channels `vectors` loads of
    // filter quads (pairs), one 32-bit broadcast of an input quad (pair)
    // per position and a vpdpbusd (vdpbf16ps) per accumulator: 4 * vw (2
    // * vw) multiply-adds.
    int64_t group = cv.group();
    auto quadStep = [&](Value cb, Value kh, Value kw, Value c4,
                        SmallVector<Value> &s, ArrayRef<bool> active) {
      Value inRow =
          arith::AddIOp::create(b, loc, mul(row, cv.sh), mul(kh, cv.dh));
      Value inColumn = arith::AddIOp::create(b, loc, inCol, mul(kw, cv.dw));
      auto bytesType = VectorType::get({group * vw}, types.input);
      SmallVector<Value> ws;
      for (int64_t j = 0; j < V; ++j)
        ws.push_back(vector::LoadOp::create(
            b, loc, bytesType, w,
            ValueRange{add(block, j), cb, kh, kw, c4, index(0), index(0)}));
      Value first =
          linearInputIndex(image, cb, inRow, inColumn, mul(c4, group));
      std::string intrinsic = dlas::dotProductIntrinsic(types.input, vw);
      for (int64_t i = 0; i < rows; ++i) {
        if (!active.empty() && !active[i])
          continue;
        Value quad = vector::LoadOp::create(
            b, loc, VectorType::get({group}, types.input), flatX,
            add(first, inputOffset(i, blockChannels)));
        Value splat = dlas::broadcastGroup(b, loc, quad, vw);
        if (flipsInRegisters())
          splat = arith::XOrIOp::create(
              b, loc, splat,
              arith::ConstantOp::create(
                  b, loc,
                  DenseElementsAttr::get(bytesType, b.getI8IntegerAttr(-128))));
        for (int64_t j = 0; j < V; ++j)
          s[i * V + j] =
              LLVM::CallIntrinsicOp::create(b, loc, vecType,
                                            b.getStringAttr(intrinsic),
                                            ValueRange{s[i * V + j], splat, ws[j]})
                  .getResult(0);
      }
    };
    auto forRange =
        [&](Value begin, Value end, int64_t stepSize, ValueRange init,
            function_ref<SmallVector<Value>(Value, ValueRange)> body) {
          return SmallVector<Value>(
              scf::ForOp::create(
                  b, loc, begin, end, index(stepSize), init,
                  [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
                    OpBuilder::InsertionGuard guard(b);
                    b.setInsertionPointToStart(nested.getBlock());
                    scf::YieldOp::create(b, loc, body(iv, args));
                  })
                  .getResults());
        };
    auto forLoop =
        [&](int64_t count, int64_t stepSize, ValueRange init,
            function_ref<SmallVector<Value>(Value, ValueRange)> body) {
          return forRange(index(0), index(count), stepSize, init, body);
        };
    // Depthwise: per tap one filter vector and a vector of input per
    // column (the channel block is contiguous), no broadcast.
    auto depthwiseTap = [&](Value kh, Value kw, SmallVector<Value> &s,
                            ArrayRef<bool> active) {
      Value inRow =
          arith::AddIOp::create(b, loc, mul(row, cv.sh), mul(kh, cv.dh));
      Value inColumn = arith::AddIOp::create(b, loc, inCol, mul(kw, cv.dw));
      Value filter = types.promote(
          b, loc,
          vector::LoadOp::create(b, loc, inVecType, w,
                                 ValueRange{block, kh, kw, index(0)}));
      Value first = linearInputIndex(image, block, inRow, inColumn, index(0));
      for (int64_t i = 0; i < rows; ++i) {
        if (!active.empty() && !active[i])
          continue;
        Value in = types.promote(
            b, loc,
            vector::LoadOp::create(b, loc, inVecType, flatX,
                                   add(first, inputOffset(i, vw))));
        s[i] = types.multiplyAdd(b, loc, in, filter, s[i]);
      }
    };
    // The channels of a block unroll by kChannelUnroll, or whole when
    // fewer; else by the largest divisor of TI below it.
    int64_t unroll = ti <= kChannelUnroll
                         ? ti
                         : ti % kChannelUnroll == 0 ? kChannelUnroll
                         : ti % 2 == 0              ? 2
                                                    : 1;
    std::pair<Value, Value> khRange = tapRows(row, at);
    Value khBegin = khRange.first, khEnd = khRange.second;
    // The kw taps: one loop, or with the tile's columns known and some
    // of its taps in the margins, one body per kw over its positions
    // (none for a kw whose every position is skipped).
    auto columnTaps =
        [&](ValueRange init,
            function_ref<void(Value, ArrayRef<bool>, SmallVector<Value> &)>
                tap) {
          if (!firstColumn || !touchesColumnMargins(*firstColumn, at))
            return forLoop(r[cv.kw], 1, init, [&](Value kw, ValueRange a) {
              SmallVector<Value> s(a.begin(), a.end());
              tap(kw, {}, s);
              return s;
            });
          SmallVector<Value> s(init.begin(), init.end());
          for (int64_t kw = 0; kw < r[cv.kw]; ++kw) {
            SmallVector<bool> active = activeColumns(firstColumn, at, kw);
            if (!active.empty() &&
                llvm::none_of(active, [](bool a) { return a; }))
              continue;
            tap(index(kw), active, s);
          }
          return s;
        };
    SmallVector<Value> sums =
        cv.depthwise
            ? forRange(khBegin, khEnd, 1, acc,
                       [&](Value kh, ValueRange a0) {
                         return columnTaps(a0,
                                           [&](Value kw, ArrayRef<bool> active,
                                               SmallVector<Value> &s) {
                                             depthwiseTap(kh, kw, s, active);
                                           });
                       })
            : forLoop(r[cv.C], 1, acc, [&](Value cb, ValueRange a0) {
                return forRange(
                    khBegin, khEnd, 1, a0, [&](Value kh, ValueRange a1) {
                      return columnTaps(a1, [&](Value kw, ArrayRef<bool> active,
                                                SmallVector<Value> &s) {
                        s = forLoop(ti, unroll, s, [&](Value c, ValueRange a3) {
                          SmallVector<Value> t(a3.begin(), a3.end());
                          for (int64_t u = 0; u < unroll; ++u) {
                            if (cv.q)
                              quadStep(cb, kh, kw, add(c, u), t, active);
                            else
                              step(cb, kh, kw, add(c, u), t, active);
                          }
                          return t;
                        });
                      });
                    });
              });
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < V; ++j) {
        Value v = dlas::gemm::applyEpilogues(
            b, loc, nb, sums[i * V + j], vw, [&](const TileRead &read) {
              return readTile(read, image, block, row, col, at[i], j);
            });
        if (ring) {
          // Fused pool: into the ring's slot for this row, after the
          // padding columns.
          vector::StoreOp::create(
              b, loc, v, ring,
              ValueRange{index(j), ringSlot,
                         add(add(col, at[i].column), pool->padLeft), index(0)});
          continue;
        }
        vector::StoreOp::create(
            b, loc, v, nb.resultView,
            outputIndices(yMap, image, block, row, col, at[i], j));
      }
  }

  /// Positions (row, 0..columns) for l in [0, lines).
  static SmallVector<TilePosition> positions(int64_t lines, int64_t columns) {
    SmallVector<TilePosition> at;
    for (int64_t l = 0; l < lines; ++l)
      for (int64_t i = 0; i < columns; ++i)
        at.push_back({l, i});
    return at;
  }

  /// The full column tiles of output row `row`: those at the row's ends
  /// whose taps reach the input's zero margins each with its column
  /// known (see emitTile), the others in a loop.
  void emitFullTiles(Value image, Value block, Value row) {
    int64_t fullTiles = cv.ranges[cv.ow] / tiles.rows;
    int64_t lead = 0, trail = fullTiles;
    if (skipsColumnTaps()) {
      auto edge = [&](int64_t t) {
        return touchesColumnMargins(t * tiles.rows, positions(1, tiles.rows));
      };
      while (lead < fullTiles && edge(lead))
        ++lead;
      while (trail > lead && edge(trail - 1))
        --trail;
    }
    auto known = [&](int64_t t) {
      emitTile(image, block, row, index(t * tiles.rows),
               positions(1, tiles.rows), t * tiles.rows);
    };
    for (int64_t t = 0; t < lead; ++t)
      known(t);
    if (trail > lead)
      loop(index(lead * tiles.rows), index(trail * tiles.rows), tiles.rows,
           [&](Value col) {
             emitTile(image, block, row, col, positions(1, tiles.rows));
           });
    for (int64_t t = trail; t < fullTiles; ++t)
      known(t);
  }

  /// Output rows [first, first + lines): each row's full column tiles,
  /// then one tile for their column tails.
  void emitBand(Value image, Value block, Value first, int64_t lines) {
    int64_t width = cv.ranges[cv.ow];
    int64_t tail = width % tiles.rows;
    if (lines == 1)
      emitFullTiles(image, block, first);
    else
      loop(index(0), index(lines), 1, [&](Value l) {
        emitFullTiles(image, block,
                      arith::AddIOp::create(b, loc, first, l).getResult());
      });
    if (tail)
      emitTile(image, block, first, index(width - tail), positions(lines, tail),
               skipsColumnTaps() ? std::optional<int64_t>(width - tail)
                                 : std::nullopt);
  }

public:
  /// The kernel with `p` fused: work items (image, channel tile, band of
  /// pooled rows); per item, each pooled row computes the convolution rows
  /// its window needs that the row before did not, into a ring of
  /// (Kh - 1) * dh + 1 rows (plus one row of padding) in the thread's
  /// own buffer, then takes the window maxima from the ring and stores
  /// them.
  /// Bands recompute the (Kh - 1) * dh + 1 - sh rows their windows
  /// share; there are just enough bands for kMinPoolItems items.
  void emitPooled(const FusedPool &p) {
    pool = &p;
    flattenInput();
    const SmallVector<int64_t> &r = cv.ranges;
    int64_t V = tiles.vectors;
    int64_t span = (p.kh - 1) * p.dh + 1;
    int64_t channelTiles = r[cv.F] / V;
    int64_t perImage0 = r[cv.n] * channelTiles;
    int64_t bands = std::clamp<int64_t>(
        llvm::divideCeil(kMinPoolItems, perImage0), 1, p.outH);
    int64_t bandRows = llvm::divideCeil(p.outH, bands);
    bands = llvm::divideCeil(p.outH, bandRows);
    int64_t perImage = channelTiles * bands;
    int64_t items = r[cv.n] * perImage;
    auto ringType = MemRefType::get({V, span + 1, p.width, vw},
                                    vecType.getElementType());
    // The fill constants, cloned here: they may be defined after the
    // convolution the kernel replaces.
    auto constant = [&](Value c) {
      return b.clone(*c.getDefiningOp())->getResult(0);
    };
    auto item = [&](Value i) {
      Value image = arith::DivUIOp::create(b, loc, i, index(perImage));
      Value rest = arith::RemUIOp::create(b, loc, i, index(perImage));
      Value tile = arith::DivUIOp::create(b, loc, rest, index(bands));
      Value band = arith::RemUIOp::create(b, loc, rest, index(bands));
      Value block = mul(tile, V);
      Value first = mul(band, bandRows);
      Value last = arith::MinUIOp::create(b, loc, add(first, bandRows),
                                          index(p.outH));
      Value height = index(r[cv.oh]);
      auto windowTop = [&](Value pr) {
        return arith::SubIOp::create(b, loc, mul(pr, p.sh), index(p.padTop))
            .getResult();
      };
      auto clampRow = [&](Value v) {
        return arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, v, index(0)), height);
      };
      Value done0 = clampRow(windowTop(first));
      scf::ForOp::create(
          b, loc, first, last, index(1), ValueRange{done0},
          [&](OpBuilder &nested, Location, Value pr, ValueRange args) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(nested.getBlock());
            Value top = windowTop(pr);
            Value lo = clampRow(top);
            Value hi = clampRow(add(top, span));
            Value start = arith::MaxSIOp::create(b, loc, lo, args[0]);
            loop(start, hi, 1, [&](Value row) {
              ringSlot = arith::RemUIOp::create(b, loc, row, index(span));
              emitBand(image, block, row, /*lines=*/1);
            });
            emitPooledRow(image, block, pr, top, span, constant(p.initValue));
            scf::YieldOp::create(
                b, loc, ValueRange{arith::MaxSIOp::create(b, loc, hi, args[0])
                                       .getResult()});
          });
    };
    // The ring's padding columns and padding row are never written:
    // filled once per thread with the padding's value.
    auto chunk = [&](Value first, Value end) {
      // On the heap: an alloca in the OpenMP region needs an alloca
      // scope, which cannot hold the loops once they become branches.
      ring = memref::AllocOp::create(b, loc, ringType, ValueRange{},
                                     b.getI64IntegerAttr(64));
      linalg::FillOp::create(b, loc, constant(p.padValue), ring);
      loop(first, end, 1, item);
      memref::DeallocOp::create(b, loc, ring);
    };
    if (!parallel || items < 2)
      return chunk(index(0), index(items));
    dlas::parallelChunks(b, loc, cv.op, items, /*parts=*/0, chunk);
  }

private:
  /// Pooled row `pr` (window rows from `top`) of channel blocks [block,
  /// block + vectors) from the ring: rows outside the output read the
  /// padding row.
  void emitPooledRow(Value image, Value block, Value pr, Value top,
                     int64_t span, Value init) {
    const FusedPool &p = *pool;
    int64_t V = tiles.vectors;
    Value height = index(cv.ranges[cv.oh]);
    SmallVector<Value> slots;
    for (int64_t kh = 0; kh < p.kh; ++kh) {
      Value row = add(top, kh * p.dh);
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row,
                                index(0)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                                height));
      Value slot = arith::RemUIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, row, index(0)), index(span));
      slots.push_back(
          arith::SelectOp::create(b, loc, inside, slot, index(span)));
    }
    Value start = vector::BroadcastOp::create(b, loc, vecType, init);
    loop(index(0), index(p.outW), 1, [&](Value pc) {
      Value left = mul(pc, p.sw);
      for (int64_t j = 0; j < V; ++j) {
        Value acc = start;
        for (int64_t kh = 0; kh < p.kh; ++kh)
          for (int64_t kw = 0; kw < p.kw; ++kw) {
            Value v = vector::LoadOp::create(
                b, loc, vecType, ring,
                ValueRange{index(j), slots[kh], add(left, kw * p.dw),
                           index(0)});
            acc = arith::MaximumFOp::create(b, loc, acc, v);
          }
        vector::StoreOp::create(b, loc, acc, p.out,
                                ValueRange{image, add(block, j), pr, pc,
                                           index(0)});
      }
    });
  }

  OpBuilder &b;
  Location loc;
  const BlockedConv &cv;
  Tiles tiles;
  const Neighbours &nb;
  /// Operand and accumulator element types (the decision's).
  KernelTypes types;
  int64_t vw;
  bool parallel;
  /// The input's zero margins, whose taps the kernel skips; nullopt when
  /// none are known.
  std::optional<ZeroMargins> margins;
  /// GSPC: the current work item's group (set per item, read by the index
  /// helpers); null otherwise.
  Value group;
  /// A fused pool: the thread's ring of rows, the current row's slot.
  const FusedPool *pool = nullptr;
  Value ring, ringSlot;
  /// Accumulator vectors; operand vectors (before `types.promote`).
  /// The target's vector registers.
  int64_t registers;
  /// int8: -128 * the sum of each output channel's filter, [F][f] (i32).
  Value quadSums;
  VectorType vecType, inVecType;
  Value flatX;
  /// int8: the u8 copy of the input that flatX views (see biasInput).
  Value biased;
};

/// For an int8 kernel, -128 times the sum of each output channel's filter
/// values, [F][f] in i32, as a constant global read before `b`'s point
/// (the start of the accumulators, see BlockedConvEmitter::biasInput);
/// null when the filter is not a constant global.
Value createQuadSums(OpBuilder &b, const BlockedConv &cv) {
  Operation *tableOp = SymbolTable::getNearestSymbolTable(cv.op);
  if (!tableOp)
    return Value();
  SymbolTable symbols(tableOp);
  std::vector<int8_t> w = dlas::constantBytes(cv.w->get(), symbols);
  const SmallVector<int64_t> &r = cv.ranges;
  int64_t blocks = r[cv.F], lanes = r[cv.f];
  // w is [F, C, kh, kw, c, f, q]: per F block, rows of f * q bytes.
  int64_t perBlock = r[cv.C] * r[cv.kh] * r[cv.kw] * r[cv.c] * lanes * 4;
  if (static_cast<int64_t>(w.size()) != blocks * perBlock)
    return Value();
  std::vector<int32_t> sums(blocks * lanes, 0);
  for (int64_t F = 0; F < blocks; ++F)
    for (int64_t i = 0; i < perBlock; ++i)
      sums[F * lanes + (i / 4) % lanes] += w[F * perBlock + i];
  for (int32_t &sum : sums)
    sum *= -128;
  auto type = MemRefType::get({blocks, lanes}, b.getI32Type());
  auto tensorType = RankedTensorType::get({blocks, lanes}, b.getI32Type());
  memref::GlobalOp global = dlas::createConstantGlobal(
      b, symbols, cv.op.getLoc(), "dlas_quad_sums", type,
      DenseElementsAttr::get(tensorType, ArrayRef<int32_t>(sums)));
  return memref::GetGlobalOp::create(b, cv.op.getLoc(), type,
                                     global.getSymName());
}

struct BlockedConvMicrokernelPass
    : dlas::impl::BlockedConvMicrokernelBase<BlockedConvMicrokernelPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    return dlas::loadTuningFile(context, tuningFile, tuningTable);
  }

  std::shared_ptr<const dlas::TuningTable> tuningTable;

  void runOnOperation() override {
    FailureOr<dlas::TargetShape> targetOr =
        dlas::targetShapeFor(getOperation(), vectorWidth, vectorRegisters);
    if (failed(targetOr))
      return signalPassFailure();
    dlas::TargetShape target = *targetOr;
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (hasBlockedLoops(op) && !op->hasAttr("dlas.blocked_pool"))
        candidates.push_back(op);
    });
    DominanceInfo dominance(getOperation());
    for (linalg::LinalgOp op : candidates) {
      std::string why;
      MicrokernelAttr decision;
      auto decide = [&](MicrokernelAttr &dec, std::string &reason) {
        return dlas::decideBlockedConv(op, target, tuningTable.get(), dec,
                                       reason);
      };
      if (failed(dlas::decisionFor(
              op, target, decidedOnly,
              [](MicrokernelAttr dec) { return dec.isBlocked(); }, decide,
              decision, why)))
        return signalPassFailure();
      FailureOr<BlockedConv> match =
          decision ? matchBlocked(op, target.vectorWidth, why)
                   : FailureOr<BlockedConv>(failure());
      if (failed(match)) {
        if (decision && dlas::lookupLowering(op))
          op->emitWarning() << "decided " << decision
                            << " on tensors, but the buffers do not fit the "
                               "kernel: "
                            << why;
        else if ((print || dlas::isBlockedKernelForm(op)) &&
                 !dlas::lookupLowering(op) && !decidedOnly)
          op->emitRemark() << "no blocked convolution microkernel: " << why;
        continue;
      }
      BlockedConv &cv = *match;
      Value quadSums;
      if (cv.int8()) {
        OpBuilder atOp(op);
        quadSums = createQuadSums(atOp, cv);
        if (!quadSums) {
          op->emitWarning() << "decided " << decision
                            << ", but the int8 filter is not a constant "
                               "global: left to loops";
          continue;
        }
      }
      Tiles tiles{decision.getRows(), decision.getVectors(),
                  decision.getLines()};
      std::string key = decision.getKey().str();

      // The init and elementwise consumers fold as for a GEMM: the same
      // contract, with the channel block as the vector dim.
      Gemm g;
      g.op = op;
      g.c = cv.y;
      g.n = cv.f;
      g.ranges = cv.ranges;
      Neighbours nb = findNeighbours(
          g, dominance, dlas::lookupLowering(op) ? decision : MicrokernelAttr());
      std::string whyNotFused;
      // The pool's ring holds f32 rows: an int8 kernel does not fuse one.
      FailureOr<FusedPool> pool =
          fusePools && !cv.q ? matchFusedPool(cv, nb, whyNotFused)
                             : FailureOr<FusedPool>(failure());
      // Before the kernel's own views of the input exist.
      std::optional<ZeroMargins> margins =
          skipPaddingTaps ? zeroMarginsOf(cv) : std::nullopt;
      OpBuilder b(op);
      prepareViews(b, g, nb);
      BlockedConvEmitter emitter(b, cv, tiles, nb, KernelTypes::of(decision),
                                 decision.getLanes(), parallel, margins,
                                 target.vectorRegisters, quadSums);
      if (succeeded(pool)) {
        // The kernel writes the pooled output: its buffer comes first.
        if (Operation *alloc = pool->out.getDefiningOp();
            alloc && alloc->getBlock() == op->getBlock() &&
            op->isBeforeInBlock(alloc))
          alloc->moveBefore(op);
        emitter.emitPooled(*pool);
        if (print)
          op->emitRemark() << "fused max pool " << pool->kh << "x" << pool->kw
                           << " stride " << pool->sh << "x" << pool->sw
                           << " (padding " << pool->padTop << ", "
                           << pool->padLeft
                           << "): only the pooled values are stored";
      } else {
        emitter.emit();
        if (print && fusePools && isPoolReader(nb))
          op->emitRemark() << "max pool not fused: " << whyNotFused;
      }
      if (print)
        op->emitRemark() << (cv.depthwise ? "blocked depthwise"
                             : cv.g       ? "GSPC grouped convolution"
                                          : "blocked convolution")
                         << " microkernel " << tiles.rows << "x"
                         << tiles.vectors * decision.getLanes()
                         << " (rows=" << tiles.rows
                         << ", vectors=" << tiles.vectors
                         << (tiles.lines > 1
                                 ? ", lines=" + std::to_string(tiles.lines)
                                 : std::string())
                         << dlas::sourceNote(decision) << ") key '" << key
                         << "'; init "
                         << (nb.init ? nb.init->getName().getStringRef()
                                     : StringRef("loaded"))
                         << ", " << nb.epilogues.size()
                         << " epilogue op(s) fused"
                         << (margins ? marginNote(*margins) : std::string());
      for (linalg::GenericOp epilogue : llvm::reverse(nb.epilogues))
        epilogue->erase();
      numFusedEpilogues += nb.epilogues.size();
      op->erase();
      if (emitter.readsInPlace())
        erasePaddedCopy(*margins);
      for (Operation *dead : nb.initDead)
        dead->erase();
      if (nb.init)
        nb.init->erase();
      if (succeeded(pool)) {
        Value padded = pool->op.getDpsInputs()[0];
        pool->op->erase();
        for (Operation *dead : pool->dead)
          dead->erase();
        // The padded copy, then the unpadded values (the same buffer when
        // the pool reads them directly).
        if (padded != nb.result)
          eraseIfOnlyFreed(padded);
        eraseIfOnlyFreed(nb.result);
        ++numFusedPools;
      }
      ++numKernels;
    }
  }
};

} // namespace
