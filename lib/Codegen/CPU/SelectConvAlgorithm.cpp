//===- SelectConvAlgorithm.cpp - the dlas-select-conv-algorithm pass ------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/CPU/ConvAlgorithm.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Support/ConstantData.h"
#include "WinogradMatrices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_SELECTCONVALGORITHM
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

using dlas::ConvAlgorithm;

bool allOnes(ArrayRef<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v == 1; });
}

/// A convolution's "strides" or "dilations"; absent means the default, 1.
SmallVector<int64_t> convAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<DenseIntElementsAttr>(name);
  if (!attr)
    return {1, 1};
  return llvm::to_vector(attr.getValues<int64_t>());
}

/// A 1x1 kernel (strides allowed: the input is subsampled first).
bool isPointwise(linalg::Conv2DNchwFchwOp conv) {
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  return filter.getDimSize(2) == 1 && filter.getDimSize(3) == 1;
}

/// Body of the contraction generics: out += lhs * rhs, the operands
/// widened to the accumulator's type first (bf16/f16 into f32), as the
/// named convolution it replaces does.
void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Type acc = args[2].getType();
  bool integer = isa<IntegerType>(acc);
  auto widen = [&](Value v) -> Value {
    if (v.getType() == acc)
      return v;
    if (integer)
      return arith::ExtSIOp::create(b, loc, acc, v);
    return arith::ExtFOp::create(b, loc, acc, v);
  };
  Value lhs = widen(args[0]), rhs = widen(args[1]);
  Value sum;
  if (integer)
    sum = arith::AddIOp::create(b, loc, args[2],
                                arith::MulIOp::create(b, loc, lhs, rhs));
  else
    sum = arith::AddFOp::create(b, loc, args[2],
                                arith::MulFOp::create(b, loc, lhs, rhs));
  linalg::YieldOp::create(b, loc, sum);
}

/// Output planes whose positions fill the vectors this much worse than the
/// output channels do move the vectors to the channels (see
/// transposedGemmPays): 7x7 planes on 16 lanes are 49 of 64 (1.31), 14x14
/// 196 of 208 (1.06).
constexpr double kMinLaneWaste = 1.15;

/// The most output rows one column vector of a compact flat convolution
/// may cover where the row width divides the vector (a masked load per
/// row): 4 (4x4 maps on 16 lanes) measured 1.8x faster than the padded
/// width, 8 (2x2) no faster.
constexpr int64_t kMaxCompactRowsPerVector = 4;

/// Whether `conv` (batch 1, F output channels, P = OH*OW positions) should
/// run as the transposed GEMM Y^T[P, F] = X^T[P, K] x W^T[K, F]: the
/// microkernel vectorizes the GEMM's last dim, the positions in the NCHW
/// form, whose vectors a 7x7 plane fills to 77% on 16 lanes; the
/// channels fill them to 100%. Floats, and int8 where the target has
/// vpdpbusd: transposed, an int8 GEMM's activations are its A operand,
/// packed per call with their row sums (the kernel reads B, the weights,
/// as u8 and corrects by those sums); without it the pair kernel needs A's
/// bytes within +-64 at compile time (7-bit weights), and the activations
/// would fall back to the widening kernel.
bool transposedGemmPays(linalg::Conv2DNchwFchwOp conv, int64_t lanes) {
  auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  Type input = getElementTypeOrSelf(conv.getInputs()[0].getType());
  bool int8 = input.isInteger(8) && dlas::hasInt8DotProduct(conv, lanes);
  if (lanes < 2 || !(isa<FloatType>(input) || int8) ||
      !resultType.hasStaticShape() || resultType.getDimSize(0) != 1)
    return false;
  int64_t channels = resultType.getDimSize(1);
  int64_t positions = resultType.getDimSize(2) * resultType.getDimSize(3);
  if (channels % lanes != 0)
    return false;
  double waste =
      static_cast<double>(llvm::divideCeil(positions, lanes) * lanes) /
      static_cast<double>(positions);
  return waste >= kMinLaneWaste;
}

/// The transposed init [P, F] of a batch-1 convolution's `init` [1, F,
/// OH, OW]: a fill or per-channel broadcast rebuilt (so that the
/// microkernel still folds it), anything else transposed.
Value transposedInit(OpBuilder &b, Location loc, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> s = type.getShape();
  SmallVector<int64_t> shape = {s[2] * s[3], s[1]};
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>();
      broadcast && broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3})
    return linalg::BroadcastOp::create(b, loc, broadcast.getInput(), empty,
                                       SmallVector<int64_t>{0})
        .getResult()[0];
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, init, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  return linalg::TransposeOp::create(b, loc, flat, empty,
                                     SmallVector<int64_t>{1, 0})
      .getResult()[0];
}

/// Whether `map` (of a 4-d NCHW elementwise op) reads one value per
/// channel: (n, f, oh, ow) -> (f), a dequantization's scales or a bias.
bool isPerChannel(AffineMap map) {
  return map.getNumDims() == 4 && map.getNumResults() == 1 &&
         map.getResult(0) == getAffineDimExpr(1, map.getContext());
}

/// An elementwise op the transposed GEMM takes along (so that the
/// microkernel still fuses it): `value` its first input, any others read
/// per channel (an int8 dequantization's scales and zero-point sums), a
/// fresh init, identity maps otherwise, no index reads, the shape of
/// `value`, and `value` its only user's operand; what its body reads from
/// outside must exist before `conv`, where its transposed copy goes.
linalg::GenericOp movableEpilogue(Value value, Operation *conv,
                                  DominanceInfo &dominance) {
  if (!value.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
  if (!generic || generic.getNumDpsInputs() < 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumResults() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() ||
      generic.getDpsInputs()[0] != value ||
      !generic.getBody()->getOps<linalg::IndexOp>().empty() ||
      cast<ShapedType>(generic.getResult(0).getType()).getShape() !=
          cast<ShapedType>(value.getType()).getShape())
    return {};
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps.front().isIdentity() || !maps.back().isIdentity())
    return {};
  // getDpsInputOperands returns a vector by value: keep it alive for the
  // loop (drop_begin over the temporary would dangle).
  SmallVector<OpOperand *> inputs = generic.getDpsInputOperands();
  for (OpOperand *extra : llvm::drop_begin(inputs)) {
    if (!isPerChannel(generic.getMatchingIndexingMap(extra)) ||
        !dominance.properlyDominates(extra->get(), conv))
      return {};
  }
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(generic.getRegion(), captured);
  if (!llvm::all_of(captured, [&](Value v) {
        return dominance.properlyDominates(v, conv);
      }))
    return {};
  return generic;
}

/// `yt` [OH*OW, F] as [1, F, OH, OW] (`shape`), by a copy whose loops run
/// (oh, f, ow): each output row reads OW rows of `yt`. A plain transpose
/// runs (f, oh, ow) and reads all OH*OW rows at one column per output
/// row; at F = 2048 bf16 they are 4 KiB apart, all in one L1 set
/// (2048 x 49: 90 us against 15).
Value transposeBackToNCHW(OpBuilder &b, Location loc, Value yt,
                          ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(yt.getType());
  int64_t rows = shape[2], cols = shape[3], channels = shape[1];
  Value positions = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({rows, cols, channels}, type.getElementType()), yt,
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, f, ow;
  bindDims(ctx, n, oh, f, ow);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {oh, ow, f}, ctx),
                                 AffineMap::get(4, 0, {n, f, oh, ow}, ctx)};
  return linalg::GenericOp::create(
             b, loc, empty.getType(), ValueRange{positions}, empty, maps,
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(b, loc, args[0]);
             })
      .getResult(0);
}

