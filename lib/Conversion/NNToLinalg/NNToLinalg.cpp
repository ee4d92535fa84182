//===- NNToLinalg.cpp - the convert-nn-to-linalg pass ---------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
  populateNNLogicToLinalgPatterns(patterns);
  populateNNMatmulToLinalgPatterns(patterns);
  populateNNPoolingToLinalgPatterns(patterns);
  populateNNPointwiseToLinalgPatterns(patterns);
  populateNNReductionToLinalgPatterns(patterns);
  populateNNRecurrentToLinalgPatterns(patterns);
  populateNNShapeToLinalgPatterns(patterns);
  populateNNTopKToLinalgPatterns(patterns);
}

namespace {
/// The first operand or result of `op` with a statically empty dimension.
std::optional<Type> zeroSizeType(Operation *op) {
  auto isEmpty = [](Type type) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    return shaped && llvm::is_contained(shaped.getShape(), 0);
  };
  for (Type type : op->getOperandTypes())
    if (isEmpty(type))
      return type;
  for (Type type : op->getResultTypes())
    if (isEmpty(type))
      return type;
  return std::nullopt;
}

struct ConvertNNToLinalgPass
    : dlas::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    int64_t count = 0;
    // Zero-size tensors verify (ONNX allows them) but the lowering's
    // slices and views do not: refused here, naming the op, rather than
    // in ops the user never wrote.
    bool refused = false;
    root->walk([&](Operation *op) {
      if (!isa<nn::NNDialect>(op->getDialect()))
        return;
      ++count;
      if (std::optional<Type> empty = zeroSizeType(op)) {
        op->emitError() << "convert-nn-to-linalg cannot lower '"
                        << op->getName() << "': zero-size tensor " << *empty
                        << " (a dimension of size 0)";
        refused = true;
      }
    });
    if (refused)
      return signalPassFailure();
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
