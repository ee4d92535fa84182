//===- ConstantData.cpp - rearranging constant tensors at compile time ----===//
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace {
/// The bytes of a dense or dense_resource constant of static shape, and
/// its attribute; empty when there are none to read.
struct ConstantBytes {
  ArrayRef<char> raw;
  DenseElementsAttr splat;
  bool isResource = false;
  size_t elementBytes = 0;
};

std::optional<ConstantBytes> readConstant(Value input) {
  auto constant = input.getDefiningOp<arith::ConstantOp>();
  auto type = cast<RankedTensorType>(input.getType());
  std::optional<int64_t> byteCount = dlas::denseByteCount(type);
  if (!constant || !byteCount)
    return std::nullopt;
  ConstantBytes bytes;
  bytes.elementBytes = type.getElementTypeBitWidth() / 8;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  if (dense && dense.isSplat()) {
    bytes.splat = dense;
    return bytes;
  }
  if (dense)
    bytes.raw = dense.getRawData();
  else if (resource && resource.getRawHandle().getBlob())
    bytes.raw = resource.getRawHandle().getBlob()->getData();
  bytes.isResource = resource != nullptr;
  if (static_cast<int64_t>(bytes.raw.size()) != *byteCount)
    return std::nullopt;
  return bytes;
}

Value makeConstant(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<char> data, bool asResource, StringRef name) {
  Attribute value;
  if (asResource)
    value = DenseResourceElementsAttr::get(
        type, name,
        dlas::copyConstantBlob(data, alignof(uint64_t)));
  else
    value = DenseElementsAttr::getFromRawBuffer(type, data);
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
}
} // namespace

Value dlas::sliceConstant(OpBuilder &b, Location loc, Value input,
                          int64_t firstElement, RankedTensorType resultType,
                          StringRef resourceName) {
  std::optional<ConstantBytes> bytes = readConstant(input);
  if (!bytes)
    return Value();
  if (bytes->splat)
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(resultType,
                                       bytes->splat.getSplatValue<Attribute>()));
  size_t begin = firstElement * bytes->elementBytes;
  size_t size = resultType.getNumElements() * bytes->elementBytes;
  if (firstElement < 0 || begin + size > bytes->raw.size())
    return Value();
  return makeConstant(b, loc, resultType, bytes->raw.slice(begin, size),
                      bytes->isResource, resourceName);
}

/// Writes the elements of `raw` (of type T) in the order of a result of
/// `shape` whose dimension d steps `strides[d]` source elements. The two
/// innermost dimensions go in tiles, so that a transposition reads whole
/// cache lines of both sides (a per-element walk of a large weight's
/// transpose missed the cache on every read).
template <typename T>
static void permuteElements(ArrayRef<char> raw, MutableArrayRef<char> out,
                            ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> strides) {
  auto load = [&](int64_t i) {
    T value;
    std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
    return value;
  };
  auto store = [&](int64_t i, T value) {
    std::memcpy(out.data() + i * sizeof(T), &value, sizeof(T));
  };
  int64_t rank = shape.size();
  if (rank == 0) {
    store(0, load(0));
    return;
  }
  int64_t rows = rank >= 2 ? shape[rank - 2] : 1, cols = shape[rank - 1];
  int64_t rowStride = rank >= 2 ? strides[rank - 2] : 0;
  int64_t colStride = strides[rank - 1];
  int64_t outerRank = std::max<int64_t>(rank - 2, 0);
  int64_t planes = computeProduct(shape.take_front(outerRank));
  SmallVector<int64_t> index(outerRank, 0);
  constexpr int64_t kTile = 32;
  int64_t base = 0;
  for (int64_t plane = 0; plane < planes; ++plane) {
    int64_t first = plane * rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t c0 = 0; c0 < cols; c0 += kTile)
        for (int64_t r = r0, re = std::min(rows, r0 + kTile); r < re; ++r)
          for (int64_t c = c0, ce = std::min(cols, c0 + kTile); c < ce; ++c)
            store(first + r * cols + c,
                  load(base + r * rowStride + c * colStride));
    for (int64_t d = outerRank - 1; d >= 0; --d) {
      base += strides[d];
      if (++index[d] < shape[d])
        break;
      base -= index[d] * strides[d];
      index[d] = 0;
    }
  }
}

