//===- Prune.cpp - the dlas-prune pass ------------------------------------===//
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Dialect/Sparse/SparseDialect.h"
#include "DLAS/Dialect/Sparse/Transforms/Passes.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>

namespace mlir::dlas::sparse {
#define GEN_PASS_DEF_PRUNE
#include "DLAS/Dialect/Sparse/Transforms/Passes.h.inc"
} // namespace mlir::dlas::sparse

using namespace mlir;
using namespace mlir::dlas;

namespace {

/// How weights are pruned, parsed from the `structure` option.
struct Structure {
  enum Kind { Unstructured, Block, NOfM } kind = Unstructured;
  int64_t rows = 1, cols = 1; // Block
  int64_t n = 0, m = 0;       // NOfM
  std::string describe() const {
    switch (kind) {
    case Unstructured:
      return "unstructured";
    case Block:
      return "block-" + std::to_string(rows) + "x" + std::to_string(cols);
    case NOfM:
      return std::to_string(n) + ":" + std::to_string(m);
    }
    return "";
  }
};

FailureOr<Structure> parseStructure(StringRef text) {
  Structure structure;
  if (text == "unstructured")
    return structure;
  if (text.consume_front("block-")) {
    auto [rows, cols] = text.split('x');
    if (rows.getAsInteger(10, structure.rows) ||
        cols.getAsInteger(10, structure.cols) || structure.rows <= 0 ||
        structure.cols <= 0)
      return failure();
    structure.kind = Structure::Block;
    return structure;
  }
  auto [n, m] = text.split(':');
  if (n.getAsInteger(10, structure.n) || m.getAsInteger(10, structure.m) ||
      structure.n < 0 || structure.m <= 0 || structure.n > structure.m)
    return failure();
  structure.kind = Structure::NOfM;
  return structure;
}

/// Zeroes the `count` entries of `data` that `score` ranks lowest (ties
/// by position, so that the result does not depend on the sort).
void zeroLowest(int64_t groups, int64_t count,
                function_ref<double(int64_t)> score,
                function_ref<void(int64_t)> zeroGroup) {
  std::vector<int64_t> order(groups);
  std::iota(order.begin(), order.end(), 0);
  count = std::clamp<int64_t>(count, 0, groups);
  std::nth_element(order.begin(), order.begin() + count, order.end(),
                   [&](int64_t a, int64_t b) {
                     double sa = score(a), sb = score(b);
                     return sa < sb || (sa == sb && a < b);
                   });
  for (int64_t i = 0; i < count; ++i)
    zeroGroup(order[i]);
}

/// Prunes `data` (a rows x cols matrix) as `structure` says; a reason when
/// it cannot.
std::optional<std::string> prune(std::vector<float> &data, int64_t rows,
                                 int64_t cols, const Structure &structure,
                                 double sparsity) {
  auto size = static_cast<int64_t>(data.size());
  switch (structure.kind) {
  case Structure::Unstructured:
    zeroLowest(
        size, std::llround(sparsity * size),
        [&](int64_t i) { return std::fabs(data[i]); },
        [&](int64_t i) { data[i] = 0.0f; });
    return std::nullopt;
  case Structure::Block: {
    if (rows % structure.rows || cols % structure.cols)
      return "the " + std::to_string(rows) + "x" + std::to_string(cols) +
             " matrix is no multiple of the block";
    int64_t blockCols = cols / structure.cols;
    int64_t blocks = rows / structure.rows * blockCols;
    auto forBlock = [&](int64_t blockIndex, auto fn) {
      int64_t r0 = blockIndex / blockCols * structure.rows;
      int64_t c0 = blockIndex % blockCols * structure.cols;
      for (int64_t i = 0; i < structure.rows; ++i)
        for (int64_t j = 0; j < structure.cols; ++j)
          fn(data[(r0 + i) * cols + c0 + j]);
    };
    zeroLowest(
        blocks, std::llround(sparsity * blocks),
        [&](int64_t blockIndex) {
          double norm = 0;
          forBlock(blockIndex, [&](float &v) { norm += std::fabs(v); });
          return norm;
        },
        [&](int64_t blockIndex) {
          forBlock(blockIndex, [](float &v) { v = 0.0f; });
        });
    return std::nullopt;
  }
  case Structure::NOfM: {
    if (cols % structure.m)
      return "rows of " + std::to_string(cols) + " are no multiple of " +
             std::to_string(structure.m);
    for (int64_t start = 0; start < size; start += structure.m) {
      std::vector<float> group(data.begin() + start,
                               data.begin() + start + structure.m);
      zeroLowest(
          structure.m, structure.m - structure.n,
          [&](int64_t i) { return std::fabs(group[i]); },
          [&](int64_t i) { data[start + i] = 0.0f; });
    }
    return std::nullopt;
  }
  }
  return std::nullopt;
}


struct Prune : public sparse::impl::PruneBase<Prune> {
  using PruneBase::PruneBase;

