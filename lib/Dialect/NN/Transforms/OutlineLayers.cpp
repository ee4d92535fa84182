//===- OutlineLayers.cpp - the dlas-outline-layers pass -------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Path.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_OUTLINELAYERS
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;

namespace {

/// Ops that only relabel memory gain nothing from a function of their own.
bool isLayer(Operation *op) {
  return isa<nn::NNDialect>(op->getDialect()) &&
         !isa<nn::ReshapeOp, nn::FlattenOp>(op);
}

/// A readable name for the layer: its NameLoc (ONNX node name) if any.
std::string layerName(Operation *op) {
  Location loc = op->getLoc();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(inner))
        return name.getName().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
        .str();
  return op->getName().getStringRef().str();
}

struct OutlineLayersPass : nn::impl::OutlineLayersBase<OutlineLayersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal() || func.isPrivate())
        continue;
      SmallVector<Operation *> layers;
      func.walk([&](Operation *op) {
        if (isLayer(op))
          layers.push_back(op);
      });
      // Layer functions follow their caller, in program order.
      Operation *insertAfter = func;
      for (auto [index, op] : llvm::enumerate(layers))
        insertAfter = outline(func, op, index, insertAfter, symbols);
    }
  }

  Operation *outline(func::FuncOp caller, Operation *op, size_t index,
                     Operation *insertAfter, SymbolTable &symbols) {
    OpBuilder builder(op);
    // Constant operands travel with the op; the rest become arguments.
    SmallVector<Value> arguments;
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp<arith::ConstantOp>() &&
          !llvm::is_contained(arguments, operand))
        arguments.push_back(operand);
    auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                        op->getResultTypes());
    std::string name = (caller.getName() + "_layer" + Twine(index) + "_" +
                        op->getName().stripDialect())
                           .str();
    OpBuilder moduleBuilder(caller);
    moduleBuilder.setInsertionPointAfter(insertAfter);
    auto callee = func::FuncOp::create(moduleBuilder, op->getLoc(), name, type);
    callee.setPrivate();
    callee->setAttr("dlas.layer", builder.getStringAttr(layerName(op)));
    // LLVM must not inline the layers back into one function.
    callee->setAttr("passthrough",
                    builder.getArrayAttr({builder.getStringAttr("noinline")}));
    symbols.insert(callee);

    Block *body = callee.addEntryBlock();
    OpBuilder bodyBuilder = OpBuilder::atBlockBegin(body);
    IRMapping mapping;
    for (auto [outer, inner] : llvm::zip(arguments, body->getArguments()))
      mapping.map(outer, inner);
    for (Value operand : op->getOperands())
      if (auto constant = operand.getDefiningOp<arith::ConstantOp>())
        if (!mapping.contains(operand))
          mapping.map(operand, bodyBuilder.clone(*constant)->getResult(0));
    Operation *clone = bodyBuilder.clone(*op, mapping);
    func::ReturnOp::create(bodyBuilder, op->getLoc(), clone->getResults());

    auto call = func::CallOp::create(builder, op->getLoc(), callee, arguments);
    op->replaceAllUsesWith(call.getResults());
    SmallVector<Operation *> constants;
    for (Value operand : op->getOperands())
      if (auto constant = operand.getDefiningOp<arith::ConstantOp>())
        constants.push_back(constant);
    op->erase();
    for (Operation *constant : constants)
      if (constant->use_empty())
        constant->erase();
    ++numLayers;
    return callee;
  }
};
} // namespace
