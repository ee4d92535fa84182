//===- Sparsify.cpp - the dlas-sparsify pass ------------------------------===//
#include "DLAS/Dialect/DLAS/DLASDialect.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/Sparse/SparseDialect.h"
#include "DLAS/Dialect/Sparse/Transforms/Passes.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::dlas::sparse {
#define GEN_PASS_DEF_SPARSIFY
#include "DLAS/Dialect/Sparse/Transforms/Passes.h.inc"
} // namespace mlir::dlas::sparse

using namespace mlir;
using namespace mlir::dlas;
using sparse::CompressedWeight;

namespace {

// The committed calibration table (Calibration.json), built in.
#include "SparseCalibration.inc"

/// Output-channel block heights tried: a block of r rows shares each
/// input vector load among r accumulators.
constexpr int64_t kBlockRows[] = {1, 4, 8};

/// Break-even densities (stored fraction) per layer kind and block height
/// for one target, from the calibration table.
struct Calibration {
  std::string key; // "avx2" or "avx512"
  const llvm::json::Object *table = nullptr;

  /// The break-even density of `kind` with `blockRows`-row blocks; 0 (never
  /// sparse) when the table has no entry.
  double breakEven(StringRef kind, int64_t blockRows) const {
    const llvm::json::Object *byBlock = table ? table->getObject(kind) : nullptr;
    if (!byBlock)
      return 0.0;
    if (std::optional<double> value =
            byBlock->getNumber(std::to_string(blockRows)))
      return *value;
    return 0.0;
  }
};

/// A layer's choice: the format that the calibrated cost model ranks best.
struct Choice {
  CompressedWeight packed; // the weight in that format
  double stored = 1.0;    // stored fraction in that format
  double breakEven = 0.0; // of that format
  double relativeTime() const {
    return breakEven > 0 ? stored / breakEven : INFINITY;
  }
};

struct Sparsify : public sparse::impl::SparsifyBase<Sparsify> {
  using SparsifyBase::SparsifyBase;

  llvm::json::Value calibrationTable = nullptr;

  LogicalResult loadCalibration() {
    std::string text = kBuiltinCalibration;
    if (!calibration.empty()) {
      auto buffer = llvm::MemoryBuffer::getFile(calibration);
      if (!buffer)
        return emitError(getOperation()->getLoc())
               << "dlas-sparsify: cannot read calibration file '" << calibration
               << "': " << buffer.getError().message();
      text = (*buffer)->getBuffer().str();
    }
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    if (!parsed)
      return emitError(getOperation()->getLoc())
             << "dlas-sparsify: calibration "
             << (calibration.empty() ? std::string("(built in)") : calibration)
             << " is not JSON: " << llvm::toString(parsed.takeError());
    calibrationTable = std::move(*parsed);
    if (!calibrationTable.getAsObject() ||
        !calibrationTable.getAsObject()->getObject("targets"))
      return emitError(getOperation()->getLoc())
             << "dlas-sparsify: calibration has no \"targets\" object";
    return success();
  }

  FailureOr<Calibration> calibrationFor(ModuleOp module) {
    CPUTargetAttr target = lookupCPUTarget(module);
    if (!target)
      return emitError(module.getLoc())
             << "dlas-sparsify: policy=auto needs the module's '"
             << DLASDialect::kTargetAttrName
             << "' (dlas-attach-target) to pick its calibration";
    Calibration result;
    result.key = target.getVectorBits() >= 512 ? "avx512" : "avx2";
    result.table =
        calibrationTable.getAsObject()->getObject("targets")->getObject(result.key);
    return result;
  }

  void runOnOperation() override {
    if (policy != "auto" && policy != "always" && policy != "never") {
      emitError(getOperation().getLoc()) << "dlas-sparsify: policy '" << policy
                                 << "' is none of auto, always, never";
      return signalPassFailure();
    }
    if (policy == "never")
      return;
    Calibration calibrated;
    if (policy == "auto") {
      if (failed(loadCalibration()))
        return signalPassFailure();
      FailureOr<Calibration> found = calibrationFor(getOperation());
      if (failed(found))
        return signalPassFailure();
      calibrated = *found;
    }
    SmallVector<Operation *> layers;
    getOperation().walk([&](Operation *op) {
      if (isa<nn::Conv2DOp, nn::LinearOp>(op))
        layers.push_back(op);
    });
    for (Operation *op : layers)
      decide(op, calibrated);
  }

