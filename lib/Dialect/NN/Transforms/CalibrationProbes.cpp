//===- CalibrationProbes.cpp - the dlas-calibration-probes pass -----------===//
//
// Calibration runs the f32 model and needs the input of every layer the
// int8 policy will quantize. Returning those values from the entry keeps
// the compiled code ordinary (no hooks, no side effects): the runner reads
// them as extra results.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/NN/Transforms/Calibration.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_CALIBRATIONPROBES
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;

namespace {

struct CalibrationProbesPass
    : nn::impl::CalibrationProbesBase<CalibrationProbesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    SmallVector<Attribute> probes;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      std::vector<nn::QuantizableLayer> layers = nn::quantizableLayers(func);
      if (layers.empty())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitError("dlas-calibration-probes: function '")
            << func.getName()
            << "' has more than one block; its layers cannot be probed";
        return signalPassFailure();
      }
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      SmallVector<Value> results(ret.getOperands());
      for (const nn::QuantizableLayer &layer : layers) {
        probes.push_back(b.getDictionaryAttr({
            b.getNamedAttr("function", b.getStringAttr(func.getName())),
            b.getNamedAttr("key", b.getStringAttr(layer.key)),
            b.getNamedAttr("layer", b.getStringAttr(layer.description)),
            b.getNamedAttr("result", b.getI64IntegerAttr(results.size())),
        }));
        results.push_back(layer.op->getOperand(0));
        ++numProbes;
      }
      ret.getOperandsMutable().assign(results);
      func.setType(b.getFunctionType(func.getArgumentTypes(),
                                     ValueRange(results).getTypes()));
      // Result attributes, where the function has them, one per result.
      if (ArrayAttr resultAttrs = func.getResAttrsAttr()) {
        SmallVector<Attribute> extended(resultAttrs.getValue());
        extended.resize(results.size(), b.getDictionaryAttr({}));
        func.setResAttrsAttr(b.getArrayAttr(extended));
      }
    }
    module->setAttr("dlas.calibration_probes", b.getArrayAttr(probes));
  }
};

} // namespace
