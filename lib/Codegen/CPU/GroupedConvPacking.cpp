//===- GroupedConvPacking.cpp - the dlas-grouped-conv-packing pass --------===//
//
// Grouped Spatial Pack Convolution (GSPC; Gibson et al., ASAP 2020): a
// grouped convolution on data packed per group, the output channels of a
// group in vectors of TO, the input channels in blocks of TI. The pass
// builds the packing, the packed convolution (a linalg.generic for
// dlas-blocked-conv-microkernel) and the unpacking on tensors; see
// Passes.td for the layouts and the policy.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/GroupedConv.h"
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Codegen/TuningFile.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_GROUPEDCONVPACKING
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas::gspc;

namespace {

/// Name of the per-op override of the tiles ({ti = .., to = ..}).
constexpr llvm::StringLiteral kTilesAttrName = "dlas.gspc_tiles";
/// The tuning file's section for this pass.
constexpr llvm::StringLiteral kTuningSection = "gspc";
/// auto: the largest output plane (OH*OW) packed from NCHW, by the
/// target's f32 lanes.
/// - 16 lanes: measured on ResNet-34's and WRN-40-2's 3x3 layers
///   (x86-64-v4, 1 thread, NCHW in and out): GSPC beat the flat GEMM at
///   7x7, 8x8 and 14x14 (512 channels 7x7, g = 2: 0.58 against 0.74 ms) and
///   lost from 16x16 up (64 channels 56x56, g = 4: 0.55 against 0.33 ms),
///   where the GEMM's rows are long and the conversions cost most.
/// - 8 lanes: dlas-tune, measuring both on each layer (x86-64-v3 on Zen 3,
///   bench/results/2026-11-27-x86-64-v3-wrn-tuning.md), found GSPC faster
///   on WRN-40-2's 16x16 and 32x32 layers (g = 2 and 4, 16-64 channels;
///   wrn40_2_g2 1.15x) and on ResNet-34's 28x28 g = 16 layer, and the flat
///   GEMM faster at 56x56. (Groups of one output vector are held to
///   kMaxOneVectorPlane first: after the flat GEMM's batched region and
///   constant tail masks, it beat GSPC on that 28x28 g = 16 layer.)
int64_t maxPlane(int64_t lanes) { return lanes <= 8 ? 1024 : 196; }

struct Tiles {
  int64_t ti = 0, to = 0;
};

/// The share of computed output channels that are padding.
double padShare(const GroupedShape &s, int64_t to) {
  return 1.0 - double(s.kpg) / double(paddedKPG(s, to));
}

/// The largest divisor of `n` not above `limit`.
int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// The input tile: the largest divisor of CPG up to a vector; a group of
/// at most four vectors of channels whole when that divisor is below 4
/// (CPG = 11 would otherwise loop over 1-channel blocks).
int64_t defaultTI(const GroupedShape &s, int64_t lanes) {
  int64_t ti = largestDivisorAtMost(s.cpg, lanes);
  return ti < 4 && s.cpg <= 4 * lanes ? s.cpg : ti;
}

/// The widest power-of-two output tile from `lanes` down to kMinOutputTile whose
/// padding stays within `maxPad`; 0 when none does.
int64_t defaultTO(const GroupedShape &s, int64_t lanes, double maxPad) {
  for (int64_t to = lanes; to >= kMinOutputTile; to /= 2)
    if (padShare(s, to) <= maxPad)
      return to;
  return 0;
}

/// The values of `v` in row-major order when it is an f32 constant seen
/// through expand/collapse shapes (which keep the row-major order).
std::optional<std::vector<float>> constantThroughReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return dlas::readF32Constant(v);
}

/// `v` (rank r) with `extra` zeros appended to dim `dim`; `v` itself when
/// `extra` is 0.
Value padHigh(OpBuilder &b, Location loc, Value v, int64_t dim,
              int64_t extra) {
  if (extra == 0)
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] += extra;
  SmallVector<OpFoldResult> low(shape.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> high(shape.size(), b.getIndexAttr(0));
  high[dim] = b.getIndexAttr(extra);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, low,
      high, zero);
}

