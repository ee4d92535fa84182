//===- Utils.cpp - helpers shared by the nn-to-linalg patterns ------------===//
#include "Utils.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nnlowering;

SmallVector<OpFoldResult> nnlowering::mixedSizes(OpBuilder &b, Location loc,
                                             RankedTensorType type,
                                             Value source,
                                             ArrayRef<int64_t> sourceDims) {
  SmallVector<OpFoldResult> sizes;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      sizes.push_back(b.getIndexAttr(size));
      continue;
    }
    int64_t dim = sourceDims.empty() ? i : sourceDims[i];
    sizes.push_back(tensor::DimOp::create(b, loc, source, dim).getResult());
  }
  return sizes;
}

Value nnlowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                          Value source, ArrayRef<int64_t> sourceDims) {
  return tensor::EmptyOp::create(b, loc,
                                 mixedSizes(b, loc, type, source, sourceDims),
                                 type.getElementType());
}

Value nnlowering::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                           Value source, Value value,
                           ArrayRef<int64_t> sourceDims) {
  Value empty = emptyTensor(b, loc, type, source, sourceDims);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value nnlowering::filledTensor(OpBuilder &b, Location loc,
                               ArrayRef<OpFoldResult> sizes, Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value nnlowering::elementCount(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> dims, Type type) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t staticCount = 1;
  Value dynamicCount;
  for (int64_t d : dims) {
    if (!inputType.isDynamicDim(d)) {
      staticCount *= inputType.getDimSize(d);
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, input, d);
    dynamicCount =
        dynamicCount ? arith::MulIOp::create(b, loc, dynamicCount, size) : size;
  }
  if (!dynamicCount)
    return scalarConstant(b, loc, type, (double)staticCount);
  if (staticCount != 1)
    dynamicCount = arith::MulIOp::create(
        b, loc, dynamicCount,
        arith::ConstantIndexOp::create(b, loc, staticCount));
  Value count64 =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), dynamicCount);
  return arith::SIToFPOp::create(b, loc, type, count64);
}

Value nnlowering::scalarConstant(OpBuilder &b, Location loc, Type type,
                             double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  // Saturating: a double outside int64's range (an attribute from an
  // untrusted file) must not reach the undefined conversion.
  int64_t integer =
      std::isnan(value)            ? 0
      : value >= 0x1p63            ? std::numeric_limits<int64_t>::max()
      : value < -0x1p63            ? std::numeric_limits<int64_t>::min()
                                   : (int64_t)value;
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, integer));
}

Value nnlowering::lowestValue(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics(), true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getSignedMinValue(width)));
}

Value nnlowering::highestValue(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics())));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getSignedMaxValue(width)));
}

Value nnlowering::padSpatial(OpBuilder &b, Location loc, Value input, int64_t top,
                         int64_t left, int64_t bottom, int64_t right,
                         Value value) {
  if (top == 0 && left == 0 && bottom == 0 && right == 0)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] = ShapedType::isDynamic(shape[2]) ? shape[2] : shape[2] + top + bottom;
  shape[3] = ShapedType::isDynamic(shape[3]) ? shape[3] : shape[3] + left + right;
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0),
                                   b.getIndexAttr(top), b.getIndexAttr(left)};
  SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(0),
                                    b.getIndexAttr(bottom),
                                    b.getIndexAttr(right)};
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), input, low,
      high, value);
}

Value nnlowering::windowOutputSize(OpBuilder &b, Location loc, Operation *op,
                                   Value size, int64_t padBefore,
                                   int64_t padAfter, int64_t kernel,
                                   int64_t stride, int64_t dilation,
                                   bool ceilMode) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value padded =
      padBefore + padAfter == 0
          ? size
          : arith::AddIOp::create(b, loc, size, index(padBefore + padAfter))
                .getResult();
  Value window = index(dilation * (kernel - 1) + 1);
  Value fits =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, padded, window);
  cf::AssertOp::create(b, loc, fits,
                       (op->getName().getStringRef() +
                        ": the padded input is smaller than the window")
                           .str());
  Value span = arith::SubIOp::create(b, loc, padded, window);
  if (ceilMode)
    span = arith::AddIOp::create(b, loc, span, index(stride - 1));
  Value out = arith::AddIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, span, index(stride)), index(1));
  if (!ceilMode)
    return out;
  // The last window must start inside the input or its leading padding.
  Value lastStart = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, out, index(1)), index(stride));
  Value outside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sge, lastStart,
      arith::AddIOp::create(b, loc, size, index(padBefore)));
  return arith::SelectOp::create(
      b, loc, outside, arith::SubIOp::create(b, loc, out, index(1)), out);
}