/// Y^T[P, F] += X[K, P]^T x W^T[K, F] for a batch-1 `conv` (see
/// transposedGemmPays), W^T transposed at compile time; the elementwise
/// ops after the convolution move before the transpose back to NCHW, so
/// that the kernel still applies them as it stores. Fails (changing
/// nothing) when the filter is not a constant.
LogicalResult replaceWithTransposedGemm(RewriterBase &rewriter,
                                        linalg::Conv2DNchwFchwOp conv,
                                        Value x) {
  Location loc = conv.getLoc();
  Value filter = conv.getInputs()[1];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  ArrayRef<int64_t> f = filterType.getShape();
  int64_t channels = f[0], depth = f[1] * f[2] * f[3];
  Value wt = dlas::permuteConstant(
      rewriter, loc, filter, {channels, depth}, {1, 0},
      RankedTensorType::get({depth, channels}, filterType.getElementType()),
      "dlas_transposed");
  if (!wt)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  Value xt = tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(xType.getShape().drop_front(),
                            xType.getElementType()),
      x, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  Value init = transposedInit(rewriter, loc, conv.getOutputs()[0]);
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr p, n, k;
  bindDims(ctx, p, n, k);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {k, p}, ctx),
                                 AffineMap::get(3, 0, {k, n}, ctx),
                                 AffineMap::get(3, 0, {p, n}, ctx)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  Value current = linalg::GenericOp::create(rewriter, loc, init.getType(),
                                            ValueRange{xt, wt}, init, maps,
                                            iterators, multiplyAccumulate)
                      .getResult(0);
  // The epilogue chain, rebuilt on [P, F].
  SmallVector<linalg::GenericOp> moved;
  Value nchw = conv.getResult(0);
  DominanceInfo dominance(conv->getParentOp());
  while (linalg::GenericOp epilogue =
             movableEpilogue(nchw, conv.getOperation(), dominance)) {
    auto outType = cast<ShapedType>(epilogue.getResult(0).getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, cast<ShapedType>(current.getType()).getShape(),
        outType.getElementType());
    // On [P, F] the per-channel operands are read by F, the second dim.
    auto identity = rewriter.getMultiDimIdentityMap(2);
    SmallVector<Value> inputs = {current};
    SmallVector<AffineMap> maps = {identity};
    SmallVector<Value> epilogueInputs(epilogue.getDpsInputs());
    for (Value extra : llvm::drop_begin(epilogueInputs)) {
      inputs.push_back(extra);
      maps.push_back(AffineMap::get(2, 0, rewriter.getAffineDimExpr(1)));
    }
    maps.push_back(identity);
    auto rebuilt = linalg::GenericOp::create(
        rewriter, loc, empty.getType(), inputs, empty, maps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    rewriter.cloneRegionBefore(epilogue.getRegion(), rebuilt.getRegion(),
                               rebuilt.getRegion().begin());
    rebuilt->setDiscardableAttrs(epilogue->getDiscardableAttrDictionary());
    current = rebuilt.getResult(0);
    moved.push_back(epilogue);
    nchw = epilogue.getResult(0);
  }
  rewriter.replaceAllUsesWith(
      nchw, transposeBackToNCHW(rewriter, loc, current, resultType.getShape()));
  for (linalg::GenericOp epilogue : llvm::reverse(moved))
    rewriter.eraseOp(epilogue);
  rewriter.eraseOp(conv);
  return success();
}

/// Y[N, F, P] += W[F, K] x X[N, K, P] on `conv`'s output collapsed to
/// [N, F, OH*OW]; replaces `conv` with the expanded result. With
/// `transpose` (see transposedGemmPays) the GEMM runs transposed where the
/// filter is a constant.
void replaceWithGemm(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                     Value w, Value x, bool transpose) {
  if (transpose && succeeded(replaceWithTransposedGemm(rewriter, conv, x)))
    return;
  Location loc = conv.getLoc();
  Value init = conv.getOutputs()[0];
  auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  SmallVector<ReassociationIndices> spatial = {{0}, {1}, {2, 3}};
  Value out = tensor::CollapseShapeOp::create(rewriter, loc, init, spatial);
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr n, f, p, c;
  bindDims(ctx, n, f, p, c);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {f, c}, ctx),
                                 AffineMap::get(4, 0, {n, c, p}, ctx),
                                 AffineMap::get(4, 0, {n, f, p}, ctx)};
  SmallVector<utils::IteratorType> iterators = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  auto gemm =
      linalg::GenericOp::create(rewriter, loc, out.getType(), ValueRange{w, x},
                                out, maps, iterators, multiplyAccumulate);
  SmallVector<OpFoldResult> outputShape =
      tensor::getMixedSizes(rewriter, loc, init);
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, resultType, gemm.getResult(0), spatial, outputShape);
  rewriter.replaceOp(conv, result);
}

/// W[F, C] x X[N, C, H*W] -> Y[N, F, H*W] on collapsed views (no copies);
/// a strided 1x1 kernel first copies the input positions it reads
/// (X[:, :, ::sh, ::sw], a quarter of the input at stride 2).
LogicalResult rewriteAsGemm(RewriterBase &rewriter,
                            linalg::Conv2DNchwFchwOp conv, bool transpose) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  SmallVector<int64_t> strides = convAttr(conv, "strides");
  if (!allOnes(strides)) {
    auto inputType = cast<RankedTensorType>(input.getType());
    auto initType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    SmallVector<int64_t> shape = {inputType.getDimSize(0),
                                  inputType.getDimSize(1),
                                  initType.getDimSize(2), initType.getDimSize(3)};
    input = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(shape, inputType.getElementType()),
        input, getAsIndexOpFoldResult(rewriter.getContext(), {0, 0, 0, 0}),
        getAsIndexOpFoldResult(rewriter.getContext(), shape),
        getAsIndexOpFoldResult(rewriter.getContext(),
                               {1, 1, strides[0], strides[1]}));
  }
  Value x = tensor::CollapseShapeOp::create(
      rewriter, loc, input, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value w = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  replaceWithGemm(rewriter, conv, w, x, transpose);
  return success();
}

/// im2col + GEMM. The patches go to P[N, C*KH*KW, OH, OW], copied by one
/// elementwise op over (n, q, oh, ow), q = (c, kh, kw) flattened: the
/// div/mod that recover c, kh and kw from q depend on the outer loop only
/// (LLVM hoists them), the innermost loop writes contiguous OW, the
/// outermost parallel loop (split by threads) runs over the C*KH*KW rows and
/// every row is written sequentially. Upstream's linalg::rewriteInIm2Col
/// divides the flattened inner index as well, which measured several times
/// slower than the GEMM it feeds. Collapsed, P is the GEMM's
/// [N, C*KH*KW, OH*OW] B operand.
LogicalResult rewriteIm2Col(RewriterBase &rewriter,
                            linalg::Conv2DNchwFchwOp conv, bool transpose) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!inputType.hasStaticShape() || !filterType.hasStaticShape() ||
      !outType.hasStaticShape())
    return failure();
  SmallVector<int64_t> strides = convAttr(conv, "strides");
  SmallVector<int64_t> dilations = convAttr(conv, "dilations");
  int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3);
  SmallVector<int64_t> shape = {inputType.getDimSize(0),
                                inputType.getDimSize(1) * kh * kw,
                                outType.getDimSize(2), outType.getDimSize(3)};
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr n, q, oh, ow;
  bindDims(ctx, n, q, oh, ow);
  AffineExpr tap = q % (kh * kw);
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0,
                     {n, q.floorDiv(kh * kw),
                      oh * strides[0] + tap.floorDiv(kw) * dilations[0],
                      ow * strides[1] + (tap % kw) * dilations[1]},
                     ctx),
      AffineMap::getMultiDimIdentityMap(4, ctx)};
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                        inputType.getElementType());
  auto patches = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{input}, ValueRange{empty},
      maps, SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  // After bufferization dlas-vectorize-row-copies copies the rows as vectors.
  patches->setAttr(dlas::kIm2ColAttrName, rewriter.getDenseI64ArrayAttr(
                                              {kh, kw, strides[0], strides[1],
                                               dilations[0], dilations[1]}));
  Value x = tensor::CollapseShapeOp::create(
      rewriter, loc, patches.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value w = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  replaceWithGemm(rewriter, conv, w, x, transpose);
  return success();
}

/// Which of the supported NCHW convolutions `op` is.
enum class ConvKind { Dense, Grouped, Depthwise };

std::optional<ConvKind> convKind(Operation *op) {
  if (isa<linalg::Conv2DNchwFchwOp>(op))
    return ConvKind::Dense;
  if (isa<linalg::Conv2DNgchwGfchwOp>(op))
    return ConvKind::Grouped;
  if (isa<linalg::DepthwiseConv2DNchwChwOp>(op))
    return ConvKind::Depthwise;
  return std::nullopt;
}

/// The static zero padding that produces `v` directly or through an
/// expand_shape that keeps the last two dims (a grouped convolution's
/// channel split), if any.
struct ZeroPadBehind {
  tensor::PadOp pad;
  tensor::ExpandShapeOp expand; // null: `v` is the pad's result
};

std::optional<ZeroPadBehind> zeroPadBehind(Value v) {
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (expand) {
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    int64_t rank = expand.getResultType().getRank();
    if (groups.size() < 2 || groups.back() != ReassociationIndices{rank - 1} ||
        groups[groups.size() - 2] != ReassociationIndices{rank - 2})
      return std::nullopt;
    v = expand.getSrc();
  }
  auto pad = v.getDefiningOp<tensor::PadOp>();
  if (!pad || pad.getNofold() || !pad.getResultType().hasStaticShape() ||
      !pad.getLow().empty() || !pad.getHigh().empty())
    return std::nullopt;
  Value padding = pad.getConstantPaddingValue();
  if (!padding || !(matchPattern(padding, m_AnyZeroFloat()) ||
                    matchPattern(padding, m_Zero())))
    return std::nullopt;
  return ZeroPadBehind{pad, expand};
}

