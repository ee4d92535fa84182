//===- MixedPrecision.cpp - the dlas-mixed-precision pass -----------------===//
//
// A per-layer precision policy on the nn graph: which layers run in bf16 or
// f16, decided before lowering so that weights convert once, at compile
// time, and the casts sit at the edges of low-precision regions only.
//
//===----------------------------------------------------------------------===//
#include "Int8Policy.h"
#include "DLAS/Dialect/DLAS/DLASDialect.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"
#include "DLAS/Dialect/Sparse/SparseDialect.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

#include <cmath>

namespace mlir::dlas::nn {
#define GEN_PASS_DEF_MIXEDPRECISION
#include "DLAS/Dialect/NN/Transforms/Passes.h.inc"
} // namespace mlir::dlas::nn

using namespace mlir;
using namespace mlir::dlas;

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

/// Ops the policy decides one by one and reports: those with weights.
bool isLayer(Operation *op) {
  return isa<nn::Conv2DOp, nn::Conv3DOp, nn::ConvTranspose2DOp, nn::LinearOp,
             nn::MatmulOp, nn::BatchMatmulOp, nn::LstmOp, nn::GruOp, nn::RnnOp>(
      op);
}

/// An nn op with an f32 tensor to convert. nn.cast stays: it is the edge.
bool isCandidate(Operation *op) {
  if (!isa<nn::NNDialect>(op->getDialect()) || isa<nn::CastOp>(op))
    return false;
  return llvm::any_of(op->getOperandTypes(), isF32Tensor) ||
         llvm::any_of(op->getResultTypes(), isF32Tensor);
}

/// Ops that compute nothing a precision changes (they move, select or
/// take the maximum of elements): they follow their input's precision, so
/// that a region edge sits at a layer (after a ReLU and max pool that
/// follow a first convolution kept in f32, not before them).
bool followsInput(Operation *op) {
  return isa<nn::ReluOp, nn::Relu6Op, nn::ClipOp, nn::MaxPool2DOp,
             nn::ReshapeOp, nn::FlattenOp, nn::TransposeOp, nn::SliceOp,
             nn::PadOp, nn::BroadcastToOp>(op);
}

/// Which layers of one function run in the low type, and the rewrite.
class FunctionPolicy {
public:
  FunctionPolicy(FunctionOpInterface func, FloatType low, nn::Guards guards,
                 double maxWeightError, bool print)
      : func(func), low(low), guards(guards), maxWeightError(maxWeightError),
        print(print) {}

  void decide();
  void rewrite();

  int64_t lowered = 0, kept = 0, casts = 0;

private:
  /// Why `op` stays in f32 ("" when it does not).
  std::string guardReason(Operation *op, Operation *firstConv,
                          Operation *classifier);
  /// The largest rounding error of `op`'s constant f32 operands.
  double weightError(Operation *op);
  /// `value` rounded to the low type when it is an f32 constant (computed
  /// once per constant), else null.
  const RoundedHalfFloats *roundedConstant(Value value);
  void report(Operation *op, StringRef choice, const Twine &reason);
  Value lowConstant(Value constant);
  Value lowCast(Value value);
  Type lowType(Type type) {
    return cast<RankedTensorType>(type).clone(low);
  }

  FunctionOpInterface func;
  FloatType low;
  nn::Guards guards;
  double maxWeightError;
  bool print;
  SmallVector<Operation *> candidates;
  llvm::SetVector<Operation *> converted;
  DenseMap<Value, RoundedHalfFloats> rounded;
  DenseMap<Value, Value> lowValues;
};

std::string FunctionPolicy::guardReason(Operation *op, Operation *firstConv,
                                        Operation *classifier) {
  if (guards.firstConv && op == firstConv)
    return "first convolution";
  if (guards.classifier && op == classifier)
    return "classifier";
  if (guards.softmax && isa<nn::SoftmaxOp, nn::LogSoftmaxOp>(op))
    return "softmax";
  if (guards.depthwise && nn::isDepthwiseConv(op))
    return "depthwise";
  return "";
}

const RoundedHalfFloats *FunctionPolicy::roundedConstant(Value value) {
  auto it = rounded.find(value);
  if (it == rounded.end()) {
    std::optional<std::vector<float>> data = readF32Constant(value);
    if (!data)
      return nullptr;
    it = rounded.try_emplace(value, roundToHalfFloats(*data, low)).first;
  }
  return &it->second;
}

