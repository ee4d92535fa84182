//===- NNOps.cpp - nn op verification and shape inference -----------------===//
//
// Every shaped nn op infers its result type in `inferReturnTypes`; the
// InferTypeOpInterface verifier then compares it with the written type. All
// semantic checks live in the inference so that a malformed op is reported
// once, with the operand and the numbers that are wrong.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "llvm/Support/CheckedArithmetic.h"
#include <cmath>
#include <limits>

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::dlas::nn;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

namespace {
/// Emits errors in inferReturnTypes with the op name in front, the way an
/// op verifier would, when a location is available.
class ShapeChecker {
public:
  ShapeChecker(std::optional<Location> loc, StringRef opName)
      : loc(loc), opName(opName) {}

  template <typename... Args>
  LogicalResult fail(Args &&...args) const {
    return emitOptionalError(loc, "'nn.", opName, "' op ",
                             std::forward<Args>(args)...);
  }

  LogicalResult requirePositive(ArrayRef<int64_t> values,
                                StringRef attrName) const {
    for (int64_t v : values)
      if (v <= 0)
        return fail("attribute '", attrName, "' must be positive, got [",
                    llvm::make_range(values.begin(), values.end()), "]");
    return success();
  }

  LogicalResult requireNonNegative(ArrayRef<int64_t> values,
                                   StringRef attrName) const {
    for (int64_t v : values)
      if (v < 0)
        return fail("attribute '", attrName, "' must not be negative, got [",
                    llvm::make_range(values.begin(), values.end()), "]");
    return success();
  }

  /// Builders infer result types before any verifier has seen the
  /// operands: ranks and attribute lengths are checked here first.
  LogicalResult requireRank(RankedTensorType type, int64_t rank,
                            StringRef operandName) const {
    if (type.getRank() != rank)
      return fail("operand '", operandName, "' must have rank ", rank,
                  ", got ", type);
    return success();
  }

  LogicalResult requireCount(ArrayRef<int64_t> values, size_t count,
                             StringRef attrName) const {
    if (values.size() != count)
      return fail("attribute '", attrName, "' must have ", count,
                  " entries, got ", values.size());
    return success();
  }

  LogicalResult requireStatic(RankedTensorType type,
                              StringRef operandName) const {
    if (!type.hasStaticShape())
      return fail("operand '", operandName, "' must have a static shape, got ",
                  type);
    return success();
  }

private:
  std::optional<Location> loc;
  StringRef opName;
};
} // namespace

static RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Quantized products accumulate in i32; every other type keeps its own.
static Type accumulatorType(Type elementType) {
  if (elementType.isInteger(8))
    return IntegerType::get(elementType.getContext(), 32);
  return elementType;
}

/// Output size of a sliding window along one dimension; kDynamic when the
/// input size is.
/// What windowOutputSize returns for an output size beyond 64 bits.
static constexpr int64_t kWindowOverflow = -2;

static int64_t windowOutputSize(int64_t inputSize, int64_t padBefore,
                                int64_t padAfter, int64_t kernel,
                                int64_t stride, int64_t dilation,
                                bool ceilMode = false) {
  if (ShapedType::isDynamic(inputSize))
    return kDynamic;
  // In 128 bits: pads, kernels, strides and dilations are untrusted
  // attributes (ONNX files), each below 2^63.
  __int128 span = (__int128)inputSize + padBefore + padAfter -
                  (__int128)dilation * (kernel - 1) - 1;
  if (span < 0)
    return 0;
  __int128 out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // PyTorch: the last window must start inside the input or the left padding.
  if (ceilMode && (out - 1) * stride >= (__int128)inputSize + padBefore)
    --out;
  return out > std::numeric_limits<int64_t>::max() ? kWindowOverflow
                                                    : (int64_t)out;
}