/// `v` with `rows` and `cols` zeros appended to its last two dims (none:
/// `v` itself). Where `v` is itself zero-padded (the convolution's own
/// padding), the rows and columns extend that padding: one buffer filled
/// and copied instead of two (a grouped 32-channel 32x32 layer copied
/// 300 KB twice per call).
Value padSpatialHigh(RewriterBase &rewriter, Location loc, Value v,
                     int64_t rows, int64_t cols) {
  if (rows == 0 && cols == 0)
    return v;
  if (std::optional<ZeroPadBehind> behind = zeroPadBehind(v)) {
    tensor::PadOp pad = behind->pad;
    SmallVector<int64_t> high(pad.getStaticHigh());
    high[high.size() - 2] += rows;
    high[high.size() - 1] += cols;
    SmallVector<int64_t> shape(pad.getResultType().getShape());
    shape[shape.size() - 2] += rows;
    shape[shape.size() - 1] += cols;
    Type element = pad.getResultType().getElementType();
    Value padded = tensor::PadOp::create(
        rewriter, loc, RankedTensorType::get(shape, element), pad.getSource(),
        getAsIndexOpFoldResult(rewriter.getContext(), pad.getStaticLow()),
        getAsIndexOpFoldResult(rewriter.getContext(), high),
        pad.getConstantPaddingValue());
    if (!behind->expand)
      return padded;
    SmallVector<int64_t> expanded(behind->expand.getResultType().getShape());
    expanded[expanded.size() - 2] += rows;
    expanded[expanded.size() - 1] += cols;
    return tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(expanded, element), padded,
        behind->expand.getReassociationIndices());
  }
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  shape[rank - 2] += rows;
  shape[rank - 1] += cols;
  SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> high(rank, rewriter.getIndexAttr(0));
  high[rank - 2] = rewriter.getIndexAttr(rows);
  high[rank - 1] = rewriter.getIndexAttr(cols);
  Value zero = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()), v,
      low, high, zero);
}

/// The reassociation that merges the last two (spatial) of `rank` dims.
SmallVector<ReassociationIndices> spatialRows(int64_t rank) {
  SmallVector<ReassociationIndices> rows;
  for (int64_t d = 0; d < rank - 2; ++d)
    rows.push_back({d});
  rows.push_back({rank - 2, rank - 1});
  return rows;
}

/// Collapses the last two (spatial) dims of `v` into one.
Value collapseSpatial(RewriterBase &rewriter, Location loc, Value v) {
  return tensor::CollapseShapeOp::create(
      rewriter, loc, v,
      spatialRows(cast<RankedTensorType>(v.getType()).getRank()));
}

/// The input position, before the tap's offset, that flat output position
/// `p` reads: p itself when the output rows computed are as wide as the
/// input's (the padded form), else (compact, p = oh * OW + ow) each output
/// row skips the input row's extra columns.
AffineExpr flatInputPosition(AffineExpr p, int64_t outputWidth,
                             int64_t inputWidth) {
  return outputWidth == inputWidth
             ? p
             : p + p.floorDiv(outputWidth) * (inputWidth - outputWidth);
}

/// Replaces `conv` by a flat convolution's result [.., OH * width]: its
/// rows, and of them the first OW columns when `width` > OW.
void replaceWithFlatResult(RewriterBase &rewriter, Operation *conv,
                           Value flat, int64_t width) {
  Location loc = conv->getLoc();
  auto initType = cast<RankedTensorType>(conv->getResultTypes()[0]);
  int64_t rank = initType.getRank();
  SmallVector<int64_t> wideShape(initType.getShape());
  wideShape[rank - 1] = width;
  Value wide = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(wideShape, initType.getElementType()), flat,
      spatialRows(rank));
  if (width == initType.getDimSize(rank - 1))
    return rewriter.replaceOp(conv, wide);
  MLIRContext *ctx = rewriter.getContext();
  rewriter.replaceOp(
      conv, tensor::ExtractSliceOp::create(
                rewriter, loc, initType, wide,
                getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 0)),
                getAsIndexOpFoldResult(ctx, initType.getShape()),
                getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1))));
}

/// Direct convolution on a flattened spatial domain (stride 1 only): with
/// the (padded) input rows laid end to end, output position p = oh * Wp + ow
/// reads input position p + kh * dh * Wp + kw * dw, an affine function of p.
/// The innermost loop then runs over OH * Wp contiguous elements instead of
/// OW; the Wp - OW extra columns per row are computed and dropped. One zero
/// row at the bottom keeps the last taps in bounds.
///
/// `compact` (for dlas-gemm-microkernel) computes only the OH*OW output
/// positions: p = oh * OW + ow reads input p + (p floordiv OW) * (Wp - OW)
/// + tap, which the microkernel loads as one masked load per output row a
/// vector touches; the output needs no padded init and no compaction, and
/// elementwise consumers fold into the kernel's store.
LogicalResult rewriteFlat(RewriterBase &rewriter, linalg::LinalgOp conv,
                          ConvKind kind, ArrayRef<int64_t> dilations,
                          bool compact) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t rank = inputType.getRank(); // 4 (dense, depthwise) or 5 (grouped)
  int64_t wp = inputType.getDimSize(rank - 1);
  int64_t ow = initType.getDimSize(rank - 1);
  int64_t width = compact ? ow : wp; // of the output rows computed
  Value x = collapseSpatial(
      rewriter, loc, padSpatialHigh(rewriter, loc, input, compact ? 0 : 1, 0));
  Value out = collapseSpatial(
      rewriter, loc, padSpatialHigh(rewriter, loc, init, 0, width - ow));

  MLIRContext *ctx = rewriter.getContext();
  auto at = [&](AffineExpr p) { return flatInputPosition(p, width, wp); };
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps;
  SmallVector<utils::IteratorType> iterators;
  auto par = utils::IteratorType::parallel,
       red = utils::IteratorType::reduction;
  switch (kind) {
  case ConvKind::Dense: // (n, f, p, c, kh, kw)
    maps = {AffineMap::get(
                6, 0,
                {d(0), d(3),
                 at(d(2)) + d(4) * (dilations[0] * wp) + d(5) * dilations[1]},
                ctx),
            AffineMap::get(6, 0, {d(1), d(3), d(4), d(5)}, ctx),
            AffineMap::get(6, 0, {d(0), d(1), d(2)}, ctx)};
    iterators = {par, par, par, red, red, red};
    break;
  case ConvKind::Grouped: // (n, g, f, p, c, kh, kw)
    maps = {AffineMap::get(
                7, 0,
                {d(0), d(1), d(4),
                 at(d(3)) + d(5) * (dilations[0] * wp) + d(6) * dilations[1]},
                ctx),
            AffineMap::get(7, 0, {d(1), d(2), d(4), d(5), d(6)}, ctx),
            AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx)};
    iterators = {par, par, par, par, red, red, red};
    break;
  case ConvKind::Depthwise: // (n, c, p, kh, kw)
    maps = {AffineMap::get(
                5, 0,
                {d(0), d(1),
                 at(d(2)) + d(3) * (dilations[0] * wp) + d(4) * dilations[1]},
                ctx),
            AffineMap::get(5, 0, {d(1), d(3), d(4)}, ctx),
            AffineMap::get(5, 0, {d(0), d(1), d(2)}, ctx)};
    iterators = {par, par, par, red, red};
    break;
  }
  auto generic = linalg::GenericOp::create(rewriter, loc, out.getType(),
                                           ValueRange{x, filter}, out, maps,
                                           iterators, multiplyAccumulate);
  replaceWithFlatResult(rewriter, conv, generic.getResult(0), width);
  return success();
}