double FunctionPolicy::weightError(Operation *op) {
  double worst = 0.0;
  for (Value operand : op->getOperands())
    if (isF32Tensor(operand.getType()))
      if (const RoundedHalfFloats *weights = roundedConstant(operand))
        worst = std::max(worst, weights->relativeError);
  return worst;
}

void FunctionPolicy::report(Operation *op, StringRef choice,
                            const Twine &reason) {
  if (!print || !isLayer(op))
    return;
  llvm::outs() << "dlas-mixed-precision: " << op->getName().stripDialect()
               << " " << sparse::describeLayer(op) << ": " << choice << " ("
               << reason << ")\n";
}

void FunctionPolicy::decide() {
  Operation *firstConv = nullptr, *classifier = nullptr;
  func->walk([&](Operation *op) {
    if (!isCandidate(op))
      return;
    candidates.push_back(op);
    if (!firstConv && isa<nn::Conv2DOp, nn::Conv3DOp>(op))
      firstConv = op;
    if (isa<nn::LinearOp, nn::MatmulOp>(op))
      classifier = op;
  });
  std::string lowName;
  llvm::raw_string_ostream(lowName) << low;
  for (Operation *op : candidates) {
    if (followsInput(op)) {
      Operation *producer = op->getOperand(0).getDefiningOp();
      if (producer && converted.contains(producer))
        converted.insert(op);
      continue;
    }
    std::string reason = guardReason(op, firstConv, classifier);
    if (!reason.empty()) {
      report(op, "f32", reason);
      kept += isLayer(op);
      continue;
    }
    double error = weightError(op);
    std::string errorText;
    llvm::raw_string_ostream(errorText) << llvm::format("%.2e", error);
    if (error > maxWeightError) {
      report(op, "f32",
             std::isinf(error) ? Twine("a weight overflows ") + lowName
                               : Twine("weight error ") + errorText +
                                     " > max-weight-error");
      kept += isLayer(op);
      continue;
    }
    converted.insert(op);
    lowered += isLayer(op);
    report(op, lowName, "weight error " + errorText);
  }
}

Value FunctionPolicy::lowConstant(Value constant) {
  auto source = constant.getDefiningOp<arith::ConstantOp>();
  const RoundedHalfFloats &bits = rounded.at(constant);
  auto type = cast<RankedTensorType>(lowType(constant.getType()));
  ArrayRef<char> bytes(reinterpret_cast<const char *>(bits.bits.data()),
                       bits.bits.size() * sizeof(uint16_t));
  OpBuilder b(source);
  b.setInsertionPointAfter(source);
  // Inline constants (splats, small tensors) stay inline; weight blobs
  // become blobs named after the original.
  if (auto dense = dyn_cast<DenseElementsAttr>(source.getValue())) {
    if (dense.isSplat())
      bytes = bytes.take_front(sizeof(uint16_t));
    return arith::ConstantOp::create(
        b, source.getLoc(), DenseElementsAttr::getFromRawBuffer(type, bytes));
  }
  std::string name = "mixed_precision_weight";
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(source.getValue()))
    name = resource.getRawHandle().getKey().str() + "_" +
           (low.isBF16() ? "bf16" : "f16");
  return createConstant(b, source.getLoc(), type, bytes, name);
}

Value FunctionPolicy::lowCast(Value value) {
  OpBuilder b(value.getContext());
  if (Operation *def = value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  ++casts;
  return nn::CastOp::create(b, value.getLoc(), lowType(value.getType()),
                            value);
}

void FunctionPolicy::rewrite() {
  for (Operation *op : converted) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!isF32Tensor(value.getType()))
        continue; // an earlier converted op's result, or not a float
      Value &lowValue = lowValues[value];
      if (!lowValue)
        lowValue = roundedConstant(value) ? lowConstant(value) : lowCast(value);
      operand.set(lowValue);
    }
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults()) {
      if (!isF32Tensor(result.getType()))
        continue;
      Type f32Type = result.getType();
      result.setType(lowType(f32Type));
      // Users outside the region read f32 again.
      SmallVector<OpOperand *> outside;
      for (OpOperand &use : result.getUses())
        if (!converted.contains(use.getOwner()))
          outside.push_back(&use);
      if (outside.empty())
        continue;
      Value back = nn::CastOp::create(b, op->getLoc(), f32Type, result);
      ++casts;
      for (OpOperand *use : outside)
        use->set(back);
    }
  }
}

