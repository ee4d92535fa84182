//===- BlockedLayout.cpp - the dlas-blocked-layout pass -------------------===//
//
// Puts dense convolutions in the blocked NCHWc layout (channels split into
// blocks of one vector, the block innermost) and propagates the layout
// through the graph, so that consecutive layers stay blocked and only the
// graph's edges convert (see Passes.td).
//
// The rewrite is per convolution: pack its input, pack its filter (at
// compile time when it is a constant), convolve in blocked form, unpack
// its result. Upstream's data-layout propagation then pushes each unpack
// down through the elementwise ops and pads that follow and bubbles each
// pack up, until an unpack meets the next convolution's pack and the pair
// folds away. What is left converts at the edges.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/GroupedConv.h"
#include "DLAS/Support/ConstantData.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_BLOCKEDLAYOUT
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// True for a convolution of i8 operands into i32 (an int8 layer).
bool isInt8Convolution(linalg::LinalgOp conv) {
  auto element = [&](Value v) { return getElementTypeOrSelf(v.getType()); };
  return element(conv.getDpsInputs()[0]).isInteger(8) &&
         element(conv.getDpsInputs()[1]).isInteger(8) &&
         element(conv.getDpsInits()[0]).isInteger(32);
}

/// True for a convolution of bf16 operands into f32 (a bf16 layer).
bool isBF16Convolution(linalg::LinalgOp conv) {
  auto element = [&](Value v) { return getElementTypeOrSelf(v.getType()); };
  return element(conv.getDpsInputs()[0]).isBF16() &&
         element(conv.getDpsInputs()[1]).isBF16() &&
         element(conv.getDpsInits()[0]).isF32();
}

/// Input channels per 32-bit lane of the dot-product kernels: 4 (int8 on
/// vpdpbusd), 2 (bf16 on vdpbf16ps), else 1 (f32 FMAs).
int64_t channelGroup(linalg::LinalgOp conv) {
  return isInt8Convolution(conv) ? 4 : isBF16Convolution(conv) ? 2 : 1;
}

/// Why `conv` (a dense or depthwise NCHW convolution) stays in NCHW with
/// channel block `block`, or empty when it can be blocked.
std::string whyNotBlocked(linalg::LinalgOp conv, int64_t block,
                          int64_t maxWidth, bool int8, bool bf16) {
  auto input = cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
  auto filter = cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  auto output = cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  if (!input.hasStaticShape() || !filter.hasStaticShape() ||
      !output.hasStaticShape())
    return "dynamic shape";
  if (isInt8Convolution(conv)) {
    if (!int8)
      return "int8 (int8=false)";
    if (!isa<linalg::Conv2DNchwFchwOp>(conv))
      return "int8, not a dense convolution";
    if (!dlas::hasInt8DotProduct(conv, block))
      return llvm::formatv("int8 without vpdpbusd at {0} lanes", block);
    // AMX tiles multiply bytes several times faster than vpdpbusd: the
    // GEMM on them (im2col) keeps such layers.
    if (dlas::hasAmxTilesFor(dlas::lookupCPUTarget(conv),
                             IntegerType::get(conv.getContext(), 8)))
      return "int8 on AMX tiles (the GEMM kernel's)";
    if (!conv.getDpsInputs()[1].getDefiningOp<arith::ConstantOp>())
      return "int8 with a filter that is not a constant";
  } else if (isBF16Convolution(conv)) {
    if (!bf16)
      return "bf16 (bf16=false)";
    if (!isa<linalg::Conv2DNchwFchwOp>(conv))
      return "bf16, not a dense convolution";
    if (!dlas::hasBF16DotProduct(dlas::lookupCPUTarget(conv), block))
      return llvm::formatv("bf16 without vdpbf16ps at {0} lanes", block);
    if (dlas::hasAmxTilesFor(dlas::lookupCPUTarget(conv),
                             BFloat16Type::get(conv.getContext())))
      return "bf16 on AMX tiles (the GEMM kernel's)";
    if (!conv.getDpsInputs()[1].getDefiningOp<arith::ConstantOp>())
      return "bf16 with a filter that is not a constant";
  } else if (!input.getElementType().isF32() ||
             !filter.getElementType().isF32() ||
             !output.getElementType().isF32()) {
    return "not f32";
  }
  if (input.getDimSize(1) % block != 0)
    return llvm::formatv("{0} input channels are not a multiple of {1}",
                         input.getDimSize(1), block);
  if (output.getDimSize(1) % block != 0)
    return llvm::formatv("{0} output channels are not a multiple of {1}",
                         output.getDimSize(1), block);
  if (maxWidth > 0 && output.getDimSize(3) > maxWidth)
    return llvm::formatv("output width {0} > max-width {1}",
                         output.getDimSize(3), maxWidth);
  return "";
}