/// A strided dense or grouped convolution on flattened phase planes. The
/// padded input is split into its sh*sw phases, Q[n, (g,) c, ph, pw, i, j]
/// = X[n, (g,) c, i*sh + ph, j*sw + pw]: one copy of the input, where
/// im2col copies it KH*KW/(sh*sw) times (2.25x at 3x3 stride 2, 12x for
/// ResNet's 7x7 stem). Tap (kh, kw) of output p = oh*Wq + ow then reads
/// phase (kh mod sh, kw mod sw) at p + (kh floordiv sh)*Wq + kw floordiv
/// sw: with each channel's phases laid end to end this is the flat
/// implicit GEMM of stride 1 (Wq - OW extra columns per row, computed and
/// dropped), per group a batch of the GEMM for a grouped convolution.
///
/// `compact`: only the OH*OW output positions, as for rewriteFlat.
LogicalResult rewriteStridedFlat(RewriterBase &rewriter, linalg::LinalgOp conv,
                                 ConvKind kind, ArrayRef<int64_t> strides,
                                 bool compact) {
  assert((kind == ConvKind::Dense || kind == ConvKind::Grouped) &&
         "phase split for dense and grouped convolutions");
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type elementType = inputType.getElementType();
  int64_t rank = inputType.getRank(); // 4 (dense) or 5 (grouped)
  // The dims before the spatial ones: (n, c) or (n, g, c).
  ArrayRef<int64_t> lead = inputType.getShape().drop_back(2);
  int64_t hp = inputType.getDimSize(rank - 2), wp = inputType.getDimSize(rank - 1);
  int64_t kh = filterType.getDimSize(rank - 2), kw = filterType.getDimSize(rank - 1);
  int64_t oh = initType.getDimSize(rank - 2), ow = initType.getDimSize(rank - 1);
  int64_t sh = strides[0], sw = strides[1];
  // One more phase row than the taps need keeps the flat overrun of the
  // last row's right-hand taps in bounds.
  int64_t hq = oh + (kh - 1) / sh + (compact ? 0 : 1), wq = ow + (kw - 1) / sw;
  Value padded = padSpatialHigh(rewriter, loc, input,
                                std::max<int64_t>(0, hq * sh - hp),
                                std::max<int64_t>(0, wq * sw - wp));

  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto par = utils::IteratorType::parallel,
       red = utils::IteratorType::reduction;
  // Q[lead..., ph, pw, i, j] = X[lead..., i*sh + ph, j*sw + pw].
  unsigned l = lead.size(), splitDims = l + 4;
  SmallVector<int64_t> phasesShape(lead);
  phasesShape.append({sh, sw, hq, wq});
  auto phasesType = RankedTensorType::get(phasesShape, elementType);
  SmallVector<AffineExpr> source;
  for (unsigned i = 0; i < l; ++i)
    source.push_back(d(i));
  source.push_back(d(l + 2) * sh + d(l));
  source.push_back(d(l + 3) * sw + d(l + 1));
  Value empty = tensor::EmptyOp::create(rewriter, loc, phasesShape, elementType);
  auto split = linalg::GenericOp::create(
      rewriter, loc, phasesType, ValueRange{padded}, ValueRange{empty},
      SmallVector<AffineMap>{
          AffineMap::get(splitDims, 0, source, ctx),
          AffineMap::getMultiDimIdentityMap(splitDims, ctx)},
      SmallVector<utils::IteratorType>(splitDims, par),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  SmallVector<ReassociationIndices> flatPhases;
  for (unsigned i = 0; i < l; ++i)
    flatPhases.push_back({static_cast<int64_t>(i)});
  flatPhases.push_back({l, l + 1, l + 2, l + 3});
  Value phases = tensor::CollapseShapeOp::create(rewriter, loc,
                                                 split.getResult(0), flatPhases);
  int64_t width = compact ? ow : wq; // of the output rows computed
  Value out = collapseSpatial(
      rewriter, loc, padSpatialHigh(rewriter, loc, init, 0, width - ow));

  // Dense (n, f, p, c, kh, kw); grouped (n, g, f, p, c, kh, kw).
  unsigned b = kind == ConvKind::Grouped ? 1 : 0; // the group dim's shift
  AffineExpr tapH = d(b + 4), tapW = d(b + 5);
  AffineExpr tapOffset = (tapH % sh * sw + tapW % sw) * (hq * wq) +
                         tapH.floorDiv(sh) * wq + tapW.floorDiv(sw);
  AffineExpr position = flatInputPosition(d(b + 2), width, wq) + tapOffset;
  SmallVector<AffineMap> maps =
      kind == ConvKind::Grouped
          ? SmallVector<AffineMap>{AffineMap::get(
                                       7, 0, {d(0), d(1), d(4), position}, ctx),
                                   AffineMap::get(
                                       7, 0, {d(1), d(2), d(4), d(5), d(6)}, ctx),
                                   AffineMap::get(7, 0,
                                                  {d(0), d(1), d(2), d(3)}, ctx)}
          : SmallVector<AffineMap>{
                AffineMap::get(6, 0, {d(0), d(3), position}, ctx),
                AffineMap::get(6, 0, {d(1), d(3), d(4), d(5)}, ctx),
                AffineMap::get(6, 0, {d(0), d(1), d(2)}, ctx)};
  SmallVector<utils::IteratorType> iterators(b + 3, par);
  iterators.append(3, red);
  auto generic = linalg::GenericOp::create(rewriter, loc, out.getType(),
                                           ValueRange{phases, filter}, out,
                                           maps, iterators, multiplyAccumulate);
  replaceWithFlatResult(rewriter, conv, generic.getResult(0), width);
  return success();
}

/// The f32 lanes of the kernels on `op`'s target (0 without one).
int64_t targetLanes(Operation *op) {
  dlas::CPUTargetAttr target = dlas::lookupCPUTarget(op);
  return target ? target.lanes(32) : 0;
}

/// From which size the cost model picks Winograd F(2x2,3x3): the smaller
/// of input and output channels, and 2x2 output tiles per image.
struct WinogradRule {
  int64_t minChannels, minTiles;
  /// The f32 lanes of the targets it was measured for.
  int64_t lanes;
};

/// 16-lane targets (measured on Zen 5, AVX-512, 2026-11-30, with the
/// one-pass vector transforms and F(4x4)): conv + bias + ReLU in NCHW,
/// Winograd against the flat implicit GEMM, 1 thread: 64 -> 64 at 56x56
/// 0.41 ms (F(4x4)) against 0.98, 128 at 28x28 0.44 against 1.02, 256 at
/// 14x14 0.59 (F(2x2)) against 1.07, 160 -> 320 at 7x7 0.14 against 0.25,
/// 48 -> 64 at 28x28 0.12 against 0.19, 32 at 112x112 0.79 against 0.95;
/// inside GoogLeNet 16.6 -> 14.7 ms with the old rule (128 channels, 32
/// tiles) alone. The old rule's losses (ResNet-50's 56x56x64 layer 1.6 ms
/// against 1.06 flat) were the loop-nest transforms'.
constexpr WinogradRule kWideVectorWinograd{64, 16, 16};
/// 8-lane targets (measured on Zen 3, AVX2, inside whole models: GoogLeNet
/// 40.3 -> 31.8 ms, Inception-v3 180 -> 138 ms at 1 thread, 1.17x and
/// 1.31x at 2): with half the FMA width the multiplies saved weigh twice
/// as much against the memory-bound transforms; 64 channels won on every
/// layer measured, 32 (DenseNet-121's 128 -> 32 layers) gained 4% there
/// and lost 2% on Inception-v3, tile counts down to 16 (7x7) won.
constexpr WinogradRule kNarrowVectorWinograd{64, 16, 8};

/// Whether a `winograd` option value is one the pass takes.
bool isWinogradMode(StringRef mode) {
  return llvm::is_contained({"auto", "on", "off", "true", "false"}, mode);
}

/// The cost model's Winograd rule for `conv` under the `winograd` option:
/// `auto` and `on` (`true`) the target's rule (8 or 16 f32 lanes), `off`
/// (`false`) none.
std::optional<WinogradRule> winogradRule(linalg::LinalgOp conv,
                                         StringRef mode) {
  int64_t lanes = targetLanes(conv);
  bool narrow = lanes > 0 && lanes <= 8;
  if (mode == "off" || mode == "false")
    return std::nullopt;
  return narrow ? kNarrowVectorWinograd : kWideVectorWinograd;
}

/// The f32 values of a constant filter (a dense or dense_resource
/// arith.constant), row-major; empty when the filter is not constant.
std::vector<float> constantFilter(Value filter) {
  auto constant = filter.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return {};
  return dlas::widenedFloatValues(constant.getValue())
      .value_or(std::vector<float>());
}

/// A dense 3x3, stride-1, undilated convolution with a constant filter,
/// on f32, or on bf16/f16 into f32 (the transforms widen: the filter's at
/// compile time, the input's as they read it).
bool winogradApplies(linalg::Conv2DNchwFchwOp conv) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Type element = filterType.getElementType();
  return filterType.getDimSize(2) == 3 && filterType.getDimSize(3) == 3 &&
         allOnes(convAttr(conv, "strides")) &&
         allOnes(convAttr(conv, "dilations")) &&
         (element.isF32() || element.isBF16() || element.isF16()) &&
         outType.getElementType().isF32() &&
         conv.getInputs()[1].getDefiningOp<arith::ConstantOp>();
}

/// The smaller of input and output channels.
int64_t winogradChannels(linalg::Conv2DNchwFchwOp conv) {
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  return std::min(filterType.getDimSize(0), filterType.getDimSize(1));
}

/// The transforms cost O(C * tiles) additions and memory passes against
/// the GEMM's O(F * C * tiles) multiplies saved: they pay once both channel
/// counts are large (measured, bench/results).
bool isWinogradWorthIt(linalg::Conv2DNchwFchwOp conv, WinogradRule rule) {
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t tiles = llvm::divideCeil(outType.getDimSize(2), 2) *
                  llvm::divideCeil(outType.getDimSize(3), 2);
  return winogradChannels(conv) >= rule.minChannels && tiles >= rule.minTiles;
}

