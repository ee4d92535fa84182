//===- LegalizeBF16.cpp - dlas-cpu-legalize-bf16 --------------------------===//
//
// Without AVX512-BF16, LLVM rounds f32 to bf16 through a compiler-rt call
// that a JIT process does not have; the conversions become bit operations
// here instead, and bf16 arithmetic runs in f32 between them.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_CPULEGALIZEBF16
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

namespace {
bool mentionsBF16(Operation *root) {
  auto isBF16 = [](Type type) { return getElementTypeOrSelf(type).isBF16(); };
  WalkResult found = root->walk([&](Operation *op) {
    if (llvm::any_of(op->getOperandTypes(), isBF16) ||
        llvm::any_of(op->getResultTypes(), isBF16))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

struct CPULegalizeBF16Pass
    : public dlas::impl::CPULegalizeBF16Base<CPULegalizeBF16Pass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target =
        module->getAttrOfType<CPUTargetAttr>(DLASDialect::kTargetAttrName);
    if ((target && target.hasFeature("avx512bf16")) || !mentionsBF16(module))
      return;
    MLIRContext *context = &getContext();
    // bf16 arithmetic in f32: extf, the op, truncf.
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(
        converter, {BFloat16Type::get(context)}, Float32Type::get(context));
    ConversionTarget legality(*context);
    arith::populateEmulateUnsupportedFloatsLegality(legality, converter);
    RewritePatternSet emulation(context);
    arith::populateEmulateUnsupportedFloatsPatterns(emulation, converter);
    if (failed(applyPartialConversion(module, legality, std::move(emulation))))
      return signalPassFailure();
    // Then the conversions themselves as bit operations.
    RewritePatternSet expansion(context);
    arith::populateExpandBFloat16Patterns(expansion);
    if (failed(applyPatternsGreedily(module, std::move(expansion))))
      return signalPassFailure();
  }
};
} // namespace
