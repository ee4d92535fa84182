//===- ExternalizeWeights.cpp - the dlas-externalize-weights pass ---------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_EXTERNALIZEWEIGHTS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {
struct ExternalizeWeightsPass
    : dlas::impl::ExternalizeWeightsBase<ExternalizeWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<NamedAttribute> table;
    if (auto existing =
            module->getAttrOfType<DictionaryAttr>(dlas::kExternalWeightsAttrName))
      table.append(existing.begin(), existing.end());
    // Identical constants (same resource) share one global.
    llvm::DenseMap<Attribute, memref::GlobalOp> globals;
    SmallVector<arith::ConstantOp> constants;
    module.walk([&](arith::ConstantOp op) {
      auto value = dyn_cast<DenseResourceElementsAttr>(op.getValue());
      if (!value)
        return;
      auto type = cast<RankedTensorType>(value.getType());
      int64_t bytes = type.getNumElements() *
                      (type.getElementType().getIntOrFloatBitWidth() / 8);
      if (bytes >= minBytes && value.getRawHandle().getBlob())
        constants.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (arith::ConstantOp op : constants) {
      auto value = cast<DenseResourceElementsAttr>(op.getValue());
      auto tensorType = cast<RankedTensorType>(value.getType());
      auto memrefType =
          MemRefType::get(tensorType.getShape(), tensorType.getElementType());
      memref::GlobalOp &global = globals[value];
      if (!global) {
        builder.setInsertionPointToStart(module.getBody());
        // Declared without an initializer: the JIT binds it to the data.
        global = memref::GlobalOp::create(
            builder, op.getLoc(), "dlas_weight", builder.getStringAttr("public"),
            memrefType, /*initial_value=*/Attribute(), /*constant=*/true,
            /*alignment=*/IntegerAttr());
        symbols.insert(global);
        table.push_back(builder.getNamedAttr(global.getSymName(), value));
        ++numExternalized;
        bytesExternalized += tensorType.getNumElements() *
                             (tensorType.getElementType().getIntOrFloatBitWidth() / 8);
      }
      builder.setInsertionPoint(op);
      Value memref = memref::GetGlobalOp::create(builder, op.getLoc(), memrefType,
                                                 global.getSymName());
      Value tensor = bufferization::ToTensorOp::create(
          builder, op.getLoc(), tensorType, memref, /*restrict=*/true,
          /*writable=*/false);
      op.replaceAllUsesWith(tensor);
      op.erase();
    }
    externalizeGlobals(module, table);
    if (!table.empty())
      module->setAttr(dlas::kExternalWeightsAttrName,
                      DictionaryAttr::get(&getContext(), table));
  }

  /// After bufferization: constant globals defined by a large resource
  /// become declarations of the same name (packed copies of weights made by
  /// the microkernels included).
  void externalizeGlobals(ModuleOp module,
                          SmallVectorImpl<NamedAttribute> &table) {
    for (auto global : module.getOps<memref::GlobalOp>()) {
      auto value = dyn_cast_or_null<DenseResourceElementsAttr>(
          global.getInitialValue().value_or(Attribute()));
      if (!global.getConstant() || !value || !value.getRawHandle().getBlob())
        continue;
      auto type = cast<ShapedType>(value.getType());
      int64_t bytes = type.getNumElements() *
                      (type.getElementType().getIntOrFloatBitWidth() / 8);
      if (bytes < minBytes)
        continue;
      table.push_back(
          NamedAttribute(global.getSymNameAttr(), value));
      global.removeInitialValueAttr();
      // The JIT binds the data where its blob lies: promise no more than
      // the element type's alignment.
      global.removeAlignmentAttr();
      global.setPublic();
      ++numExternalized;
      bytesExternalized += bytes;
    }
  }
};
} // namespace