/// The NCHW tensor that `v` views as [N, G, C/G, H, W] (the expansion
/// convert-nn-to-linalg builds around a grouped convolution), or null.
Value groupedSource(Value v) {
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getReassociationIndices() !=
                     SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
    return Value();
  return expand.getSrc();
}

/// The collapse of grouped `conv`'s result back to NCHW, when that is its
/// only use; else null.
tensor::CollapseShapeOp groupedResult(linalg::Conv2DNgchwGfchwOp conv) {
  Value result = conv->getResult(0);
  if (!result.hasOneUse())
    return {};
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(*result.getUsers().begin());
  if (!collapse || collapse.getReassociationIndices() !=
                       SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
    return {};
  return collapse;
}

/// Why grouped `conv` stays in NCHW with channel block `block`, or empty
/// when its groups are whole blocks (GSPC with TI = TO = block).
std::string whyGroupedNotBlocked(linalg::Conv2DNgchwGfchwOp conv,
                                 int64_t block, int64_t maxWidth) {
  std::optional<dlas::gspc::GroupedShape> s =
      dlas::gspc::GroupedShape::of(conv);
  if (!s)
    return "dynamic shape";
  if (!llvm::all_of(conv->getOperandTypes(),
                    [](Type t) { return getElementTypeOrSelf(t).isF32(); }))
    return "not f32";
  if (s->cpg % block != 0 || s->kpg % block != 0)
    return llvm::formatv("grouped: {0} input and {1} output channels per "
                         "group are not multiples of {2}",
                         s->cpg, s->kpg, block);
  if (maxWidth > 0 && s->ow > maxWidth)
    return llvm::formatv("output width {0} > max-width {1}", s->ow, maxWidth);
  // One output block per group makes a one-vector register tile (an input
  // broadcast per FMA): see maxBlockedOneVectorPlane.
  int64_t maxPlane = dlas::gspc::maxBlockedOneVectorPlane(block);
  if (s->kpg == block && s->oh * s->ow > maxPlane)
    return llvm::formatv("grouped: one {0}-channel output block per group on "
                         "a {1}x{2} plane (> {3}): the flat GEMM wins",
                         block, s->oh, s->ow, maxPlane);
  Value init = conv.getOutputs()[0];
  if (!groupedSource(conv.getInputs()[0]) ||
      !(groupedSource(init) || init.getDefiningOp<linalg::FillOp>()) ||
      !groupedResult(conv))
    return "grouped, but not in convert-nn-to-linalg's NCHW form";
  return "";
}

/// Grouped `conv` in the blocked layout: its NCHW input packed and viewed
/// as [N, G, CPG/b, H, W, b], its accumulator likewise (a fill rebuilt),
/// the filter packed as GSPC's with TI = TO =
/// b, and the result [N, G, KPG/b, OH, OW, b] viewed as [N, F/b, OH, OW, b]
/// and unpacked in place of the collapse to NCHW.
void blockGroupedConvolution(RewriterBase &rewriter,
                             linalg::Conv2DNgchwGfchwOp conv, int64_t block);

/// `value` packed along `dims` (each split by `block`, the tiles in the
/// order of `dims` innermost).
Value pack(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> dims,
           int64_t block) {
  SmallVector<OpFoldResult> tiles(dims.size(), b.getIndexAttr(block));
  Value dest = linalg::PackOp::createDestinationTensor(b, loc, value, tiles,
                                                        dims, {});
  return linalg::PackOp::create(b, loc, value, dest, dims, tiles).getResult();
}

Value unpackChannels(OpBuilder &b, Location loc, Value blocked,
                     RankedTensorType type, int64_t block) {
  Value dest = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType());
  return linalg::UnPackOp::create(b, loc, blocked, dest, {1},
                                  {b.getIndexAttr(block)})
      .getResult();
}

/// The filter F x C x Kh x Kw as F/b x C/b x Kh x Kw x b(c) x b(f): the
/// output-channel block innermost, where the kernel loads it as a vector.
Value packFilter(OpBuilder &b, Location loc, Value filter, int64_t block) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto packedType = RankedTensorType::get(
      {s[0] / block, s[1] / block, s[2], s[3], block, block},
      type.getElementType());
  // [F/b, b, C/b, b, Kh, Kw] -> [F/b, C/b, Kh, Kw, b(c), b(f)]
  if (Value folded = dlas::permuteConstant(
          b, loc, filter, {s[0] / block, block, s[1] / block, block, s[2], s[3]},
          {0, 2, 4, 5, 3, 1}, packedType, "dlas_packed"))
    return folded;
  return pack(b, loc, filter, {1, 0}, block);
}

