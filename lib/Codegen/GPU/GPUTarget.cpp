//===- GPUTarget.cpp - GPU targets and the GPU cost model -----------------===//
#include "DLAS/Codegen/GPU/GPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::dlas;

namespace {
/// One row of the GPU table. Shared memory is what a block may use without
/// opting in to more (48 KiB on NVIDIA), so that every kernel DLAS emits
/// launches with static shared memory only.
struct KnownGPU {
  const char *name;
  const char *features;
  int64_t warpSize;
  int64_t maxThreads;
  int64_t sharedMemory;
  int64_t processors;
};
} // namespace

// PTX ISA 8.0 (CUDA 12.0 drivers and newer) for every NVIDIA chip: the
// lowest version that sm_90 needs, and one version for all keeps the PTX
// the same. Processors: A100, RTX 3090 class, RTX 4090 class, H100 SXM;
// MI210, MI300X.
static const KnownGPU knownGPUs[] = {
    {"cuda:sm_80", "+ptx80", 32, 1024, 49152, 108},
    {"cuda:sm_86", "+ptx80", 32, 1024, 49152, 84},
    {"cuda:sm_89", "+ptx80", 32, 1024, 49152, 128},
    {"cuda:sm_90", "+ptx80", 32, 1024, 49152, 132},
    {"rocm:gfx90a", "", 64, 1024, 65536, 104},
    {"rocm:gfx942", "", 64, 1024, 65536, 304},
};

bool dlas::isGPUTargetName(StringRef name) {
  return name.starts_with("cuda") || name.starts_with("rocm");
}

std::string dlas::knownGPUTargetNames() {
  SmallVector<StringRef> names;
  for (const KnownGPU &gpu : knownGPUs)
    names.push_back(gpu.name);
  return llvm::join(names, ", ");
}

std::optional<GPUTargetName> dlas::lookupGPUTargetName(StringRef name) {
  for (const KnownGPU &gpu : knownGPUs) {
    if (name != gpu.name)
      continue;
    auto [api, chip] = name.split(':');
    return GPUTargetName{api.str(), chip.str(), gpu.features};
  }
  return std::nullopt;
}