/// From how many 4x4 output tiles (all images) F(4x4,3x3) replaces
/// F(2x2,3x3) on 8-lane targets. Measured on Zen 3 (x86-64-v3, 1 thread,
/// F(4x4) / F(2x2) time): conv + ReLU alone 0.73 at 64 channels 56x56,
/// 0.78 at 128 28x28, 0.80 at 256 14x14 (16 tiles), 0.61 at 112 -> 224
/// 14x14, 0.85 at 64 112x112; inside GoogLeNet every 56x56, 28x28 and
/// 14x14 layer gained (conv3 6.4 -> 4.4-5.3 ms, inception4a-4e 0.2-0.3 ms
/// each, their 4x larger transformed filters streamed from memory
/// included) while the 7x7 ones (4 tiles: a GEMM 4 columns wide) lost
/// 0.5-0.7 ms each (alone: 0.83 at 512 channels, 1.32 at 160 -> 320).
constexpr int64_t kMinF4Tiles = 16;
/// The same on 16-lane targets, whose GEMM needs twice the columns: on Zen
/// 5 (x86-64-v4) F(4x4) / F(2x2) was 0.58 at 64 channels 56x56, 0.87 at
/// 128 28x28 (49 tiles), 0.88 at 96 -> 128 28x28, but 1.07 at 256 14x14
/// and 1.52 at 128 14x14 (16 tiles), 2.1 at 160 -> 320 7x7.
constexpr int64_t kMinF4TilesWide = 32;

/// Winograd's output tile for `conv` without a tuning entry: the option's,
/// else 4 where there are the target's minimum of 4x4 tiles (kMinF4Tiles,
/// kMinF4TilesWide), else 2.
int64_t winogradTileFor(linalg::Conv2DNchwFchwOp conv,
                        const dlas::SelectConvAlgorithmOptions &options) {
  if (options.winogradTile != 0)
    return options.winogradTile;
  int64_t lanes = targetLanes(conv);
  auto outType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t tiles = outType.getDimSize(0) *
                  llvm::divideCeil(outType.getDimSize(2), 4) *
                  llvm::divideCeil(outType.getDimSize(3), 4);
  int64_t minTiles = lanes > 0 && lanes <= 8 ? kMinF4Tiles : kMinF4TilesWide;
  return tiles >= minTiles ? 4 : 2;
}

/// "Winograd F(mxm,3x3), ...x fewer multiplies" for `conv`.
std::string winogradName(linalg::Conv2DNchwFchwOp conv,
                         const dlas::SelectConvAlgorithmOptions &options) {
  return winogradTileFor(conv, options) == 4
             ? "Winograd F(4x4,3x3), 4x fewer multiplies"
             : "Winograd F(2x2,3x3), 2.25x fewer multiplies";
}

/// Winograd F(m x m, 3x3) (Lavin & Gray), m = 2 or 4: per (m+2)^2 input
/// tile d and filter g, Y = A^T [(G g G^T) . (B^T d B)] A, (m+2)^2
/// multiplies for m^2 outputs instead of 9 m^2 (2.25x fewer at m = 2, 4x at
/// m = 4). The filter transform U = G g G^T runs at compile time (the filter
/// must be a constant); the input and output transforms are contractions
/// with the constant matrices B^T (x) B^T and A^T (x) A^T, marked for
/// dlas-winograd-transforms, which turns each into one pass of vector
/// arithmetic; the (m+2)^2 element-wise products over channels are one
/// batched GEMM M[t] = U[t] x V[t] for the microkernel, t the batch dim of
/// its A.
class WinogradRewriter {
public:
  WinogradRewriter(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                   const dlas::WinogradMatrices &matrices)
      : rw(rewriter), loc(conv.getLoc()), conv(conv), w(matrices),
        elements(matrices.alpha * matrices.alpha) {}

  LogicalResult rewrite() {
    Value input = conv.getInputs()[0], init = conv.getOutputs()[0];
    std::vector<float> g = constantFilter(conv.getInputs()[1]);
    auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto initType = cast<RankedTensorType>(init.getType());
    if (g.empty())
      return failure();
    n = initType.getDimSize(0);
    f = initType.getDimSize(1);
    c = filterType.getDimSize(1);
    oh = initType.getDimSize(2);
    ow = initType.getDimSize(3);
    th = llvm::divideCeil(oh, w.m);
    tw = llvm::divideCeil(ow, w.m);
    f32 = rw.getF32Type();
    zero = arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(0));

    // Input [n, c, m th + 2, m tw + 2] (zero rows/columns more where the
    // output is not a whole number of tiles).
    auto inputType = cast<RankedTensorType>(input.getType());
    Value x = padHigh(input, w.m * th + 2 - inputType.getDimSize(2),
                      w.m * tw + 2 - inputType.getDimSize(3));
    Value v = inputTransform(x);
    Value m = batchedGemm(filterTransform(g), v);
    Value y = outputTransform(m, padHigh(init, w.m * th - oh, w.m * tw - ow));
    if (w.m * th != oh || w.m * tw != ow)
      y = slice(y, {0, 0, 0, 0}, {n, f, oh, ow}, {1, 1, 1, 1});
    rw.replaceOp(conv, y);
    return success();
  }