Value dlas::permuteConstant(OpBuilder &b, Location loc, Value input,
                            ArrayRef<int64_t> viewShape,
                            ArrayRef<int64_t> perm,
                            RankedTensorType resultType,
                            StringRef resourceName) {
  auto type = cast<RankedTensorType>(input.getType());
  std::optional<ConstantBytes> bytes = readConstant(input);
  if (!bytes || computeProduct(viewShape) != type.getNumElements())
    return Value();
  if (bytes->splat)
    return arith::ConstantOp::create(b, loc, bytes->splat.reshape(resultType));
  // Result dimension d steps the source by the view's stride of perm[d].
  SmallVector<int64_t> viewStrides = computeSuffixProduct(viewShape);
  SmallVector<int64_t> strides;
  for (int64_t d : perm)
    strides.push_back(viewStrides[d]);
  ArrayRef<int64_t> shape = resultType.getShape();
  // A resource result is written in its blob, with no copy after.
  AsmResourceBlob blob;
  std::vector<char> denseData;
  MutableArrayRef<char> out;
  if (bytes->isResource) {
    blob = dlas::allocateConstantBlob(bytes->raw.size(), alignof(uint64_t));
    out = blob.getMutableData();
  } else {
    denseData.resize(bytes->raw.size());
    out = denseData;
  }
  switch (bytes->elementBytes) {
  case 1:
    permuteElements<uint8_t>(bytes->raw, out, shape, strides);
    break;
  case 2:
    permuteElements<uint16_t>(bytes->raw, out, shape, strides);
    break;
  case 4:
    permuteElements<uint32_t>(bytes->raw, out, shape, strides);
    break;
  case 8:
    permuteElements<uint64_t>(bytes->raw, out, shape, strides);
    break;
  default:
    return Value();
  }
  if (bytes->isResource)
    return arith::ConstantOp::create(
        b, loc,
        DenseResourceElementsAttr::get(resultType, resourceName,
                                       std::move(blob)));
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::getFromRawBuffer(resultType, denseData));
}

std::optional<std::vector<float>> dlas::f32Values(Attribute value) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  if (auto resource = dyn_cast_or_null<DenseF32ResourceElementsAttr>(value))
    if (std::optional<ArrayRef<float>> data = resourceValues<float>(resource))
      return std::vector<float>(data->begin(), data->end());
  return std::nullopt;
}

std::optional<std::vector<float>> dlas::widenedFloatValues(Attribute value) {
  if (std::optional<std::vector<float>> f32 = f32Values(value))
    return f32;
  auto type = dyn_cast_or_null<ShapedType>(
      isa_and_nonnull<TypedAttr>(value) ? cast<TypedAttr>(value).getType()
                                        : Type());
  if (!type ||
      !(type.getElementType().isBF16() || type.getElementType().isF16()))
    return std::nullopt;
  std::vector<float> result;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
      result.push_back(v.convertToFloat());
    return result;
  }
  // A blob holds the 16-bit patterns.
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    if (std::optional<ArrayRef<uint16_t>> bits =
            resourceValues<uint16_t>(resource)) {
      for (uint16_t v : *bits)
        result.push_back(
            llvm::APFloat(semantics, llvm::APInt(16, v)).convertToFloat());
      return result;
    }
  return std::nullopt;
}

std::optional<std::vector<float>> dlas::readF32Constant(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  return constant ? f32Values(constant.getValue()) : std::nullopt;
}

