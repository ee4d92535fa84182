//===- SelectConvAlgorithm.cpp - the dlas-select-conv-algorithm pass ------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_SELECTCONVALGORITHM
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

enum class ConvAlgorithm { Direct, Gemm, Im2Col };

StringRef name(ConvAlgorithm a) {
  switch (a) {
  case ConvAlgorithm::Direct:
    return "direct";
  case ConvAlgorithm::Gemm:
    return "gemm";
  case ConvAlgorithm::Im2Col:
    return "im2col";
  }
  llvm_unreachable("unknown algorithm");
}

bool allOnes(DenseIntElementsAttr attr) {
  return llvm::all_of(attr.getValues<int64_t>(), [](int64_t v) { return v == 1; });
}

bool isPointwise(linalg::Conv2DNchwFchwOp conv) {
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  return filter.getDimSize(2) == 1 && filter.getDimSize(3) == 1 &&
         allOnes(conv.getStrides()) && allOnes(conv.getDilations());
}

/// W[F, C] x X[N, C, H*W] -> Y[N, F, H*W] on collapsed views (no copies).
LogicalResult rewriteAsGemm(RewriterBase &rewriter,
                            linalg::Conv2DNchwFchwOp conv) {
  Location loc = conv.getLoc();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  SmallVector<ReassociationIndices> spatial = {{0}, {1}, {2, 3}};
  Value x = tensor::CollapseShapeOp::create(rewriter, loc, input, spatial);
  Value w = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
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
  auto gemm = linalg::GenericOp::create(
      rewriter, loc, out.getType(), ValueRange{w, x}, out, maps, iterators,
      [](OpBuilder &b, Location l, ValueRange args) {
        Value product = arith::MulFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l,
                                arith::AddFOp::create(b, l, args[2], product)
                                    .getResult());
      });
  SmallVector<OpFoldResult> outputShape =
      tensor::getMixedSizes(rewriter, loc, init);
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, resultType, gemm.getResult(0), spatial, outputShape);
  rewriter.replaceOp(conv, result);
  return success();
}

struct SelectConvAlgorithmPass
    : dlas::impl::SelectConvAlgorithmBase<SelectConvAlgorithmPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    if (algorithm != "auto" && algorithm != "direct" && algorithm != "gemm" &&
        algorithm != "im2col")
      return failure();
    return success();
  }

  ConvAlgorithm choose(linalg::Conv2DNchwFchwOp conv, std::string &why) {
    auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
    bool pointwise = isPointwise(conv);
    if (algorithm == "direct")
      return why = "forced", ConvAlgorithm::Direct;
    if (algorithm == "im2col")
      return why = "forced", ConvAlgorithm::Im2Col;
    if (algorithm == "gemm") {
      if (pointwise)
        return why = "forced", ConvAlgorithm::Gemm;
      return why = "forced gemm needs a 1x1 stride-1 kernel; im2col instead",
             ConvAlgorithm::Im2Col;
    }
    if (pointwise)
      return why = "1x1 stride-1 kernel", ConvAlgorithm::Gemm;
    int64_t width = resultType.getDimSize(3);
    if (!ShapedType::isDynamic(width) && width < minDirectWidth)
      return why = "output width " + std::to_string(width) + " < " +
                   std::to_string(minDirectWidth),
             ConvAlgorithm::Im2Col;
    return why = "output width " + std::to_string(width) + " >= " +
                 std::to_string(minDirectWidth),
           ConvAlgorithm::Direct;
  }

  void runOnOperation() override {
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation()->walk([&](linalg::Conv2DNchwFchwOp op) { convs.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      auto resultType = dyn_cast<RankedTensorType>(conv.getResultTypes()[0]);
      if (!resultType || !resultType.getElementType().isF32() ||
          !resultType.hasStaticShape()) {
        ++numDirect;
        continue;
      }
      std::string why;
      ConvAlgorithm choice = choose(conv, why);
      if (print)
        conv.emitRemark() << "convolution algorithm: " << name(choice) << " ("
                          << why << ")";
      rewriter.setInsertionPoint(conv);
      switch (choice) {
      case ConvAlgorithm::Direct:
        ++numDirect;
        break;
      case ConvAlgorithm::Gemm:
        if (succeeded(rewriteAsGemm(rewriter, conv)))
          ++numGemm;
        break;
      case ConvAlgorithm::Im2Col:
        if (succeeded(linalg::rewriteInIm2Col(rewriter, conv)))
          ++numIm2Col;
        break;
      }
    }
  }
};
} // namespace