private:
  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, f32);
  }

  Value padHigh(Value v, int64_t rows, int64_t cols) {
    return padSpatialHigh(rw, loc, v, rows, cols);
  }

  /// A slice of `v`, of its element type (the input's row slices may be
  /// bf16/f16; everything after them is f32).
  Value slice(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides) {
    return tensor::ExtractSliceOp::create(
        rw, loc, RankedTensorType::get(sizes, getElementTypeOrSelf(v)), v,
        getAsIndexOpFoldResult(rw.getContext(), offsets),
        getAsIndexOpFoldResult(rw.getContext(), sizes),
        getAsIndexOpFoldResult(rw.getContext(), strides));
  }

  Value empty(ArrayRef<int64_t> shape) {
    return tensor::EmptyOp::create(rw, loc, shape, f32);
  }

  /// U[t = alpha xi + nu][f][c] = (G g[f][c] G^T)[xi][nu], at compile time
  /// (in double, rounded once).
  Value filterTransform(const std::vector<float> &g) {
    int64_t alpha = w.alpha;
    std::vector<float> u(elements * f * c);
    std::vector<double> gg(alpha * 3); // G g
    for (int64_t fi = 0; fi < f; ++fi) {
      for (int64_t ci = 0; ci < c; ++ci) {
        const float *k = &g[(fi * c + ci) * 9];
        for (int64_t a = 0; a < alpha; ++a)
          for (int64_t j = 0; j < 3; ++j)
            gg[a * 3 + j] =
                w.g[a][0] * k[j] + w.g[a][1] * k[3 + j] + w.g[a][2] * k[6 + j];
        for (int64_t a = 0; a < alpha; ++a)
          for (int64_t b = 0; b < alpha; ++b)
            u[((a * alpha + b) * f + fi) * c + ci] = static_cast<float>(
                gg[a * 3] * w.g[b][0] + gg[a * 3 + 1] * w.g[b][1] +
                gg[a * 3 + 2] * w.g[b][2]);
      }
    }
    auto uType = type({elements, f, c});
    AsmResourceBlob blob = dlas::alignedBlob(ArrayRef<float>(u));
    auto attr = DenseResourceElementsAttr::get(uType, "dlas_winograd_filter",
                                               std::move(blob));
    return arith::ConstantOp::create(rw, loc, uType, attr);
  }

  /// A constant f32 tensor of `shape` holding `values`.
  Value constantTensor(ArrayRef<int64_t> shape, ArrayRef<float> values) {
    auto tensorType = type(shape);
    return arith::ConstantOp::create(
        rw, loc, tensorType, DenseElementsAttr::get(tensorType, values));
  }

  /// V[t = alpha a + b][n][c][i][j] = (B^T d_ij B)[a][b], d_ij[k][l] =
  /// x[n][c][m i + k][m j + l]: one contraction with the constant
  /// T[t][k][l] = B^T[a][k] B^T[b][l] over the window, marked for
  /// dlas-winograd-transforms (which does it in one vector pass; as a loop
  /// nest it is alpha^4 multiplies per tile).
  Value inputTransform(Value x) {
    int64_t alpha = w.alpha;
    std::vector<float> t;
    for (int64_t a = 0; a < alpha; ++a)
      for (int64_t b = 0; b < alpha; ++b)
        for (int64_t k = 0; k < alpha; ++k)
          for (int64_t l = 0; l < alpha; ++l)
            t.push_back(static_cast<float>(w.bt[a][k] * w.bt[b][l]) +
                        0.0f); // no -0
    MLIRContext *ctx = rw.getContext();
    AffineExpr tt, bn, bc, i, j, k, l;
    bindDims(ctx, tt, bn, bc, i, j, k, l);
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0, {bn, bc, w.m * i + k, w.m * j + l}, ctx),
        AffineMap::get(7, 0, {tt, k, l}, ctx),
        AffineMap::get(7, 0, {tt, bn, bc, i, j}, ctx)};
    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;
    Value out =
        linalg::FillOp::create(rw, loc, zero, empty({elements, n, c, th, tw}))
            .getResult(0);
    auto transform = linalg::GenericOp::create(
        rw, loc, out.getType(),
        ValueRange{x, constantTensor({elements, alpha, alpha}, t)}, out, maps,
        {par, par, par, par, par, red, red}, multiplyAccumulate);
    transform->setAttr(dlas::kWinogradInputAttrName, rw.getUnitAttr());
    return transform.getResult(0);
  }

  /// M[t][n][f][p] = sum_c U[t][f][c] V[t][n][c][p], p = i * tw + j.
  Value batchedGemm(Value u, Value v) {
    Value vFlat = tensor::CollapseShapeOp::create(
        rw, loc, v, SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    Value out =
        linalg::FillOp::create(rw, loc, zero, empty({elements, n, f, th * tw}))
            .getResult(0);
    MLIRContext *ctx = rw.getContext();
    AffineExpr t, bn, bf, p, bc;
    bindDims(ctx, t, bn, bf, p, bc);
    SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {t, bf, bc}, ctx),
                                   AffineMap::get(5, 0, {t, bn, bc, p}, ctx),
                                   AffineMap::get(5, 0, {t, bn, bf, p}, ctx)};
    auto par = utils::IteratorType::parallel;
    auto gemm = linalg::GenericOp::create(
        rw, loc, out.getType(), ValueRange{u, vFlat}, out, maps,
        {par, par, par, par, utils::IteratorType::reduction},
        multiplyAccumulate);
    return tensor::ExpandShapeOp::create(
        rw, loc, type({elements, n, f, th, tw}), gemm.getResult(0),
        SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  }

  /// Y[n][f][m i + p][m j + q] = init + (A^T M_ij A)[p][q]: one contraction
  /// over t with the constant A[p][q][t = alpha a + b] = A^T[p][a]
  /// A^T[q][b], into the (padded) init viewed as [n, f, th, m, tw, m],
  /// marked for dlas-winograd-transforms (one vector pass).
  Value outputTransform(Value m, Value init) {
    int64_t alpha = w.alpha;
    std::vector<float> a;
    for (int64_t p = 0; p < w.m; ++p)
      for (int64_t q = 0; q < w.m; ++q)
        for (int64_t x = 0; x < alpha; ++x)
          for (int64_t y = 0; y < alpha; ++y)
            a.push_back(static_cast<float>(w.at[p][x] * w.at[q][y]) + 0.0f);
    MLIRContext *ctx = rw.getContext();
    AffineExpr bn, bf, i, p, j, q, tt;
    bindDims(ctx, bn, bf, i, p, j, q, tt);
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0, {tt, bn, bf, i, j}, ctx),
        AffineMap::get(7, 0, {p, q, tt}, ctx),
        AffineMap::get(7, 0, {bn, bf, i, p, j, q}, ctx)};
    SmallVector<ReassociationIndices> phases = {{0}, {1}, {2, 3}, {4, 5}};
    Value y = tensor::ExpandShapeOp::create(
        rw, loc, type({n, f, th, w.m, tw, w.m}), init, phases);
    auto par = utils::IteratorType::parallel;
    auto transform = linalg::GenericOp::create(
        rw, loc, y.getType(),
        ValueRange{m, constantTensor({w.m, w.m, elements}, a)}, y, maps,
        {par, par, par, par, par, par, utils::IteratorType::reduction},
        multiplyAccumulate);
    transform->setAttr(dlas::kWinogradOutputAttrName, rw.getUnitAttr());
    return tensor::CollapseShapeOp::create(rw, loc, transform.getResult(0),
                                           phases);
  }

  RewriterBase &rw;
  Location loc;
  linalg::Conv2DNchwFchwOp conv;
  const dlas::WinogradMatrices &w;
  int64_t elements;
  int64_t n = 0, f = 0, c = 0, oh = 0, ow = 0, th = 0, tw = 0;
  Type f32;
  Value zero;
};

/// The L1 size the cost model assumes: the option, else the target's,
/// else 48 KiB (a fixed value, so that the choice never depends on the
/// machine the compiler runs on).
int64_t l1Bytes(Operation *op,
                const dlas::SelectConvAlgorithmOptions &options) {
  if (options.l1CacheBytes > 0)
    return options.l1CacheBytes;
  if (dlas::CPUTargetAttr target = dlas::lookupCPUTarget(op))
    return target.getL1();
  return 48 * 1024;
}

bool isInt8(linalg::LinalgOp conv) {
  return getElementTypeOrSelf(conv.getDpsInputs()[0].getType()).isInteger(8);
}

/// What `wanted`, requested by `who`, becomes for `conv`: itself where it
/// applies, else the nearest that does (`why` says which).
ConvAlgorithm requestedAlgorithm(linalg::LinalgOp conv, ConvAlgorithm wanted,
                                 StringRef who, std::string &why) {
  auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
  bool unitStride = allOnes(convAttr(conv, "strides"));
  bool stridedFlat =
      (dense || isa<linalg::Conv2DNgchwGfchwOp>(conv.getOperation())) &&
      allOnes(convAttr(conv, "dilations"));
  auto instead = [&](StringRef needs, ConvAlgorithm other) {
    why = (who + " " + dlas::convAlgorithmName(wanted) + " needs " + needs +
           "; " + dlas::convAlgorithmName(other) + " instead")
              .str();
    return other;
  };
  if (wanted == ConvAlgorithm::Gemm && !(dense && isPointwise(dense)))
    return instead("a dense 1x1 kernel",
                   dense ? ConvAlgorithm::Im2Col : ConvAlgorithm::Direct);
  if (wanted == ConvAlgorithm::Im2Col && !dense)
    return instead("a dense convolution", ConvAlgorithm::Direct);
  if (wanted == ConvAlgorithm::Flat && !unitStride && !stridedFlat)
    return instead("stride 1, or a dense or grouped undilated kernel for its "
                   "phase split",
                   ConvAlgorithm::Direct);
  if (wanted == ConvAlgorithm::Winograd && !(dense && winogradApplies(dense)))
    return instead("a dense 3x3 stride-1 undilated convolution with a "
                   "constant filter",
                   ConvAlgorithm::Direct);
  why = who.str();
  return wanted;
}

/// True for a bf16 convolution whose target multiplies bf16 pairs
/// (vdpbf16ps) at its vector width.
bool hasBF16DotProduct(linalg::LinalgOp conv) {
  Type input = getElementTypeOrSelf(conv.getDpsInputs()[0].getType());
  return input.isBF16() && dlas::hasBF16DotProduct(dlas::lookupCPUTarget(conv),
                                                   targetLanes(conv));
}

/// True for a convolution on bf16 or f16 inputs.
bool isNarrowFloat(linalg::LinalgOp conv) {
  Type input = getElementTypeOrSelf(conv.getDpsInputs()[0].getType());
  return input.isBF16() || input.isF16();
}

