//===- HoistQuantize.cpp - the dlas-hoist-quantize pass -------------------===//
//
// Moves per-tensor nn.quantize ops above the ops that commute with them
// (max pool, concat, reshape, flatten), so that those ops run on i8 and the
// layers before them store i8 from their epilogues (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_HOISTQUANTIZE
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nn;

namespace {

/// True for an nn.quantize with one scale and zero point.
bool isPerTensor(QuantizeOp quantize) {
  return quantize.getScales().size() == 1;
}

bool sameParameters(QuantizeOp a, QuantizeOp b) {
  return a.getScales() == b.getScales() &&
         a.getZeroPoints() == b.getZeroPoints();
}

/// Ops whose result, quantized per tensor, equals the op applied to its
/// quantized data operands: they only move or select elements, and a max
/// pool's padding (-inf in f32, the least i8 in i8) never wins.
bool commutesWithQuantize(Operation *op) {
  return isa<MaxPool2DOp, ConcatOp, ReshapeOp, FlattenOp>(op) &&
         op->getNumResults() == 1 &&
         getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

/// The per-tensor quantize ops that are all the users of `value`, or an
/// empty list when it has another user.
SmallVector<QuantizeOp> quantizeUsers(Value value) {
  SmallVector<QuantizeOp> users;
  for (Operation *user : value.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || !isPerTensor(quantize))
      return {};
    users.push_back(quantize);
  }
  return users;
}

/// `tensor` quantized like `like`.
Value quantizeLike(OpBuilder &b, Value tensor, QuantizeOp like) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return QuantizeOp::create(b, like.getLoc(), type.clone(b.getI8Type()), tensor,
                            like.getScalesAttr(), like.getZeroPointsAttr(),
                            like.getAxisAttr());
}

/// Runs `op` on i8: its f32 operands quantized with the parameters of the
/// widest of `users` (the quantize ops of its result), which then read the
/// i8 result (requantized for those with other parameters).
void hoistAbove(Operation *op, ArrayRef<QuantizeOp> users) {
  QuantizeOp widest = *llvm::max_element(users, [](QuantizeOp a, QuantizeOp b) {
    return a.getScales()[0] < b.getScales()[0];
  });
  OpBuilder b(op);
  IRMapping quantized;
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand.getType()).isF32() &&
        !quantized.contains(operand))
      quantized.map(operand, quantizeLike(b, operand, widest));
  Operation *onI8 = b.clone(*op, quantized);
  Value result = onI8->getResult(0);
  result.setType(cast<RankedTensorType>(result.getType()).clone(b.getI8Type()));
  for (QuantizeOp user : users) {
    Value replacement = result;
    if (!sameParameters(user, widest)) {
      b.setInsertionPoint(user);
      auto dequantized = DequantizeOp::create(
          b, user.getLoc(), user.getInput().getType(), result,
          widest.getScalesAttr(), widest.getZeroPointsAttr(),
          widest.getAxisAttr());
      replacement = quantizeLike(b, dequantized, user);
    }
    user.replaceAllUsesWith(replacement);
    user->erase();
  }
  op->erase();
}

struct HoistQuantizePass : nn::impl::HoistQuantizeBase<HoistQuantizePass> {
  void runOnOperation() override {
    // Each hoist adds quantize ops on the op's operands, which may let
    // their producers move too: repeat until nothing moves.
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<Operation *> candidates;
      getOperation()->walk([&](Operation *op) {
        if (commutesWithQuantize(op))
          candidates.push_back(op);
      });
      for (Operation *op : llvm::reverse(candidates)) {
        SmallVector<QuantizeOp> users = quantizeUsers(op->getResult(0));
        if (users.empty())
          continue;
        hoistAbove(op, users);
        ++numHoisted;
        changed = true;
      }
    }
  }
};
} // namespace
