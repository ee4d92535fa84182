//===- Buffers.h - facts about memref layouts -------------------*- C++ -*-===//
#ifndef DLAS_TRANSFORMS_BUFFERS_H
#define DLAS_TRANSFORMS_BUFFERS_H

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::dlas {

/// Whether `type` is a memref whose elements are one contiguous run in
/// row-major order (identity layout, or strides that amount to it): a
/// copy of it is a memcpy, and any collapse_shape of it is a view of the
/// same bytes in the same order.
inline bool isContiguousMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    memref::isStaticShapeAndContiguousRowMajor(memref));
}

} // namespace mlir::dlas

#endif // DLAS_TRANSFORMS_BUFFERS_H