/// The cost model's algorithm for `conv`.
ConvAlgorithm
costModelAlgorithm(linalg::LinalgOp conv,
                   const dlas::SelectConvAlgorithmOptions &options,
                   std::string &why) {
  ConvKind kind = *convKind(conv);
  bool unitStride = allOnes(convAttr(conv, "strides"));
  auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
  bool pointwise = dense && isPointwise(dense);
  bool winogradApplicable = dense && winogradApplies(dense);
  bool stridedFlat =
      (dense || isa<linalg::Conv2DNgchwGfchwOp>(conv.getOperation())) &&
      allOnes(convAttr(conv, "dilations"));
  bool microkernels = options.microkernels;
  // Rules from measurements on AVX-512 (bench/results): the innermost
  // vectorized loop should be long and contiguous, and copies are paid
  // only where nothing else gives such a loop.
  if (pointwise)
    return why = unitStride ? "1x1 kernel: a GEMM without copies"
                            : "strided 1x1 kernel: subsampled input, GEMM",
           ConvAlgorithm::Gemm;
  // vpdpbusd and vpmaddubsw need B packed in k quads, which the flat
  // convolution's shifted rows do not allow; the im2col matrix packs
  // like a matrix.
  if (dense && microkernels && isInt8(conv)) {
    dlas::Int8Multiply multiply =
        dlas::int8MultiplyOf(dlas::lookupCPUTarget(conv), targetLanes(conv));
    if (multiply == dlas::Int8Multiply::dotProduct)
      return why = "int8 with VNNI: im2col, for the GEMM on vpdpbusd",
             ConvAlgorithm::Im2Col;
    if (multiply == dlas::Int8Multiply::pairs)
      return why = "int8: im2col, for the GEMM on vpmaddubsw pairs",
             ConvAlgorithm::Im2Col;
  }
  // AMX multiplies so fast that Winograd's transforms would cost more than
  // the multiplies they save; the im2col matrix packs into k pairs.
  if (dense && microkernels && targetLanes(conv) == 16 &&
      dlas::hasAmxTilesFor(dlas::lookupCPUTarget(conv),
                           getElementTypeOrSelf(conv.getDpsInputs()[0])))
    return why = "AMX tiles for its operands: im2col, for the GEMM on "
                 "them",
           ConvAlgorithm::Im2Col;
  if (kind == ConvKind::Depthwise && microkernels)
    return why = "depthwise: direct, for the depthwise microkernel",
           ConvAlgorithm::Direct;
  std::optional<WinogradRule> winograd =
      winogradApplicable && microkernels ? winogradRule(conv, options.winograd)
                                         : std::nullopt;
  // With vdpbf16ps a bf16 GEMM runs twice the f32 FMA rate, which
  // Winograd's f32 GEMM beats only with F(4x4)'s 4x fewer multiplies
  // (x86-64-v4 + avx512bf16, Zen 5, conv + ReLU: 64 channels 56x56 0.45 ms
  // against 0.56, 128 at 28x28 0.45 against 0.50; F(2x2) at 256 14x14
  // 0.58 against 0.52).
  if (winograd && isNarrowFloat(conv) && hasBF16DotProduct(conv) &&
      winogradTileFor(dense, options) != 4)
    winograd = std::nullopt;
  if (winograd && isWinogradWorthIt(dense, *winograd))
    return why = "3x3 stride 1, constant filter, >= " +
                 std::to_string(winograd->minChannels) +
                 " channels, >= " + std::to_string(winograd->minTiles) +
                 " tiles (the " + std::to_string(winograd->lanes) +
                 "-lane rule): " + winogradName(dense, options),
           ConvAlgorithm::Winograd;
  // bf16/f16: the GEMM widens B into f32 as it packs it, which the flat
  // convolution's shifted rows do not allow (they widen at every FMA); the
  // im2col matrix packs like a matrix (x86-64-v3, 128 channels, 3x3, bf16:
  // 56x56 14.1 -> 11.9 ms, stride 2 4.2 -> 3.2 ms; f32 flat 11.0, 3.2).
  // With AVX512-BF16 the GEMM packs bf16 B in k pairs for vdpbf16ps,
  // which again only a matrix allows.
  if (dense && microkernels && isNarrowFloat(conv))
    return why = hasBF16DotProduct(conv)
                     ? "bf16 with AVX512-BF16: im2col, for the GEMM on "
                       "vdpbf16ps that packs the patch matrix in k pairs"
                     : "bf16/f16: im2col, for the GEMM that widens the patch "
                       "matrix as it packs it",
           ConvAlgorithm::Im2Col;
  if (unitStride && kind != ConvKind::Depthwise && microkernels)
    return why = std::string("stride 1, ") +
                 (kind == ConvKind::Dense ? "dense" : "grouped") +
                 ": flat implicit GEMM for the microkernel",
           ConvAlgorithm::Flat;
  if (!unitStride && stridedFlat && microkernels)
    return why = std::string("strided ") +
                 (dense ? "dense" : "grouped") +
                 ": flat implicit GEMM over the input's stride phases (one "
                 "copy of the input, im2col makes KH*KW/(sh*sw))",
           ConvAlgorithm::Flat;
  if (unitStride) {
    // The flat loop sweeps the whole output plane once per filter tap:
    // worth it while that plane stays in L1 next to its input rows.
    auto resultType = cast<RankedTensorType>(conv->getResultTypes()[0]);
    auto inputType = cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
    int64_t plane = resultType.getDimSize(resultType.getRank() - 2) *
                    inputType.getDimSize(inputType.getRank() - 1) * 4;
    int64_t width = resultType.getDimSize(resultType.getRank() - 1);
    // Grouped and depthwise rows of at least min-direct-width run as fast
    // direct (the window unrolled around a vectorized row).
    if (kind != ConvKind::Dense && width >= options.minDirectWidth)
      return why = "stride 1, output width " + std::to_string(width) +
                   " >= " + std::to_string(options.minDirectWidth) +
                   ": direct rows",
             ConvAlgorithm::Direct;
    if (plane * 3 <= l1Bytes(conv, options))
      return why = "stride 1, output plane " + std::to_string(plane) +
                   " B fits a third of L1: innermost loop over Ho*Wp, no copy",
             ConvAlgorithm::Flat;
    if (kind != ConvKind::Dense)
      return why = "stride 1, output plane " + std::to_string(plane) +
                   " B too large for L1: direct rows",
             ConvAlgorithm::Direct;
    return why = "stride 1, output plane " + std::to_string(plane) +
                 " B too large for L1: im2col",
           ConvAlgorithm::Im2Col;
  }
  if (kind == ConvKind::Dense)
    return why = "strided: im2col makes the innermost loop Ho*Wo",
           ConvAlgorithm::Im2Col;
  return why = std::string("strided ") +
               (kind == ConvKind::Grouped ? "grouped" : "depthwise") +
               ": no copy-free long loop",
         ConvAlgorithm::Direct;
}

} // namespace

StringRef dlas::convAlgorithmName(ConvAlgorithm algorithm) {
  switch (algorithm) {
  case ConvAlgorithm::Direct:
    return "direct";
  case ConvAlgorithm::Gemm:
    return "gemm";
  case ConvAlgorithm::Im2Col:
    return "im2col";
  case ConvAlgorithm::Flat:
    return "flat";
  case ConvAlgorithm::Winograd:
    return "winograd";
  }
  llvm_unreachable("unknown algorithm");
}

std::optional<ConvAlgorithm> dlas::parseConvAlgorithm(StringRef name) {
  for (ConvAlgorithm a :
       {ConvAlgorithm::Direct, ConvAlgorithm::Gemm, ConvAlgorithm::Im2Col,
        ConvAlgorithm::Flat, ConvAlgorithm::Winograd})
    if (convAlgorithmName(a) == name)
      return a;
  return std::nullopt;
}