struct MixedPrecisionPass
    : nn::impl::MixedPrecisionBase<MixedPrecisionPass> {
  using MixedPrecisionBase::MixedPrecisionBase;

  /// The low type the policy asks for on `module`'s target; null for f32.
  FailureOr<FloatType> lowType(ModuleOp module) {
    MLIRContext *context = module.getContext();
    if (policy == "f32")
      return FloatType();
    if (policy == "bf16")
      return FloatType(BFloat16Type::get(context));
    if (policy == "fp16" || policy == "f16")
      return FloatType(Float16Type::get(context));
    // Every GPU DLAS compiles for (sm_80+, gfx90a+) converts and multiplies
    // bf16 at full rate, with f32's range.
    if (policy == "auto" && lookupGPUTarget(module))
      return FloatType(BFloat16Type::get(context));
    if (policy == "auto") {
      CPUTargetAttr target = lookupCPUTarget(module);
      if (target && (target.hasFeature("avx512bf16") ||
                     target.hasFeature("amx-bf16")))
        return FloatType(BFloat16Type::get(context));
      if (target && target.hasFeature("avx512fp16"))
        return FloatType(Float16Type::get(context));
      return FloatType();
    }
    return module.emitError("dlas-mixed-precision: unknown policy '")
           << policy << "' (f32, bf16, fp16, int8 or auto)";
  }

  FailureOr<nn::Guards> parseGuards(ModuleOp module) {
    nn::Guards guards;
    // int8 keeps depthwise convolutions in f32 by default too: measured on
    // AVX2 (MobileNetV2 blocks), the int8 stencil's dequantize, clip and
    // requantize epilogue costs more than its narrower loads save.
    if (keepF32.empty())
      return nn::Guards{true, true, true, /*depthwise=*/policy == "int8"};
    for (const std::string &kind : keepF32) {
      if (kind == "first-conv")
        guards.firstConv = true;
      else if (kind == "classifier")
        guards.classifier = true;
      else if (kind == "softmax")
        guards.softmax = true;
      else if (kind == "depthwise")
        guards.depthwise = true;
      else if (kind != "none")
        return module.emitError("dlas-mixed-precision: unknown keep-f32 "
                                "kind '")
               << kind
               << "' (first-conv, classifier, softmax, depthwise or none)";
    }
    return guards;
  }

  /// policy=int8: every function's quantizable layers, from the
  /// calibration file.
  void runInt8(ModuleOp module, nn::Guards guards, double budget) {
    if (calibration.empty()) {
      module.emitError("dlas-mixed-precision: policy int8 needs "
                       "calibration=FILE, the activation ranges that "
                       "dlas-run --calibrate DIR records");
      return signalPassFailure();
    }
    llvm::Expected<nn::CalibrationTable> table =
        nn::readCalibration(calibration);
    if (!table) {
      module.emitError("dlas-mixed-precision: ")
          << llvm::toString(table.takeError());
      return signalPassFailure();
    }
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      nn::Int8Stats stats;
      if (failed(nn::quantizeFunctionToInt8(func, *table, guards, budget,
                                            print, stats)))
        return signalPassFailure();
      numLowered += stats.lowered;
      numKept += stats.kept;
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<nn::Guards> guards = parseGuards(module);
    if (failed(guards))
      return signalPassFailure();
    if (std::isnan(maxWeightError)) {
      module.emitError("dlas-mixed-precision: max-weight-error must be a "
                       "number, got nan");
      return signalPassFailure();
    }
    // A negative budget stands for the policy's default: int8's per-channel
    // rounding loses about 1% of a weight's L2 norm (a step of max|w|/127),
    // the half-width floats' about 0.1-0.3%.
    bool int8 = policy == "int8";
    double budget = maxWeightError >= 0.0 ? double(maxWeightError)
                    : int8                ? 5e-2
                                          : 1e-2;
    if (int8 && lookupGPUTarget(module)) {
      module.emitError("dlas-mixed-precision: policy int8 has no GPU kernels "
                       "yet (")
          << lookupGPUTarget(module).getName()
          << " takes f32, bf16, fp16 or auto)";
      return signalPassFailure();
    }
    if (int8)
      return runInt8(module, *guards, budget);
    FailureOr<FloatType> low = lowType(module);
    if (failed(low))
      return signalPassFailure();
    if (!*low)
      return;
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      FunctionPolicy policy(func, *low, *guards, budget, print);
      policy.decide();
      policy.rewrite();
      numLowered += policy.lowered;
      numKept += policy.kept;
      numCasts += policy.casts;
    }
  }
};

} // namespace
