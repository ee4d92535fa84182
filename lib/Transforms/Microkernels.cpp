//===- Microkernels.cpp - shared by the microkernel passes ----------------===//
#include "DLAS/Transforms/Microkernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

dlas::TargetShape dlas::hostTarget() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](StringRef f) { return features.lookup(f); };
  if (has("avx512f"))
    return {16, 32, 0, 0};
  if (has("avx"))
    return {8, 16, 0, 0};
  return {4, 16, 0, 0}; // SSE, NEON
}

bool dlas::isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  if (body.getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value other = add.getLhs() == acc   ? add.getRhs()
                : add.getRhs() == acc ? add.getLhs()
                                      : Value();
  auto mul = other ? other.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (mul.getLhs() == x && mul.getRhs() == y) ||
         (mul.getLhs() == y && mul.getRhs() == x);
}

bool dlas::isContiguousF32(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32() &&
         type.getLayout().isIdentity();
}

void dlas::buildForLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                        int64_t step, function_ref<void(Value)> body) {
  Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
  scf::ForOp::create(b, loc, lb, ub, stepValue, ValueRange{},
                     [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                       OpBuilder::InsertionGuard guard(b);
                       b.setInsertionPointToStart(nested.getBlock());
                       body(iv);
                       scf::YieldOp::create(b, loc);
                     });
}