namespace {
/// Positions of N, C, H, W in a 4-D activation for a layout.
struct ActivationDims {
  unsigned n = 0, c = 1, h = 2, w = 3;
  explicit ActivationDims(Layout layout) {
    if (layout == Layout::NHWC) {
      h = 1;
      w = 2;
      c = 3;
    }
  }
  SmallVector<int64_t> build(int64_t nv, int64_t cv, int64_t hv,
                             int64_t wv) const {
    SmallVector<int64_t> shape(4);
    shape[n] = nv;
    shape[c] = cv;
    shape[h] = hv;
    shape[w] = wv;
    return shape;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// The operand and window checks nn.conv2d, nn.conv3d and
/// nn.conv_transpose2d share, for
/// `spatialRank` spatial dims: ranks, attribute counts, one element type,
/// a static filter, positive strides and dilations, non-negative padding.
static LogicalResult
checkConvOperands(ShapeChecker &check, RankedTensorType inputType,
                  RankedTensorType filterType, int64_t spatialRank,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                  ArrayRef<int64_t> padding) {
  if (failed(check.requireRank(inputType, spatialRank + 2, "input")) ||
      failed(check.requireRank(filterType, spatialRank + 2, "filter")) ||
      failed(check.requireCount(strides, spatialRank, "strides")) ||
      failed(check.requireCount(dilations, spatialRank, "dilations")) ||
      failed(check.requireCount(padding, 2 * spatialRank, "padding")))
    return failure();
  if (inputType.getElementType() != filterType.getElementType())
    return check.fail("operand 'filter' element type ",
                      filterType.getElementType(),
                      " differs from operand 'input' element type ",
                      inputType.getElementType());
  if (failed(check.requireStatic(filterType, "filter")) ||
      failed(check.requirePositive(strides, "strides")) ||
      failed(check.requirePositive(dilations, "dilations")) ||
      failed(check.requireNonNegative(padding, "padding")))
    return failure();
  return success();
}

/// The channel and group checks nn.conv2d and nn.conv3d share: `channels`
/// (the input's) and the filter's first two dims agree with `groups`, and
/// the bias has one accumulator-typed value per output channel.
static LogicalResult checkConvChannels(ShapeChecker &check, int64_t channels,
                                       ArrayRef<int64_t> filter, int64_t groups,
                                       Value bias, Type elementType) {
  if (groups <= 0)
    return check.fail("attribute 'groups' must be positive, got ", groups);
  if (ShapedType::isDynamic(channels))
    return check.fail("operand 'input' must have a static channel dimension");
  if (channels % groups != 0)
    return check.fail("input channel count ", channels,
                      " is not divisible by groups = ", groups);
  if (filter[0] % groups != 0)
    return check.fail("output channel count (filter dim 0) ", filter[0],
                      " is not divisible by groups = ", groups);
  if (filter[1] != channels / groups)
    return check.fail("operand 'filter' dim 1 is ", filter[1],
                      " but input channels / groups = ", channels, " / ",
                      groups, " = ", channels / groups);
  if (!bias)
    return success();
  RankedTensorType biasType = rankedType(bias);
  if (biasType.getDimSize(0) != filter[0])
    return check.fail("operand 'bias' has ", biasType.getDimSize(0),
                      " elements but the filter has ", filter[0],
                      " output channels");
  if (biasType.getElementType() != accumulatorType(elementType))
    return check.fail("operand 'bias' element type ", biasType.getElementType(),
                      " should be ", accumulatorType(elementType));
  return success();
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "conv2d");
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType filterType = rankedType(adaptor.getFilter());
  if (failed(checkConvOperands(check, inputType, filterType, 2,
                               adaptor.getStrides(), adaptor.getDilations(),
                               adaptor.getPadding())))
    return failure();
  ActivationDims dims(adaptor.getLayout());
  ArrayRef<int64_t> in = inputType.getShape();
  ArrayRef<int64_t> filter = filterType.getShape();
  if (failed(checkConvChannels(check, in[dims.c], filter, adaptor.getGroups(),
                               adaptor.getBias(), inputType.getElementType())))
    return failure();

  ArrayRef<int64_t> pad = adaptor.getPadding();
  ArrayRef<int64_t> stride = adaptor.getStrides();
  ArrayRef<int64_t> dilation = adaptor.getDilations();
  int64_t outH = windowOutputSize(in[dims.h], pad[0], pad[2], filter[2],
                                  stride[0], dilation[0]);
  int64_t outW = windowOutputSize(in[dims.w], pad[1], pad[3], filter[3],
                                  stride[1], dilation[1]);
  if (outH == kWindowOverflow || outW == kWindowOverflow)
    return check.fail("output size overflows 64 bits");
  if (outH == 0 || outW == 0)
    return check.fail("dilated kernel ", filter[2], "x", filter[3],
                      " is larger than the padded input ", in[dims.h], "x",
                      in[dims.w]);
  results.push_back(RankedTensorType::get(
      dims.build(in[dims.n], filter[0], outH, outW),
      accumulatorType(inputType.getElementType())));
  return success();
}

std::optional<int64_t> Conv2DOp::getFlopCount() {
  auto outType = cast<RankedTensorType>(getType());
  if (!outType.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> filter = getFilter().getType().getShape();
  // Each output element takes C_in/g * K_h * K_w multiply-accumulates.
  return 2 * outType.getNumElements() * filter[1] * filter[2] * filter[3];
}

LogicalResult Conv3DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "conv3d");
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType filterType = rankedType(adaptor.getFilter());
  if (failed(checkConvOperands(check, inputType, filterType, 3,
                               adaptor.getStrides(), adaptor.getDilations(),
                               adaptor.getPadding())))
    return failure();
  ArrayRef<int64_t> in = inputType.getShape();
  ArrayRef<int64_t> filter = filterType.getShape();
  if (failed(checkConvChannels(check, in[1], filter, adaptor.getGroups(),
                               adaptor.getBias(), inputType.getElementType())))
    return failure();
  ArrayRef<int64_t> pad = adaptor.getPadding();
  SmallVector<int64_t> shape = {in[0], filter[0]};
  for (int i = 0; i < 3; ++i) {
    int64_t out =
        windowOutputSize(in[2 + i], pad[i], pad[3 + i], filter[2 + i],
                         adaptor.getStrides()[i], adaptor.getDilations()[i]);
    if (out == kWindowOverflow)
      return check.fail("output size overflows 64 bits");
    if (out == 0)
      return check.fail("dilated kernel ", filter[2], "x", filter[3], "x",
                        filter[4], " is larger than the padded input ", in[2],
                        "x", in[3], "x", in[4]);
    shape.push_back(out);
  }
  results.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

std::optional<int64_t> Conv3DOp::getFlopCount() {
  auto outType = cast<RankedTensorType>(getType());
  if (!outType.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> filter = getFilter().getType().getShape();
  // Each output element takes C_in/g * K_d * K_h * K_w multiply-accumulates.
  return 2 * outType.getNumElements() * filter[1] * filter[2] * filter[3] *
         filter[4];
}

LogicalResult
ConvTranspose2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "conv_transpose2d");
  RankedTensorType inputType = rankedType(adaptor.getInput());
  RankedTensorType filterType = rankedType(adaptor.getFilter());
  if (failed(checkConvOperands(check, inputType, filterType, 2,
                               adaptor.getStrides(), adaptor.getDilations(),
                               adaptor.getPadding())) ||
      failed(check.requireCount(adaptor.getOutputPadding(), 2,
                                "output_padding")) ||
      failed(check.requireNonNegative(adaptor.getOutputPadding(),
                                      "output_padding")))
    return failure();
  int64_t groups = adaptor.getGroups();
  if (groups <= 0)
    return check.fail("attribute 'groups' must be positive, got ", groups);
  ArrayRef<int64_t> in = inputType.getShape();
  ArrayRef<int64_t> filter = filterType.getShape();
  if (ShapedType::isDynamic(in[1]))
    return check.fail("operand 'input' must have a static channel dimension");
  if (in[1] % groups != 0)
    return check.fail("input channel count ", in[1],
                      " is not divisible by groups = ", groups);
  if (filter[0] != in[1])
    return check.fail("operand 'filter' dim 0 is ", filter[0],
                      " but the input has ", in[1], " channels");
  ArrayRef<int64_t> stride = adaptor.getStrides();
  ArrayRef<int64_t> dilation = adaptor.getDilations();
  ArrayRef<int64_t> outPad = adaptor.getOutputPadding();
  for (int i = 0; i < 2; ++i)
    if (outPad[i] >= std::max(stride[i], dilation[i]))
      return check.fail("output_padding ", outPad[i],
                        " must be smaller than the stride ", stride[i],
                        " or the dilation ", dilation[i]);
  int64_t outChannels = filter[1] * groups;
  if (Value bias = adaptor.getBias()) {
    RankedTensorType biasType = rankedType(bias);
    if (biasType.getDimSize(0) != outChannels)
      return check.fail("operand 'bias' has ", biasType.getDimSize(0),
                        " elements but the op has ", outChannels,
                        " output channels");
  }
  ArrayRef<int64_t> pad = adaptor.getPadding();
  // In 128 bits: the attributes are untrusted.
  auto outSize = [&](int64_t size, int dim) -> std::optional<int64_t> {
    if (ShapedType::isDynamic(size))
      return kDynamic;
    __int128 out = (__int128)(size - 1) * stride[dim] - pad[dim] -
                   pad[dim + 2] +
                   (__int128)dilation[dim] * (filter[2 + dim] - 1) +
                   outPad[dim] + 1;
    if (out > std::numeric_limits<int64_t>::max() ||
        out <= std::numeric_limits<int64_t>::min())
      return std::nullopt;
    return (int64_t)out;
  };
  std::optional<int64_t> h = outSize(in[2], 0), w = outSize(in[3], 1);
  if (!h || !w)
    return check.fail("output size overflows 64 bits");
  int64_t outH = *h, outW = *w;
  if ((!ShapedType::isDynamic(outH) && outH <= 0) ||
      (!ShapedType::isDynamic(outW) && outW <= 0))
    return check.fail("padding [", llvm::make_range(pad.begin(), pad.end()),
                      "] leaves an empty output (", outH, "x", outW, ")");
  results.push_back(RankedTensorType::get(
      {in[0], outChannels, outH, outW},
      accumulatorType(inputType.getElementType())));
  return success();
}

std::optional<int64_t> ConvTranspose2DOp::getFlopCount() {
  auto inType = cast<RankedTensorType>(getInput().getType());
  if (!inType.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> filter = getFilter().getType().getShape();
  // Every input element scatters into C_out/g * K_h * K_w outputs.
  return 2 * inType.getNumElements() * filter[1] * filter[2] * filter[3];
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

static LogicalResult checkSameElementType(const ShapeChecker &check,
                                          RankedTensorType lhs,
                                          RankedTensorType rhs,
                                          StringRef rhsName) {
  if (lhs.getElementType() != rhs.getElementType())
    return check.fail("operand '", rhsName, "' element type ",
                      rhs.getElementType(), " differs from ",
                      lhs.getElementType());
  return success();
}

static bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "matmul");
  RankedTensorType lhs = rankedType(adaptor.getLhs());
  RankedTensorType rhs = rankedType(adaptor.getRhs());
  if (failed(checkSameElementType(check, lhs, rhs, "rhs")))
    return failure();
  if (dimsConflict(lhs.getDimSize(1), rhs.getDimSize(0)))
    return check.fail("contraction sizes differ: lhs is ", lhs,
                      " and rhs is ", rhs, " (", lhs.getDimSize(1),
                      " vs ", rhs.getDimSize(0), ")");
  results.push_back(RankedTensorType::get(
      {lhs.getDimSize(0), rhs.getDimSize(1)},
      accumulatorType(lhs.getElementType())));
  return success();
}

std::optional<int64_t> MatmulOp::getFlopCount() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto out = cast<RankedTensorType>(getType());
  if (!lhs.hasStaticShape() || !out.hasStaticShape())
    return std::nullopt;
  return 2 * out.getNumElements() * lhs.getDimSize(1);
}

