//===- ApproximateMath.cpp - dlas-cpu-approximate-math --------------------===//
//
// LLVM lowers a vector exp/tanh/erf/log to one libm call per lane, and a
// loop that calls erff or tanhf does not vectorize at all: GELU, softmax,
// sigmoid and the recurrent cells ran a lane at a time. MLIR's polynomial
// approximations are plain arith ops that LLVM vectorizes; constant powers
// become multiplies.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

namespace {
/// The functions of NN models' hot loops whose approximations keep f32
/// accuracy over the whole range (sin and cos lose it for large arguments:
/// they stay libm calls unless asked for).
constexpr StringLiteral kDefaultOps[] = {"exp", "expm1", "tanh", "erf",
                                         "log", "log1p", "log2"};
/// Every math op MLIR has a polynomial approximation of.
constexpr StringLiteral kKnownOps[] = {
    "acos", "asin", "atan",  "atan2", "cbrt",  "cos",  "erf", "erfc",
    "exp",  "exp2", "expm1", "log",   "log1p", "log2", "sin", "tanh"};

struct CPUApproximateMathPass
    : public dlas::impl::CPUApproximateMathBase<CPUApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    for (const std::string &name : ops)
      if (!llvm::is_contained(kKnownOps, name))
        return emitError(UnknownLoc::get(ctx))
               << "dlas-cpu-approximate-math: no approximation of 'math."
               << name << "' (known: "
               << llvm::join(ArrayRef<StringLiteral>(kKnownOps), ", ") << ")";
    approximated.clear();
    if (ops.empty())
      for (StringRef name : kDefaultOps)
        approximated.insert(("math." + name).str());
    else
      for (const std::string &name : ops)
        approximated.insert("math." + name);
    return success();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    auto isApproximated = [&](StringRef name) {
      return approximated.contains(name);
    };
    // bf16/f16 operands first become f32 ops between extf and truncf.
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  llvm::StringSet<> approximated;
};
} // namespace
