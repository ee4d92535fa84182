//===- Scan.cpp - nn.cumsum to an scf loop over tensors -------------------===//
//
// A cumulative sum is a scan: one loop along the axis carries the running
// sum of the slices so far (a tensor of the input's shape with the axis of
// size 1) and writes it into the result at each step. Every step is an
// elementwise add over all the other dimensions, which the codegen
// vectorizes like any other; the adds happen in order, as ONNX's
// reference computes them.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Conversion/NNToLinalg/NNToLinalg.h"
#include "Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

namespace {

struct CumSumLowering : OpConversionPattern<nn::CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nn::CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    // I64Attr reads back as uint64_t: a negative axis needs the cast.
    auto axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    bool exclusive = op.getExclusive(), reverse = op.getReverse();

    // The running sum: the input's shape with the axis of size 1.
    SmallVector<OpFoldResult> sliceSizes =
        tensor::getMixedSizes(rewriter, loc, input);
    Value length =
        getValueOrCreateConstantIndexOp(rewriter, loc, sliceSizes[axis]);
    sliceSizes[axis] = rewriter.getIndexAttr(1);
    Value zeros =
        filledTensor(rewriter, loc, sliceSizes,
                     scalarConstant(rewriter, loc, type.getElementType(), 0.0));
    Value result = emptyTensor(rewriter, loc, type, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value last = arith::SubIOp::create(rewriter, loc, length, one);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, length, one, ValueRange{result, zeros},
        [&](OpBuilder &b, Location l, Value step, ValueRange carried) {
          Value position =
              reverse ? arith::SubIOp::create(b, l, last, step).getResult()
                      : step;
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[axis] = position;
          Value slice = tensor::ExtractSliceOp::create(b, l, input, offsets,
                                                       sliceSizes, strides);
          Value before = carried[1];
          // The add writes into the running sum's own buffer; an exclusive
          // scan stores the sum before the add reads it.
          Value out = carried[0];
          if (exclusive)
            out = tensor::InsertSliceOp::create(b, l, before, out, offsets,
                                                sliceSizes, strides);
          Value after = linalg::AddOp::create(b, l, ValueRange{before, slice},
                                              ValueRange{before})
                            .getResult(0);
          if (!exclusive)
            out = tensor::InsertSliceOp::create(b, l, after, out, offsets,
                                                sliceSizes, strides);
          scf::YieldOp::create(b, l, ValueRange{out, after});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dlas::populateNNScanToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<CumSumLowering>(patterns.getContext());
}