LogicalResult
BatchMatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                Adaptor adaptor,
                                SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "batch_matmul");
  RankedTensorType lhs = rankedType(adaptor.getLhs());
  RankedTensorType rhs = rankedType(adaptor.getRhs());
  if (failed(checkSameElementType(check, lhs, rhs, "rhs")))
    return failure();
  if (dimsConflict(lhs.getDimSize(0), rhs.getDimSize(0)))
    return check.fail("batch sizes differ: ", lhs.getDimSize(0), " vs ",
                      rhs.getDimSize(0));
  if (dimsConflict(lhs.getDimSize(2), rhs.getDimSize(1)))
    return check.fail("contraction sizes differ: ", lhs.getDimSize(2),
                      " vs ", rhs.getDimSize(1));
  int64_t batch = ShapedType::isDynamic(lhs.getDimSize(0)) ? rhs.getDimSize(0)
                                                            : lhs.getDimSize(0);
  results.push_back(RankedTensorType::get(
      {batch, lhs.getDimSize(1), rhs.getDimSize(2)},
      accumulatorType(lhs.getElementType())));
  return success();
}

std::optional<int64_t> BatchMatmulOp::getFlopCount() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto out = cast<RankedTensorType>(getType());
  if (!lhs.hasStaticShape() || !out.hasStaticShape())
    return std::nullopt;
  return 2 * out.getNumElements() * lhs.getDimSize(2);
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "linear");
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType weight = rankedType(adaptor.getWeight());
  if (failed(checkSameElementType(check, input, weight, "weight")))
    return failure();
  if (dimsConflict(input.getDimSize(1), weight.getDimSize(1)))
    return check.fail("operand 'input' has ", input.getDimSize(1),
                      " features but operand 'weight' expects ",
                      weight.getDimSize(1));
  if (Value bias = adaptor.getBias()) {
    if (dimsConflict(rankedType(bias).getDimSize(0), weight.getDimSize(0)))
      return check.fail("operand 'bias' has ", rankedType(bias).getDimSize(0),
                        " elements but the weight has ", weight.getDimSize(0),
                        " outputs");
  }
  results.push_back(RankedTensorType::get(
      {input.getDimSize(0), weight.getDimSize(0)},
      accumulatorType(input.getElementType())));
  return success();
}

std::optional<int64_t> LinearOp::getFlopCount() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (!input.hasStaticShape() || !out.hasStaticShape())
    return std::nullopt;
  return 2 * out.getNumElements() * input.getDimSize(1);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "layer_norm");
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t rank = input.getRank();
  int64_t axis = adaptor.getAxis();
  if (rank == 0 || axis < -rank || axis >= rank)
    return check.fail("attribute 'axis' (", axis,
                      ") must be in [-rank, rank) for an input of rank ", rank);
  if (axis < 0)
    axis += rank;
  if (adaptor.getEpsilon().convertToDouble() < 0)
    return check.fail("attribute 'epsilon' must not be negative, got ",
                      adaptor.getEpsilon().convertToDouble());
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  std::pair<Value, StringRef> params[] = {{adaptor.getScale(), "scale"},
                                          {adaptor.getBias(), "bias"}};
  for (auto [value, name] : params) {
    if (!value)
      continue;
    RankedTensorType type = rankedType(value);
    if (type.getElementType() != input.getElementType())
      return check.fail("operand '", name, "' element type ",
                        type.getElementType(), " differs from the input's ",
                        input.getElementType());
    if (type.getRank() != int64_t(normalized.size()) ||
        llvm::any_of(llvm::zip(type.getShape(), normalized), [](auto pair) {
          return dimsConflict(std::get<0>(pair), std::get<1>(pair));
        }))
      return check.fail("operand '", name,
                        "' must have the normalized "
                        "dimensions' shape (input dims from ",
                        axis, "), got ", type);
  }
  results.push_back(input);
  return success();
}

LogicalResult
BatchNormOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "batch_norm");
  RankedTensorType input = rankedType(adaptor.getInput());
  // Channels are dim 1: a lower rank has none (found by dlas-fuzz-onnx).
  if (input.getRank() < 2)
    return check.fail("input must have rank 2 or more (N, C, ...), got ",
                      input);
  if (adaptor.getEpsilon().convertToDouble() < 0)
    return check.fail("attribute 'epsilon' must not be negative, got ",
                      adaptor.getEpsilon().convertToDouble());
  SmallVector<int64_t> expected;
  if (adaptor.getMode() == BatchNormMode::Spatial)
    expected = {input.getDimSize(1)};
  else
    expected = llvm::to_vector(input.getShape().drop_front());
  std::pair<Value, StringRef> params[] = {{adaptor.getScale(), "scale"},
                                          {adaptor.getBias(), "bias"},
                                          {adaptor.getMean(), "mean"},
                                          {adaptor.getVariance(), "variance"}};
  for (auto [value, name] : params) {
    RankedTensorType type = rankedType(value);
    if (type.getElementType() != input.getElementType())
      return check.fail("operand '", name, "' element type ",
                        type.getElementType(), " differs from the input's ",
                        input.getElementType());
    bool matches = type.getRank() == (int64_t)expected.size() &&
                   llvm::all_of(llvm::zip(type.getShape(), expected),
                                [](auto p) {
                                  return !dimsConflict(std::get<0>(p),
                                                       std::get<1>(p));
                                });
    if (!matches)
      return check.fail("operand '", name, "' has shape ", type,
                        " but mode '", stringifyBatchNormMode(adaptor.getMode()),
                        "' needs [", llvm::make_range(expected.begin(), expected.end()),
                        "]");
  }
  results.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

