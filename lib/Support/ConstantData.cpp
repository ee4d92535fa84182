//===- ConstantData.cpp - rearranging constant tensors at compile time ----===//
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

Value dlas::permuteConstant(OpBuilder &b, Location loc, Value input,
                            ArrayRef<int64_t> viewShape,
                            ArrayRef<int64_t> perm,
                            RankedTensorType resultType,
                            StringRef resourceName) {
  auto constant = input.getDefiningOp<arith::ConstantOp>();
  auto type = cast<RankedTensorType>(input.getType());
  if (!constant || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() % 8 != 0 ||
      computeProduct(viewShape) != type.getNumElements())
    return Value();
  size_t elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  if (dense && dense.isSplat())
    return arith::ConstantOp::create(b, loc, dense.reshape(resultType));
  if (dense)
    raw = dense.getRawData();
  else if (resource && resource.getRawHandle().getBlob())
    raw = resource.getRawHandle().getBlob()->getData();
  if (raw.size() != type.getNumElements() * elementBytes)
    return Value();
  // Walk the result in order, keeping the source offset alongside.
  SmallVector<int64_t> sourceStrides = computeSuffixProduct(viewShape);
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> index(shape.size(), 0);
  std::vector<char> data(raw.size());
  int64_t offset = 0;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    std::memcpy(&data[i * elementBytes], &raw[offset * elementBytes],
                elementBytes);
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      offset += sourceStrides[perm[d]];
      if (++index[d] < shape[d])
        break;
      offset -= index[d] * sourceStrides[perm[d]];
      index[d] = 0;
    }
  }
  Attribute value;
  if (resource)
    value = DenseResourceElementsAttr::get(
        resultType, resourceName,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(data),
                                                      alignof(uint64_t)));
  else
    value = DenseElementsAttr::getFromRawBuffer(resultType, data);
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
}
