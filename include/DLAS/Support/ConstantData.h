//===- ConstantData.h - rearranging constant tensors at compile time -*- C++ -*-===//
//
// Weights are constants: transposing or packing them belongs to the
// compiler, once, not to every call of the generated code.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_SUPPORT_CONSTANTDATA_H
#define DLAS_SUPPORT_CONSTANTDATA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>
#include <vector>

namespace mlir::dlas {

/// The elements of `input`, an `arith.constant` holding a dense or
/// dense_resource tensor, read row-major as a tensor of `viewShape` (the
/// same element count: a reshape costs nothing) and permuted by `perm`
/// (result dim d is view dim perm[d]), as a new constant of `resultType`;
/// a dense_resource result is named `resourceName`. Null when `input` is
/// no such constant or its bytes cannot be read.
Value permuteConstant(OpBuilder &b, Location loc, Value input,
                      ArrayRef<int64_t> viewShape, ArrayRef<int64_t> perm,
                      RankedTensorType resultType, StringRef resourceName);

/// `resultType.getNumElements()` consecutive elements of `input` (an
/// `arith.constant` as for permuteConstant), from row-major element
/// `firstElement` on, as a new constant of `resultType`: a slice along
/// the leading dimensions. Null when `input` is no such constant.
Value sliceConstant(OpBuilder &b, Location loc, Value input,
                    int64_t firstElement, RankedTensorType resultType,
                    StringRef resourceName);

/// The bytes a dense tensor of `type` takes: a static shape of elements
/// of whole bytes; nullopt otherwise.
std::optional<int64_t> denseByteCount(ShapedType type);

/// The elements of a dense_resource attribute as `T`, when its blob is
/// there and holds exactly the bytes its type needs (`T` the size of its
/// element type). Upstream's `tryGetAsArrayRef` does not check the size:
/// a truncated blob (a fuzzer's find) would be read past its end.
template <typename T>
std::optional<ArrayRef<T>> resourceValues(DenseResourceElementsAttr attr) {
  AsmResourceBlob *blob = attr.getRawHandle().getBlob();
  auto type = cast<ShapedType>(attr.getType());
  std::optional<int64_t> bytes = denseByteCount(type);
  if (!blob || !bytes || type.getElementTypeBitWidth() != 8 * sizeof(T) ||
      static_cast<int64_t>(blob->getData().size()) != *bytes)
    return std::nullopt;
  return ArrayRef<T>(reinterpret_cast<const T *>(blob->getData().data()),
                     type.getNumElements());
}

/// Where the data of every constant blob DLAS writes starts (packed
/// filters, folded and imported weights): on a cache line, so that a
/// 64-byte vector load of a kernel's filter never splits across two lines.
/// The JIT binds externalized weights to their blobs in place; with
/// malloc's 16-byte alignment three processes in four split every zmm
/// filter load (Zen 5, bf16 1x1 layers: 0.256-0.263 ms against 0.231 where
/// the blob happened to be aligned).
inline constexpr size_t kConstantAlignment = 64;

/// A writable blob of `bytes` bytes whose data starts on a cache line
/// (kConstantAlignment) but that declares only `declaredAlignment` (the
/// element's): the declared alignment is what a printed or bytecode module
/// records and asks of its readers, and a bytecode reader (stock mlir-opt's
/// included) refuses sections aligned beyond its heap-read buffer's 16.
AsmResourceBlob allocateConstantBlob(size_t bytes, size_t declaredAlignment);

/// allocateConstantBlob holding a copy of `data`.
AsmResourceBlob copyConstantBlob(ArrayRef<char> data, size_t declaredAlignment);

/// A blob holding a copy of `data` (see allocateConstantBlob).
template <typename T>
AsmResourceBlob alignedBlob(ArrayRef<T> data) {
  return copyConstantBlob(
      ArrayRef<char>(reinterpret_cast<const char *>(data.data()),
                     data.size() * sizeof(T)),
      alignof(T));
}

/// The elements of `value`, a dense or dense_resource f32 attribute, in
/// row-major order; nullopt for anything else (or a blob of the wrong
/// size).
std::optional<std::vector<float>> f32Values(Attribute value);

/// The elements of `value`, a dense or dense_resource attribute of f32,
/// bf16 or f16, as f32 (exact: both widen without rounding); nullopt for
/// anything else.
std::optional<std::vector<float>> widenedFloatValues(Attribute value);

/// The elements of `value` in row-major order when it is an
/// `arith.constant` holding an f32 dense or dense_resource tensor.
std::optional<std::vector<float>> readF32Constant(Value value);

/// An `arith.constant` of an f32 tensor of `shape` holding `data` as a
/// dense_resource blob named `resourceName` (weights: no per-element
/// attribute storage).
Value createF32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        ArrayRef<float> data, StringRef resourceName);

/// An `arith.constant` of `type` holding `bytes` (its elements row-major,
/// little-endian) as a dense_resource blob named `resourceName`.
Value createConstant(OpBuilder &b, Location loc, RankedTensorType type,
                     ArrayRef<char> bytes, StringRef resourceName);

/// `data` rounded to nearest-even in the 16-bit float type `type` (bf16 or
/// f16): the bit patterns, and the relative L2 error of the rounding
/// (infinite when a finite value overflows).
struct RoundedHalfFloats {
  std::vector<uint16_t> bits;
  double relativeError = 0.0;
};
RoundedHalfFloats roundToHalfFloats(ArrayRef<float> data, FloatType type);

} // namespace mlir::dlas

#endif // DLAS_SUPPORT_CONSTANTDATA_H
