//===- SparseOps.cpp - sparse dialect operations --------------------------===//
#include "DLAS/Dialect/Sparse/SparseDialect.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::sparse;

#define GET_OP_CLASSES
#include "DLAS/Dialect/Sparse/SparseOps.cpp.inc"

/// The weight's block shape, or an error on `op` naming `operand`.
static FailureOr<BlockShape> verifiedBlockShape(Operation *op, Value weight,
                                                StringRef operand) {
  std::string why;
  FailureOr<BlockShape> block =
      getWeightBlockShape(cast<RankedTensorType>(weight.getType()), &why);
  if (failed(block))
    return op->emitOpError() << operand << " type " << weight.getType() << " "
                             << why;
  return block;
}

//===----------------------------------------------------------------------===//
// sparse.constant
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  FailureOr<BlockShape> block =
      verifiedBlockShape(*this, getResult(), "result");
  if (failed(block))
    return failure();
  auto type = getResult().getType();
  int64_t blockRows = type.getDimSize(0) / block->rows;
  int64_t blockCols = type.getDimSize(1) / block->cols;
  ArrayRef<int32_t> positions = getPositions();
  ArrayRef<int32_t> coordinates = getCoordinates();
  if (static_cast<int64_t>(positions.size()) != blockRows + 1)
    return emitOpError("expects ")
           << blockRows + 1 << " positions (one per block row and one more), got "
           << positions.size();
  if (positions.front() != 0)
    return emitOpError("positions must start at 0, got ") << positions.front();
  for (int64_t row = 0; row < blockRows; ++row) {
    int32_t begin = positions[row], end = positions[row + 1];
    if (end < begin)
      return emitOpError("positions decrease at block row ")
             << row << " (" << begin << " then " << end << ")";
    if (end > static_cast<int64_t>(coordinates.size()))
      return emitOpError("position ")
             << end << " of block row " << row << " is past the "
             << coordinates.size() << " coordinates";
    for (int32_t k = begin; k < end; ++k) {
      if (coordinates[k] < 0 || coordinates[k] >= blockCols)
        return emitOpError("coordinate ")
               << coordinates[k] << " (entry " << k << ", block row " << row
               << ") is outside [0, " << blockCols << ")";
      if (k > begin && coordinates[k] <= coordinates[k - 1])
        return emitOpError("coordinates of block row ")
               << row << " are not strictly increasing at entry " << k;
    }
  }
  if (positions.back() != static_cast<int64_t>(coordinates.size()))
    return emitOpError("last position ")
           << positions.back() << " differs from the number of coordinates "
           << coordinates.size();
  auto valuesType = cast<ShapedType>(getValues().getType());
  int64_t expected = static_cast<int64_t>(coordinates.size()) * block->size();
  if (valuesType.getRank() != 1 || valuesType.getNumElements() != expected)
    return emitOpError("expects ")
           << expected << " values (" << coordinates.size() << " blocks of "
           << block->rows << "x" << block->cols << ") in a 1-D tensor, got "
           << valuesType;
  return success();
}

//===----------------------------------------------------------------------===//
// sparse.pack
//===----------------------------------------------------------------------===//

LogicalResult PackOp::verify() {
  if (failed(verifiedBlockShape(*this, getResult(), "result")))
    return failure();
  RankedTensorType source = getSource().getType();
  if (source.getRank() < 2 || !source.hasStaticShape())
    return emitOpError("source must have rank 2 or more and a static shape, got ")
           << source;
  int64_t cols = 1;
  for (int64_t d = 1; d < source.getRank(); ++d)
    cols *= source.getDimSize(d);
  auto result = getResult().getType();
  if (result.getDimSize(0) != source.getDimSize(0) ||
      result.getDimSize(1) != cols)
    return emitOpError("result shape ")
           << result.getDimSize(0) << "x" << result.getDimSize(1)
           << " is not the source " << source
           << " with its trailing dimensions flattened ("
           << source.getDimSize(0) << "x" << cols << ")";
  return success();
}