  /// Why `op` stays dense regardless of its weight ("" if it may not).
  static std::string unsupported(Operation *op) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!type.getElementType().isF32())
      return "not f32";
    // The sparse kernels take a dynamic batch (their outermost loop), not
    // other dynamic sizes (they shape the compile-time offsets).
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    for (int64_t d = 1; d < input.getRank(); ++d)
      if (input.isDynamicDim(d))
        return "dynamic size";
    if (auto conv = dyn_cast<nn::Conv2DOp>(op))
      if (conv.getLayout() != nn::Layout::NCHW)
        return "not NCHW";
    return "";
  }

  static StringRef layerKind(Operation *op) {
    auto conv = dyn_cast<nn::Conv2DOp>(op);
    if (!conv)
      return "linear";
    auto filter = conv.getFilter().getType();
    if (filter.getDimSize(1) == 1 && conv.getGroups() > 1)
      return "depthwise";
    if (filter.getDimSize(2) == 1 && filter.getDimSize(3) == 1)
      return "conv1x1";
    return "conv";
  }

  void decide(Operation *op, const Calibration &calibrated) {
    Value weightValue = op->getOperand(1);
    auto weightType = cast<RankedTensorType>(weightValue.getType());
    int64_t rows = weightType.getDimSize(0);
    int64_t cols = rows ? weightType.getNumElements() / rows : 0;
    StringRef kind = layerKind(op);
    // The layer as it is before a rewrite erases it.
    std::string layer = (op->getName().stripDialect() + " " +
                         sparse::describeLayer(op) + " " + Twine(rows) + "x" +
                         Twine(cols) + " (" + kind + ")")
                            .str();
    auto say = [&](const Twine &reason) {
      if (print)
        llvm::outs() << "dlas-sparsify: " << layer << ": " << reason << "\n";
    };
    if (std::string why = unsupported(op); !why.empty())
      return say("dense (" + why + ")");
    // A blob's values are read where they are (a dense weight's copy cost
    // as much as counting its zeros); other constants are copied.
    std::optional<std::vector<float>> copied;
    ArrayRef<float> dense;
    auto constant = weightValue.getDefiningOp<arith::ConstantOp>();
    auto resource =
        constant ? dyn_cast<DenseF32ResourceElementsAttr>(constant.getValue())
                 : DenseF32ResourceElementsAttr();
    if (std::optional<ArrayRef<float>> inPlace =
            resource ? resourceValues<float>(resource) : std::nullopt) {
      dense = *inPlace;
    } else {
      copied = readF32Constant(weightValue);
      if (!copied)
        return say("dense (weight is not a constant)");
      dense = *copied;
    }
    double density = sparse::density(dense);
    if (density == 1.0 || rows * cols == 0)
      return say("dense (no zeros)");

    int64_t groups = 1;
    if (auto conv = dyn_cast<nn::Conv2DOp>(op))
      groups = conv.getGroups();
    // Every format stores at least the non-zeros, so no format beats dense
    // at a density at or above its break-even: decided without compressing
    // (which, for the dense weights of an unpruned model, took most of
    // the compile time: 7 s of VGG-16's 11).
    if (policy == "auto") {
      double highest = 0.0;
      for (int64_t blockRows : kBlockRows)
        if ((rows / groups) % blockRows == 0)
          highest = std::max(highest, calibrated.breakEven(kind, blockRows));
      if (density >= highest)
        return say(llvm::formatv("density {0:F3}, at or above every "
                                 "format's break-even (at most {1:F2}, {2}, "
                                 "calibrated) -> dense",
                                 density, highest, calibrated.key)
                       .str());
    }
    Choice best;
    for (int64_t blockRows : kBlockRows) {
      if ((rows / groups) % blockRows != 0)
        continue;
      Choice choice;
      choice.packed = sparse::compress(dense, rows, cols, {blockRows, 1});
      choice.stored = choice.packed.storedFraction();
      choice.breakEven =
          policy == "always" ? 1.0 : calibrated.breakEven(kind, blockRows);
      if (choice.relativeTime() < best.relativeTime() ||
          (policy == "always" && blockRows == 1))
        best = std::move(choice);
    }
    std::string numbers;
    llvm::raw_string_ostream os(numbers);
    os << llvm::format("density %.3f, stored %.3f in %lldx1 blocks", density,
                       best.stored, static_cast<long long>(best.packed.block.rows));
    if (policy == "auto") {
      os << llvm::format(", break-even %.2f (%s, calibrated)", best.breakEven,
                         calibrated.key.c_str());
      if (best.relativeTime() >= 1.0)
        return say(numbers + " -> dense");
    }
    std::string fused = rewrite(op, best.packed);
    say(numbers + " -> sparse" + fused);
    ++numSparsified;
  }

  /// The only user of `v` when it is an `OpTy`, else null.
  template <typename OpTy>
  static OpTy soleUserOf(Value v) {
    if (!v.hasOneUse())
      return {};
    return dyn_cast<OpTy>(*v.getUsers().begin());
  }

  /// The other operand of `add`, a residual the convolution's kernel can
  /// add before it stores: of the result's type (no broadcast), not the
  /// convolution's result itself.
  static Value residualOf(nn::AddOp add, Value conv) {
    Value other = add.getLhs() == conv ? add.getRhs() : add.getLhs();
    if (other == conv || other.getType() != conv.getType() ||
        add.getType() != conv.getType())
      return {};
    return other;
  }

  /// The fused pool's attributes for `pool` after a convolution: its
  /// window, strides and padding, the bottom and right padding grown to
  /// the windows a `ceil_mode` pool reaches (padding never wins a max).
  /// None where the kernel cannot pool it (another layout, a dilation, a
  /// dynamic size other than the batch, a padding as wide as the window) or
  /// where fusing does not pay (a map under `minPositions`).
  static std::optional<std::array<DenseI64ArrayAttr, 3>>
  fusablePool(nn::MaxPool2DOp pool, int64_t minPositions) {
    if (!pool || pool.getLayout() != nn::Layout::NCHW ||
        llvm::any_of(pool.getDilations(), [](int64_t d) { return d != 1; }))
      return std::nullopt;
    auto in = cast<RankedTensorType>(pool.getInput().getType());
    auto out = cast<RankedTensorType>(pool.getType());
    auto staticBeyondBatch = [](RankedTensorType type) {
      return llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
    };
    if (!staticBeyondBatch(in) || !staticBeyondBatch(out) ||
        in.getDimSize(2) * in.getDimSize(3) < minPositions)
      return std::nullopt;
    ArrayRef<int64_t> kernel = pool.getKernel(), strides = pool.getStrides();
    SmallVector<int64_t> padding(pool.getPadding());
    for (int64_t d = 0; d < 2; ++d) {
      // The padding after the input that the last window reaches.
      int64_t reach = (out.getDimSize(2 + d) - 1) * strides[d] + kernel[d] -
                      in.getDimSize(2 + d) - padding[d];
      padding[2 + d] = std::max<int64_t>(reach, 0);
    }
    for (auto [side, p] : llvm::enumerate(padding))
      if (p >= kernel[side % 2])
        return std::nullopt;
    MLIRContext *context = pool.getContext();
    return std::array<DenseI64ArrayAttr, 3>{
        DenseI64ArrayAttr::get(context, kernel),
        DenseI64ArrayAttr::get(context, strides),
        DenseI64ArrayAttr::get(context, padding)};
  }

  /// Replaces `op` by its sparse form; returns what was fused into it
  /// (" + residual add + relu + max pool", for the decision's line).
  std::string rewrite(Operation *op, const CompressedWeight &packed) {
    // A convolution's only user that adds a shortcut of its shape (a
    // residual block's) is folded in as `residual`; a ReLU that is then
    // the only user is applied before the kernel stores.
    Value current = op->getResult(0);
    Value residual;
    nn::AddOp add;
    if (isa<nn::Conv2DOp>(op))
      if ((add = soleUserOf<nn::AddOp>(current)))
        if ((residual = residualOf(add, current)))
          current = add.getResult();
    if (!residual)
      add = {};
    nn::ReluOp relu = soleUserOf<nn::ReluOp>(current);
    if (relu)
      current = relu.getResult();
    // A max pool after a convolution without a shortcut is computed on
    // each band of rows the kernel has just written.
    nn::MaxPool2DOp pool;
    std::optional<std::array<DenseI64ArrayAttr, 3>> poolAttrs;
    if (fusePools && isa<nn::Conv2DOp>(op) && !residual)
      if ((pool = soleUserOf<nn::MaxPool2DOp>(current)))
        if (!(poolAttrs = fusablePool(pool, minPoolPositions)))
          pool = {};
    // The new op replaces the last one it folds: the residual may be
    // computed after the convolution, which dominates it anyway.
    Operation *last = pool   ? pool.getOperation()
                      : relu ? relu.getOperation()
                      : add  ? add.getOperation()
                             : op;
    OpBuilder b(last);
    Location loc = op->getLoc();
    Value weight = sparse::createConstant(b, op->getOperand(1).getLoc(), packed);
    Value result;
    if (auto conv = dyn_cast<nn::Conv2DOp>(op)) {
      auto filter = conv.getFilter().getType();
      auto sparseConv = sparse::Conv2DOp::create(
          b, loc, pool ? pool.getType() : conv.getType(), conv.getInput(),
          weight, conv.getBias(), residual,
          b.getDenseI64ArrayAttr({filter.getDimSize(2), filter.getDimSize(3)}),
          conv.getStridesAttr(), conv.getPaddingAttr(), conv.getDilationsAttr(),
          conv.getGroupsAttr(), relu ? b.getUnitAttr() : UnitAttr(),
          DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
      if (pool) {
        sparseConv.setPoolKernelAttr((*poolAttrs)[0]);
        sparseConv.setPoolStridesAttr((*poolAttrs)[1]);
        sparseConv.setPoolPaddingAttr((*poolAttrs)[2]);
        ++numPoolsFused;
      }
      result = sparseConv;
    } else {
      auto linear = cast<nn::LinearOp>(op);
      result = sparse::LinearOp::create(
          b, loc, linear.getType(), linear.getInput(), weight, linear.getBias(),
          relu ? b.getUnitAttr() : UnitAttr());
    }
    if (residual)
      ++numResidualsFused;
    std::string fused = std::string(residual ? " + residual add" : "") +
                        (relu ? " + relu" : "") + (pool ? " + max pool" : "");
    Value oldWeight = op->getOperand(1);
    last->getResult(0).replaceAllUsesWith(result);
    if (pool)
      pool->erase();
    if (relu)
      relu->erase();
    if (add)
      add->erase();
    op->erase();
    if (Operation *def = oldWeight.getDefiningOp(); def && def->use_empty())
      def->erase();
    return fused;
  }
};

} // namespace