SmallVector<OpFoldResult> nnlowering::windowResultSizes(
    OpBuilder &b, Location loc, Operation *op, RankedTensorType type,
    Value input, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
    ArrayRef<int64_t> pad, ArrayRef<int64_t> dilation, bool ceilMode) {
  SmallVector<OpFoldResult> sizes = mixedSizes(b, loc, type, input);
  for (int i = 0; i < 2; ++i)
    if (type.isDynamicDim(2 + i))
      sizes[2 + i] = windowOutputSize(
          b, loc, op, tensor::DimOp::create(b, loc, input, 2 + i), pad[i],
          pad[2 + i], kernel[i], stride[i], dilation[i], ceilMode);
  return sizes;
}

Value nnlowering::transpose(OpBuilder &b, Location loc, Value input,
                        ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  // A constant (a weight) is transposed once here, not on every call.
  if (Value folded = permuteConstant(b, loc, input, type.getShape(), perm,
                                     resultType, "dlas_transposed"))
    return folded;
  Value init = emptyTensor(b, loc, resultType, input, perm);
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

/// An all-parallel linalg.generic into `init` yielding what `body` returns
/// for the elements of `inputs`.
static Value parallelGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType, Value init,
    ValueRange inputs, SmallVector<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args.drop_back()));
      });
  return generic.getResult(0);
}

Value nnlowering::elementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, Value sizeSource,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  Value init = emptyTensor(b, loc, resultType, sizeSource);
  return parallelGeneric(b, loc, resultType, init, inputs,
                         SmallVector<AffineMap>(inputMaps), body);
}

/// The value of a one-element constant tensor (a Pow's exponent, an
/// epsilon, GELU's 0.5), or null.
static TypedAttr scalarConstantValue(Value operand) {
  DenseElementsAttr attr;
  if (!matchPattern(operand, m_Constant(&attr)) || attr.getNumElements() != 1)
    return {};
  return attr.getSplatValue<TypedAttr>();
}

Value nnlowering::broadcastElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    ValueRange operands,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  // One-element constants become constants in the body rather than
  // operands: later passes and LLVM then see them (x^2 is a multiply,
  // x / 1.414 a multiply by a reciprocal), and layers that differ in them
  // do not share code that reads them from memory.
  SmallVector<TypedAttr> scalars;
  SmallVector<Value> inputs;
  for (Value operand : operands) {
    scalars.push_back(scalarConstantValue(operand));
    if (!scalars.back())
      inputs.push_back(operand);
  }
  // A dynamic result size is read from an operand that is dynamic there.
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < resultType.getRank(); ++i) {
    int64_t size = resultType.getDimSize(i);
    if (!ShapedType::isDynamic(size)) {
      sizes.push_back(b.getIndexAttr(size));
      continue;
    }
    for (Value operand : inputs) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t d = i - (resultType.getRank() - type.getRank());
      if (d >= 0 && ShapedType::isDynamic(type.getDimSize(d))) {
        sizes.push_back(tensor::DimOp::create(b, loc, operand, d).getResult());
        break;
      }
    }
  }
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, resultType.getElementType());
  SmallVector<AffineMap> maps;
  for (Value operand : inputs)
    maps.push_back(
        broadcastMap(cast<RankedTensorType>(operand.getType()), resultType));
  return parallelGeneric(
      b, loc, resultType, init, inputs, std::move(maps),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> values;
        for (TypedAttr scalar : scalars) {
          if (scalar) {
            values.push_back(
                arith::ConstantOp::create(nested, nestedLoc, scalar));
          } else {
            values.push_back(args.front());
            args = args.drop_front();
          }
        }
        return body(nested, nestedLoc, values);
      });
}

/// The divisor a trap-free signed division uses: 1 where `rhs` is 0 or
/// -1 (the callers fix those results up).
static Value safeDivisor(OpBuilder &b, Location loc, Value rhs) {
  Type type = rhs.getType();
  Value zero = scalarConstant(b, loc, type, 0);
  Value minusOne = scalarConstant(b, loc, type, -1);
  Value one = scalarConstant(b, loc, type, 1);
  Value unsafe = arith::OrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne));
  return arith::SelectOp::create(b, loc, unsafe, one, rhs);
}