llvm::Expected<GPUTargetAttr> dlas::resolveGPUTarget(MLIRContext *context,
                                                     StringRef name) {
  context->getOrLoadDialect<DLASDialect>();
  for (const KnownGPU &gpu : knownGPUs) {
    if (name != gpu.name)
      continue;
    auto [api, chip] = name.split(':');
    return GPUTargetAttr::get(context, api, chip, gpu.features, gpu.warpSize,
                              gpu.maxThreads, gpu.sharedMemory, gpu.processors);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown GPU target '" + name + "' (known: " +
                                     knownGPUTargetNames() + ")");
}

FailureOr<GPUTargetAttr> dlas::requireGPUTarget(ModuleOp module,
                                                StringRef pass) {
  if (GPUTargetAttr target = lookupGPUTarget(module))
    return target;
  return emitError(module.getLoc())
         << pass << " needs the module's '" << DLASDialect::kTargetAttrName
         << "' to be a #dlas.gpu_target (dlas-gpu-attach-target)";
}

/// `op`'s name and static loop ranges (? for a dynamic one), the key a
/// decision is printed and tuned under.
static std::string decisionKey(linalg::LinalgOp op) {
  std::string key = op->getName().getStringRef().str();
  SmallVector<std::string> ranges;
  for (int64_t range : op.getStaticLoopRanges())
    ranges.push_back(ShapedType::isDynamic(range) ? "?"
                                                  : std::to_string(range));
  return key + "_" + llvm::join(ranges, "x");
}

SmallVector<unsigned> dlas::gpuLoopOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  auto isParallel = [&](unsigned dim) {
    return iterators[dim] == utils::IteratorType::parallel;
  };
  if (op.getNumDpsInits() > 0) {
    AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (AffineExpr expr : output.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        if (isParallel(dim.getPosition()) &&
            !llvm::is_contained(order, dim.getPosition()))
          order.push_back(dim.getPosition());
  }
  for (unsigned dim = 0; dim < iterators.size(); ++dim)
    if (isParallel(dim) && !llvm::is_contained(order, dim))
      order.push_back(dim);
  bool reduces = llvm::any_of(iterators, [](utils::IteratorType iterator) {
    return iterator == utils::IteratorType::reduction;
  });
  unsigned numParallel = order.size();
  if (reduces && numParallel >= 3 && op.getNumDpsInputs() >= 2) {
    // A parallel loop that the first input does not index (a convolution's
    // output channel) goes next to the innermost: a tiled kernel's register
    // tile then spans it and the innermost, and each input element a thread
    // loads serves the tile's whole column of outputs (NCHW: (n, f, oh, ow)
    // runs as (n, oh, f, ow)). The innermost stays, for coalescing.
    AffineMap input = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    for (int position = numParallel - 2; position >= 0; --position) {
      unsigned dim = order[position];
      if (input.isFunctionOfDim(dim))
        continue;
      order.erase(order.begin() + position);
      order.insert(order.begin() + numParallel - 2, dim);
      break;
    }
  }
  for (unsigned dim = 0; dim < iterators.size(); ++dim)
    if (!isParallel(dim))
      order.push_back(dim);
  return order;
}

/// How much of `threads x factor`-wide block tiles an extent of `extent`
/// fills, in [0, 1]: what is left of the work once the idle positions of
/// its last tile are counted.
static double utilization(int64_t extent, int64_t span) {
  return static_cast<double>(extent) /
         static_cast<double>(llvm::alignTo(extent, span));
}

/// The least a tiled kernel's blocks must fill of their positions, along
/// each tiled dimension.
constexpr double kMinUtilization = 0.75;

/// A tiled kernel's register tile: the most outputs per thread (up to
/// 8 rows x 4 columns) whose block tile (`rows` x `columns` threads times
/// the tile) the output still fills (kMinUtilization), and which still
/// leaves two blocks per processor; of equals, the one that loads the
/// fewest operands (4 x 4 before 8 x 2). A 4 x 4 tile loads 8 operand
/// values for 16 FMAs per reduction step where one output per thread loads
/// 2 for 1; 8 x 4 loads 12 for 32. Empty: one output per thread.
static SmallVector<int64_t>
chooseOutputsPerThread(int64_t rows, int64_t columns, int64_t outer,
                       int64_t rowThreads, int64_t columnThreads,
                       GPUTargetAttr target) {
  int64_t best = 1, bestLoads = 2;
  SmallVector<int64_t> chosen;
  for (int64_t rowTile : {8, 4, 2, 1})
    for (int64_t columnTile : {4, 2, 1}) {
      int64_t rowSpan = rowThreads * rowTile,
              columnSpan = columnThreads * columnTile;
      int64_t blocks = outer * llvm::divideCeil(rows, rowSpan) *
                       llvm::divideCeil(columns, columnSpan);
      bool fills = utilization(rows, rowSpan) >= kMinUtilization &&
                   utilization(columns, columnSpan) >= kMinUtilization;
      int64_t outputs = rowTile * columnTile, loads = rowTile + columnTile;
      if (fills && blocks >= 2 * target.getProcessors() &&
          (outputs > best || (outputs == best && loads < bestLoads))) {
        best = outputs;
        bestLoads = loads;
        chosen = {rowTile, columnTile};
      }
    }
  return chosen;
}

/// A tiled kernel's shape: its 256 threads as rows x columns and its
/// register tile (empty: one output a thread).
struct TiledShape {
  int64_t rowThreads, columnThreads;
  SmallVector<int64_t> tile;
};

/// The block shape: its 256 threads as 8 x 32 (a warp along the
/// innermost, contiguous dimension), or 16 x 16 or 32 x 8 where the
/// innermost is too short to fill 32 columns (a 14- or 7-wide map), then
/// its register tile. None when not even 8 columns fill. (Narrower warps
/// with wider register tiles, 64 x 4 threads for a 14-wide map, measured
/// slower on an H200: their loads are less coalesced.)
static std::optional<TiledShape> chooseTiledShape(int64_t rows, int64_t columns,
                                                  int64_t outer,
                                                  GPUTargetAttr target) {
  constexpr int64_t kBlockThreads = 256;
  for (int64_t columnThreads : {32, 16, 8}) {
    int64_t rowThreads = kBlockThreads / columnThreads;
    if (columns * 4 >= columnThreads * 3 &&
        utilization(columns, columnThreads) >= kMinUtilization &&
        rows >= rowThreads)
      return TiledShape{rowThreads, columnThreads,
                        chooseOutputsPerThread(rows, columns, outer, rowThreads,
                                               columnThreads, target)};
  }
  return std::nullopt;
}

std::string dlas::gpuKernelName(StringRef key) {
  StringRef name = key;
  if (size_t dot = name.find('.'); dot != StringRef::npos)
    name = name.drop_front(dot + 1);
  std::string result;
  for (char c : name)
    result.push_back(llvm::isAlnum(c) ? c : '_');
  if (result.empty() || llvm::isDigit(result.front()))
    result.insert(0, "k_");
  return result;
}

bool dlas::isSumReduction(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!getElementTypeOrSelf(init->get().getType()).isF32())
    return false;
  BlockArgument output = op.getMatchingBlockArgument(init);
  auto add = op.getBlock()
                 ->getTerminator()
                 ->getOperand(0)
                 .getDefiningOp<arith::AddFOp>();
  return add && output.hasOneUse() &&
         (add.getLhs() == output || add.getRhs() == output);
}