static LogicalResult
inferPoolType(const ShapeChecker &check, RankedTensorType input,
              ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
              ArrayRef<int64_t> pad, ArrayRef<int64_t> dilation, bool ceilMode,
              Layout layout, SmallVectorImpl<Type> &results) {
  if (failed(check.requireRank(input, 4, "input")) ||
      failed(check.requireCount(kernel, 2, "kernel")) ||
      failed(check.requireCount(stride, 2, "strides")) ||
      failed(check.requireCount(dilation, 2, "dilations")) ||
      failed(check.requireCount(pad, 4, "padding")))
    return failure();
  if (failed(check.requirePositive(kernel, "kernel")) ||
      failed(check.requirePositive(stride, "strides")) ||
      failed(check.requirePositive(dilation, "dilations")) ||
      failed(check.requireNonNegative(pad, "padding")))
    return failure();
  // A window never lies wholly in the padding (ONNX allows any padding
  // below the window; PyTorch asks for at most half of it). With ceil_mode
  // windowOutputSize drops a last window that starts in the padding.
  for (int i = 0; i < 4; ++i) {
    __int128 window = (__int128)dilation[i % 2] * (kernel[i % 2] - 1) + 1;
    if ((__int128)pad[i] >= window)
      return check.fail("padding ", pad[i],
                        " is not smaller than the (dilated) kernel size ",
                        (int64_t)std::min<__int128>(
                            window, std::numeric_limits<int64_t>::max()));
  }
  ActivationDims dims(layout);
  ArrayRef<int64_t> in = input.getShape();
  int64_t outH = windowOutputSize(in[dims.h], pad[0], pad[2], kernel[0],
                                  stride[0], dilation[0], ceilMode);
  int64_t outW = windowOutputSize(in[dims.w], pad[1], pad[3], kernel[1],
                                  stride[1], dilation[1], ceilMode);
  if (outH == kWindowOverflow || outW == kWindowOverflow)
    return check.fail("output size overflows 64 bits");
  if (outH == 0 || outW == 0)
    return check.fail("kernel ", kernel[0], "x", kernel[1],
                      " is larger than the padded input ", in[dims.h], "x",
                      in[dims.w]);
  results.push_back(RankedTensorType::get(
      dims.build(in[dims.n], in[dims.c], outH, outW), input.getElementType()));
  return success();
}

LogicalResult
MaxPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferPoolType(ShapeChecker(loc, "max_pool2d"),
                       rankedType(adaptor.getInput()), adaptor.getKernel(),
                       adaptor.getStrides(), adaptor.getPadding(),
                       adaptor.getDilations(), adaptor.getCeilMode(),
                       adaptor.getLayout(), results);
}

LogicalResult MaxPool2DWithIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  if (failed(inferPoolType(ShapeChecker(loc, "max_pool2d_with_indices"),
                           rankedType(adaptor.getInput()), adaptor.getKernel(),
                           adaptor.getStrides(), adaptor.getPadding(),
                           adaptor.getDilations(), adaptor.getCeilMode(),
                           Layout::NCHW, results)))
    return failure();
  results.push_back(
      cast<RankedTensorType>(results[0]).clone(IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult
AvgPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  int64_t noDilation[] = {1, 1};
  return inferPoolType(ShapeChecker(loc, "avg_pool2d"),
                       rankedType(adaptor.getInput()), adaptor.getKernel(),
                       adaptor.getStrides(), adaptor.getPadding(), noDilation,
                       adaptor.getCeilMode(), adaptor.getLayout(), results);
}

LogicalResult GlobalAvgPool2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  RankedTensorType input = rankedType(adaptor.getInput());
  ActivationDims dims(adaptor.getLayout());
  results.push_back(RankedTensorType::get(
      dims.build(input.getDimSize(dims.n), input.getDimSize(dims.c), 1, 1),
      input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError("attribute 'min' (")
           << getMin().convertToDouble() << ") is greater than 'max' ("
           << getMax().convertToDouble() << ")";
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError("attribute 'axis' = ")
           << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult CumSumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (rank == 0)
    return emitOpError("needs an input of rank 1 or more");
  return verifyAxis(*this, getAxis(), rank);
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

/// Numpy broadcasting of two shapes; fails naming the first incompatible
/// dimension pair.
static LogicalResult broadcastShapes(const ShapeChecker &check,
                                     RankedTensorType lhs, RankedTensorType rhs,
                                     SmallVectorImpl<Type> &results) {
  int64_t rank = std::max(lhs.getRank(), rhs.getRank());
  SmallVector<int64_t> shape(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t li = i - (rank - lhs.getRank()), ri = i - (rank - rhs.getRank());
    int64_t l = li >= 0 ? lhs.getDimSize(li) : 1;
    int64_t r = ri >= 0 ? rhs.getDimSize(ri) : 1;
    if (l == 1)
      shape[i] = r;
    else if (r == 1)
      shape[i] = l;
    else if (ShapedType::isDynamic(l))
      shape[i] = r;
    else if (ShapedType::isDynamic(r) || l == r)
      shape[i] = l;
    else
      return check.fail("operands are not broadcastable: ", lhs, " and ", rhs,
                        " differ in dimension ", i, " (", l, " vs ", r, ")");
  }
  results.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

#define DLAS_BINARY_INFER(OP, NAME)                                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &results) {         \
    return broadcastShapes(ShapeChecker(loc, NAME),                            \
                           rankedType(adaptor.getLhs()),                       \
                           rankedType(adaptor.getRhs()), results);             \
  }
DLAS_BINARY_INFER(AddOp, "add")
DLAS_BINARY_INFER(SubOp, "sub")
DLAS_BINARY_INFER(MulOp, "mul")
DLAS_BINARY_INFER(DivOp, "div")
DLAS_BINARY_INFER(MaxOp, "max")
DLAS_BINARY_INFER(MinOp, "min")
DLAS_BINARY_INFER(PowOp, "pow")
DLAS_BINARY_INFER(ModOp, "mod")
#undef DLAS_BINARY_INFER

LogicalResult ModOp::verify() {
  if (isa<FloatType>(getElementTypeOrSelf(getLhs().getType())) && !getFmod())
    return emitOpError("of floats needs fmod = true (the sign of the "
                       "dividend), got ")
           << getLhs().getType();
  return success();
}

/// The broadcast shape of `lhs` and `rhs` with `element` as element type.
static LogicalResult broadcastShapesAs(const ShapeChecker &check,
                                       RankedTensorType lhs,
                                       RankedTensorType rhs, Type element,
                                       SmallVectorImpl<Type> &results) {
  SmallVector<Type, 1> shaped;
  if (failed(broadcastShapes(check, lhs, rhs, shaped)))
    return failure();
  results.push_back(cast<RankedTensorType>(shaped[0]).clone(element));
  return success();
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return broadcastShapesAs(ShapeChecker(loc, "compare"),
                           rankedType(adaptor.getLhs()),
                           rankedType(adaptor.getRhs()),
                           IntegerType::get(ctx, 1), results);
}

LogicalResult LogicalOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return broadcastShapesAs(ShapeChecker(loc, "logical"),
                           rankedType(adaptor.getLhs()),
                           rankedType(adaptor.getRhs()),
                           IntegerType::get(ctx, 1), results);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "select");
  RankedTensorType onTrue = rankedType(adaptor.getTrueValue());
  RankedTensorType onFalse = rankedType(adaptor.getFalseValue());
  if (onTrue.getElementType() != onFalse.getElementType())
    return check.fail("values must have one element type, got ", onTrue,
                      " and ", onFalse);
  SmallVector<Type, 1> values;
  if (failed(broadcastShapes(check, onTrue, onFalse, values)))
    return failure();
  return broadcastShapesAs(check, rankedType(adaptor.getCondition()),
                           cast<RankedTensorType>(values[0]),
                           onTrue.getElementType(), results);
}

/// True when every value of float type `narrow` is exactly a value of
/// float type `wide` (bf16 and f16 in f32 or f64, f32 in f64).
static bool widensExactly(Type narrow, Type wide) {
  auto from = dyn_cast<FloatType>(narrow), to = dyn_cast<FloatType>(wide);
  return from && to && (to.isF32() || to.isF64()) &&
         from.getWidth() < to.getWidth() &&
         (from.isBF16() || from.isF16() || from.isF32());
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // x -> wider -> x's type again is x: the widening was exact (the edges
  // of two neighbouring low-precision regions meet this way).
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    Value source = inner.getInput();
    if (source.getType() == getType() &&
        widensExactly(getElementTypeOrSelf(source),
                      getElementTypeOrSelf(inner.getType())))
      return source;
  }
  return {};
}

