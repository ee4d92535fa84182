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
  populateNNQuantizationToLinalgPatterns(patterns);
  populateNNPointwiseToLinalgPatterns(patterns);
  populateNNReductionToLinalgPatterns(patterns);
  populateNNRecurrentToLinalgPatterns(patterns);
  populateNNScanToLinalgPatterns(patterns);
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

bool isHalfFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         (tensor.getElementType().isBF16() || tensor.getElementType().isF16());
}

/// Ops whose lowering is exact in bf16 and f16 (they move, select or
/// compare elements) or that accumulate in f32 themselves (the
/// contractions): they run in the half-width type as they are.
bool runsInHalfFloats(Operation *op) {
  return isa<nn::Conv2DOp, nn::ConvTranspose2DOp, nn::MatmulOp,
             nn::BatchMatmulOp, nn::LinearOp, nn::MaxPool2DOp,
             nn::MaxPool2DWithIndicesOp, nn::ReluOp, nn::Relu6Op, nn::NegOp,
             nn::AbsOp, nn::MaxOp, nn::MinOp, nn::ClipOp, nn::FloorOp,
             nn::CeilOp, nn::RoundOp, nn::CompareOp, nn::SelectOp, nn::CastOp,
             nn::TopKOp, nn::ArgMaxOp, nn::ArgMinOp, nn::ConcatOp,
             nn::BroadcastToOp, nn::ReshapeOp, nn::FlattenOp, nn::TransposeOp,
             nn::PadOp, nn::SliceOp, nn::GatherOp, nn::GatherElementsOp>(op);
}

/// Every other nn op computes in f32 on bf16/f16 tensors: its half-width
/// operands are widened with nn.cast and its results rounded back, once,
/// so that sums (softmax, pooling, norms, reductions, recurrences) and
/// transcendentals keep f32's precision. Elementwise fusion later folds
/// the casts into the op's loop.
void widenHalfFloatArithmetic(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<nn::NNDialect>(op->getDialect()) && !runsInHalfFloats(op) &&
        (llvm::any_of(op->getOperandTypes(), isHalfFloatTensor) ||
         llvm::any_of(op->getResultTypes(), isHalfFloatTensor)))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto widened = [&](Type type) -> Type {
      if (!isHalfFloatTensor(type))
        return type;
      return cast<RankedTensorType>(type).clone(b.getF32Type());
    };
    for (OpOperand &operand : op->getOpOperands()) {
      Type type = operand.get().getType();
      if (isHalfFloatTensor(type))
        operand.set(
            nn::CastOp::create(b, loc, widened(type), operand.get()));
    }
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults()) {
      Type type = result.getType();
      if (!isHalfFloatTensor(type))
        continue;
      result.setType(widened(type));
      auto narrowed = nn::CastOp::create(b, loc, type, result);
      result.replaceAllUsesExcept(narrowed, narrowed);
    }
  }
}

struct ConvertNNToLinalgPass
    : dlas::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    widenHalfFloatArithmetic(root);
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
