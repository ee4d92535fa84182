//===- OutlineLayers.cpp - the dlas-outline-layers pass -------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"
#include "DLAS/Dialect/Sparse/SparseDialect.h"

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
  if (isa<sparse::Conv2DOp, sparse::LinearOp>(op))
    return true;
  return isa<nn::NNDialect>(op->getDialect()) &&
         !isa<nn::ReshapeOp, nn::FlattenOp>(op);
}

/// Constants (dense or sparse) are cloned into each layer that reads them:
/// a kernel pass then sees its weights.
bool isConstant(Operation *op) {
  return isa_and_nonnull<arith::ConstantOp, sparse::ConstantOp>(op);
}

/// Elementwise ops that keep the type of `input`, their operand from the
/// producer: its kernel can apply them before it stores (the microkernels'
/// fused epilogues). A binary op's other operand may broadcast (a bias or
/// a per-channel scale).
bool isEpilogue(Operation *op, Value input) {
  // The dequantize of an int8 layer's i32 accumulator is its epilogue too
  // (the GEMM kernel converts in registers and stores f32).
  if (isa<nn::DequantizeOp>(op))
    return getElementTypeOrSelf(input.getType()).isInteger(32);
  // Its requantization for the next int8 layer: the kernel stores i8.
  if (isa<nn::QuantizeOp>(op))
    return true;
  if (op->getNumResults() != 1 || op->getResult(0).getType() != input.getType())
    return false;
  return isa<nn::ReluOp, nn::Relu6Op, nn::ClipOp, nn::LeakyReluOp,
             nn::SigmoidOp, nn::TanhOp, nn::SiluOp, nn::GeluOp, nn::HardSwishOp,
             nn::AddOp, nn::SubOp, nn::MulOp, nn::DivOp, nn::MaxOp, nn::MinOp>(
      op);
}

/// Whether `op` is a convolution that the CPU pipeline may block and fuse
/// a pool into: dense, NCHW, f32, channels whole blocks of the narrowest
/// vector (8 lanes).
bool mayFusePool(Operation *op) {
  auto conv = dyn_cast<nn::Conv2DOp>(op);
  if (!conv || conv.getGroups() != 1 || conv.getLayout() != nn::Layout::NCHW)
    return false;
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto output = cast<RankedTensorType>(conv.getOutput().getType());
  auto wholeBlocks = [](int64_t channels) {
    return !ShapedType::isDynamic(channels) && channels % 8 == 0;
  };
  return input.getElementType().isF32() && output.getElementType().isF32() &&
         wholeBlocks(input.getDimSize(1)) && wholeBlocks(output.getDimSize(1));
}

/// True for a constant pad whose one user is a convolution in its block: it
/// joins the convolution's layer, where the kernel folds it (the depthwise
/// stencil reads the border as the pad value; int8 pads with the input's
/// zero point, explicitly) instead of a layer writing a padded copy.
bool isPrologue(Operation *op) {
  auto pad = dyn_cast<nn::PadOp>(op);
  if (!pad || pad.getMode() != nn::PadMode::Constant ||
      !pad.getResult().hasOneUse())
    return false;
  Operation *user = *pad.getResult().getUsers().begin();
  return isa<nn::Conv2DOp>(user) && user->getBlock() == op->getBlock() &&
         user->getOperand(0) == pad.getResult();
}

/// The dequantize of an i8 tensor that is the other operand of `epilogue`
/// (a residual add reading a quantized skip connection,
/// dlas-quantize-residuals) when it has no other user and no layer yet: it
/// joins the epilogue's layer, where the kernel dequantizes the i8 tensor
/// as it reads it, instead of a layer of its own writing f32.
SmallVector<Operation *>
sidePrologues(Operation *epilogue, Value chained,
              const llvm::SmallPtrSetImpl<Operation *> &taken) {
  SmallVector<Operation *> prologues;
  for (Value operand : epilogue->getOperands()) {
    auto dequantize = operand.getDefiningOp<nn::DequantizeOp>();
    if (operand == chained || !dequantize || taken.contains(dequantize) ||
        !dequantize.getResult().hasOneUse() ||
        dequantize->getBlock() != epilogue->getBlock() ||
        !getElementTypeOrSelf(dequantize.getInput().getType()).isInteger(8))
      continue;
    prologues.push_back(dequantize);
  }
  return prologues;
}