OpFoldResult QuantizeOp::fold(FoldAdaptor) {
  auto dequantize = getInput().getDefiningOp<DequantizeOp>();
  if (!dequantize || dequantize.getInput().getType() != getType() ||
      dequantize.getScales() != getScales() ||
      dequantize.getZeroPoints() != getZeroPoints())
    return {};
  int64_t rank = getType().getRank();
  auto normalized = [&](int64_t axis) { return axis < 0 ? axis + rank : axis; };
  if (getScales().size() > 1 &&
      normalized(dequantize.getAxis()) != normalized(getAxis()))
    return {};
  return dequantize.getInput();
}

/// The checks nn.quantize and nn.dequantize share: one scale and zero
/// point per tensor or per element of `axis`; scales positive and finite;
/// zero points representable in `zeroPointType`.
static LogicalResult verifyQuantization(Operation *op, RankedTensorType input,
                                        ArrayRef<float> scales,
                                        ArrayRef<int64_t> zeroPoints,
                                        int64_t axis,
                                        IntegerType zeroPointType) {
  if (scales.empty())
    return op->emitOpError("needs at least one scale");
  if (scales.size() != zeroPoints.size())
    return op->emitOpError("has ")
           << scales.size() << " scale(s) but " << zeroPoints.size()
           << " zero point(s)";
  for (float scale : scales)
    if (!(scale > 0.0f) || std::isinf(scale))
      return op->emitOpError("scale ")
             << scale << " must be positive and finite";
  int64_t bits = zeroPointType.getWidth();
  int64_t lowest = -(int64_t(1) << (bits - 1)), highest = -lowest - 1;
  for (int64_t zeroPoint : zeroPoints)
    if (zeroPoint < lowest || zeroPoint > highest)
      return op->emitOpError("zero point ")
             << zeroPoint << " is out of range for " << zeroPointType;
  int64_t rank = input.getRank();
  if (scales.size() == 1)
    return success();
  if (axis < -rank || axis >= rank)
    return op->emitOpError("attribute 'axis' = ")
           << axis << " is out of range for rank " << rank;
  int64_t size = input.getDimSize(axis < 0 ? axis + rank : axis);
  if (size != static_cast<int64_t>(scales.size()))
    return op->emitOpError("has ")
           << scales.size() << " per-channel scales but dimension " << axis
           << " has size "
           << (ShapedType::isDynamic(size) ? std::string("?")
                                           : std::to_string(size));
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantization(*this, getInput().getType(), getScales(),
                            getZeroPoints(), getAxis(),
                            IntegerType::get(getContext(), 8));
}