namespace {
/// pack(arith.constant) -> sparse.constant: compression at compile time.
struct FoldPackOfConstant : OpRewritePattern<PackOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PackOp pack,
                                PatternRewriter &rewriter) const override {
    std::optional<CompressedWeight> weight = getCompressedWeight(pack);
    if (!weight)
      return rewriter.notifyMatchFailure(pack, "source is not an f32 constant");
    ConstantOp constant = createConstant(rewriter, pack.getLoc(), *weight);
    rewriter.replaceOp(pack, constant);
    return success();
  }
};
} // namespace

void PackOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<FoldPackOfConstant>(context);
}

//===----------------------------------------------------------------------===//
// sparse.conv2d and sparse.linear
//===----------------------------------------------------------------------===//

/// The output size of a window of `kernel` taps (dilated) sliding with
/// `stride` over `input` padded by `before` and `after`; -1 when the window
/// does not fit.
static int64_t windowOutputSize(int64_t input, int64_t before, int64_t after,
                                int64_t kernel, int64_t stride,
                                int64_t dilation) {
  __int128 padded = static_cast<__int128>(input) + before + after;
  __int128 extent = static_cast<__int128>(dilation) * (kernel - 1) + 1;
  if (padded < extent)
    return -1;
  return static_cast<int64_t>((padded - extent) / stride + 1);
}

static LogicalResult verifyBias(Operation *op, Value bias, int64_t channels) {
  if (!bias)
    return success();
  int64_t size = cast<RankedTensorType>(bias.getType()).getDimSize(0);
  if (size != channels)
    return op->emitOpError("bias has ")
           << size << " elements but the weight has " << channels
           << " output channels";
  return success();
}

std::pair<int64_t, int64_t> Conv2DOp::getConvOutputSize() {
  RankedTensorType input = getInput().getType();
  ArrayRef<int64_t> pad = getPadding(), stride = getStrides(),
                    dilation = getDilations(), kernel = getKernelSize();
  return {windowOutputSize(input.getDimSize(2), pad[0], pad[2], kernel[0],
                           stride[0], dilation[0]),
          windowOutputSize(input.getDimSize(3), pad[1], pad[3], kernel[1],
                           stride[1], dilation[1])};
}

Conv2DOp::Pool Conv2DOp::getPool() {
  Pool pool;
  if (std::optional<ArrayRef<int64_t>> kernel = getPoolKernel())
    pool.kernel.assign(kernel->begin(), kernel->end());
  if (std::optional<ArrayRef<int64_t>> strides = getPoolStrides())
    pool.strides.assign(strides->begin(), strides->end());
  if (std::optional<ArrayRef<int64_t>> padding = getPoolPadding())
    pool.padding.assign(padding->begin(), padding->end());
  return pool;
}

/// The result's spatial size after the fused pool (the convolution's
/// `outH x outW` without one), or an error naming the pool attribute that
/// is wrong.
FailureOr<std::pair<int64_t, int64_t>> Conv2DOp::verifyPool(int64_t outH,
                                                            int64_t outW) {
  Pool pool = getPool();
  if (!pool) {
    if (getPoolStrides() || getPoolPadding())
      return emitOpError("pool_strides and pool_padding need pool_kernel");
    return std::make_pair(outH, outW);
  }
  if (getResidual())
    return emitOpError("a fused max pool (pool_kernel) does not combine with "
                       "residual");
  for (auto [values, name] :
       {std::make_pair(ArrayRef<int64_t>(pool.kernel), "pool_kernel"),
        std::make_pair(ArrayRef<int64_t>(pool.strides), "pool_strides")})
    for (int64_t v : values)
      if (v <= 0)
        return emitOpError() << name << " must be positive, got " << v;
  for (auto [side, p] : llvm::enumerate(pool.padding)) {
    int64_t window = pool.kernel[side % 2];
    if (p < 0 || p >= window)
      return emitOpError("pool_padding ")
             << p << " must be at least 0 and below the pool window's side ("
             << window << "): a window must hold a convolution output";
  }
  int64_t pooledH = windowOutputSize(outH, pool.padding[0], pool.padding[2],
                                     pool.kernel[0], pool.strides[0], 1);
  int64_t pooledW = windowOutputSize(outW, pool.padding[1], pool.padding[3],
                                     pool.kernel[1], pool.strides[1], 1);
  if (pooledH <= 0 || pooledW <= 0)
    return emitOpError("the ") << pool.kernel[0] << "x" << pool.kernel[1]
                               << " pool window does not fit the padded "
                               << outH << "x" << outW << " convolution output";
  return std::make_pair(pooledH, pooledW);
}