/// The constant filter F x C x Kh x Kw in k groups of `group` (4: int8
/// quads, 2: bf16 pairs): F/b x C/b x Kh x Kw x b/group x b(f) x group,
/// `group` consecutive input channels of an output channel in one 32-bit
/// lane (vpdpbusd's and vdpbf16ps's operand); null when the filter is not
/// a readable constant.
Value packGroupedFilter(OpBuilder &b, Location loc, Value filter,
                        int64_t block, int64_t group) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto packedType = RankedTensorType::get(
      {s[0] / block, s[1] / block, s[2], s[3], block / group, block, group},
      type.getElementType());
  // [F/b, b, C/b, b/g, g, Kh, Kw] -> [F/b, C/b, Kh, Kw, b/g, b(f), g]
  return dlas::permuteConstant(b, loc, filter,
                               {s[0] / block, block, s[1] / block,
                                block / group, group, s[2], s[3]},
                               {0, 2, 5, 6, 3, 1, 4}, packedType,
                               "dlas_packed");
}

/// y[n, F, oh, ow, f] += x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, g*c + q] *
/// w[F, C, kh, kw, c, f, q]: the blocked convolution on a filter in k
/// groups of g (packGroupedFilter), int8 or bf16.
Value blockedGroupedKConvolution(OpBuilder &b, Location loc, Value input,
                                 Value filter, Value init, int64_t group,
                                 linalg::Conv2DNchwFchwOp conv) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  AffineExpr n, F, oh, ow, f, C, kh, kw, c4, q;
  bindDims(ctx, n, F, oh, ow, f, C, kh, kw, c4, q);
  SmallVector<AffineMap> maps = {
      AffineMap::get(10, 0,
                     {n, C, oh * strides[0] + kh * dilations[0],
                      ow * strides[1] + kw * dilations[1], c4 * group + q},
                     ctx),
      AffineMap::get(10, 0, {F, C, kh, kw, c4, f, q}, ctx),
      AffineMap::get(10, 0, {n, F, oh, ow, f}, ctx)};
  return dlas::mulAddGeneric(b, loc, input, filter, init, maps, 5,
                             "dlas.blocked_conv");
}

/// The convolution's accumulator in blocked form: a fill or a per-channel
/// broadcast rebuilt (so that the microkernel still folds it), anything
/// else packed.
Value blockedInit(OpBuilder &b, Location loc, Value init, int64_t block) {
  auto type = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto blockedType = RankedTensorType::get(
      {s[0], s[1] / block, s[2], s[3], block}, type.getElementType());
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(b, loc, blockedType.getShape(),
                                          blockedType.getElementType());
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>();
      broadcast && broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3}) {
    Value bias = broadcast.getInput();
    auto biasType = RankedTensorType::get({s[1] / block, block},
                                          type.getElementType());
    Value blockedBias = tensor::ExpandShapeOp::create(
        b, loc, biasType, bias, SmallVector<ReassociationIndices>{{0, 1}});
    Value empty = tensor::EmptyOp::create(b, loc, blockedType.getShape(),
                                          blockedType.getElementType());
    return linalg::BroadcastOp::create(b, loc, blockedBias, empty,
                                       SmallVector<int64_t>{0, 2, 3})
        .getResult()[0];
  }
  return pack(b, loc, init, {1}, block);
}

/// y[n, F, oh, ow, f] += x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c] *
/// w[F, C, kh, kw, c, f], with F, C the channel blocks and f, c within.
Value blockedConvolution(OpBuilder &b, Location loc, Value input,
                         Value filter, Value init,
                         linalg::Conv2DNchwFchwOp conv) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  AffineExpr n, F, oh, ow, f, C, kh, kw, c;
  bindDims(ctx, n, F, oh, ow, f, C, kh, kw, c);
  SmallVector<AffineMap> maps = {
      AffineMap::get(9, 0,
                     {n, C, oh * strides[0] + kh * dilations[0],
                      ow * strides[1] + kw * dilations[1], c},
                     ctx),
      AffineMap::get(9, 0, {F, C, kh, kw, c, f}, ctx),
      AffineMap::get(9, 0, {n, F, oh, ow, f}, ctx)};
  return dlas::mulAddGeneric(b, loc, input, filter, init, maps, 4,
                       "dlas.blocked_conv");
}

/// The depthwise filter C x Kh x Kw as C/b x Kh x Kw x b.
Value packDepthwiseFilter(OpBuilder &b, Location loc, Value filter,
                          int64_t block) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto packedType = RankedTensorType::get({s[0] / block, s[1], s[2], block},
                                          type.getElementType());
  // [C/b, b, Kh, Kw] -> [C/b, Kh, Kw, b]; the C x 1 x Kh x Kw constant
  // behind the lowering's collapse holds the same data.
  Value source = filter;
  if (auto collapse = filter.getDefiningOp<tensor::CollapseShapeOp>())
    source = collapse.getSrc();
  if (Value folded = dlas::permuteConstant(
          b, loc, source, {s[0] / block, block, s[1], s[2]}, {0, 2, 3, 1},
          packedType, "dlas_packed"))
    return folded;
  return pack(b, loc, filter, {0}, block);
}

