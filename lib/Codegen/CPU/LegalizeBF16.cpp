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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

/// `type` with 16-bit float elements as 16-bit integers (null otherwise).
VectorType asBitsVector(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !(vector.getElementType().isBF16() ||
                   vector.getElementType().isF16()))
    return {};
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

/// Masked loads and stores of bf16/f16 vectors move i16 bit patterns
/// instead: LLVM scalarizes 16-bit masked accesses without AVX-512BW, and a
/// scalarized bf16 load goes through f32 and back (a __truncsfbf2 call per
/// element without AVX512-BF16, a conversion pair with it).
void moveHalfFloatsAsBits(ModuleOp module) {
  module.walk([](LLVM::MaskedLoadOp load) {
    VectorType bits = asBitsVector(load.getType());
    if (!bits)
      return;
    OpBuilder b(load);
    Location loc = load.getLoc();
    Value passThru = load.getPassThru();
    if (passThru)
      passThru = LLVM::BitcastOp::create(b, loc, bits, passThru);
    auto raw = LLVM::MaskedLoadOp::create(b, loc, bits, load.getData(),
                                          load.getMask(), passThru,
                                          load.getAlignmentAttr(),
                                          load.getNontemporalAttr());
    load.replaceAllUsesWith(
        LLVM::BitcastOp::create(b, loc, load.getType(), raw).getResult());
    load.erase();
  });
  module.walk([](LLVM::MaskedStoreOp store) {
    VectorType bits = asBitsVector(store.getValue().getType());
    if (!bits)
      return;
    OpBuilder b(store);
    Value raw =
        LLVM::BitcastOp::create(b, store.getLoc(), bits, store.getValue());
    store.getValueMutable().assign(raw);
  });
}

struct CPULegalizeBF16Pass
    : public dlas::impl::CPULegalizeBF16Base<CPULegalizeBF16Pass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // On LLVM-dialect IR (the second run, after the conversion) only the
    // memory accesses remain to fix.
    moveHalfFloatsAsBits(module);
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