Value nnlowering::safeDivSI(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  Type type = rhs.getType();
  Value zero = scalarConstant(b, loc, type, 0);
  Value quotient =
      arith::DivSIOp::create(b, loc, lhs, safeDivisor(b, loc, rhs));
  // x / -1 = 0 - x (wrapping for the lowest value); x / 0 = 0.
  Value negated = arith::SubIOp::create(b, loc, zero, lhs);
  Value byMinusOne = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, rhs, scalarConstant(b, loc, type, -1));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  Value result = arith::SelectOp::create(b, loc, byMinusOne, negated, quotient);
  return arith::SelectOp::create(b, loc, byZero, zero, result);
}

Value nnlowering::safeRemSI(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  // x % 1 = 0 = x % -1; x % 0 gives 0 too.
  return arith::RemSIOp::create(b, loc, lhs, safeDivisor(b, loc, rhs));
}

AffineMap nnlowering::broadcastMap(RankedTensorType operandType,
                               RankedTensorType resultType) {
  MLIRContext *ctx = operandType.getContext();
  int64_t offset = resultType.getRank() - operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < operandType.getRank(); ++i) {
    bool broadcast = operandType.getDimSize(i) == 1 &&
                     resultType.getDimSize(i + offset) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(resultType.getRank(), 0, exprs, ctx);
}

Value nnlowering::broadcastChannels(OpBuilder &b, Location loc, Value vector,
                                RankedTensorType resultType, Value sizeSource,
                                int64_t dim) {
  Value init = emptyTensor(b, loc, resultType, sizeSource);
  SmallVector<int64_t> addedDims;
  for (int64_t i = 0; i < resultType.getRank(); ++i)
    if (i != dim)
      addedDims.push_back(i);
  return linalg::BroadcastOp::create(b, loc, vector, init, addedDims)
      .getResult()[0];
}

LogicalResult nnlowering::unsupported(ConversionPatternRewriter &rewriter,
                                  Operation *op, const Twine &reason) {
  // A conversion failure alone says only "failed to legalize"; say why.
  op->emitError() << "convert-nn-to-linalg cannot lower '"
                  << op->getName() << "': " << reason;
  return rewriter.notifyMatchFailure(op, reason);
}

Type nnlowering::accumulatorType(Type type) {
  if (type.isBF16() || type.isF16())
    return Float32Type::get(type.getContext());
  return type;
}

/// `value` widened to the f32 tensor `to` at compile time when it is a
/// bf16 or f16 constant (exact), else null. A bf16 layer's bias then
/// enters its accumulator as an f32 constant instead of a conversion loop
/// that every call runs: a parallel region and an allocation per layer,
/// 5-10 us of a 0.02-0.15 ms layer at 2 threads (Zen 5).
static Value widenConstant(OpBuilder &b, Location loc, Value value,
                           RankedTensorType to) {
  Attribute attr;
  if (!to.getElementType().isF32() || !matchPattern(value, m_Constant(&attr)))
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(attr);
      dense && dense.isSplat())
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            to, b.getF32FloatAttr(
                    dense.getSplatValue<APFloat>().convertToFloat())));
  std::optional<std::vector<float>> data = widenedFloatValues(attr);
  if (!data)
    return {};
  if (isa<DenseElementsAttr>(attr))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(to, ArrayRef<float>(*data)));
  return createF32Constant(b, loc, to.getShape(), *data, "widened");
}

Value nnlowering::convertFloats(OpBuilder &b, Location loc, Value value,
                                RankedTensorType type) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from.getElementType() == type.getElementType())
    return value;
  auto to = RankedTensorType::get(from.getShape(), type.getElementType());
  bool widen = from.getElementType().getIntOrFloatBitWidth() <
               to.getElementType().getIntOrFloatBitWidth();
  if (widen)
    if (Value constant = widenConstant(b, loc, value, to))
      return constant;
  AffineMap identity = b.getMultiDimIdentityMap(from.getRank());
  return elementwise(b, loc, to, value, value, identity,
                     [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                       if (widen)
                         return arith::ExtFOp::create(nb, l, to.getElementType(),
                                                      args[0]);
                       return arith::TruncFOp::create(
                           nb, l, to.getElementType(), args[0]);
                     });
}
