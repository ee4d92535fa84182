//===- Utils.h - helpers shared by the nn-to-linalg patterns ----*- C++ -*-===//
#ifndef DLAS_LIB_CONVERSION_NNTOLINALG_UTILS_H
#define DLAS_LIB_CONVERSION_NNTOLINALG_UTILS_H

#include "DLAS/Dialect/NN/NNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dlas::nnlowering {

/// Sizes of `type` as OpFoldResults; a dynamic size i is read with
/// tensor.dim from dimension `sourceDims[i]` of `source` (dimension i when
/// `sourceDims` is empty).
SmallVector<OpFoldResult> mixedSizes(OpBuilder &b, Location loc,
                                     RankedTensorType type, Value source,
                                     ArrayRef<int64_t> sourceDims = {});

/// tensor.empty of `type`, dynamic sizes as in mixedSizes.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  Value source, ArrayRef<int64_t> sourceDims = {});

/// tensor.empty of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value source, Value value,
                   ArrayRef<int64_t> sourceDims = {});

/// tensor.empty of `sizes` (constants or run-time values) filled with
/// `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Value value);

/// The number of elements in dimensions `dims` of `input`, as a float of
/// `type`: a constant, or their sizes' product read at run time where one
/// is dynamic (a mean's or average's divisor).
Value elementCount(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims, Type type);

/// A scalar constant of `type` (float or integer) holding `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// The smallest value of a float (-inf) or signed integer type.
Value lowestValue(OpBuilder &b, Location loc, Type type);

/// The largest value of a float (+inf) or signed integer type.
Value highestValue(OpBuilder &b, Location loc, Type type);

/// Pads the two trailing (spatial) dimensions of a 4-D tensor with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value input, int64_t top,
                 int64_t left, int64_t bottom, int64_t right, Value value);

/// The output size of a window op (convolution, pooling) along a spatial
/// dimension whose input size `size` is known at run time only: PyTorch's
/// floor((size + pads - dilation * (kernel - 1) - 1) / stride) + 1, or the
/// ceil-mode size (whose last window starts inside the input or its
/// leading padding). A padded input smaller than the window aborts the
/// run with `op`'s name (cf.assert) instead of making a negative size.
Value windowOutputSize(OpBuilder &b, Location loc, Operation *op, Value size,
                       int64_t padBefore, int64_t padAfter, int64_t kernel,
                       int64_t stride, int64_t dilation, bool ceilMode = false);

/// The sizes of a window op's NCHW result `type` over the NCHW `input`
/// before its padding `pad` (top, left, bottom, right): a dynamic batch or
/// channel count from the input, a dynamic spatial size from
/// windowOutputSize. (Taking every dynamic size from the input, as
/// elementwise ops do, would be wrong for the spatial ones.)
SmallVector<OpFoldResult>
windowResultSizes(OpBuilder &b, Location loc, Operation *op,
                  RankedTensorType type, Value input, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                  ArrayRef<int64_t> dilation, bool ceilMode = false);

/// linalg.transpose of `input` by `perm`.
Value transpose(OpBuilder &b, Location loc, Value input,
                ArrayRef<int64_t> perm);

/// Permutations between NCHW and NHWC.
inline constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};
inline constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};

/// A linalg.generic over the iteration space of `resultType` (all parallel)
/// reading `inputs` through `inputMaps` and yielding what `body` returns.
Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                  Value sizeSource, ValueRange inputs,
                  ArrayRef<AffineMap> inputMaps,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// Index maps reading an operand of `operandType` broadcast (numpy rules)
/// into `resultType`.
AffineMap broadcastMap(RankedTensorType operandType,
                       RankedTensorType resultType);

/// A linalg.generic computing `resultType` from `operands` broadcast into
/// it by numpy rules (each operand's dynamic sizes feed the result's).
Value broadcastElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    ValueRange operands,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// Signed integer division and remainder that never trap: a divisor of 0
/// gives 0 (ONNX leaves it undefined; x86's idiv would raise SIGFPE), and
/// the one overflowing case, the lowest value by -1, wraps.
Value safeDivSI(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value safeRemSI(OpBuilder &b, Location loc, Value lhs, Value rhs);

/// linalg.broadcast of a 1-D tensor into a 4-D one along dimension `dim`.
Value broadcastChannels(OpBuilder &b, Location loc, Value vector,
                        RankedTensorType resultType, Value sizeSource,
                        int64_t dim);

/// The element type convolutions, matmuls and reductions accumulate in for
/// operands of `type`: f32 for the half-width floats (bf16, f16; their 8
/// or 11 significant bits would lose a long sum), `type` otherwise.
Type accumulatorType(Type type);

/// `value` with its elements converted to `type`'s element type by
/// arith.extf / arith.truncf (floats only; `value` itself when they agree).
/// A bf16 or f16 constant widened to f32 is converted at compile time.
Value convertFloats(OpBuilder &b, Location loc, Value value,
                   RankedTensorType type);

/// Reports an op the lowering cannot handle with its name and the reason.
LogicalResult unsupported(ConversionPatternRewriter &rewriter, Operation *op,
                          const Twine &reason);

} // namespace mlir::dlas::nnlowering

#endif // DLAS_LIB_CONVERSION_NNTOLINALG_UTILS_H