LogicalResult Conv2DOp::verify() {
  FailureOr<BlockShape> block = verifiedBlockShape(*this, getFilter(), "filter");
  if (failed(block))
    return failure();
  RankedTensorType input = getInput().getType();
  RankedTensorType filter = getFilter().getType();
  for (int64_t d = 1; d < 4; ++d)
    if (input.isDynamicDim(d))
      return emitOpError("input must have static channel and spatial sizes, got ")
             << input;
  auto positive = [&](ArrayRef<int64_t> values, StringRef name) -> LogicalResult {
    for (int64_t v : values)
      if (v <= 0)
        return emitOpError() << name << " must be positive, got " << v;
    return success();
  };
  if (failed(positive(getKernelSize(), "kernel_size")) ||
      failed(positive(getStrides(), "strides")) ||
      failed(positive(getDilations(), "dilations")))
    return failure();
  for (int64_t p : getPadding())
    if (p < 0)
      return emitOpError("padding must not be negative, got ") << p;
  int64_t groups = getGroups();
  int64_t channels = input.getDimSize(1);
  int64_t outChannels = filter.getDimSize(0);
  if (groups <= 0 || channels % groups != 0 || outChannels % groups != 0)
    return emitOpError("groups = ")
           << groups << " must be positive and divide the input channels ("
           << channels << ") and the output channels (" << outChannels << ")";
  int64_t kh = getKernelSize()[0], kw = getKernelSize()[1];
  int64_t taps = channels / groups * kh * kw;
  if (filter.getDimSize(1) != taps)
    return emitOpError("filter has ")
           << filter.getDimSize(1) << " columns but C_in/groups * K_h * K_w = "
           << channels / groups << " * " << kh << " * " << kw << " = " << taps;
  if ((outChannels / groups) % block->rows != 0)
    return emitOpError("filter blocks of ")
           << block->rows << " rows straddle groups of " << outChannels / groups
           << " output channels";
  if (failed(verifyBias(*this, getBias(), outChannels)))
    return failure();
  auto [outH, outW] = getConvOutputSize();
  if (outH <= 0 || outW <= 0)
    return emitOpError("the ")
           << kh << "x" << kw << " window (dilated) does not fit the padded "
           << input.getDimSize(2) << "x" << input.getDimSize(3) << " input";
  FailureOr<std::pair<int64_t, int64_t>> pooled = verifyPool(outH, outW);
  if (failed(pooled))
    return failure();
  RankedTensorType output = getOutput().getType();
  SmallVector<int64_t> expected{input.getDimSize(0), outChannels, pooled->first,
                                pooled->second};
  if (output.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape should be ")
           << (input.isDynamicDim(0) ? std::string("?")
                                     : std::to_string(expected[0]))
           << "x" << outChannels << "x" << expected[2] << "x" << expected[3]
           << ", got " << output;
  if (Value residual = getResidual(); residual && residual.getType() != output)
    return emitOpError("residual must have the result's type ")
           << output << ", got " << residual.getType();
  return success();
}

LogicalResult LinearOp::verify() {
  if (failed(verifiedBlockShape(*this, getWeight(), "weight")))
    return failure();
  RankedTensorType input = getInput().getType();
  RankedTensorType weight = getWeight().getType();
  if (input.getDimSize(1) != weight.getDimSize(1))
    return emitOpError("input has ")
           << input.getDimSize(1) << " features but the weight has "
           << weight.getDimSize(1) << " columns";
  if (failed(verifyBias(*this, getBias(), weight.getDimSize(0))))
    return failure();
  RankedTensorType output = getOutput().getType();
  if (output.getDimSize(0) != input.getDimSize(0) ||
      output.getDimSize(1) != weight.getDimSize(0))
    return emitOpError("result shape should be ")
           << (input.isDynamicDim(0) ? std::string("?")
                                     : std::to_string(input.getDimSize(0)))
           << "x" << weight.getDimSize(0) << ", got " << output;
  return success();
}
