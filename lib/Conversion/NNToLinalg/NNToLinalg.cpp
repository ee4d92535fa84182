//===- NNToLinalg.cpp - the convert-nn-to-linalg pass ---------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
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

bool isStaticEmpty(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  return shaped && shaped.hasStaticShape() && shaped.getNumElements() == 0;
}

/// Zero-size tensors need no computation: an op whose results all have a
/// static zero dimension becomes tensor.empty, and a concatenation drops
/// its empty inputs. Returns false when the op still has a zero-size
/// operand or result, which the lowering cannot take.
bool removeZeroSizeWork(Operation *op) {
  if (!zeroSizeType(op))
    return true;
  OpBuilder b(op);
  if (op->getNumResults() > 0 &&
      llvm::all_of(op->getResultTypes(), isStaticEmpty)) {
    for (Value result : op->getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      result.replaceAllUsesWith(tensor::EmptyOp::create(
          b, op->getLoc(), type.getShape(), type.getElementType()));
    }
    op->erase();
    return true;
  }
  if (auto concat = dyn_cast<nn::ConcatOp>(op)) {
    SmallVector<Value> kept;
    for (Value input : concat.getInputs())
      if (!isStaticEmpty(input.getType()))
        kept.push_back(input);
    if (kept.size() == 1 && kept[0].getType() == concat.getType()) {
      concat.replaceAllUsesWith(kept[0]);
      concat.erase();
      return true;
    }
    concat.getInputsMutable().assign(kept);
    return !zeroSizeType(concat);
  }
  return false;
}

struct ConvertNNToLinalgPass
    : dlas::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    int64_t count = 0;
    // Zero-size tensors verify (ONNX allows them); their ops need no code.
    // Those that still compute from or into one are refused here, naming
    // the op, rather than in ops the user never wrote.
    bool refused = false;
    SmallVector<Operation *> nnOps;
    root->walk([&](Operation *op) {
      if (isa<nn::NNDialect>(op->getDialect()))
        nnOps.push_back(op);
    });
    for (Operation *op : nnOps) {
      ++count;
      std::optional<Type> empty = zeroSizeType(op);
      if (removeZeroSizeWork(op))
        continue;
      op->emitError() << "convert-nn-to-linalg cannot lower '"
                      << op->getName() << "': zero-size tensor " << *empty
                      << " (a dimension of size 0)";
      refused = true;
    }
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