int64_t dlas::splitReductionLoop(ArrayRef<int64_t> reductions) {
  int64_t chosen = 0;
  for (auto [i, range] : llvm::enumerate(reductions))
    if (!ShapedType::isDynamic(range) &&
        (ShapedType::isDynamic(reductions[chosen]) ||
         range > reductions[chosen]))
      chosen = i;
  return chosen;
}

/// Chunks to cut a sum reduction's longest loop into (see the `split`
/// of #dlas.gpu_kernel) when its kernel launches `launched` threads: the
/// most (a power of two, at most 64) that keep the launch within
/// `processors` x 1024 threads (half of what an SM holds, so that every SM
/// has several blocks), at least 8 iterations of the loop a chunk and at
/// least 256 of the whole reduction (each chunk's atomic adds stay rare),
/// and at most `maxChunks` (the grid's limit).
static int64_t chooseSplit(linalg::LinalgOp op, ArrayRef<int64_t> reductions,
                           int64_t launched, int64_t maxChunks,
                           GPUTargetAttr target) {
  if (!isSumReduction(op) || reductions.empty() ||
      llvm::any_of(reductions, ShapedType::isDynamic))
    return 1;
  int64_t work = 1;
  for (int64_t range : reductions)
    work *= range;
  int64_t wanted = target.getProcessors() * 1024;
  int64_t split = 1;
  int64_t longest = reductions[splitReductionLoop(reductions)];
  while (split < 64 && launched * split * 2 <= wanted &&
         longest / (split * 2) >= 8 && work / (split * 2) >= 256 &&
         split * 2 <= maxChunks)
    split *= 2;
  return split;
}

/// The block argument `value` is, through an arith.extf from f16 or bf16
/// (or, with `allowF32`, an f32 argument itself); null otherwise.
static BlockArgument multiplicandArgument(Value value, bool allowF32) {
  if (auto extf = value.getDefiningOp<arith::ExtFOp>()) {
    auto argument = dyn_cast<BlockArgument>(extf.getIn());
    if (argument && isa<Float16Type, BFloat16Type>(argument.getType()))
      return argument;
    return {};
  }
  auto argument = dyn_cast<BlockArgument>(value);
  if (allowF32 && argument && argument.getType().isF32())
    return argument;
  return {};
}

std::optional<GemmView> dlas::tensorCoreGemmView(linalg::LinalgOp op,
                                                 bool allowF32) {
  if (!op.hasPureBufferSemantics() && !op.hasPureTensorSemantics())
    return std::nullopt;
  if (op.getNumDpsInputs() != 2 || !isSumReduction(op) ||
      llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return std::nullopt;
  // The payload: output + widen(x) * widen(y), nothing else.
  Block *body = op.getBlock();
  auto add =
      cast<arith::AddFOp>(body->getTerminator()->getOperand(0).getDefiningOp());
  BlockArgument output = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  Value product = add.getLhs() == output ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || !mul.getType().isF32())
    return std::nullopt;
  BlockArgument lhs = multiplicandArgument(mul.getLhs(), allowF32),
                rhs = multiplicandArgument(mul.getRhs(), allowF32);
  // At most two widenings, the product and the sum.
  if (!lhs || !rhs || lhs == rhs || lhs.getType() != rhs.getType() ||
      llvm::range_size(body->without_terminator()) > 4)
    return std::nullopt;
  GemmView view;
  view.x = op.getMatchingOpOperand(lhs);
  view.y = op.getMatchingOpOperand(rhs);
  view.element = lhs.getType();
  view.ranges = op.getStaticLoopRanges();
  AffineMap xMap = op.getMatchingIndexingMap(view.x),
            yMap = op.getMatchingIndexingMap(view.y),
            outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() || xMap.getNumSymbols() ||
      yMap.getNumSymbols())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned loop = 0; loop < iterators.size(); ++loop) {
    bool inX = xMap.isFunctionOfDim(loop), inY = yMap.isFunctionOfDim(loop),
         inOut = outMap.isFunctionOfDim(loop);
    if (iterators[loop] == utils::IteratorType::reduction) {
      if (inOut)
        return std::nullopt;
      view.k.push_back(loop);
    } else if (!inOut) {
      return std::nullopt;
    } else if (inX && inY) {
      view.batch.push_back(loop);
    } else if (inX) {
      view.m.push_back(loop);
    } else if (inY) {
      view.n.push_back(loop);
    } else {
      return std::nullopt; // an output broadcast over a loop: no GEMM
    }
  }
  if (view.m.empty() || view.n.empty() || view.k.empty())
    return std::nullopt;
  return view;
}

