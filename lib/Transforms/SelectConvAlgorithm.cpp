//===- SelectConvAlgorithm.cpp - the dlas-select-conv-algorithm pass ------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_SELECTCONVALGORITHM
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

enum class ConvAlgorithm { Direct, Gemm, Im2Col, Flat };

StringRef name(ConvAlgorithm a) {
  switch (a) {
  case ConvAlgorithm::Direct:
    return "direct";
  case ConvAlgorithm::Gemm:
    return "gemm";
  case ConvAlgorithm::Im2Col:
    return "im2col";
  case ConvAlgorithm::Flat:
    return "flat";
  }
  llvm_unreachable("unknown algorithm");
}

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

/// Body of the contraction generics: out += lhs * rhs.
void multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
  linalg::YieldOp::create(
      b, loc, arith::AddFOp::create(b, loc, args[2], product).getResult());
}

/// Y[N, F, P] += W[F, K] x X[N, K, P] on `conv`'s output collapsed to
/// [N, F, OH*OW]; replaces `conv` with the expanded result.
void replaceWithGemm(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                     Value w, Value x) {
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
                            linalg::Conv2DNchwFchwOp conv) {
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
  replaceWithGemm(rewriter, conv, w, x);
  return success();
}

/// im2col + GEMM. The patches go to P[N, C, KH, KW, OH, OW], copied by one
/// elementwise op with affine (div/mod-free) indices whose innermost loop
/// writes contiguous OW: upstream's linalg::rewriteInIm2Col indexes the
/// input with floordiv/mod of the flattened dims, which measured several
/// times slower than the GEMM it feeds. Collapsed, P is the GEMM's
/// [N, C*KH*KW, OH*OW] B operand.
LogicalResult rewriteIm2Col(RewriterBase &rewriter,
                            linalg::Conv2DNchwFchwOp conv) {
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
  SmallVector<int64_t> shape = {
      inputType.getDimSize(0), inputType.getDimSize(1),
      filterType.getDimSize(2), filterType.getDimSize(3),
      outType.getDimSize(2),   outType.getDimSize(3)};
  MLIRContext *ctx = rewriter.getContext();
  // Loops (n, oh, c, kh, kw, ow): the outermost parallel loop, the one
  // threads split, runs over output rows rather than the (often 3) input
  // channels; the innermost writes contiguous OW.
  AffineExpr n, oh, c, kh, kw, ow;
  bindDims(ctx, n, oh, c, kh, kw, ow);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0,
                     {n, c, oh * strides[0] + kh * dilations[0],
                      ow * strides[1] + kw * dilations[1]},
                     ctx),
      AffineMap::get(6, 0, {n, c, kh, kw, oh, ow}, ctx)};
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                        inputType.getElementType());
  auto patches = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{input}, ValueRange{empty},
      maps, SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  Value x = tensor::CollapseShapeOp::create(
      rewriter, loc, patches.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
  Value w = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  replaceWithGemm(rewriter, conv, w, x);
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

/// Direct convolution on a flattened spatial domain (stride 1 only): with
/// the (padded) input rows laid end to end, output position p = oh * Wp + ow
/// reads input position p + kh * dh * Wp + kw * dw, an affine function of p.
/// The innermost loop then runs over OH * Wp contiguous elements instead of
/// OW; the Wp - OW extra columns per row are computed and dropped. One zero
/// row at the bottom keeps the last taps in bounds.
LogicalResult rewriteFlat(RewriterBase &rewriter, linalg::LinalgOp conv,
                          ConvKind kind, ArrayRef<int64_t> dilations) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t rank = inputType.getRank(); // 4 (dense, depthwise) or 5 (grouped)
  int64_t wp = inputType.getDimSize(rank - 1);
  int64_t ow = initType.getDimSize(rank - 1);
  Type elementType = inputType.getElementType();
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getZeroAttr(elementType));
  auto padHigh = [&](Value v, int64_t rows, int64_t cols) -> Value {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[rank - 2] += rows;
    shape[rank - 1] += cols;
    SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> high(rank, rewriter.getIndexAttr(0));
    high[rank - 2] = rewriter.getIndexAttr(rows);
    high[rank - 1] = rewriter.getIndexAttr(cols);
    return tensor::PadOp::create(rewriter, loc,
                                 RankedTensorType::get(shape, elementType), v,
                                 low, high, zero);
  };
  SmallVector<ReassociationIndices> flatten;
  for (int64_t d = 0; d < rank - 2; ++d)
    flatten.push_back({d});
  flatten.push_back({rank - 2, rank - 1});
  Value x = tensor::CollapseShapeOp::create(rewriter, loc, padHigh(input, 1, 0),
                                            flatten);
  Value out = tensor::CollapseShapeOp::create(
      rewriter, loc, padHigh(init, 0, wp - ow), flatten);

  MLIRContext *ctx = rewriter.getContext();
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
                 d(2) + d(4) * (dilations[0] * wp) + d(5) * dilations[1]},
                ctx),
            AffineMap::get(6, 0, {d(1), d(3), d(4), d(5)}, ctx),
            AffineMap::get(6, 0, {d(0), d(1), d(2)}, ctx)};
    iterators = {par, par, par, red, red, red};
    break;
  case ConvKind::Grouped: // (n, g, f, p, c, kh, kw)
    maps = {AffineMap::get(
                7, 0,
                {d(0), d(1), d(4),
                 d(3) + d(5) * (dilations[0] * wp) + d(6) * dilations[1]},
                ctx),
            AffineMap::get(7, 0, {d(1), d(2), d(4), d(5), d(6)}, ctx),
            AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx)};
    iterators = {par, par, par, par, red, red, red};
    break;
  case ConvKind::Depthwise: // (n, c, p, kh, kw)
    maps = {AffineMap::get(
                5, 0,
                {d(0), d(1),
                 d(2) + d(3) * (dilations[0] * wp) + d(4) * dilations[1]},
                ctx),
            AffineMap::get(5, 0, {d(1), d(3), d(4)}, ctx),
            AffineMap::get(5, 0, {d(0), d(1), d(2)}, ctx)};
    iterators = {par, par, par, red, red};
    break;
  }
  auto generic = linalg::GenericOp::create(rewriter, loc, out.getType(),
                                           ValueRange{x, filter}, out, maps,
                                           iterators, multiplyAccumulate);
  // [.., OH * Wp] -> [.., OH, Wp] -> the first OW columns.
  SmallVector<int64_t> wideShape(initType.getShape());
  wideShape[rank - 1] = wp;
  auto wideType = RankedTensorType::get(wideShape, elementType);
  Value wide = tensor::ExpandShapeOp::create(rewriter, loc, wideType,
                                             generic.getResult(0), flatten);
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : initType.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  Value result = tensor::ExtractSliceOp::create(rewriter, loc, initType, wide,
                                                offsets, sizes, strides);
  rewriter.replaceOp(conv, result);
  return success();
}

