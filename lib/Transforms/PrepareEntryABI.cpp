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
struct PrepareEntryABIPass
    : dlas::impl::PrepareEntryABIBase<PrepareEntryABIPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&getContext()));
      func->setAttr(dlas::kSignatureAttrName,
                    TypeAttr::get(func.getFunctionType()));
      // Callers own the inputs: bufferization must not write into them.
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                          BoolAttr::get(&getContext(), false));
    }
  }
};
} // namespace