std::optional<MatrixInstruction>
dlas::chooseMatrixInstruction(GPUTargetAttr target, Type element) {
  StringRef chip = target.getChip();
  if (target.getApi() == "cuda") {
    unsigned version = 0;
    if (!chip.consume_front("sm_") || chip.getAsInteger(10, version))
      return std::nullopt;
    // MLIR 22's WMMA ops take f16 only, and its nvgpu.mma.sync lowering
    // cannot type bf16 operands: bf16 goes to nvvm.mma.sync directly.
    if (element.isF16() && version >= 70)
      return MatrixInstruction::wmma;
    if ((element.isBF16() || element.isF32()) && version >= 80)
      return MatrixInstruction::mmaSync;
    return std::nullopt;
  }
  // CDNA2 and CDNA3: 16x16x16 MFMA for f16 and (the "_1k" forms) bf16.
  if (isa<Float16Type, BFloat16Type>(element) &&
      (chip == "gfx90a" || chip == "gfx940" || chip == "gfx941" ||
       chip == "gfx942" || chip == "gfx950"))
    return MatrixInstruction::mfma;
  return std::nullopt;
}

/// A tensor-core kernel's block tile (outputs: rows of m, columns of n):
/// 2 x 2 warps (waves on AMD), each computing 32 x 32 outputs.
static constexpr int64_t kMmaBlockRows = 64, kMmaBlockColumns = 64;

/// A block-tile decision (64 x 64 outputs a block, 2 x 2 warps of the
/// target's size) of `kind` for `op`, a contraction into f32 sums
/// (tensorCoreGemmView):
/// - mma: f16 or bf16 operands, or f32 ones with `allowF32` (tf32), with
///   a matrix instruction for them on `target`;
/// - staged: f16, bf16 or f32 operands, whatever the target has.
/// Unless `anySize`, its GEMMs must fill the 64 x 64 tiles to half (m and
/// n at least 32) with a reduction of at least 32, and a staged kernel's
/// blocks must cover every processor: smaller layers (resnet50's at batch
/// 1) keep the tiled kernels, whose split reductions occupy the GPU
/// (measured faster than PyTorch eager there), where a staged kernel would
/// leave most processors idle. None otherwise.
static std::optional<GPUKernelAttr>
chooseBlockTileKernel(linalg::LinalgOp op, GPUTargetAttr target,
                      GPUKernelKind kind, StringRef key, bool anySize,
                      bool allowF32) {
  bool staged = kind == GPUKernelKind::staged;
  std::optional<GemmView> view = tensorCoreGemmView(op, staged || allowF32);
  if (!view || (!staged && !chooseMatrixInstruction(target, view->element)))
    return std::nullopt;
  int64_t batch = view->extent(view->batch), m = view->extent(view->m),
          n = view->extent(view->n), k = view->extent(view->k);
  int64_t rowTiles = llvm::divideCeil(m, kMmaBlockRows),
          columnTiles = llvm::divideCeil(n, kMmaBlockColumns);
  if (batch > 65535 || rowTiles > 65535)
    return std::nullopt;
  if (!anySize &&
      (m < 32 || n < 32 || k < 32 ||
       (staged && batch * rowTiles * columnTiles < target.getProcessors())))
    return std::nullopt;
  int64_t threads =
      target.getWarpSize() * (kMmaBlockRows / 32) * (kMmaBlockColumns / 32);
  return GPUKernelAttr::get(op->getContext(), kind, {threads},
                            {kMmaBlockRows, kMmaBlockColumns}, 1, key,
                            DecisionSource::cost_model);
}