std::optional<std::string> dlas::convAlgorithmKey(linalg::LinalgOp conv) {
  auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
  if (!dense)
    return std::nullopt;
  auto input = dyn_cast<RankedTensorType>(dense.getInputs()[0].getType());
  auto filter = dyn_cast<RankedTensorType>(dense.getInputs()[1].getType());
  auto output = dyn_cast<RankedTensorType>(dense.getOutputs()[0].getType());
  if (!input || !filter || !output || !input.hasStaticShape() ||
      !filter.hasStaticShape() || !output.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides = convAttr(conv, "strides");
  SmallVector<int64_t> dilations = convAttr(conv, "dilations");
  std::string key;
  llvm::raw_string_ostream os(key);
  if (input.getDimSize(0) != 1)
    os << "b" << input.getDimSize(0) << "_";
  os << "c" << input.getDimSize(1) << "_f" << filter.getDimSize(0) << "_i"
     << input.getDimSize(2) << "x" << input.getDimSize(3) << "_o"
     << output.getDimSize(2) << "x" << output.getDimSize(3) << "_k"
     << filter.getDimSize(2) << "x" << filter.getDimSize(3) << "_s"
     << strides[0] << "x" << strides[1];
  if (!allOnes(dilations))
    os << "_d" << dilations[0] << "x" << dilations[1];
  return key;
}

SmallVector<ConvAlgorithm> dlas::tunableConvAlgorithms(linalg::LinalgOp conv) {
  auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
  // A 1x1 kernel is one GEMM whichever way it is written.
  if (!convAlgorithmKey(conv) || isPointwise(dense))
    return {};
  SmallVector<ConvAlgorithm> algorithms;
  if (allOnes(convAttr(conv, "strides")) ||
      allOnes(convAttr(conv, "dilations")))
    algorithms.push_back(ConvAlgorithm::Flat);
  algorithms.push_back(ConvAlgorithm::Im2Col);
  if (winogradApplies(dense))
    algorithms.push_back(ConvAlgorithm::Winograd);
  if (algorithms.size() < 2)
    return {};
  return algorithms;
}

FailureOr<ConvAlgorithm>
dlas::chooseConvAlgorithm(linalg::LinalgOp conv,
                          const SelectConvAlgorithmOptions &options,
                          const TuningTable *tuning, std::string &why) {
  if (Attribute attr = conv->getAttr(kConvAlgorithmAttrName)) {
    auto name = dyn_cast<StringAttr>(attr);
    std::optional<ConvAlgorithm> wanted =
        name ? parseConvAlgorithm(name.getValue()) : std::nullopt;
    if (!wanted)
      return conv->emitError()
             << "'" << kConvAlgorithmAttrName
             << "' must be one of \"direct\", \"gemm\", \"im2col\", "
                "\"flat\", \"winograd\"";
    return requestedAlgorithm(conv, *wanted, "overridden", why);
  }
  // Entries are measured on f32 layers (dlas-tune's); an int8
  // convolution's algorithm follows its multiply kernel (im2col for the
  // k-quad GEMMs).
  std::optional<std::string> key = convAlgorithmKey(conv);
  if (key && tuning && !isInt8(conv)) {
    dlas::CPUTargetAttr target = dlas::lookupCPUTarget(conv);
    if (DictionaryAttr entry = tuning->lookup(kConvAlgorithmSection, *key,
                                              target ? target.getCpu() : ""))
      if (auto name = entry.getAs<StringAttr>("algorithm"))
        return requestedAlgorithm(conv, *parseConvAlgorithm(name.getValue()),
                                  "tuned", why);
  }
  if (options.algorithm != "auto")
    return requestedAlgorithm(conv, *parseConvAlgorithm(options.algorithm),
                              "forced", why);
  return costModelAlgorithm(conv, options, why);
}

FailureOr<int64_t>
dlas::chooseWinogradTile(linalg::LinalgOp conv,
                         const SelectConvAlgorithmOptions &options,
                         const TuningTable *tuning) {
  auto dense = cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
  std::optional<std::string> key = convAlgorithmKey(conv);
  if (key && tuning) {
    dlas::CPUTargetAttr target = dlas::lookupCPUTarget(conv);
    if (DictionaryAttr entry = tuning->lookup(kConvAlgorithmSection, *key,
                                              target ? target.getCpu() : ""))
      if (auto tile = entry.getAs<IntegerAttr>(kWinogradTileKey)) {
        if (!winogradMatrices(tile.getInt()))
          return conv->emitError()
                 << "tuning entry '" << *key << "': " << kWinogradTileKey << " "
                 << tile.getInt() << " is not 2 or 4";
        return tile.getInt();
      }
  }
  return winogradTileFor(dense, options);
}

namespace {

struct SelectConvAlgorithmPass
    : dlas::impl::SelectConvAlgorithmBase<SelectConvAlgorithmPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (algorithm != "auto" && !dlas::parseConvAlgorithm(algorithm))
      return emitError(UnknownLoc::get(context))
             << getArgument() << ": algorithm '" << algorithm
             << "' is not one of auto, direct, gemm, im2col, flat, winograd";
    if (!isWinogradMode(winograd))
      return emitError(UnknownLoc::get(context))
             << getArgument() << ": winograd '" << winograd
             << "' is not one of auto, on, off";
    if (winogradTile != 0 && !dlas::winogradMatrices(winogradTile))
      return emitError(UnknownLoc::get(context))
             << getArgument() << ": winograd-tile " << int64_t(winogradTile)
             << " is not one of 0 (auto), 2, 4";
    return dlas::loadTuningFile(context, tuningFile, tuningTable);
  }

  /// The options as chooseConvAlgorithm takes them.
  dlas::SelectConvAlgorithmOptions options() const {
    dlas::SelectConvAlgorithmOptions o;
    o.algorithm = algorithm;
    o.minDirectWidth = minDirectWidth;
    o.l1CacheBytes = l1CacheBytes;
    o.microkernels = microkernels;
    o.winograd = winograd;
    o.winogradTile = winogradTile;
    o.compactFlatMinWidth = compactFlatMinWidth;
    return o;
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> convs;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (convKind(op))
        convs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    dlas::SelectConvAlgorithmOptions chooser = options();
    for (linalg::LinalgOp conv : convs) {
      auto resultType = dyn_cast<RankedTensorType>(conv->getResultTypes()[0]);
      auto inputType =
          dyn_cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
      // f32 results (f32, bf16 or f16 operands) and i32 ones (i8).
      Type resultElement =
          resultType ? resultType.getElementType() : Type();
      if (!resultType || !inputType ||
          resultElement !=
              dlas::kernelAccumulatorType(inputType.getElementType()) ||
          !resultType.hasStaticShape() || !inputType.hasStaticShape()) {
        ++numDirect;
        continue;
      }
      ConvKind kind = *convKind(conv);
      SmallVector<int64_t> strides = convAttr(conv, "strides");
      SmallVector<int64_t> dilations = convAttr(conv, "dilations");
      std::string why;
      FailureOr<ConvAlgorithm> chosen =
          dlas::chooseConvAlgorithm(conv, chooser, tuningTable.get(), why);
      if (failed(chosen))
        return signalPassFailure();
      ConvAlgorithm choice = *chosen;
      if (print) {
        InFlightDiagnostic remark =
            conv.emitRemark()
            << "convolution algorithm: " << dlas::convAlgorithmName(choice)
            << " (" << why << ")";
        if (std::optional<std::string> key = dlas::convAlgorithmKey(conv))
          remark << ", key " << *key;
      }
      rewriter.setInsertionPoint(conv);
      auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
      // AMX tiles are 16 rows by 16 columns: a 7x7 plane wastes rows
      // transposed as it wastes columns as it is.
      bool amx = dlas::hasAmxTilesFor(dlas::lookupCPUTarget(conv),
                                      inputType.getElementType());
      bool transpose = transposedGemm && microkernels && dense && !amx &&
                       transposedGemmPays(dense, targetLanes(conv));
      switch (choice) {
      case ConvAlgorithm::Direct:
        ++numDirect;
        break;
      case ConvAlgorithm::Gemm:
        if (succeeded(rewriteAsGemm(rewriter, dense, transpose)))
          ++numGemm;
        break;
      case ConvAlgorithm::Im2Col:
        if (succeeded(rewriteIm2Col(rewriter, dense, transpose)))
          ++numIm2Col;
        break;
      case ConvAlgorithm::Flat: {
        // Rows narrower than a vector make one vector span 3+ rows (a
        // masked load each): measured slower than the padded-width form.
        // Compact B vectors are masked loads; without AVX-512's mask
        // registers (vmaskmovps) they cost 3x: x86-64-v3 code on a Zen 5
        // host ran the ResNet-50 stem in 8.1 ms compact, 2.7 ms padded.
        // Rows of whole vectors need no masks at all: each vector of B
        // lies in one row, and the compact form drops the padded-width
        // copy out and the extra input row (x86-64-v3 on Zen 3, 1 thread,
        // min of 300 runs: 4-channel groups, 64 channels at 56x56
        // 0.28-0.30 -> 0.26 ms, 32 channels at 32x32 0.056-0.060 ->
        // 0.047-0.051; 40 -> 80 channels at 56x56 2.22-2.24 -> 2.10-2.12).
        // Rows of a half or a quarter vector (8 or 4 of 16 lanes) are
        // compact too: the kernel's column vectors start at multiples of
        // the vector, so each covers 2 or 4 whole rows, a masked load each,
        // and the padded-width form would compute 25-50% more columns and
        // copy the output out (x86-64-v4 on Zen 4, 1 thread, best of 4
        // processes: 24 -> 24 channels at 8x8 0.0087 -> 0.0069 ms, 40 -> 72
        // at 8x8 0.037 -> 0.032, at 4x4 0.016 -> 0.009; 128 channels 8x8
        // G(16) 0.0148 -> 0.0139). At 2x2 (8 loads a vector) it gained
        // nothing.
        dlas::CPUTargetAttr target = dlas::lookupCPUTarget(conv);
        bool cheapMaskedLoads = !target || target.hasFeature("avx512f");
        int64_t outputWidth = resultType.getDimSize(resultType.getRank() - 1);
        int64_t lanes = target ? target.lanes(32) : 16;
        bool wholeVectorRows = target && outputWidth % lanes == 0;
        bool rowsPerVector = lanes % outputWidth == 0 &&
                             lanes / outputWidth <= kMaxCompactRowsPerVector;
        bool compact =
            microkernels &&
            ((cheapMaskedLoads &&
              (outputWidth >= compactFlatMinWidth || rowsPerVector)) ||
             wholeVectorRows);
        if (allOnes(strides) ? succeeded(rewriteFlat(rewriter, conv, kind,
                                                     dilations, compact))
                             : succeeded(rewriteStridedFlat(
                                   rewriter, conv, kind, strides, compact)))
          ++numFlat;
        break;
      }
      case ConvAlgorithm::Winograd: {
        FailureOr<int64_t> tile =
            dlas::chooseWinogradTile(conv, chooser, tuningTable.get());
        if (failed(tile))
          return signalPassFailure();
        if (succeeded(WinogradRewriter(rewriter, dense,
                                       *dlas::winogradMatrices(*tile))
                          .rewrite()))
          ++numWinograd;
        break;
      }
      }
    }
  }

  std::shared_ptr<const dlas::TuningTable> tuningTable;
};
} // namespace