/// The maps of a per-channel window op in the blocked layout, over loops
/// (n, C, oh, ow, c, kh, kw): x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c],
/// then w[C, kh, kw, c] (a depthwise filter) or the window's extent [kh,
/// kw] (a pool), then y[n, C, oh, ow, c].
SmallVector<AffineMap> blockedWindowMaps(MLIRContext *ctx,
                                         DenseIntElementsAttr stridesAttr,
                                         DenseIntElementsAttr dilationsAttr,
                                         bool perChannelFilter) {
  SmallVector<int64_t> strides(stridesAttr.getValues<int64_t>());
  SmallVector<int64_t> dilations(dilationsAttr.getValues<int64_t>());
  AffineExpr n, C, oh, ow, c, kh, kw;
  bindDims(ctx, n, C, oh, ow, c, kh, kw);
  SmallVector<AffineExpr> second = {kh, kw};
  if (perChannelFilter)
    second = {C, kh, kw, c};
  return {AffineMap::get(7, 0,
                         {n, C, oh * strides[0] + kh * dilations[0],
                          ow * strides[1] + kw * dilations[1], c},
                         ctx),
          AffineMap::get(7, 0, second, ctx),
          AffineMap::get(7, 0, {n, C, oh, ow, c}, ctx)};
}

/// y[n, C, oh, ow, c] += x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c] *
/// w[C, kh, kw, c]: a vector of channels per output position.
Value blockedDepthwise(OpBuilder &b, Location loc, Value input, Value filter,
                       Value init, linalg::DepthwiseConv2DNchwChwOp conv) {
  SmallVector<AffineMap> maps = blockedWindowMaps(
      b.getContext(), conv.getStrides(), conv.getDilations(),
      /*perChannelFilter=*/true);
  return dlas::mulAddGeneric(b, loc, input, filter, init, maps, 2,
                       "dlas.blocked_depthwise");
}

/// The producer of `v` through what a fused convolution kernel folds
/// between it and a pool: elementwise generics of one input (the
/// activation) and one padding, each the only user of the one before.
Operation *producerThroughActivation(Value v) {
  bool padded = false;
  while (Operation *def = v.getDefiningOp()) {
    if (!v.hasOneUse())
      return nullptr;
    if (auto pad = dyn_cast<tensor::PadOp>(def); pad && !padded) {
      padded = true;
      v = pad.getSource();
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(def);
    if (!generic || generic.getNumDpsInputs() != 1 ||
        generic.getNumReductionLoops() != 0 ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return def;
    v = generic.getDpsInputs()[0];
  }
  return nullptr;
}

/// Why max pool `pool` does not go blocked with the convolution before
/// it, or empty. Only a pool that dlas-blocked-conv-microkernel can fuse
/// goes: one that reads a blocked convolution (of `convs`) through its
/// activation and padding alone.
std::string whyPoolNotBlocked(linalg::PoolingNchwMaxOp pool, int64_t block,
                              ArrayRef<linalg::LinalgOp> convs) {
  auto type = cast<RankedTensorType>(pool.getDpsInits()[0].getType());
  if (!type.hasStaticShape() || !type.getElementType().isF32())
    return "not a static f32 pool";
  if (type.getDimSize(1) % block != 0)
    return llvm::formatv("{0} channels are not a multiple of {1}",
                         type.getDimSize(1), block);
  if (!pool.getDpsInits()[0].getDefiningOp<linalg::FillOp>())
    return "its accumulator is not a fill";
  Operation *producer = producerThroughActivation(pool.getDpsInputs()[0]);
  auto conv = dyn_cast_or_null<linalg::Conv2DNchwFchwOp>(producer);
  if (!conv || !llvm::is_contained(convs, cast<linalg::LinalgOp>(*conv)))
    return "its input is not a blocked dense convolution (through an "
           "activation and a padding)";
  return "";
}

/// y[n, C, oh, ow, c] = max over kh, kw of x[n, C, oh*sh + kh*dh, ow*sw +
/// kw*dw, c], tagged `dlas.blocked_pool`; the window operand is the
/// pool's own (its extent).
Value blockedMaxPool(OpBuilder &b, Location loc, Value input, Value init,
                     linalg::PoolingNchwMaxOp pool) {
  SmallVector<AffineMap> maps = blockedWindowMaps(
      b.getContext(), pool.getStrides(), pool.getDilations(),
      /*perChannelFilter=*/false);
  SmallVector<utils::IteratorType> iterators(5,
                                             utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{input, pool.getDpsInputs()[1]},
      ValueRange{init}, maps, iterators,
      [](OpBuilder &nested, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nested, l,
            arith::MaximumFOp::create(nested, l, args[2], args[0]).getResult());
      });
  generic->setAttr("dlas.blocked_pool", b.getUnitAttr());
  return generic.getResult(0);
}

/// An activation unpack [N, C/b, H, W, b] -> [N, C, H, W] as a copy that
/// walks its source in order, the channel within a block innermost, into
/// the result viewed as [N, C/b, b, H, W]. (Upstream's lowering walks the
/// result in order: w innermost, reading one float per 64-byte line of the
/// source, every line 16 times; ResNet-50's 1x1 layer with a 56x56x256
/// output spent 1.5 ms converting it.) Fails for any other unpack.
LogicalResult unpackChannelsInReadOrder(RewriterBase &rewriter,
                                        linalg::UnPackOp unpack) {
  RankedTensorType source = unpack.getSourceType();
  RankedTensorType dest = unpack.getDestType();
  if (unpack.getInnerDimsPos() != ArrayRef<int64_t>{1} ||
      !unpack.getOuterDimsPerm().empty() || source.getRank() != 5 ||
      !source.hasStaticShape() || !dest.hasStaticShape() ||
      source.getDimSize(1) * source.getDimSize(4) != dest.getDimSize(1) ||
      source.getDimSize(2) != dest.getDimSize(2) ||
      source.getDimSize(3) != dest.getDimSize(3))
    return failure();
  Location loc = unpack.getLoc();
  int64_t block = source.getDimSize(4);
  ArrayRef<int64_t> d = dest.getShape();
  auto viewType = RankedTensorType::get(
      {d[0], d[1] / block, block, d[2], d[3]}, dest.getElementType());
  SmallVector<ReassociationIndices> split = {{0}, {1, 2}, {3}, {4}};
  Value init = tensor::EmptyOp::create(rewriter, loc, viewType.getShape(),
                                       viewType.getElementType());
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr n, cb, h, w, c;
  bindDims(ctx, n, cb, h, w, c);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(5, ctx),
      AffineMap::get(5, 0, {n, cb, c, h, w}, ctx)};
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      rewriter, loc, viewType, ValueRange{unpack.getSource()},
      ValueRange{init}, maps, iterators,
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      unpack, dest, copy.getResult(0), split);
  return success();
}

