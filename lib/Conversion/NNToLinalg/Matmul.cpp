//===- Matmul.cpp - nn.matmul / batch_matmul / linear to linalg -----------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

/// A run-time check that dimension `l` of `lhs` and `r` of `rhs` have one
/// size, where either is dynamic: a mismatch aborts with the op's name
/// instead of reading out of bounds.
void assertSameSize(OpBuilder &b, Location loc, Operation *op, Value lhs,
                    int64_t l, Value rhs, int64_t r) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (!lhsType.isDynamicDim(l) && !rhsType.isDynamicDim(r))
    return;
  Value a = tensor::DimOp::create(b, loc, lhs, l);
  Value c = tensor::DimOp::create(b, loc, rhs, r);
  Value same =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
  cf::AssertOp::create(b, loc, same,
                       (op->getName().getStringRef() +
                        ": operand sizes that must be equal differ at run time")
                           .str());
}

/// nn.matmul / nn.batch_matmul onto the linalg op of the same name: the
/// result's sizes are lhs's leading dims and rhs's last one.
template <typename NNOp, typename LinalgOp>
struct ContractionLowering : OpConversionPattern<NNOp> {
  using OpConversionPattern<NNOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NNOp op, typename NNOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    int64_t rank = type.getRank();
    // Sizes the verifier could not compare (dynamic ones) must agree at
    // run time: the batch (a dynamic batch on both operands of an ONNX
    // MatMul) and the contraction.
    SmallVector<std::pair<int64_t, int64_t>> mustAgree = {{rank - 1, rank - 2}};
    if (rank == 3)
      mustAgree.push_back({0, 0});
    for (auto [l, r] : mustAgree)
      assertSameSize(rewriter, loc, op, lhs, l, rhs, r);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d + 1 < rank; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, lhs, d));
    sizes.push_back(tensor::getMixedSize(rewriter, loc, rhs, rank - 1));
    // Half-width floats accumulate in f32 and round once.
    Type acc = accumulatorType(type.getElementType());
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes, acc);
    Value zero = scalarConstant(rewriter, loc, acc, 0.0);
    Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    Value result = LinalgOp::create(rewriter, loc, TypeRange{init.getType()},
                                    ValueRange{lhs, rhs}, ValueRange{init})
                       .getResult(0);
    result = convertFloats(
        rewriter, loc, result,
        cast<RankedTensorType>(result.getType()).clone(type.getElementType()));
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// linear(x, W, b) = x * W^T + b: the bias initialises the accumulator.
struct LinearLowering : OpConversionPattern<nn::LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    if (ShapedType::isDynamic(type.getDimSize(1)))
      return unsupported(rewriter, op, "a dynamic number of output features");
    Value weightT = transpose(rewriter, loc, adaptor.getWeight(), {1, 0});
    // Half-width floats accumulate in f32 and round once.
    auto accType = type.clone(accumulatorType(type.getElementType()));
    Value init;
    if (Value bias = adaptor.getBias()) {
      bias = convertFloats(rewriter, loc, bias, accType);
      Value empty = emptyTensor(rewriter, loc, accType, adaptor.getInput());
      init = linalg::BroadcastOp::create(rewriter, loc, bias, empty,
                                         ArrayRef<int64_t>{0})
                 .getResult()[0];
    } else {
      init = filledTensor(
          rewriter, loc, accType, adaptor.getInput(),
          scalarConstant(rewriter, loc, accType.getElementType(), 0.0));
    }
    Value result = linalg::MatmulOp::create(
                       rewriter, loc, TypeRange{accType},
                       ValueRange{adaptor.getInput(), weightT}, ValueRange{init})
                       .getResult(0);
    rewriter.replaceOp(op, convertFloats(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNMatmulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ContractionLowering<nn::MatmulOp, linalg::MatmulOp>,
               ContractionLowering<nn::BatchMatmulOp, linalg::BatchMatmulOp>,
               LinearLowering>(patterns.getContext());
}