/// `op` and the epilogue ops that consume its result one after the other,
/// each the only user of the one before and in no other layer yet (a
/// residual add joins the first of its two producers), then for a
/// convolution the max pool that reads the last of them: they share one
/// layer function so that they can fuse.
SmallVector<Operation *>
epilogueChain(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &taken) {
  SmallVector<Operation *> chain;
  if (Operation *pad =
          op->getNumOperands() ? op->getOperand(0).getDefiningOp() : nullptr;
      pad && isPrologue(pad) && !taken.contains(pad))
    chain.push_back(pad);
  chain.push_back(op);
  while (chain.back()->getNumResults() == 1 &&
         chain.back()->getResult(0).hasOneUse()) {
    Operation *user = *chain.back()->getResult(0).getUsers().begin();
    Value chained = chain.back()->getResult(0);
    if (user->getBlock() != op->getBlock() || !isEpilogue(user, chained) ||
        taken.contains(user))
      break;
    llvm::append_range(chain, sidePrologues(user, chained, taken));
    chain.push_back(user);
  }
  // A max pool of a convolution's (activated) result joins its layer too,
  // where the convolution can run blocked: dlas-blocked-conv-microkernel
  // pools each band of rows before it stores.
  if (mayFusePool(op) && chain.back()->getNumResults() == 1 &&
      chain.back()->getResult(0).hasOneUse()) {
    Operation *user = *chain.back()->getResult(0).getUsers().begin();
    if (isa<nn::MaxPool2DOp>(user) && user->getBlock() == op->getBlock() &&
        !taken.contains(user))
      chain.push_back(user);
  }
  return chain;
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
      SmallVector<SmallVector<Operation *>> layers;
      llvm::SmallPtrSet<Operation *, 16> grouped;
      func.walk([&](Operation *op) {
        if (!isLayer(op) || grouped.contains(op) || isPrologue(op))
          return;
        layers.push_back(epilogueChain(op, grouped));
        grouped.insert(layers.back().begin(), layers.back().end());
      });
      // Layer functions follow their caller, in program order.
      Operation *insertAfter = func;
      for (auto [index, group] : llvm::enumerate(layers))
        insertAfter = outline(func, group, index, insertAfter, symbols);
    }
  }

  Operation *outline(func::FuncOp caller, ArrayRef<Operation *> group,
                     size_t index, Operation *insertAfter,
                     SymbolTable &symbols) {
    Operation *last = group.back();
    // The layer is named after its main op, not a pad before it.
    Operation *op = group.front();
    if (isPrologue(op))
      op = group[1];
    llvm::SmallPtrSet<Operation *, 4> members(group.begin(), group.end());
    // Constant operands travel with the ops; the rest become arguments.
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    for (Operation *member : group) {
      for (Value operand : member->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && members.contains(def))
          continue;
        if (isConstant(def)) {
          if (!llvm::is_contained(constants, def))
            constants.push_back(def);
        } else if (!llvm::is_contained(arguments, operand)) {
          arguments.push_back(operand);
        }
      }
    }
    // The call goes where the last op was: every argument dominates it.
    OpBuilder builder(last);
    auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                        last->getResultTypes());
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
    for (Operation *constant : constants)
      bodyBuilder.clone(*constant, mapping);
    Operation *clone = nullptr;
    for (Operation *member : group)
      clone = bodyBuilder.clone(*member, mapping);
    func::ReturnOp::create(bodyBuilder, op->getLoc(), clone->getResults());

    auto call = func::CallOp::create(builder, op->getLoc(), callee, arguments);
    last->replaceAllUsesWith(call.getResults());
    for (Operation *member : llvm::reverse(group))
      member->erase();
    for (Operation *constant : constants)
      if (constant->use_empty())
        constant->erase();
    ++numLayers;
    return callee;
  }
};
} // namespace