void blockGroupedConvolution(RewriterBase &rewriter,
                             linalg::Conv2DNgchwGfchwOp conv, int64_t block) {
  Location loc = conv.getLoc();
  dlas::gspc::GroupedShape s = *dlas::gspc::GroupedShape::of(conv);
  auto grouped = [&](Value blocked, int64_t perGroup) {
    auto type = cast<RankedTensorType>(blocked.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[1] = perGroup / block;
    shape.insert(shape.begin() + 1, s.g);
    return tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
        blocked,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}, {5}});
  };
  Value x = grouped(
      pack(rewriter, loc, groupedSource(conv.getInputs()[0]), {1}, block),
      s.cpg);
  // The canonicalizer folds the expansion of a fill into a fill.
  Value init;
  if (auto fill = conv.getOutputs()[0].getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(
        rewriter, loc,
        SmallVector<int64_t>{s.n, s.g, s.kpg / block, s.oh, s.ow, block},
        getElementTypeOrSelf(fill.getOutputs()[0].getType()));
    init = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
               .getResult(0);
  } else {
    init = grouped(blockedInit(rewriter, loc,
                               groupedSource(conv.getOutputs()[0]), block),
                   s.kpg);
  }
  Value w = dlas::gspc::packFilter(rewriter, loc, conv.getInputs()[1], s,
                                   block, block);
  Value y = dlas::gspc::packedConvolution(rewriter, loc, x, w, init, s);
  Value blocked = tensor::CollapseShapeOp::create(
      rewriter, loc, y,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}, {5}});
  tensor::CollapseShapeOp collapse = groupedResult(conv);
  rewriter.replaceOp(collapse,
                     unpackChannels(rewriter, loc, blocked,
                                    collapse.getResultType(), block));
  rewriter.eraseOp(conv);
}