/// `v` reshaped to `shape` (an expansion of its dims by `groups`) and
/// transposed by `perm`.
Value expandAndTranspose(OpBuilder &b, Location loc, Value v,
                         ArrayRef<int64_t> shape,
                         ArrayRef<ReassociationIndices> groups,
                         ArrayRef<int64_t> perm) {
  Type element = cast<RankedTensorType>(v.getType()).getElementType();
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, element), v, groups);
  SmallVector<int64_t> permuted;
  for (int64_t p : perm)
    permuted.push_back(shape[p]);
  Value empty = tensor::EmptyOp::create(b, loc, permuted, element);
  return linalg::TransposeOp::create(b, loc, expanded, empty, perm)
      ->getResult(0);
}

/// The input [N, G, CPG, H, W] as [N, G, CPG/TI, H, W, TI].
Value packInput(OpBuilder &b, Location loc, Value input,
                const GroupedShape &s, int64_t ti) {
  return expandAndTranspose(
      b, loc, input, {s.n, s.g, s.cpg / ti, ti, s.h, s.w},
      {{0}, {1}, {2, 3}, {4}, {5}}, {0, 1, 2, 4, 5, 3});
}

/// The per-channel bias [G*KPG] that `init` broadcasts over [N, G*KPG, OH,
/// OW] seen as [N, G, KPG, OH, OW] (what convert-nn-to-linalg builds for a
/// grouped convolution with a bias); null otherwise.
Value broadcastBias(Value init) {
  auto expand = init.getDefiningOp<tensor::ExpandShapeOp>();
  auto broadcast = expand ? expand.getSrc().getDefiningOp<linalg::BroadcastOp>()
                          : linalg::BroadcastOp();
  if (!broadcast || broadcast.getDimensions() != ArrayRef<int64_t>{0, 2, 3} ||
      expand.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
    return Value();
  return broadcast.getInput();
}

/// The accumulator [N, G, KPG, OH, OW] as [N, G, KPG'/TO, OH, OW, TO]: a fill
/// (of it or of the NCHW tensor it expands) or a bias broadcast rebuilt (the kernel folds them), anything else
/// padded and packed.
Value packInit(OpBuilder &b, Location loc, Value init, const GroupedShape &s,
               int64_t to) {
  int64_t kpg = paddedKPG(s, to);
  auto type = cast<RankedTensorType>(init.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> shape = {s.n, s.g, kpg / to, s.oh, s.ow, to};
  Value filled = init;
  if (auto expand = init.getDefiningOp<tensor::ExpandShapeOp>())
    filled = expand.getSrc();
  if (auto fill = filled.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(b, loc, shape, element);
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  if (Value bias = broadcastBias(init)) {
    Value grouped = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({s.g, s.kpg}, element), bias,
        SmallVector<ReassociationIndices>{{0, 1}});
    Value padded = padHigh(b, loc, grouped, 1, kpg - s.kpg);
    Value tiled = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({s.g, kpg / to, to}, element), padded,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value empty = tensor::EmptyOp::create(b, loc, shape, element);
    return linalg::BroadcastOp::create(b, loc, tiled, empty,
                                       SmallVector<int64_t>{0, 3, 4})
        .getResult()[0];
  }
  Value padded = padHigh(b, loc, init, 2, kpg - s.kpg);
  return expandAndTranspose(b, loc, padded,
                            {s.n, s.g, kpg / to, to, s.oh, s.ow},
                            {{0}, {1}, {2, 3}, {4}, {5}}, {0, 1, 2, 4, 5, 3});
}

/// The packed result [N, G, KPG'/TO, OH, OW, TO] as [N, G, KPG, OH, OW]: a
/// copy that walks the source in order into [N, G, KPG'/TO, TO, OH, OW]
/// (the reverse order reads one float per cache line), then the padded
/// channels dropped.
Value unpackOutput(OpBuilder &b, Location loc, Value packed,
                   const GroupedShape &s, int64_t to) {
  int64_t kpg = paddedKPG(s, to);
  Type element = cast<RankedTensorType>(packed.getType()).getElementType();
  MLIRContext *ctx = b.getContext();
  AffineExpr n, g, F, oh, ow, f;
  bindDims(ctx, n, g, F, oh, ow, f);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(6, ctx),
      AffineMap::get(6, 0, {n, g, F, f, oh, ow}, ctx)};
  Value empty = tensor::EmptyOp::create(
      b, loc, SmallVector<int64_t>{s.n, s.g, kpg / to, to, s.oh, s.ow},
      element);
  auto copy = linalg::GenericOp::create(
      b, loc, empty.getType(), ValueRange{packed}, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
  Value channels = tensor::CollapseShapeOp::create(
      b, loc, copy.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4}, {5}});
  if (kpg == s.kpg)
    return channels;
  auto resultType =
      RankedTensorType::get({s.n, s.g, s.kpg, s.oh, s.ow}, element);
  return tensor::ExtractSliceOp::create(
      b, loc, resultType, channels,
      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(5, 0)),
      getAsIndexOpFoldResult(ctx, resultType.getShape()),
      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(5, 1)));
}

struct GroupedConvPackingPass
    : dlas::impl::GroupedConvPackingBase<GroupedConvPackingPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (policy != "auto" && policy != "always" && policy != "never")
      return emitError(UnknownLoc::get(context))
             << "dlas-grouped-conv-packing: policy must be auto, always or "
                "never, not '"
             << policy << "'";
    return dlas::loadTuningFile(context, tuningFile, tuningTable);
  }

  std::shared_ptr<const dlas::TuningTable> tuningTable;

  void runOnOperation() override {
    if (policy == "never")
      return;
    SmallVector<linalg::Conv2DNgchwGfchwOp> convs;
    getOperation()->walk([&](linalg::Conv2DNgchwGfchwOp conv) {
      if (conv.hasPureTensorSemantics())
        convs.push_back(conv);
    });
    if (convs.empty())
      return;
    // The output tile is at most one vector of the target; a `to` given
    // without a target is taken as the vector.
    int64_t lanes = to;
    if (dlas::CPUTargetAttr target = dlas::lookupCPUTarget(getOperation()))
      lanes = target.lanes(32);
    if (lanes <= 0) {
      getOperation()->emitError()
          << "no target: set the module's 'dlas.target' "
             "(dlas-attach-target, dlas-cpu-pipeline{target=...}) or give "
             "to=N";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (linalg::Conv2DNgchwGfchwOp conv : convs) {
      std::optional<GroupedShape> shape = GroupedShape::of(conv);
      std::string why;
      FailureOr<Tiles> tiles = chooseTiles(conv, shape, lanes, why);
      if (failed(tiles))
        return signalPassFailure();
      if (tiles->to == 0) {
        if (print)
          conv.emitRemark() << "grouped convolution stays for "
                               "dlas-select-conv-algorithm: "
                            << why;
        continue;
      }
      if (print)
        conv.emitRemark() << "GSPC: TI = " << tiles->ti << ", TO = "
                          << tiles->to << " (" << why << "), key '"
                          << shape->key() << "'";
      rewriter.setInsertionPoint(conv);
      rewrite(rewriter, conv, *shape, *tiles);
      ++numPacked;
    }
  }

  /// The tiles for `conv`, or `to` = 0 and `why` when it is not packed;
  /// fails after an error for a malformed override or tuning entry.
  FailureOr<Tiles> chooseTiles(linalg::Conv2DNgchwGfchwOp conv,
                               const std::optional<GroupedShape> &shape,
                               int64_t lanes, std::string &why) {
    auto types = conv->getOperandTypes();
    if (!shape) {
      why = "dynamic shape";
      return Tiles{};
    }
    if (!llvm::all_of(types, [](Type t) {
          return getElementTypeOrSelf(t).isF32();
        })) {
      why = "not f32";
      return Tiles{};
    }
    const GroupedShape &s = *shape;
    Tiles t{ti, to};
    DictionaryAttr tuned =
        tuningTable ? tuningTable->lookup(kTuningSection, s.key(),
                                          dlas::targetCpu(conv))
                    : nullptr;
    Attribute override = conv->getAttr(kTilesAttrName);
    auto slots = [&]() -> SmallVector<std::pair<StringRef, int64_t *>> {
      return {{"ti", &t.ti}, {"to", &t.to}};
    };
    if (failed(dlas::applyIntegerOverrides(conv, kTilesAttrName, tuned,
                                           slots())) ||
        failed(dlas::applyIntegerOverrides(conv, kTilesAttrName, override,
                                           slots())))
      return failure();
    bool pinned = t.to > 0;
    if (t.to == 0)
      t.to = defaultTO(s, lanes, maxPad);
    if (t.ti == 0)
      t.ti = defaultTI(s, lanes);
    if (t.to != 0 && (!llvm::isPowerOf2_64(t.to) || t.to < kMinOutputTile ||
                      t.to > lanes))
      return conv.emitError()
             << "GSPC output tile TO = " << t.to
             << " is not a power of two from " << kMinOutputTile << " to the "
             << "target's " << lanes << " f32 lanes";
    if (s.cpg % t.ti != 0)
      return conv.emitError() << "GSPC input tile TI = " << t.ti
                              << " does not divide the " << s.cpg
                              << " input channels of each group";
    if (policy == "always" || pinned || tuned || override) {
      if (t.to == 0)
        t.to = kMinOutputTile;
      why = override ? "per-op override"
            : tuned  ? "tuning file"
            : pinned ? "pass options"
                     : "policy=always";
      return t;
    }
    if (t.to == 0) {
      why = llvm::formatv("{0} output channels per group: every vector of "
                          "at least {1} lanes pads more than {2}%",
                          s.kpg, kMinOutputTile, int(maxPad * 100))
                .str();
      return t;
    }
    if (t.to < lanes) {
      why = llvm::formatv("{0} output channels per group fill no {1}-lane "
                          "vector: the flat GEMM vectorizes along the image",
                          s.kpg, lanes)
                .str();
      t.to = 0;
      return t;
    }
    if (t.to >= s.kpg && s.oh * s.ow > kMaxOneVectorPlane) {
      why = llvm::formatv("one {0}-lane output vector per group on a {1}x{2} "
                          "plane (> {3}): the flat GEMM wins",
                          t.to, s.oh, s.ow, kMaxOneVectorPlane)
                .str();
      t.to = 0;
      return t;
    }
    if (s.oh * s.ow > maxPlane(lanes)) {
      why = llvm::formatv("output plane {0}x{1} > {2}: the flat GEMM's rows "
                          "are long enough, and GSPC pays the NCHW packing",
                          s.oh, s.ow, maxPlane(lanes))
                .str();
      t.to = 0;
      return t;
    }
    why = llvm::formatv("{0} output channels per group fill {1}-lane "
                        "vectors ({2}% padding)",
                        s.kpg, t.to, int(padShare(s, t.to) * 100))
              .str();
    return t;
  }

  void rewrite(IRRewriter &rewriter, linalg::Conv2DNgchwGfchwOp conv,
               const GroupedShape &s, Tiles t) {
    Location loc = conv.getLoc();
    Value x = packInput(rewriter, loc, conv.getInputs()[0], s, t.ti);
    Value w = packFilter(rewriter, loc, conv.getInputs()[1], s, t.ti, t.to);
    Value init = packInit(rewriter, loc, conv.getOutputs()[0], s, t.to);
    Value y = packedConvolution(rewriter, loc, x, w, init, s);
    // The tag names the layer's tuning key (dlas-tune reads it).
    y.getDefiningOp()->setAttr("dlas.gspc", rewriter.getStringAttr(s.key()));
    rewriter.replaceOp(conv, unpackOutput(rewriter, loc, y, s, t.to));
  }
};

} // namespace

std::optional<dlas::gspc::GroupedShape>
dlas::gspc::GroupedShape::of(linalg::Conv2DNgchwGfchwOp conv) {
  auto input = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto output = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!input.hasStaticShape() || !filter.hasStaticShape() ||
      !output.hasStaticShape())
    return std::nullopt;
  GroupedShape s;
  s.n = input.getDimSize(0);
  s.g = input.getDimSize(1);
  s.cpg = input.getDimSize(2);
  s.h = input.getDimSize(3);
  s.w = input.getDimSize(4);
  s.kpg = filter.getDimSize(1);
  s.kh = filter.getDimSize(3);
  s.kw = filter.getDimSize(4);
  s.oh = output.getDimSize(3);
  s.ow = output.getDimSize(4);
  s.strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  s.dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  return s;
}

std::string dlas::gspc::GroupedShape::key() const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << "g" << g << "_c" << g * cpg << "_f" << g * kpg << "_o" << oh << "x"
     << ow << "_k" << kh << "x" << kw << "_s" << strides[0] << "x"
     << strides[1];
  if (dilations[0] != 1 || dilations[1] != 1)
    os << "_d" << dilations[0] << "x" << dilations[1];
  return key;
}

int64_t dlas::gspc::paddedKPG(const GroupedShape &s, int64_t to) {
  return llvm::alignTo(s.kpg, to);
}