  void runOnOperation() override {
    FailureOr<Structure> parsed = parseStructure(structure);
    if (failed(parsed)) {
      emitError(getOperation()->getLoc())
          << "dlas-prune: structure '" << structure
          << "' is none of unstructured, block-RxC (e.g. block-4x1), N:M "
             "(e.g. 2:4)";
      return signalPassFailure();
    }
    if (!(sparsity >= 0.0 && sparsity <= 1.0)) {
      emitError(getOperation()->getLoc())
          << "dlas-prune: sparsity " << sparsity << " is outside [0, 1]";
      return signalPassFailure();
    }
    SmallVector<std::pair<Operation *, OpOperand *>> weights;
    getOperation()->walk([&](Operation *op) {
      if (auto conv = dyn_cast<nn::Conv2DOp>(op))
        weights.push_back({op, &conv.getFilterMutable()});
      else if (auto linear = dyn_cast<nn::LinearOp>(op))
        weights.push_back({op, &linear.getWeightMutable()});
    });
    for (auto [op, operand] : weights)
      pruneWeight(op, *operand, *parsed);
  }

  void pruneWeight(Operation *op, OpOperand &operand,
                   const Structure &structure) {
    std::optional<std::vector<float>> data = readF32Constant(operand.get());
    if (!data)
      return;
    auto type = cast<RankedTensorType>(operand.get().getType());
    int64_t rows = type.getDimSize(0);
    int64_t cols = rows == 0 ? 0 : type.getNumElements() / rows;
    std::optional<std::string> skipped;
    if (type.getNumElements() < minElements)
      skipped = "fewer than " + std::to_string(minElements) + " elements";
    else
      skipped = prune(*data, rows, cols, structure, sparsity);
    if (report) {
      std::string shape;
      llvm::raw_string_ostream os(shape);
      llvm::interleave(type.getShape(), os, "x");
      llvm::outs() << "dlas-prune: " << op->getName().stripDialect() << " "
                   << sparse::describeLayer(op) << " " << shape << ": ";
      if (skipped)
        llvm::outs() << "left dense (" << *skipped << ")\n";
      else
        llvm::outs() << llvm::format("%.1f%%", 100.0 * (1.0 - sparse::density(*data)))
                     << " zeros (" << structure.describe() << ")\n";
    }
    if (skipped)
      return;
    // The pruned weight keeps its form: inline elements stay inline (small
    // weights, tests), a resource blob becomes a new blob.
    OpBuilder b(op);
    Operation *old = operand.get().getDefiningOp();
    Value pruned;
    if (isa<DenseElementsAttr>(cast<arith::ConstantOp>(old).getValue()))
      pruned = arith::ConstantOp::create(
          b, old->getLoc(), DenseElementsAttr::get(type, ArrayRef<float>(*data)));
    else
      pruned = createF32Constant(b, old->getLoc(), type.getShape(), *data,
                                 "pruned_weight");
    operand.set(pruned);
    if (old->use_empty())
      old->erase();
    ++numPruned;
  }
};

} // namespace