struct BlockedLayoutPass
    : public dlas::impl::BlockedLayoutBase<BlockedLayoutPass> {
  using BlockedLayoutBase::BlockedLayoutBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The layout is tried on a copy: where the graph keeps crossing back
    // to NCHW (through ops without a blocked form, like MobileNetV2's
    // depthwise convolutions), the conversions cost more than the blocked
    // kernels gain (MobileNetV2 4.8 -> 8.8 ms), and the module stays NCHW.
    OwningOpRef<ModuleOp> trial = module.clone();
    FailureOr<TrialCounts> counts = blockAndPropagate(*trial);
    if (failed(counts))
      return signalPassFailure();
    auto [blocked, conversions, macs, convertedElements] = *counts;
    if (blocked == 0)
      return;
    // Few conversions per convolution, or convolutions so heavy that the
    // conversions are noise: VGG-11 has 7 blocked convolutions for 2
    // conversions (a 64x112x112 pack, a 512x7x7 unpack), 9000 MACs per
    // converted element, and ran 143 -> 107 ms blocked; MobileNetV2's
    // blocked 1x1 layers do about 10 per element and lose.
    bool few = conversions * static_cast<int64_t>(convsPerConversion) <= blocked;
    bool heavy = macsPerConvertedElement > 0 &&
                 macs >= macsPerConvertedElement * convertedElements;
    if (!few && !heavy) {
      if (print) {
        InFlightDiagnostic remark = module.emitRemark();
        remark << "stays NCHW: " << conversions
               << " layout conversion(s) would remain for " << blocked
               << " blocked convolution(s) (at most 1 per "
               << static_cast<int64_t>(convsPerConversion) << ")";
        if (macsPerConvertedElement > 0)
          remark << ", " << macs / std::max<int64_t>(convertedElements, 1)
                 << " MACs per converted element (fewer than "
                 << static_cast<int64_t>(macsPerConvertedElement) << ")";
      }
      return;
    }
    if (print)
      module.emitRemark() << blocked << " convolution(s) blocked, "
                          << conversions << " layout conversion(s) left";
    module.getBodyRegion().takeBody(trial->getBodyRegion());
    numBlocked += blocked;
    numEdgeConversions += conversions;
    if (failed(lowerEdges(module)))
      return signalPassFailure();
  }

  /// Blocks every eligible convolution of `module` and propagates the
  /// layout; returns how many were blocked and how many activation layout
  /// conversions are left.
  /// What a trial of the layout leaves: convolutions blocked, activation
  /// conversions left, the blocked convolutions' MACs and the elements the
  /// conversions move.
  struct TrialCounts {
    int64_t blocked = 0, conversions = 0, macs = 0, convertedElements = 0;
  };

  FailureOr<TrialCounts> blockAndPropagate(ModuleOp module) {
    int64_t blockSize = block;
    if (blockSize <= 0) {
      dlas::CPUTargetAttr target = dlas::lookupCPUTarget(module);
      if (!target)
        return module.emitError()
               << "no target: set the module's 'dlas.target' "
                  "(dlas-attach-target, dlas-cpu-pipeline{target=...}) or "
                  "give block=N";
      blockSize = target.lanes(32);
    }
    SmallVector<linalg::LinalgOp> convs;
    module->walk([&](linalg::LinalgOp conv) {
      if (auto groupedConv = dyn_cast<linalg::Conv2DNgchwGfchwOp>(*conv)) {
        if (!groupedConv.hasPureTensorSemantics())
          return;
        if (!grouped) {
          if (print)
            conv->emitRemark() << "stays NCHW: grouped (grouped=false)";
          return;
        }
        std::string why =
            whyGroupedNotBlocked(groupedConv, blockSize, maxWidth);
        if (print && !why.empty())
          conv->emitRemark() << "stays NCHW: " << why;
        if (why.empty())
          convs.push_back(conv);
        return;
      }
      bool isDepthwise = isa<linalg::DepthwiseConv2DNchwChwOp>(conv);
      if ((!isa<linalg::Conv2DNchwFchwOp>(conv) && !isDepthwise) ||
          !conv.hasPureTensorSemantics())
        return;
      if (isDepthwise && !depthwise) {
        if (print)
          conv->emitRemark() << "stays NCHW: depthwise (depthwise=false)";
        return;
      }
      std::string why =
          whyNotBlocked(conv, blockSize, maxWidth, int8, this->bf16);
      if (print && !why.empty())
        conv->emitRemark() << "stays NCHW: " << why;
      if (why.empty())
        convs.push_back(conv);
    });
    if (convs.empty())
      return TrialCounts();
    TrialCounts counts;
    counts.blocked = convs.size();
    for (linalg::LinalgOp conv : convs) {
      int64_t macs = 1;
      for (int64_t range : conv.getStaticLoopRanges())
        macs *= range;
      counts.macs += macs;
    }
    // Max pools after a blocked convolution go blocked with it, so that
    // its kernel can pool each tile before it stores.
    SmallVector<linalg::PoolingNchwMaxOp> pools;
    if (this->pools)
      module->walk([&](linalg::PoolingNchwMaxOp pool) {
        if (!pool.hasPureTensorSemantics())
          return;
        std::string why = whyPoolNotBlocked(pool, blockSize, convs);
        if (print && !why.empty())
          pool->emitRemark() << "pool stays NCHW: " << why;
        if (why.empty())
          pools.push_back(pool);
      });
    IRRewriter rewriter(&getContext());
    for (linalg::PoolingNchwMaxOp pool : pools) {
      rewriter.setInsertionPoint(pool);
      Location loc = pool.getLoc();
      Value input = pack(rewriter, loc, pool.getDpsInputs()[0], {1}, blockSize);
      Value init = blockedInit(rewriter, loc, pool.getDpsInits()[0], blockSize);
      rewriter.replaceOp(
          pool, unpackChannels(
                    rewriter, loc, blockedMaxPool(rewriter, loc, input, init, pool),
                    cast<RankedTensorType>(pool->getResult(0).getType()),
                    blockSize));
    }
    for (linalg::LinalgOp conv : convs) {
      rewriter.setInsertionPoint(conv);
      if (auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(*conv)) {
        blockGroupedConvolution(rewriter, grouped, blockSize);
        continue;
      }
      Location loc = conv.getLoc();
      Value input =
          pack(rewriter, loc, conv.getDpsInputs()[0], {1}, blockSize);
      Value init =
          blockedInit(rewriter, loc, conv.getDpsInits()[0], blockSize);
      Value blocked;
      auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
      int64_t group = channelGroup(conv);
      Value groupedFilter =
          dense && group > 1
              ? packGroupedFilter(rewriter, loc, conv.getDpsInputs()[1],
                                  blockSize, group)
              : Value();
      if (groupedFilter)
        blocked = blockedGroupedKConvolution(rewriter, loc, input,
                                             groupedFilter, init, group, dense);
      else if (dense)
        blocked = blockedConvolution(
            rewriter, loc, input,
            packFilter(rewriter, loc, conv.getDpsInputs()[1], blockSize), init,
            dense);
      else
        blocked = blockedDepthwise(
            rewriter, loc, input,
            packDepthwiseFilter(rewriter, loc, conv.getDpsInputs()[1],
                                blockSize),
            init, cast<linalg::DepthwiseConv2DNchwChwOp>(conv.getOperation()));
      rewriter.replaceOp(
          conv, unpackChannels(rewriter, loc, blocked,
                               cast<RankedTensorType>(conv->getResult(0).getType()),
                               blockSize));
    }
    if (failed(propagate(module)))
      return failure();
    // Layer functions (dlas-outline-layers) take and return NCHW; where a
    // layer packs an argument or unpacks a result, its caller does it
    // instead, so that the conversions meet there and fold.
    // Until nothing moves: a conversion hoisted into a caller may move on
    // into its caller (or, with blocked-entry, the entry's signature).
    for (bool moved = true; moved;) {
      moved = false;
      // Hoisting retypes calls in place: the map stays valid for a round.
      SymbolTableCollection tables;
      SymbolUserMap users(tables, module);
      module.walk(
          [&](func::FuncOp f) { moved |= hoistConversions(f, users); });
      if (moved && failed(propagate(module)))
        return failure();
    }
    // Activation conversions: packs of dim 1 alone (a dense filter pack
    // has two tiles, a depthwise one packs dim 0) and unpacks, counted once
    // per value.
    IRRewriter cseRewriter(&getContext());
    DominanceInfo dominance(module);
    eliminateCommonSubExpressions(cseRewriter, dominance, module);
    module.walk([&](Operation *op) {
      RankedTensorType moved;
      if (auto packOp = dyn_cast<linalg::PackOp>(op);
          packOp && packOp.getInnerDimsPos() == ArrayRef<int64_t>{1})
        moved = packOp.getSourceType();
      else if (auto unpackOp = dyn_cast<linalg::UnPackOp>(op))
        moved = unpackOp.getDestType();
      if (!moved)
        return;
      ++counts.conversions;
      if (moved.hasStaticShape())
        counts.convertedElements += moved.getNumElements();
    });
    return counts;
  }

  /// The one func.call of private `f` in the module, or null.
  func::CallOp soleCall(func::FuncOp f, SymbolUserMap &users) {
    if (!f.isPrivate() || f.isExternal())
      return nullptr;
    ArrayRef<Operation *> uses = users.getUsers(f);
    if (!llvm::hasSingleElement(uses))
      return nullptr;
    return dyn_cast<func::CallOp>(uses.front());
  }

  /// Moves `f`'s unpacks of results and packs of arguments into its sole
  /// caller; true when it moved any.
  bool hoistConversions(func::FuncOp f, SymbolUserMap &users) {
    func::CallOp call = soleCall(f, users);
    // With blocked-entry, a public function's activations cross its
    // boundary blocked: the conversions go to whoever calls it.
    bool entry = !call && blockedEntry && f.isPublic() && !f.isExternal();
    if ((!call && !entry) || !f.getBody().hasOneBlock())
      return false;
    OpBuilder b(f.getContext());
    bool moved = false;
    Block &body = f.getBody().front();
    auto ret = cast<func::ReturnOp>(f.getBody().back().getTerminator());
    SmallVector<Type> results(f.getResultTypes());
    for (OpOperand &operand : ret->getOpOperands()) {
      auto unpack = operand.get().getDefiningOp<linalg::UnPackOp>();
      if (!unpack)
        continue;
      unsigned i = operand.getOperandNumber();
      operand.set(unpack.getSource());
      results[i] = unpack.getSourceType();
      moved = true;
      if (!call) {
        if (unpack->use_empty())
          unpack->erase();
        continue;
      }
      b.setInsertionPointAfter(call);
      Value dest = tensor::EmptyOp::create(
          b, call.getLoc(), unpack.getDestType().getShape(),
          unpack.getDestType().getElementType());
      auto unpackInCaller = linalg::UnPackOp::create(
          b, call.getLoc(), call.getResult(i), dest,
          unpack.getInnerDimsPos(), unpack.getMixedTiles(),
          unpack.getOuterDimsPerm());
      call.getResult(i).replaceAllUsesExcept(unpackInCaller.getResult(),
                                          unpackInCaller);
      call.getResult(i).setType(results[i]);
      if (unpack->use_empty())
        unpack->erase();
    }
    SmallVector<Type> args(f.getArgumentTypes());
    for (BlockArgument arg : body.getArguments()) {
      SmallVector<linalg::PackOp> packs;
      for (Operation *user : arg.getUsers())
        if (auto packOp = dyn_cast<linalg::PackOp>(user);
            packOp && packOp.getSource() == arg && !packOp.getPaddingValue())
          packs.push_back(packOp);
      if (packs.empty() || packs.size() != static_cast<size_t>(std::distance(
                                              arg.getUsers().begin(),
                                              arg.getUsers().end())))
        continue;
      linalg::PackOp first = packs.front();
      bool same = llvm::all_of(packs, [&](linalg::PackOp other) {
        return other.getDestType() == first.getDestType() &&
               other.getInnerDimsPos() == first.getInnerDimsPos() &&
               other.getOuterDimsPerm() == first.getOuterDimsPerm() &&
               other.getStaticInnerTiles() == first.getStaticInnerTiles();
      });
      // An entry keeps taking its filters as they are: only activations
      // (packed along their channels alone) change layout.
      if (!same || (entry && first.getInnerDimsPos().size() != 1))
        continue;
      if (call) {
        b.setInsertionPoint(call);
        Value operand = call.getOperand(arg.getArgNumber());
        Value dest = tensor::EmptyOp::create(
            b, call.getLoc(), first.getDestType().getShape(),
            first.getDestType().getElementType());
        Value packed = linalg::PackOp::create(
            b, call.getLoc(), operand, dest, first.getInnerDimsPos(),
            first.getMixedTiles(), std::nullopt, first.getOuterDimsPerm());
        call->setOperand(arg.getArgNumber(), packed);
      }
      arg.setType(first.getDestType());
      args[arg.getArgNumber()] = first.getDestType();
      for (linalg::PackOp packOp : packs) {
        packOp.getResult().replaceAllUsesWith(arg);
        packOp->erase();
      }
      moved = true;
    }
    if (moved)
      f.setFunctionType(FunctionType::get(f.getContext(), args, results));
    return moved;
  }

  /// Moves packs up and unpacks down until they cancel.
  LogicalResult propagate(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateDataLayoutPropagationPatterns(
        patterns, [](OpOperand *) { return true; });
    linalg::populateSimplifyPackAndUnpackPatterns(patterns);
    linalg::populateFoldPackUnpackIntoTensorEmptyPatterns(patterns);
    linalg::PackOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::UnPackOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    return applyPatternsGreedily(module, std::move(patterns));
  }

  /// The conversions left at the graph's edges become a pad, reshape and
  /// transpose each, which bufferize like any other op.
  LogicalResult lowerEdges(ModuleOp module) {
    IRRewriter rewriter(&getContext());
    WalkResult result = module->walk([&](Operation *op) {
      rewriter.setInsertionPoint(op);
      LogicalResult lowered = success();
      if (auto packOp = dyn_cast<linalg::PackOp>(op))
        lowered = linalg::lowerPack(rewriter, packOp);
      else if (auto unpackOp = dyn_cast<linalg::UnPackOp>(op))
        lowered = succeeded(unpackChannelsInReadOrder(rewriter, unpackOp))
                      ? success()
                      : LogicalResult(linalg::lowerUnPack(rewriter, unpackOp));
      else
        return WalkResult::advance();
      if (failed(lowered)) {
        op->emitError("dlas-blocked-layout cannot lower this layout "
                      "conversion at the graph's edge");
        return WalkResult::interrupt();
      }
      return WalkResult::skip();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace
