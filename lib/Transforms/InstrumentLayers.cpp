//===- InstrumentLayers.cpp - the dlas-instrument-layers pass -------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_INSTRUMENTLAYERS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

func::FuncOp declareHook(ModuleOp module, OpBuilder &builder, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto hook = func::FuncOp::create(
      builder, module.getLoc(), name,
      builder.getFunctionType({builder.getI64Type()}, {}));
  hook.setPrivate();
  return hook;
}

struct InstrumentLayersPass
    : dlas::impl::InstrumentLayersBase<InstrumentLayersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(&getContext());
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (callee && callee->hasAttr("dlas.layer"))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    func::FuncOp begin = declareHook(module, builder, "dlas_layer_begin");
    func::FuncOp end = declareHook(module, builder, "dlas_layer_end");
    SmallVector<Attribute> layers;
    for (auto [id, call] : llvm::enumerate(calls)) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      auto layer = callee->getAttrOfType<StringAttr>("dlas.layer");
      layers.push_back(builder.getStringAttr(
          (layer ? layer.getValue() : StringRef("?")) + ": " +
          callee.getName()));
      builder.setInsertionPoint(call);
      Value idValue = arith::ConstantOp::create(
          builder, call.getLoc(), builder.getI64IntegerAttr(id));
      func::CallOp::create(builder, call.getLoc(), begin, idValue);
      builder.setInsertionPointAfter(call);
      func::CallOp::create(builder, call.getLoc(), end, idValue);
    }
    module->setAttr("dlas.layers", builder.getArrayAttr(layers));
  }
};
} // namespace