LogicalResult DequantizeOp::verify() {
  auto input = getInput().getType();
  return verifyQuantization(*this, input, getScales(), getZeroPoints(),
                            getAxis(),
                            cast<IntegerType>(input.getElementType()));
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "top_k");
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t rank = input.getRank(), axis = adaptor.getAxis(), k = adaptor.getK();
  if (rank == 0)
    return check.fail("needs an input of rank 1 or more, got ", input);
  if (axis < -rank || axis >= rank)
    return check.fail("axis ", axis, " is out of range for a rank-", rank,
                      " input");
  if (axis < 0)
    axis += rank;
  int64_t size = input.getDimSize(axis);
  if (k < 1 || (!ShapedType::isDynamic(size) && k > size))
    return check.fail("k = ", k, " must be in [1, ", size,
                      "], the size of axis ", axis);
  SmallVector<int64_t> shape(input.getShape());
  shape[axis] = k;
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  results.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult PowOp::verify() {
  if (!isa<FloatType>(getElementTypeOrSelf(getLhs().getType())))
    return emitOpError("needs floating-point operands, got ")
           << getLhs().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "concat");
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return check.fail("needs at least one input");
  RankedTensorType first = rankedType(inputs.front());
  int64_t rank = first.getRank();
  int64_t axis = adaptor.getAxis();
  if (axis < -rank || axis >= rank)
    return check.fail("attribute 'axis' = ", axis,
                      " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape = llvm::to_vector(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = rankedType(value);
    if (type.getRank() != rank)
      return check.fail("input #", index + 1, " has rank ", type.getRank(),
                        " but input #0 has rank ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = type.getDimSize(d);
      if (d == axis) {
        shape[d] = (ShapedType::isDynamic(shape[d]) ||
                    ShapedType::isDynamic(size))
                       ? kDynamic
                       : shape[d] + size;
      } else if (dimsConflict(shape[d], size)) {
        return check.fail("input #", index + 1, " has size ", size,
                          " in dimension ", d, " but input #0 has ",
                          shape[d]);
      }
    }
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

/// The `shape` of nn.reshape / nn.broadcast_to with `runTimeSizes` sizes
/// operands: one per -1 entry, every other entry positive.
static LogicalResult checkRunTimeSizedShape(const ShapeChecker &check,
                                            ArrayRef<int64_t> shape,
                                            size_t runTimeSizes) {
  if (size_t unknown = llvm::count(shape, -1); unknown != runTimeSizes)
    return check.fail("has ", runTimeSizes, " 'sizes' operands for ", unknown,
                      " -1 entries of attribute 'shape'; they must be as many");
  for (auto [i, size] : llvm::enumerate(shape))
    if (size != -1 && size <= 0)
      return check.fail("attribute 'shape' has size ", size, " at index ", i,
                        "; sizes must be positive or -1 (a 'sizes' operand)");
  return success();
}

/// The result type of a reshape whose `-1` entries each take a run-time
/// `sizes` operand: those dimensions are dynamic, the others as given.
static LogicalResult inferRunTimeSized(ShapeChecker &check,
                                       RankedTensorType input,
                                       ArrayRef<int64_t> shape,
                                       size_t runTimeSizes,
                                       SmallVectorImpl<Type> &results) {
  if (failed(checkRunTimeSizedShape(check, shape, runTimeSizes)))
    return failure();
  SmallVector<int64_t> resultShape;
  for (int64_t size : shape)
    resultShape.push_back(size == -1 ? ShapedType::kDynamic : size);
  results.push_back(RankedTensorType::get(resultShape, input.getElementType()));
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "reshape");
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = adaptor.getShape();
  size_t runTimeSizes = adaptor.getSizes().size();
  if (runTimeSizes > 0)
    return inferRunTimeSized(check, input, shape, runTimeSizes, results);
  int64_t inferredIndex = -1, knownProduct = 1;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size == -1) {
      if (inferredIndex >= 0)
        return check.fail("attribute 'shape' has more than one -1 (without "
                          "'sizes' operands)");
      inferredIndex = i;
    } else if (size <= 0) {
      return check.fail("attribute 'shape' has size ", size, " at index ", i,
                        "; sizes must be positive or -1");
    } else if (llvm::MulOverflow(knownProduct, size, knownProduct)) {
      return check.fail("attribute 'shape' [",
                        llvm::make_range(shape.begin(), shape.end()),
                        "] has more elements than 64 bits count");
    }
  }
  SmallVector<int64_t> resultShape(shape);
  if (input.hasStaticShape()) {
    int64_t count = input.getNumElements();
    if (inferredIndex >= 0) {
      if (count % knownProduct != 0)
        return check.fail("cannot reshape ", count, " elements into [",
                          llvm::make_range(shape.begin(), shape.end()), "]");
      resultShape[inferredIndex] = count / knownProduct;
    } else if (count != knownProduct) {
      return check.fail("cannot reshape ", count, " elements into [",
                        llvm::make_range(shape.begin(), shape.end()), "] (",
                        knownProduct, " elements)");
    }
  } else {
    if (inferredIndex < 0)
      return check.fail("a dynamic input needs a -1 in attribute 'shape'");
    resultShape[inferredIndex] = kDynamic;
  }
  results.push_back(RankedTensorType::get(resultShape, input.getElementType()));
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  return {};
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "broadcast_to");
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> target = adaptor.getShape();
  int64_t rank = target.size(), offset = rank - input.getRank();
  if (offset < 0)
    return check.fail("attribute 'shape' has ", rank,
                      " entries, fewer than the input's rank ",
                      input.getRank());
  if (failed(checkRunTimeSizedShape(check, target, adaptor.getSizes().size())))
    return failure();
  SmallVector<int64_t> shape(target);
  for (int64_t i = 0; i < offset; ++i)
    if (target[i] == -1)
      shape[i] = ShapedType::kDynamic;
  for (int64_t i = offset; i < rank; ++i) {
    int64_t size = input.getDimSize(i - offset);
    if (target[i] == -1) {
      // A run-time size broadcasts a static 1 and must equal anything else,
      // which a dynamic input size could only be checked to at run time.
      if (ShapedType::isDynamic(size))
        return check.fail("input dimension ", i - offset,
                          " is dynamic and meets a run-time size: whether it "
                          "broadcasts cannot be decided when compiling");
      shape[i] = size == 1 ? ShapedType::kDynamic : size;
      continue;
    }
    if (size == target[i] || target[i] == 1) {
      shape[i] = size;
      continue;
    }
    if (size != 1)
      return check.fail("input dimension ", i - offset, " of size ",
                        ShapedType::isDynamic(size) ? Twine("?") : Twine(size),
                        " does not broadcast to ", target[i]);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "flatten");
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t rank = input.getRank(), axis = adaptor.getAxis();
  if (rank == 0 || axis < 0 || axis >= rank)
    return check.fail("attribute 'axis' = ", axis,
                      " must be in [0, rank) for rank ", rank);
  SmallVector<int64_t> shape(input.getShape().take_front(axis));
  int64_t product = 1;
  for (int64_t size : input.getShape().drop_front(axis))
    product = ShapedType::isDynamic(size) || ShapedType::isDynamic(product)
                  ? kDynamic
                  : product * size;
  shape.push_back(product);
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult FlattenOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult
TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "transpose");
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != input.getRank())
    return check.fail("attribute 'perm' has ", perm.size(),
                      " entries but the input has rank ", input.getRank());
  llvm::SmallBitVector seen(perm.size());
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= input.getRank() || seen.test(p))
      return check.fail("attribute 'perm' [",
                        llvm::make_range(perm.begin(), perm.end()),
                        "] is not a permutation of [0, ", input.getRank(), ")");
    seen.set(p);
    shape.push_back(input.getDimSize(p));
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if ((int64_t)i != p)
      return {};
  return getInput();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "pad");
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = input.getRank();
  if ((int64_t)pads.size() != 2 * rank)
    return check.fail("attribute 'pads' has ", pads.size(),
                      " entries but a rank-", rank, " input needs ", 2 * rank);
  if (failed(check.requireNonNegative(pads, "pads")))
    return failure();
  PadMode mode = adaptor.getMode();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = input.getDimSize(d);
    if (ShapedType::isDynamic(size)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t widest = std::max(pads[d], pads[d + rank]);
    if (mode == PadMode::Edge && widest > 0 && size == 0)
      return check.fail("edge padding of dimension ", d,
                        ", which is empty: there is no edge to repeat");
    if (mode == PadMode::Reflect && widest >= std::max<int64_t>(size, 1))
      return check.fail("reflect padding of ", widest, " in dimension ", d,
                        " needs a size above it, got ", size);
    // Pads are untrusted (ONNX files): the sum must fit (found by
    // dlas-fuzz-onnx under UBSan).
    std::optional<int64_t> padded = llvm::checkedAdd(size, pads[d]);
    if (padded)
      padded = llvm::checkedAdd(*padded, pads[d + rank]);
    if (!padded)
      return check.fail("padded size of dimension ", d,
                        " overflows 64 bits");
    shape.push_back(*padded);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getPads(), [](int64_t p) { return p == 0; }))
    return getInput();
  return {};
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "slice");
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> offsets = adaptor.getOffsets(), sizes = adaptor.getSizes(),
                    steps = adaptor.getSteps();
  int64_t rank = input.getRank();
  if (failed(check.requireCount(offsets, rank, "offsets")) ||
      failed(check.requireCount(sizes, rank, "sizes")) ||
      failed(check.requireCount(steps, rank, "steps")))
    return failure();
  SmallVector<int64_t> shape(sizes);
  int64_t runTimeSizes = adaptor.getDynamicSizes().size();
  if (runTimeSizes && llvm::count(sizes, -1) != runTimeSizes)
    return check.fail("has ", runTimeSizes, " 'sizes' operand(s) for ",
                      llvm::count(sizes, -1),
                      " entries of -1 in attribute 'sizes'");
  for (int64_t d = 0; d < rank; ++d) {
    if (steps[d] == 0)
      return check.fail("step of dimension ", d, " is 0");
    if (sizes[d] < -1)
      return check.fail("attribute 'sizes' has ", sizes[d], " at dimension ",
                        d, "; sizes must be -1 (all of it) or at least 0");
    int64_t dim = input.getDimSize(d);
    if (sizes[d] == -1 && runTimeSizes) {
      // A run-time size: offset inside (or at the end of) the dimension.
      if (steps[d] != 1 || offsets[d] < 0 ||
          (!ShapedType::isDynamic(dim) && offsets[d] > dim))
        return check.fail("dimension ", d, " has a run-time size but offset ",
                          offsets[d], " and step ", steps[d],
                          " (step 1 and an offset inside the dimension are "
                          "needed)");
      shape[d] = ShapedType::kDynamic;
      continue;
    }
    if (sizes[d] == -1) {
      if (offsets[d] != 0 || steps[d] != 1)
        return check.fail("dimension ", d, " is taken whole (size -1) but "
                          "has offset ", offsets[d], " and step ", steps[d],
                          " instead of 0 and 1");
      shape[d] = dim;
      continue;
    }
    if (sizes[d] == 0 || ShapedType::isDynamic(dim))
      continue;
    // First and last index read, in 128 bits: attributes are untrusted.
    __int128 first = offsets[d];
    __int128 last = first + (__int128)(sizes[d] - 1) * steps[d];
    if (first < 0 || first >= dim || last < 0 || last >= dim)
      return check.fail("dimension ", d, " reads from ", (int64_t)first,
                        " with step ", steps[d], " for ", sizes[d],
                        " elements, outside its size ", dim);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

/// The result type of nn.arg_max / nn.arg_min.
static LogicalResult inferArgReduceType(const ShapeChecker &check,
                                        RankedTensorType input, int64_t axis,
                                        bool keepdims,
                                        SmallVectorImpl<Type> &results) {
  int64_t rank = input.getRank();
  if (axis < -rank || axis >= rank)
    return check.fail("axis ", axis, " is out of range for a rank-", rank,
                      " input");
  if (axis < 0)
    axis += rank;
  if (input.getDimSize(axis) == 0)
    return check.fail("axis ", axis, " is empty");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      shape.push_back(input.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(
      shape, IntegerType::get(input.getContext(), 64)));
  return success();
}

#define DLAS_ARG_REDUCE_INFER(OP, NAME)                                        \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &results) {         \
    return inferArgReduceType(ShapeChecker(loc, NAME),                         \
                              rankedType(adaptor.getInput()),                  \
                              adaptor.getAxis(), adaptor.getKeepdims(),        \
                              results);                                        \
  }