std::optional<int64_t> dlas::denseByteCount(ShapedType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  return type.getNumElements() * (type.getElementTypeBitWidth() / 8);
}

Value dlas::createF32Constant(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, ArrayRef<float> data,
                              StringRef resourceName) {
  return createConstant(
      b, loc, RankedTensorType::get(shape, b.getF32Type()),
      ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                     data.size() * sizeof(float)),
      resourceName);
}

Value dlas::createConstant(OpBuilder &b, Location loc, RankedTensorType type,
                           ArrayRef<char> bytes, StringRef resourceName) {
  unsigned align = std::max(1u, type.getElementTypeBitWidth() / 8);
  AsmResourceBlob blob = dlas::copyConstantBlob(bytes, align);
  return arith::ConstantOp::create(
      b, loc, DenseResourceElementsAttr::get(type, resourceName, std::move(blob)));
}

/// `value` rounded to nearest-even bf16 (bit operations: bf16 is f32's
/// upper half; NaN stays a quiet NaN), and that bf16 as f32 again.
static std::pair<uint16_t, float> roundToBF16(float value) {
  uint32_t word;
  std::memcpy(&word, &value, 4);
  uint16_t bits = std::isnan(value)
                      ? 0x7fc0
                      : static_cast<uint16_t>(
                            (word + 0x7fff + ((word >> 16) & 1)) >> 16);
  uint32_t back = uint32_t(bits) << 16;
  float rounded;
  std::memcpy(&rounded, &back, 4);
  return {bits, rounded};
}

/// `value` rounded to nearest-even in `semantics` (f16), and back as f32.
static std::pair<uint16_t, float>
roundWithAPFloat(float value, const llvm::fltSemantics &semantics) {
  llvm::APFloat half(value);
  bool lost;
  half.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  auto bits = static_cast<uint16_t>(half.bitcastToAPInt().getZExtValue());
  half.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
               &lost);
  return {bits, half.convertToFloat()};
}

dlas::RoundedHalfFloats dlas::roundToHalfFloats(ArrayRef<float> data,
                                                FloatType type) {
  RoundedHalfFloats rounded;
  rounded.bits.reserve(data.size());
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  // Weights run to tens of millions of values: bf16 takes the bit path,
  // f16 (subnormals, a narrower exponent) APFloat's.
  bool bf16 = type.isBF16();
  double error = 0.0, norm = 0.0;
  bool overflow = false;
  for (float value : data) {
    auto [bits, back] =
        bf16 ? roundToBF16(value) : roundWithAPFloat(value, semantics);
    rounded.bits.push_back(bits);
    if (std::isfinite(value) && std::isinf(back))
      overflow = true;
    double diff = double(value) - back;
    error += diff * diff;
    norm += double(value) * value;
  }
  rounded.relativeError =
      overflow ? INFINITY : (norm > 0 ? std::sqrt(error / norm) : 0.0);
  return rounded;
}

AsmResourceBlob dlas::allocateConstantBlob(size_t bytes,
                                           size_t declaredAlignment) {
  assert(declaredAlignment <= kConstantAlignment &&
         "a constant blob declares at most the alignment it has");
  auto *data = static_cast<char *>(
      llvm::allocate_buffer(bytes, kConstantAlignment));
  // The blob hands its declared alignment to the deleter; the buffer was
  // allocated with kConstantAlignment and must be freed with it.
  auto release = [](void *data, size_t bytes, size_t) {
    llvm::deallocate_buffer(data, bytes, kConstantAlignment);
  };
  return AsmResourceBlob(ArrayRef<char>(data, bytes), declaredAlignment,
                         release, /*dataIsMutable=*/true);
}

AsmResourceBlob dlas::copyConstantBlob(ArrayRef<char> data,
                                       size_t declaredAlignment) {
  AsmResourceBlob blob = allocateConstantBlob(data.size(), declaredAlignment);
  llvm::copy(data, blob.getMutableData().begin());
  return blob;
}