Value dlas::gspc::packFilter(OpBuilder &b, Location loc, Value filter,
                       const GroupedShape &s, int64_t ti, int64_t to) {
  Tiles t{ti, to};
  int64_t kpg = paddedKPG(s, t.to);
  SmallVector<int64_t> shape = {s.g, kpg / t.to, s.cpg / t.ti, s.kh,
                                s.kw, t.ti,      t.to};
  if (std::optional<std::vector<float>> w = constantThroughReshapes(filter)) {
    std::vector<float> packed(computeProduct(shape), 0.0f);
    // Walk the source in order; the destination index of w[g, k, c, y, x].
    int64_t at = 0;
    for (int64_t g = 0; g < s.g; ++g)
      for (int64_t k = 0; k < s.kpg; ++k)
        for (int64_t c = 0; c < s.cpg; ++c)
          for (int64_t y = 0; y < s.kh; ++y)
            for (int64_t x = 0; x < s.kw; ++x) {
              int64_t i = g;
              for (auto [index, size] :
                   {std::pair{k / t.to, shape[1]}, {c / t.ti, shape[2]},
                    {y, shape[3]}, {x, shape[4]}, {c % t.ti, shape[5]},
                    {k % t.to, shape[6]}})
                i = i * size + index;
              packed[i] = (*w)[at++];
            }
    return dlas::createF32Constant(b, loc, shape, packed, "dlas_gspc_filter");
  }
  Value padded = padHigh(b, loc, filter, 1, kpg - s.kpg);
  return expandAndTranspose(
      b, loc, padded, {s.g, kpg / t.to, t.to, s.cpg / t.ti, t.ti, s.kh, s.kw},
      {{0}, {1, 2}, {3, 4}, {5}, {6}}, {0, 1, 3, 5, 6, 4, 2});
}

Value dlas::gspc::packedConvolution(OpBuilder &b, Location loc, Value x, Value w,
                              Value init, const GroupedShape &s) {
  MLIRContext *ctx = b.getContext();
  AffineExpr n, g, F, oh, ow, f, C, kh, kw, c;
  bindDims(ctx, n, g, F, oh, ow, f, C, kh, kw, c);
  SmallVector<AffineMap> maps = {
      AffineMap::get(10, 0,
                     {n, g, C, oh * s.strides[0] + kh * s.dilations[0],
                      ow * s.strides[1] + kw * s.dilations[1], c},
                     ctx),
      AffineMap::get(10, 0, {g, F, C, kh, kw, c, f}, ctx),
      AffineMap::get(10, 0, {n, g, F, oh, ow, f}, ctx)};
  return dlas::mulAddGeneric(b, loc, x, w, init, maps, 4, "dlas.gspc");
}

