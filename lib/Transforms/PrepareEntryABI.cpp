//===- PrepareEntryABI.cpp - the dlas-prepare-entry-abi pass --------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_PREPAREENTRYABI
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// `type` with ui8 elements where `attrs` marks an i8 tensor unsigned.
Type withSignedness(Type type, DictionaryAttr attrs) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isSignlessInteger(8) || !attrs ||
      !attrs.contains(dlas::kUnsignedAttrName))
    return type;
  return tensor.clone(
      IntegerType::get(type.getContext(), 8, IntegerType::Unsigned));
}

} // namespace

FunctionType dlas::entrySignatureOf(func::FuncOp func) {
  SmallVector<Type> inputs, results;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    inputs.push_back(withSignedness(type, func.getArgAttrDict(i)));
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    results.push_back(withSignedness(type, func.getResultAttrDict(i)));
  return FunctionType::get(func.getContext(), inputs, results);
}

namespace {
struct PrepareEntryABIPass
    : dlas::impl::PrepareEntryABIBase<PrepareEntryABIPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&getContext()));
      func->setAttr(dlas::kSignatureAttrName,
                    TypeAttr::get(dlas::entrySignatureOf(func)));
      // Callers own the inputs: bufferization must not write into them.
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                          BoolAttr::get(&getContext(), false));
    }
  }
};
} // namespace
