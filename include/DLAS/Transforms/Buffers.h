//===- Buffers.h - facts about memref layouts -------------------*- C++ -*-===//
#ifndef DLAS_TRANSFORMS_BUFFERS_H
#define DLAS_TRANSFORMS_BUFFERS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"

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

/// Whether `subview` selects a box of its source: static offsets and
/// sizes, unit strides, the source's rank kept.
inline bool isStaticBox(memref::SubViewOp subview) {
  return subview.getSourceType().getRank() ==
             subview.getType().getRank() &&
         ShapedType::isStaticShape(subview.getStaticOffsets()) &&
         ShapedType::isStaticShape(subview.getStaticSizes()) &&
         subview.hasUnitStride();
}

/// The buffer `value` is a view of (through any chain of views), or
/// `value` itself.
inline Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// `buffer` and every view of it, transitively.
inline llvm::SmallPtrSet<Value, 8> aliasesOf(Value buffer) {
  llvm::SmallPtrSet<Value, 8> aliases = {buffer};
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == v)
        for (Value result : user->getResults())
          if (aliases.insert(result).second)
            worklist.push_back(result);
  }
  return aliases;
}

/// Whether `op` or an op nested in it has an operand in `aliases`.
inline bool touches(Operation *op,
                    const llvm::SmallPtrSetImpl<Value> &aliases) {
  WalkResult result = op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (aliases.contains(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` (or an op nested in it) may write a buffer in `aliases`:
/// a write effect on one of them, or effects it does not declare on an op
/// that uses one.
inline bool mayWrite(Operation *op,
                     const llvm::SmallPtrSetImpl<Value> &aliases) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return touches(op, aliases);
  for (const MemoryEffects::EffectInstance &effect : *effects) {
    if (!isa<MemoryEffects::Write>(effect.getEffect()))
      continue;
    Value written = effect.getValue();
    if (!written ? touches(op, aliases) : aliases.contains(written))
      return true;
  }
  return false;
}

/// Whether an op strictly between `first` and `last` (one block, `first`
/// before `last`) may write a buffer in `aliases`.
inline bool writtenBetween(Operation *first, Operation *last,
                           const llvm::SmallPtrSetImpl<Value> &aliases) {
  for (Operation *op = first->getNextNode(); op && op != last;
       op = op->getNextNode())
    if (mayWrite(op, aliases))
      return true;
  return false;
}

} // namespace mlir::dlas

#endif // DLAS_TRANSFORMS_BUFFERS_H