DLAS_ARG_REDUCE_INFER(ArgMaxOp, "arg_max")
DLAS_ARG_REDUCE_INFER(ArgMinOp, "arg_min")
#undef DLAS_ARG_REDUCE_INFER

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "reduce");
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t rank = input.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : adaptor.getAxes()) {
    if (axis < -rank || axis >= rank)
      return check.fail("axis ", axis, " is out of range for a rank-", rank,
                        " input");
    int64_t d = axis < 0 ? axis + rank : axis;
    if (reduced[d])
      return check.fail("axis ", d, " is reduced twice");
    reduced[d] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      shape.push_back(input.getDimSize(d));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "resize");
  RankedTensorType input = rankedType(adaptor.getInput());
  std::optional<ArrayRef<double>> scales = adaptor.getScales();
  std::optional<ArrayRef<int64_t>> sizes = adaptor.getSizes();
  if (scales.has_value() == sizes.has_value())
    return check.fail("needs exactly one of attributes 'scales' and 'sizes'");
  if (adaptor.getExcludeOutside() && adaptor.getMode() != ResizeMode::Bicubic)
    return check.fail("'exclude_outside' applies only to bicubic mode");
  bool crop = adaptor.getCoordinates() == ResizeCoordinates::TfCropAndResize;
  std::optional<ArrayRef<double>> roi = adaptor.getRoi();
  if (crop != roi.has_value())
    return check.fail("attribute 'roi' goes with coordinates "
                      "tf_crop_and_resize, and only with it");
  if (roi && roi->size() != 4)
    return check.fail("attribute 'roi' needs 4 entries (h_start, w_start, "
                      "h_end, w_end), got ",
                      roi->size());
  if (roi && !llvm::all_of(*roi, [](double v) { return std::isfinite(v); }))
    return check.fail("attribute 'roi' must be finite");
  SmallVector<int64_t> shape(input.getShape());
  int64_t runTimeSizes = adaptor.getDynamicSizes().size();
  if (sizes) {
    if (sizes->size() != 2)
      return check.fail("attribute 'sizes' needs 2 entries (H, W), got ",
                        sizes->size());
    // -1 entries take the `sizes` operands, one each.
    if (llvm::count(*sizes, -1) != runTimeSizes)
      return check.fail("has ", runTimeSizes, " 'sizes' operand(s) for ",
                        llvm::count(*sizes, -1),
                        " entries of -1 in attribute 'sizes'");
    if (llvm::any_of(*sizes, [](int64_t v) { return v < 1 && v != -1; }) &&
        failed(check.requirePositive(*sizes, "sizes")))
      return failure();
    shape[2] = (*sizes)[0] == -1 ? kDynamic : (*sizes)[0];
    shape[3] = (*sizes)[1] == -1 ? kDynamic : (*sizes)[1];
  } else {
    if (runTimeSizes)
      return check.fail("'sizes' operands go with attribute 'sizes'");
    if (scales->size() != 2)
      return check.fail("attribute 'scales' needs 2 entries (H, W), got ",
                        scales->size());
    for (int i = 0; i < 2; ++i) {
      double s = (*scales)[i];
      if (!(s > 0))
        return check.fail("attribute 'scales' must be positive, got ", s);
      int64_t size = input.getDimSize(2 + i);
      // Attributes are untrusted: the product must fit before the cast.
      if (!ShapedType::isDynamic(size) && !((double)size * s < 0x1p62))
        return check.fail("scale ", s, " makes dimension ", 2 + i,
                          " of size ", size, " too large");
      shape[2 + i] = ShapedType::isDynamic(size)
                         ? kDynamic
                         : (int64_t)std::floor((double)size * s);
      if (shape[2 + i] == 0)
        return check.fail("scale ", s, " makes dimension ", 2 + i,
                          " of size ", size, " empty");
    }
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "gather");
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  int64_t rank = data.getRank(), axis = adaptor.getAxis();
  if (rank == 0)
    return check.fail("operand 'data' must have rank 1 or more");
  if (axis < -rank || axis >= rank)
    return check.fail("axis ", axis, " is out of range for a rank-", rank,
                      " input");
  if (axis < 0)
    axis += rank;
  if (data.getDimSize(axis) == 0)
    return check.fail("axis ", axis, " is empty: there is nothing to gather");
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  ShapeChecker check(loc, "gather_elements");
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  int64_t rank = data.getRank(), axis = adaptor.getAxis();
  if (rank == 0)
    return check.fail("operand 'data' must have rank 1 or more");
  if (indices.getRank() != rank)
    return check.fail("operand 'indices' must have the rank of 'data' (", rank,
                      "), got ", indices);
  if (axis < -rank || axis >= rank)
    return check.fail("axis ", axis, " is out of range for a rank-", rank,
                      " input");
  if (axis < 0)
    axis += rank;
  if (data.getDimSize(axis) == 0)
    return check.fail("axis ", axis, " is empty: there is nothing to gather");
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && !ShapedType::isDynamic(data.getDimSize(d)) &&
        !ShapedType::isDynamic(indices.getDimSize(d)) &&
        indices.getDimSize(d) > data.getDimSize(d))
      return check.fail("operand 'indices' dimension ", d, " (",
                        indices.getDimSize(d), ") is larger than the data's (",
                        data.getDimSize(d), ")");
  results.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Recurrent layers
//===----------------------------------------------------------------------===//

double mlir::dlas::nn::defaultRnnActivationAlpha(RnnActivation activation) {
  switch (activation) {
  case RnnActivation::LeakyRelu:
    return 0.01;
  case RnnActivation::HardSigmoid:
    return 0.2;
  case RnnActivation::ThresholdedRelu:
  case RnnActivation::ScaledTanh:
  case RnnActivation::Affine:
  case RnnActivation::Elu:
    return 1.0;
  default:
    return 0.0;
  }
}

