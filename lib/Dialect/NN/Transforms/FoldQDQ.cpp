//===- FoldQDQ.cpp - the dlas-fold-qdq pass -------------------------------===//
#include "Int8Policy.h"

#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Calibration.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_FOLDQDQ
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::nn;

namespace {
/// The per-tensor quantization of `input` when it is an nn.dequantize of
/// i8 with one scale and zero point.
std::optional<QuantizationParams> dequantizedFrom(Value input) {
  auto dequantize = input.getDefiningOp<DequantizeOp>();
  if (!dequantize || dequantize.getScales().size() != 1 ||
      !dequantize.getInput().getType().getElementType().isInteger(8))
    return std::nullopt;
  return QuantizationParams{dequantize.getScales()[0],
                            dequantize.getZeroPoints()[0]};
}

struct FoldQDQPass : nn::impl::FoldQDQBase<FoldQDQPass> {
  using Base::Base;

  void runOnOperation() override {
    auto func = dyn_cast<FunctionOpInterface>(getOperation());
    if (!func)
      return;
    for (const QuantizableLayer &layer : quantizableLayers(func)) {
      std::optional<QuantizationParams> input =
          dequantizedFrom(layer.op->getOperand(0));
      if (!input)
        continue;
      // As dlas-mixed-precision's default guard: the int8 depthwise
      // kernel is slower than the f32 one where measured (AVX2: its
      // requantizing epilogue costs more than the bytes it saves).
      if (isDepthwiseConv(layer.op)) {
        report(layer, "float", "depthwise");
        continue;
      }
      std::string detail;
      FailureOr<std::string> kept =
          lowerLayerToInt8(layer.op, *input, maxWeightError,
                           WeightScale::RecoverInt8Grid, detail);
      if (failed(kept))
        return signalPassFailure();
      if (!kept->empty()) {
        report(layer, "float", *kept);
        continue;
      }
      ++numFolded;
      report(layer, "int8",
             llvm::formatv("{0}, input scale {1:e3} zero point {2}", detail,
                           input->scale, input->zeroPoint)
                 .str());
    }
  }

  void report(const QuantizableLayer &layer, StringRef choice,
              const Twine &reason) {
    if (print)
      llvm::outs() << "dlas-fold-qdq: " << layer.description << ": " << choice
                   << " (" << reason << ")\n";
  }
};
} // namespace