GPUKernelAttr dlas::chooseGPUKernel(linalg::LinalgOp op, GPUTargetAttr target,
                                    StringRef tensorCores, bool allowTF32,
                                    StringRef staged) {
  MLIRContext *context = op->getContext();
  if (tensorCores != "never")
    if (std::optional<GPUKernelAttr> mma = chooseBlockTileKernel(
            op, target, GPUKernelKind::mma, decisionKey(op),
            /*anySize=*/tensorCores == "always", allowTF32))
      return *mma;
  if (staged != "never")
    if (std::optional<GPUKernelAttr> kernel = chooseBlockTileKernel(
            op, target, GPUKernelKind::staged, decisionKey(op),
            /*anySize=*/staged == "always", /*allowF32=*/true))
      return *kernel;
  // Ranges and iterators in the order the kernel runs the loops.
  SmallVector<unsigned> order = gpuLoopOrder(op);
  SmallVector<int64_t> ranges, opRanges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators,
      opIterators = op.getIteratorTypesArray();
  for (unsigned dim : order) {
    ranges.push_back(opRanges[dim]);
    iterators.push_back(opIterators[dim]);
  }
  // The parallel dimensions dlas-gpu-map-kernels maps: the leading run of
  // parallel iterators (linalg's parallel loop nest puts a reduction's
  // inner parallel loops in a nest of their own).
  int64_t leading = 0;
  while (leading < static_cast<int64_t>(iterators.size()) &&
         iterators[leading] == utils::IteratorType::parallel)
    ++leading;
  bool reduces = leading < static_cast<int64_t>(iterators.size());
  std::string key = decisionKey(op);
  // Tiled: rows x columns threads (chooseTiledShape), when both
  // innermost mapped dimensions fill them (and the grid's y and z
  // dimensions, at most 65535 blocks each, hold the rows and the rest).
  if (reduces && leading >= 2) {
    int64_t columns = ranges[leading - 1], rows = ranges[leading - 2];
    int64_t outer = 1;
    for (int64_t i = 0; i < leading - 2; ++i)
      outer = ShapedType::isDynamic(ranges[i]) ? (int64_t{1} << 20)
                                               : outer * ranges[i];
    std::optional<TiledShape> shape;
    if (!ShapedType::isDynamic(columns) && !ShapedType::isDynamic(rows))
      shape = chooseTiledShape(rows, columns, outer, target);
    if (shape && llvm::divideCeil(rows, shape->rowThreads) <= 65535 &&
        outer <= 65535) {
      SmallVector<int64_t> tile = shape->tile;
      int64_t rowSpan = shape->rowThreads * (tile.empty() ? 1 : tile[0]);
      int64_t columnSpan = shape->columnThreads * (tile.empty() ? 1 : tile[1]);
      int64_t launched = outer * llvm::divideCeil(rows, rowSpan) *
                         llvm::divideCeil(columns, columnSpan) *
                         shape->rowThreads * shape->columnThreads;
      // The chunks share the grid's z with the outer dimensions.
      int64_t split =
          chooseSplit(op, ArrayRef<int64_t>(ranges).drop_front(leading),
                      launched, 65535 / outer, target);
      return GPUKernelAttr::get(context, GPUKernelKind::tiled,
                                {shape->rowThreads, shape->columnThreads}, tile,
                                split, key, DecisionSource::cost_model);
    }
  }
  // Flat: 256 threads a block, fewer when the blocks would not cover the
  // processors (a dynamic extent counts as large).
  int64_t outputs = 1;
  for (int64_t i = 0; i < leading; ++i)
    outputs = ShapedType::isDynamic(ranges[i]) || outputs > (1 << 30)
                  ? (int64_t{1} << 31)
                  : outputs * ranges[i];
  int64_t warp = target.getWarpSize();
  int64_t perProcessor = llvm::divideCeil(outputs, target.getProcessors());
  int64_t threads =
      std::clamp<int64_t>(llvm::alignTo(perProcessor, warp), warp, 256);
  int64_t split = chooseSplit(op, ArrayRef<int64_t>(ranges).drop_front(leading),
                              llvm::alignTo(outputs, threads),
                              /*maxChunks=*/64, target);
  return GPUKernelAttr::get(context, GPUKernelKind::flat, {threads}, {}, split,
                            key, DecisionSource::cost_model);
}
