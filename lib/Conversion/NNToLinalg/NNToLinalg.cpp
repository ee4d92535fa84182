//===- NNToLinalg.cpp - the convert-nn-to-linalg pass ---------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "DLAS/Conversion/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

void mlir::dlas::populateNNToLinalgPatterns(RewritePatternSet &patterns) {
  populateNNConvolutionToLinalgPatterns(patterns);
  populateNNMatmulToLinalgPatterns(patterns);
  populateNNPoolingToLinalgPatterns(patterns);
  populateNNPointwiseToLinalgPatterns(patterns);
  populateNNReductionToLinalgPatterns(patterns);
  populateNNShapeToLinalgPatterns(patterns);
}

namespace {
struct ConvertNNToLinalgPass
    : dlas::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    int64_t count = 0;
    root->walk([&](Operation *op) {
      if (isa<nn::NNDialect>(op->getDialect()))
        ++count;
    });
    ConversionTarget target(getContext());
    target.addIllegalDialect<nn::NNDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateNNToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      return signalPassFailure();
    numLoweredOps += count;
  }
};
} // namespace