struct SelectConvAlgorithmPass
    : dlas::impl::SelectConvAlgorithmBase<SelectConvAlgorithmPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    if (algorithm != "auto" && algorithm != "direct" && algorithm != "gemm" &&
        algorithm != "im2col" && algorithm != "flat")
      return failure();
    return success();
  }

  ConvAlgorithm choose(linalg::LinalgOp conv, ConvKind kind, bool unitStride,
                       std::string &why) {
    auto dense = dyn_cast<linalg::Conv2DNchwFchwOp>(conv.getOperation());
    bool pointwise = dense && isPointwise(dense);
    auto fallback = [&](ConvAlgorithm wanted) {
      // What a forced algorithm becomes where it does not apply.
      if (wanted == ConvAlgorithm::Gemm && !pointwise)
        return why = "forced gemm needs a dense 1x1 kernel; " +
                     std::string(dense ? "im2col" : "direct") + " instead",
               dense ? ConvAlgorithm::Im2Col : ConvAlgorithm::Direct;
      if (wanted == ConvAlgorithm::Im2Col && !dense)
        return why = "forced im2col applies to dense convolutions; direct "
                     "instead",
               ConvAlgorithm::Direct;
      if (wanted == ConvAlgorithm::Flat && !unitStride)
        return why = "forced flat needs stride 1; direct instead",
               ConvAlgorithm::Direct;
      return why = "forced", wanted;
    };
    if (algorithm == "direct")
      return why = "forced", ConvAlgorithm::Direct;
    if (algorithm == "im2col")
      return fallback(ConvAlgorithm::Im2Col);
    if (algorithm == "gemm")
      return fallback(ConvAlgorithm::Gemm);
    if (algorithm == "flat")
      return fallback(ConvAlgorithm::Flat);

    // Rules from measurements on AVX-512 (bench/results): the innermost
    // vectorized loop should be long and contiguous, and copies are paid
    // only where nothing else gives such a loop.
    if (pointwise)
      return why = unitStride ? "1x1 kernel: a GEMM without copies"
                              : "strided 1x1 kernel: subsampled input, GEMM",
             ConvAlgorithm::Gemm;
    if (kind == ConvKind::Depthwise && microkernels)
      return why = "depthwise: direct, for the depthwise microkernel",
             ConvAlgorithm::Direct;
    if (unitStride && kind != ConvKind::Depthwise && microkernels)
      return why = std::string("stride 1, ") +
                       (kind == ConvKind::Dense ? "dense" : "grouped") +
                       ": flat implicit GEMM for the microkernel",
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
      if (kind != ConvKind::Dense && width >= minDirectWidth)
        return why = "stride 1, output width " + std::to_string(width) +
                     " >= " + std::to_string(minDirectWidth) + ": direct rows",
               ConvAlgorithm::Direct;
      if (plane * 3 <= l1CacheBytes)
        return why =
                   "stride 1, output plane " + std::to_string(plane) +
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

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> convs;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (convKind(op))
        convs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp conv : convs) {
      auto resultType = dyn_cast<RankedTensorType>(conv->getResultTypes()[0]);
      auto inputType =
          dyn_cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
      if (!resultType || !inputType || !resultType.getElementType().isF32() ||
          !resultType.hasStaticShape() || !inputType.hasStaticShape()) {
        ++numDirect;
        continue;
      }
      ConvKind kind = *convKind(conv);
      SmallVector<int64_t> strides = convAttr(conv, "strides");
      SmallVector<int64_t> dilations = convAttr(conv, "dilations");
      std::string why;
      ConvAlgorithm choice = choose(conv, kind, allOnes(strides), why);
      if (print)
        conv.emitRemark() << "convolution algorithm: " << name(choice) << " ("
                          << why << ")";
      rewriter.setInsertionPoint(conv);
      switch (choice) {
      case ConvAlgorithm::Direct:
        ++numDirect;
        break;
      case ConvAlgorithm::Gemm:
        if (succeeded(rewriteAsGemm(
                rewriter, cast<linalg::Conv2DNchwFchwOp>(conv.getOperation()))))
          ++numGemm;
        break;
      case ConvAlgorithm::Im2Col:
        if (succeeded(rewriteIm2Col(
                rewriter, cast<linalg::Conv2DNchwFchwOp>(conv.getOperation()))))
          ++numIm2Col;
        break;
      case ConvAlgorithm::Flat:
        if (succeeded(rewriteFlat(rewriter, conv, kind, dilations)))
          ++numFlat;
        break;

      }
    }
  }
};
} // namespace