double mlir::dlas::nn::defaultRnnActivationBeta(RnnActivation activation) {
  switch (activation) {
  case RnnActivation::HardSigmoid:
    return 0.5;
  case RnnActivation::ScaledTanh:
    return 1.0;
  default:
    return 0.0;
  }
}

namespace {
/// What nn.lstm, nn.gru and nn.rnn share, read from their adaptors.
struct RecurrentOperands {
  int64_t gates;
  int64_t activationsPerDirection;
  RnnDirection direction;
  RankedTensorType input, weights, recurrence, bias, initialH;
  RankedTensorType initialC, sequenceLens, peepholes; // null where absent
  std::optional<ArrayAttr> activations;
  std::optional<ArrayRef<double>> alpha, beta;
  std::optional<double> clip;
};

template <typename Adaptor>
RecurrentOperands readRecurrent(Adaptor adaptor, int64_t gates,
                                int64_t activationsPerDirection) {
  RecurrentOperands r;
  r.gates = gates;
  r.activationsPerDirection = activationsPerDirection;
  r.direction = adaptor.getDirection();
  r.input = rankedType(adaptor.getInput());
  r.weights = rankedType(adaptor.getWeights());
  r.recurrence = rankedType(adaptor.getRecurrence());
  r.bias = rankedType(adaptor.getBias());
  r.initialH = rankedType(adaptor.getInitialH());
  if (Value lens = adaptor.getSequenceLens())
    r.sequenceLens = rankedType(lens);
  if (ArrayAttr list = adaptor.getActivationsAttr())
    r.activations = list;
  r.alpha = adaptor.getActivationAlpha();
  r.beta = adaptor.getActivationBeta();
  if (std::optional<APFloat> clip = adaptor.getClip())
    r.clip = clip->convertToDouble();
  return r;
}

/// Checks one operand's shape against the sizes the layer implies (a
/// dynamic size on either side is not a conflict).
LogicalResult requireShape(const ShapeChecker &check, RankedTensorType type,
                           ArrayRef<int64_t> expected, StringRef name,
                           StringRef meaning) {
  if (type.getRank() != (int64_t)expected.size())
    return check.fail("operand '", name, "' must have rank ", expected.size(),
                      " (", meaning, "), got ", type);
  for (auto [got, want] : llvm::zip(type.getShape(), expected))
    if (dimsConflict(got, want))
      return check.fail("operand '", name, "' must be ", meaning, " = [",
                        llvm::make_range(expected.begin(), expected.end()),
                        "] (-1: any), got ", type);
  return success();
}

LogicalResult inferRecurrentTypes(const ShapeChecker &check,
                                  const RecurrentOperands &r,
                                  SmallVectorImpl<Type> &results) {
  if (r.input.getRank() != 3)
    return check.fail("operand 'input' must have rank 3 ([seq, batch, "
                      "input_size]), got ", r.input);
  if (r.recurrence.getRank() != 3)
    return check.fail("operand 'recurrence' must have rank 3 ([directions, "
                      "gates * hidden, hidden]), got ", r.recurrence);
  int64_t hidden = r.recurrence.getDimSize(2);
  if (ShapedType::isDynamic(hidden) || hidden <= 0)
    return check.fail("operand 'recurrence' must have a static, non-zero "
                      "hidden size (dimension 2), got ", r.recurrence);
  // Shapes are untrusted: 2 * gates * hidden must not overflow.
  if (hidden > (int64_t(1) << 40))
    return check.fail("hidden size ", hidden, " is too large");
  int64_t dirs = r.direction == RnnDirection::Bidirectional ? 2 : 1;
  int64_t seq = r.input.getDimSize(0), batch = r.input.getDimSize(1);
  int64_t features = r.input.getDimSize(2);
  int64_t gated = r.gates * hidden;
  Type element = r.input.getElementType();
  for (auto [type, name] :
       {std::pair{r.weights, "weights"}, {r.recurrence, "recurrence"},
        {r.bias, "bias"}, {r.initialH, "initial_h"}, {r.initialC, "initial_c"},
        {r.peepholes, "peepholes"}})
    if (type && type.getElementType() != element)
      return check.fail("operand '", name, "' has element type ",
                        type.getElementType(), " but 'input' has ", element);
  if (failed(requireShape(check, r.weights, {dirs, gated, features}, "weights",
                          "[directions, gates * hidden, input_size]")) ||
      failed(requireShape(check, r.recurrence, {dirs, gated, hidden},
                          "recurrence", "[directions, gates * hidden, hidden]")) ||
      failed(requireShape(check, r.bias, {dirs, 2 * gated}, "bias",
                          "[directions, 2 * gates * hidden]")) ||
      failed(requireShape(check, r.initialH, {dirs, batch, hidden},
                          "initial_h", "[directions, batch, hidden]")))
    return failure();
  if (r.initialC && failed(requireShape(check, r.initialC, {dirs, batch, hidden},
                                        "initial_c", "[directions, batch, hidden]")))
    return failure();
  if (r.peepholes && failed(requireShape(check, r.peepholes, {dirs, 3 * hidden},
                                         "peepholes", "[directions, 3 * hidden]")))
    return failure();
  if (r.sequenceLens &&
      failed(requireShape(check, r.sequenceLens, {batch}, "sequence_lens",
                          "[batch]")))
    return failure();
  int64_t activationCount = dirs * r.activationsPerDirection;
  if (r.activations && (int64_t)r.activations->size() != activationCount)
    return check.fail("attribute 'activations' needs ", activationCount,
                      " entries (", r.activationsPerDirection,
                      " per direction), got ", r.activations->size());
  for (auto [values, name] : {std::pair{r.alpha, "activation_alpha"},
                              {r.beta, "activation_beta"}}) {
    if (!values)
      continue;
    if (!r.activations)
      return check.fail("attribute '", name, "' needs 'activations'");
    if ((int64_t)values->size() != activationCount)
      return check.fail("attribute '", name, "' needs one entry per "
                        "activation (", activationCount, "), got ",
                        values->size());
  }
  if (r.clip && !(*r.clip > 0))
    return check.fail("attribute 'clip' must be positive, got ", *r.clip);
  // The batch size is known from either the input or the initial state.
  if (ShapedType::isDynamic(batch))
    batch = r.initialH.getDimSize(1);
  results.push_back(RankedTensorType::get({seq, dirs, batch, hidden}, element));
  results.push_back(RankedTensorType::get({dirs, batch, hidden}, element));
  return success();
}
} // namespace

LogicalResult LstmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  RecurrentOperands r = readRecurrent(adaptor, kNumGates, kActivationsPerDirection);
  r.initialC = rankedType(adaptor.getInitialC());
  if (Value peepholes = adaptor.getPeepholes())
    r.peepholes = rankedType(peepholes);
  if (failed(inferRecurrentTypes(ShapeChecker(loc, "lstm"), r, results)))
    return failure();
  results.push_back(results.back()); // final_c
  return success();
}

LogicalResult GruOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  return inferRecurrentTypes(
      ShapeChecker(loc, "gru"),
      readRecurrent(adaptor, kNumGates, kActivationsPerDirection), results);
}

LogicalResult RnnOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  return inferRecurrentTypes(
      ShapeChecker(loc, "rnn"),
      readRecurrent(adaptor, kNumGates, kActivationsPerDirection), results);
}

#define GET_OP_CLASSES
#include "DLAS/Dialect/NN/NNOps.cpp.inc"
