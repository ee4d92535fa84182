//===- MapKernels.cpp - the dlas-gpu-map-kernels pass ---------------------===//
//
// Mechanism only: each linalg op on memrefs becomes a parallel loop nest
// shaped and mapped to blocks and threads as its #dlas.gpu_kernel says;
// upstream convert-parallel-loops-to-gpu turns the nests into gpu.launch.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Codegen/GPU/Passes.h"
#include "DLAS/Transforms/LoopOrder.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <functional>
#include <numeric>

namespace mlir::dlas {
#define GEN_PASS_DEF_GPUMAPKERNELS
#include "DLAS/Codegen/GPU/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;

/// Sets `loop`'s mapping: dimension i to `processors[i]`.
static LogicalResult mapLoop(scf::ParallelOp loop,
                             ArrayRef<gpu::Processor> processors) {
  MLIRContext *context = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping;
  for (gpu::Processor processor : processors)
    mapping.push_back(gpu::ParallelLoopDimMappingAttr::get(context, processor,
                                                           identity, identity));
  return gpu::setMappingAttr(loop, mapping);
}

/// Tiles `loop` (unit steps) by `tiles`, with constant bounds on the inner
/// loop, which convert-parallel-loops-to-gpu needs for the block size.
static std::pair<scf::ParallelOp, scf::ParallelOp>
tile(RewriterBase &rewriter, scf::ParallelOp loop, ArrayRef<int64_t> tiles) {
  auto [outer, inner] =
      scf::tileParallelLoop(loop, tiles, /*noMinMaxBounds=*/true);
  rewriter.setInsertionPoint(outer);
  SmallVector<Value> bounds;
  for (int64_t size : tiles)
    bounds.push_back(
        arith::ConstantIndexOp::create(rewriter, outer.getLoc(), size));
  inner.getUpperBoundMutable().assign(bounds);
  return {outer, inner};
}

/// Collapses `loop`'s dimensions into the groups `groups` and returns the
/// new loop (collapseParallelLoops replaces it in place).
static scf::ParallelOp collapse(RewriterBase &rewriter, scf::ParallelOp loop,
                                ArrayRef<std::vector<unsigned>> groups) {
  if (groups.size() == loop.getNumLoops())
    return loop;
  Operation *next = loop->getNextNode();
  collapseParallelLoops(rewriter, loop, groups);
  return cast<scf::ParallelOp>(next->getPrevNode());
}

/// Indices [from, to) as one collapse group.
static std::vector<unsigned> range(unsigned from, unsigned to) {
  std::vector<unsigned> group(to - from);
  std::iota(group.begin(), group.end(), from);
  return group;
}

/// Shapes the op's outermost parallel loop as `decision` says, tiles it by
/// the block's threads and maps it.
static LogicalResult shapeAndMap(RewriterBase &rewriter, scf::ParallelOp loop,
                                 GPUKernelAttr decision) {
  unsigned dims = loop.getNumLoops();
  ArrayRef<int64_t> threads = decision.getThreads();
  using gpu::Processor;
  if (decision.getKind() == GPUKernelKind::tiled && dims >= 2) {
    SmallVector<std::vector<unsigned>> groups;
    if (dims > 2)
      groups.push_back(range(0, dims - 2));
    groups.push_back({dims - 2});
    groups.push_back({dims - 1});
    loop = collapse(rewriter, loop, groups);
    bool outer = loop.getNumLoops() == 3;
    SmallVector<int64_t> tiles;
    if (outer)
      tiles.push_back(1);
    tiles.append({threads[0], threads[1]});
    auto [blocks, inner] = tile(rewriter, loop, tiles);
    SmallVector<Processor> blockIds{Processor::BlockY, Processor::BlockX};
    SmallVector<Processor> threadIds{Processor::ThreadY, Processor::ThreadX};
    if (outer) {
      blockIds.insert(blockIds.begin(), Processor::BlockZ);
      threadIds.insert(threadIds.begin(), Processor::ThreadZ);
    }
    if (failed(mapLoop(blocks, blockIds)) || failed(mapLoop(inner, threadIds)))
      return failure();
    return success();
  }
  // Flat (or a tiled decision on an op with one parallel dimension: its
  // rows x columns threads run as one row).
  loop = collapse(rewriter, loop, {range(0, dims)});
  int64_t blockThreads = std::accumulate(threads.begin(), threads.end(),
                                         int64_t{1}, std::multiplies<>());
  auto [blocks, inner] = tile(rewriter, loop, {blockThreads});
  if (failed(mapLoop(blocks, {Processor::BlockX})) ||
      failed(mapLoop(inner, {Processor::ThreadX})))
    return failure();
  return success();
}

/// The indices of `map`'s results at the loop values `ivs`.
static SmallVector<Value> indicesAt(OpBuilder &builder, Location loc,
                                    AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults())
    indices.push_back(affine::AffineApplyOp::create(
        builder, loc,
        AffineMap::get(map.getNumDims(), map.getNumSymbols(), expr), ivs));
  return indices;
}

/// A padded copy that a kernel reads from its source instead: `buffer`
/// holds `value` everywhere and `source` at `offsets` (a tensor.pad after
/// bufferization: an allocation, a fill, a copy into a subview).
struct PaddedInput {
  Value source, value;
  SmallVector<int64_t> offsets;
  Operation *fill, *copy, *subview;
};

/// The element of a padded buffer at `indices`, read from its source: the
/// source's element where the indices fall inside it (clamped indices, so
/// that the load stays in bounds), the padding value elsewhere.
static Value loadPadded(OpBuilder &builder, Location loc,
                        const PaddedInput &padded, ValueRange indices) {
  auto type = cast<MemRefType>(padded.source.getType());
  Value inside;
  SmallVector<Value> clamped;
  for (auto [d, index] : llvm::enumerate(indices)) {
    int64_t offset = padded.offsets[d], size = type.getDimSize(d);
    Value shifted = arith::SubIOp::create(
        builder, loc, index,
        arith::ConstantIndexOp::create(builder, loc, offset));
    // index - offset in [0, size): one unsigned compare.
    Value in = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, shifted,
        arith::ConstantIndexOp::create(builder, loc, size));
    inside = inside ? arith::AndIOp::create(builder, loc, inside, in) : in;
    Value low = arith::MaxSIOp::create(
        builder, loc, shifted, arith::ConstantIndexOp::create(builder, loc, 0));
    clamped.push_back(arith::MinSIOp::create(
        builder, loc, low,
        arith::ConstantIndexOp::create(builder, loc, size - 1)));
  }
  Value element = memref::LoadOp::create(builder, loc, padded.source, clamped);
  if (!inside)
    return element;
  return arith::SelectOp::create(builder, loc, inside, element, padded.value);
}

/// The element of `op`'s input `input` at the loop values `at`: loaded
/// through its indexing map (from its source, when it is in `padded`), or
/// the input itself when it is not a buffer (a scalar).
static Value loadInput(OpBuilder &builder, linalg::LinalgOp op,
                       OpOperand *input, ArrayRef<Value> at,
                       const DenseMap<Value, PaddedInput> &padded) {
  Location loc = op.getLoc();
  Value buffer = input->get();
  if (auto pad = padded.find(buffer); pad != padded.end())
    return loadPadded(
        builder, loc, pad->second,
        indicesAt(builder, loc, op.getMatchingIndexingMap(input), at));
  if (!isa<MemRefType>(buffer.getType()))
    return buffer;
  return memref::LoadOp::create(
      builder, loc, buffer,
      indicesAt(builder, loc, op.getMatchingIndexingMap(input), at));
}

/// The payload of `op` at the loop values `at`, on the output values
/// `accs`: its inputs loaded through their indexing maps, except those in
/// `given`, whose block arguments take the value given, and those in
/// `padded`, read from their sources.
static SmallVector<Value>
emitOpPayload(OpBuilder &builder, linalg::LinalgOp op, ArrayRef<Value> at,
              ValueRange accs, const DenseMap<Value, Value> &given,
              const DenseMap<Value, PaddedInput> &padded =
                  DenseMap<Value, PaddedInput>()) {
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value loaded = input->get();
    if (auto it = given.find(loaded); it != given.end())
      loaded = it->second;
    else
      loaded = loadInput(builder, op, input, at, padded);
    mapping.map(op.getMatchingBlockArgument(input), loaded);
  }
  for (auto [init, acc] : llvm::zip(op.getDpsInitsMutable(), accs))
    if (acc)
      mapping.map(op.getMatchingBlockArgument(&init), acc);
  Block *payload = op.getBlock();
  for (Operation &inner : payload->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), at[index.getDim()]);
      continue;
    }
    builder.clone(inner, mapping);
  }
  SmallVector<Value> results;
  for (Value yielded : payload->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(yielded));
  return results;
}

/// Elementwise ops folded into a reduction's kernel (see findFusion): the
/// op that fills its output before it (`prologue`: its value becomes the
/// accumulators' start, instead of a kernel and a store and a load), the
/// op that reads its output after it (`epilogue`: applied to the final
/// values in registers and stored to its own output), and whether the
/// reduction's own output is still read elsewhere (`storeOutput`).
struct Fusion {
  linalg::LinalgOp prologue, epilogue;
  bool storeOutput = true;
  /// Padded inputs read from their sources (findPaddedInputs).
  DenseMap<Value, PaddedInput> padded;
  /// The kernel loop of each output dimension, which the prologue's and
  /// the epilogue's loops (identity-indexed over the output) run at: the
  /// kernel may run the output's dimensions in another order
  /// (gpuLoopOrder).
  SmallVector<unsigned> outputLoops;
  /// The partners' loop values given the kernel's.
  SmallVector<Value> partnerIvs(ArrayRef<Value> ivs) const {
    SmallVector<Value> at;
    for (unsigned loop : outputLoops)
      at.push_back(ivs[loop]);
    return at;
  }
  bool empty() const { return !prologue && !epilogue && padded.empty(); }
};

/// The start value `fusion.prologue` gives the output at the kernel's
/// loop values `ivs`.
static Value emitPrologueValue(OpBuilder &builder, const Fusion &fusion,
                               ArrayRef<Value> ivs) {
  linalg::LinalgOp prologue = fusion.prologue;
  SmallVector<Value> none(prologue.getNumDpsInits(), Value());
  return emitOpPayload(builder, prologue, fusion.partnerIvs(ivs), none,
                       DenseMap<Value, Value>())[0];
}

/// `fusion.epilogue` at the kernel's loop values `ivs`, reading `value` as
/// `op`'s output, stored to the epilogue's own outputs.
static void emitEpilogueStores(OpBuilder &builder, linalg::LinalgOp op,
                               const Fusion &fusion, ArrayRef<Value> ivs,
                               Value value) {
  linalg::LinalgOp epilogue = fusion.epilogue;
  Location loc = op.getLoc();
  // Its loops are the kernel's parallel ones (in the output's order).
  SmallVector<Value> at = fusion.partnerIvs(ivs);
  DenseMap<Value, Value> given{{op.getDpsInitOperand(0)->get(), value}};
  SmallVector<Value> none(epilogue.getNumDpsInits(), Value());
  SmallVector<Value> values = emitOpPayload(builder, epilogue, at, none, given);
  for (auto [init, result] : llvm::zip(epilogue.getDpsInitsMutable(), values))
    memref::StoreOp::create(
        builder, loc, result, init.get(),
        indicesAt(builder, loc, epilogue.getMatchingIndexingMap(&init), at));
}

/// One output of a thread's register tile: the loop values it is computed
/// at (its two tiled dimensions clamped into range, so that its loads stay
/// in bounds) and whether it is inside the output (only then it is stored).
struct TileOutput {
  SmallVector<Value> ivs;
  Value inside;
};

/// The register tile's outputs along one dimension of extent `extent`,
/// walked by `threads` threads with `factor` outputs each, strided by the
/// thread count (a warp's accesses stay contiguous): the thread at virtual
/// position `iv` (block iv / threads, lane iv % threads) computes
/// block * threads * factor + lane + j * threads for j < factor. Returns
/// each position's clamped index and whether it is inside.
static SmallVector<std::pair<Value, Value>>
tilePositions(OpBuilder &builder, Location loc, Value iv, Value extent,
              int64_t threads, int64_t factor) {
  Value threadCount = arith::ConstantIndexOp::create(builder, loc, threads);
  Value blockSpan =
      arith::ConstantIndexOp::create(builder, loc, threads * factor);
  Value block = arith::DivUIOp::create(builder, loc, iv, threadCount);
  Value lane = arith::RemUIOp::create(builder, loc, iv, threadCount);
  Value base = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, block, blockSpan),
      lane);
  Value last = arith::SubIOp::create(
      builder, loc, extent, arith::ConstantIndexOp::create(builder, loc, 1));
  SmallVector<std::pair<Value, Value>> positions;
  for (int64_t j = 0; j < factor; ++j) {
    Value index = arith::AddIOp::create(
        builder, loc, base,
        arith::ConstantIndexOp::create(builder, loc, j * threads));
    Value inside = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, index, extent);
    positions.push_back(
        {arith::MinUIOp::create(builder, loc, index, last), inside});
  }
  return positions;
}

static void eraseFused(RewriterBase &rewriter, linalg::LinalgOp op,
                       const Fusion &fusion);

/// Lets LLVM fuse the kernel's multiplies and adds (fastmath `contract`):
/// without it the NVPTX backend emits mul.rn and add.rn, which forbid
/// ptxas the FMA, and AMDGPU keeps v_mul and v_add: two instructions and
/// two roundings per multiply-add, where CUDA compilers fuse by default.
static void allowContraction(Operation *kernel) {
  kernel->walk([](Operation *op) {
    if (auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op))
      if (isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
        op->setAttr(
            fastmath.getFastMathAttrName(),
            arith::FastMathFlagsAttr::get(
                op->getContext(), fastmath.getFastMathFlagsAttr().getValue() |
                                      arith::FastMathFlags::contract));
  });
}

/// Emits `op`, whose loops run parallel ones first (gpuLoopOrder), as an
/// scf.parallel over its parallel loops whose body keeps each output value
/// in registers across sequential scf.for loops over the reductions: one
/// load and one store of each output per thread, where linalg's own loop
/// lowering loads and stores the output (global memory, on a GPU) at every
/// reduction step and LLVM cannot promote it (the operands may alias). A
/// tiled decision with `outputs` gives each thread a register tile over the
/// two innermost parallel loops, whose virtual extents then count thread
/// positions (tilePositions). A decision with `split` S adds an outermost
/// parallel loop over S chunks of the longest reduction loop: each thread
/// sums its chunk from zero and adds the sum to the output atomically
/// (sum reductions only, without fusion partners). An op without parallel
/// loops gets a one-iteration scf.parallel. Fails for outputs whose
/// indexing is not a projected permutation.
static FailureOr<scf::ParallelOp> emitRegisterLoops(RewriterBase &rewriter,
                                                    linalg::LinalgOp op,
                                                    GPUKernelAttr decision,
                                                    Fusion fusion) {
  Location loc = op.getLoc();
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isProjectedPermutation())
      return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = iterators.size();
  unsigned numParallel = 0;
  while (numParallel < numLoops &&
         iterators[numParallel] == utils::IteratorType::parallel)
    ++numParallel;
  for (unsigned dim = numParallel; dim < numLoops; ++dim)
    if (iterators[dim] == utils::IteratorType::parallel)
      return failure();
  SmallVector<Range> ranges = op.createLoopRanges(rewriter, loc);
  auto value = [&](OpFoldResult folded) {
    return getValueOrCreateConstantIndexOp(rewriter, loc, folded);
  };
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  // The register tile: factor and threads per tiled dimension.
  ArrayRef<int64_t> outputs = decision.getOutputs();
  bool tiled = decision.getKind() == GPUKernelKind::tiled &&
               outputs.size() == 2 && numParallel >= 2 &&
               outputs[0] * outputs[1] > 1;
  auto isTiled = [&](unsigned dim) {
    return tiled && dim + 2 >= numParallel && dim < numParallel;
  };
  auto tileIndex = [&](unsigned dim) { return dim + 2 - numParallel; };
  // A split reduction (a sum, without fusion partners: mapOp and the pass
  // see to both): one more parallel loop, outermost, over the chunks of
  // the longest reduction loop.
  int64_t split = decision.getSplit();
  assert((split == 1 ||
          (isSumReduction(op) && !fusion.prologue && !fusion.epilogue)) &&
         "a split reduction needs a sum without fusion partners");
  unsigned splitDim = numLoops;
  if (split > 1)
    splitDim = numParallel +
               splitReductionLoop(ArrayRef<int64_t>(op.getStaticLoopRanges())
                                      .drop_front(numParallel));
  SmallVector<Value> lbs, ubs, steps;
  if (split > 1) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, split));
    steps.push_back(one);
  }
  for (unsigned dim = 0; dim < numParallel; ++dim) {
    Value extent = value(ranges[dim].size);
    if (isTiled(dim)) {
      // Virtual extent: thread positions, ceil(extent / span) * threads.
      int64_t threads = decision.getThreads()[tileIndex(dim)];
      int64_t span = threads * outputs[tileIndex(dim)];
      Value blocks = arith::CeilDivUIOp::create(
          rewriter, loc, extent,
          arith::ConstantIndexOp::create(rewriter, loc, span));
      extent = arith::MulIOp::create(
          rewriter, loc, blocks,
          arith::ConstantIndexOp::create(rewriter, loc, threads));
    }
    lbs.push_back(zero);
    ubs.push_back(extent);
    steps.push_back(one);
  }
  if (lbs.empty()) {
    lbs.push_back(zero);
    ubs.push_back(one);
    steps.push_back(one);
  }
  auto parallel = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
  rewriter.setInsertionPointToStart(parallel.getBody());
  // The loops' values; reductions' are zero outside their loops (outputs
  // do not index by them). Linalg loops start at 0 with step 1.
  SmallVector<Value> ivs(numLoops, zero);
  SmallVector<Value> loopIvs(parallel.getInductionVars());
  ArrayRef<Value> parallelIvs = loopIvs;
  Value chunk;
  if (split > 1) {
    chunk = parallelIvs.front();
    parallelIvs = parallelIvs.drop_front();
  }
  for (unsigned dim = 0; dim < numParallel; ++dim)
    ivs[dim] = parallelIvs[dim];
  // The thread's outputs: one, or its register tile's.
  SmallVector<TileOutput> tile;
  if (!tiled) {
    tile.push_back({ivs, Value()});
  } else {
    unsigned rowDim = numParallel - 2, columnDim = numParallel - 1;
    auto rowPositions =
        tilePositions(rewriter, loc, ivs[rowDim], value(ranges[rowDim].size),
                      decision.getThreads()[0], outputs[0]);
    auto columnPositions = tilePositions(rewriter, loc, ivs[columnDim],
                                         value(ranges[columnDim].size),
                                         decision.getThreads()[1], outputs[1]);
    for (auto &[row, rowInside] : rowPositions)
      for (auto &[column, columnInside] : columnPositions) {
        TileOutput output{
            ivs, arith::AndIOp::create(rewriter, loc, rowInside, columnInside)};
        output.ivs[rowDim] = row;
        output.ivs[columnDim] = column;
        tile.push_back(std::move(output));
      }
  }

  unsigned numInits = op.getNumDpsInits();
  SmallVector<Value> inits;
  for (TileOutput &output : tile)
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Type element = getElementTypeOrSelf(init.get().getType());
      if (split > 1) {
        // A chunk's partial sum starts from zero; the output holds the
        // start value.
        inits.push_back(arith::ConstantOp::create(
            rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(element))));
        continue;
      }
      if (fusion.prologue) {
        // The prologue's loops are the kernel's parallel ones.
        inits.push_back(emitPrologueValue(rewriter, fusion, output.ivs));
        continue;
      }
      if (op.payloadUsesValueFromOperand(&init))
        inits.push_back(memref::LoadOp::create(
            rewriter, loc, init.get(),
            indicesAt(rewriter, loc, op.getMatchingIndexingMap(&init),
                      output.ivs)));
      else
        inits.push_back(arith::ConstantOp::create(
            rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(element))));
    }
  auto emitPayload = [&](OpBuilder &builder, ArrayRef<Value> at,
                         ValueRange accs) {
    return emitOpPayload(builder, op, at, accs, DenseMap<Value, Value>(),
                         fusion.padded);
  };
  // Reductions: nested loops carrying every output's value.
  std::function<SmallVector<Value>(OpBuilder &, unsigned, ValueRange)> reduce =
      [&](OpBuilder &builder, unsigned dim,
          ValueRange accs) -> SmallVector<Value> {
    if (dim == numLoops) {
      SmallVector<Value> results;
      for (auto [i, output] : llvm::enumerate(tile))
        llvm::append_range(results,
                           emitPayload(builder, output.ivs,
                                       accs.slice(i * numInits, numInits)));
      return results;
    }
    Value lb = value(ranges[dim].offset), ub = value(ranges[dim].size);
    if (dim == splitDim) {
      // This thread's chunk of the first reduction loop (linalg loops
      // start at 0 with step 1): [chunk * c, min((chunk + 1) * c, size)).
      Value chunkSize = arith::CeilDivUIOp::create(
          builder, loc, ub,
          arith::ConstantIndexOp::create(builder, loc, split));
      lb = arith::MulIOp::create(builder, loc, chunk, chunkSize);
      ub = arith::MinUIOp::create(
          builder, loc, arith::AddIOp::create(builder, loc, lb, chunkSize),
          ub);
    }
    auto loop = scf::ForOp::create(
        builder, loc, lb, ub, value(ranges[dim].stride), accs,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          for (TileOutput &output : tile)
            output.ivs[dim] = iv;
          scf::YieldOp::create(nested, loc, reduce(nested, dim + 1, args));
        });
    for (TileOutput &output : tile)
      output.ivs[dim] = zero;
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> results = reduce(rewriter, numParallel, inits);
  for (auto [i, output] : llvm::enumerate(tile)) {
    OpBuilder::InsertionGuard guard(rewriter);
    // A tile's outputs past the edge are computed (on clamped, in-bounds
    // values) but not stored.
    if (output.inside) {
      auto inside = scf::IfOp::create(rewriter, loc, output.inside,
                                      /*withElseRegion=*/false);
      rewriter.setInsertionPointToStart(&inside.getThenRegion().front());
    }
    if (split > 1) {
      // The partial sum joins the others' (the output's only one).
      OpOperand &init = op.getDpsInitsMutable()[0];
      memref::AtomicRMWOp::create(
          rewriter, loc, arith::AtomicRMWKind::addf, results[i], init.get(),
          indicesAt(rewriter, loc, op.getMatchingIndexingMap(&init),
                    output.ivs));
      continue;
    }
    if (fusion.storeOutput)
      for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable()))
        memref::StoreOp::create(
            rewriter, loc, results[i * numInits + k], init.get(),
            indicesAt(rewriter, loc, op.getMatchingIndexingMap(&init),
                      output.ivs));
    // The epilogue reads the output's final value from the register.
    if (fusion.epilogue)
      emitEpilogueStores(rewriter, op, fusion, output.ivs,
                         results[i * numInits]);
  }
  eraseFused(rewriter, op, fusion);
  allowContraction(parallel);
  return parallel;
}

/// Erases `op` and what its kernel folded (`fusion`).
static void eraseFused(RewriterBase &rewriter, linalg::LinalgOp op,
                       const Fusion &fusion) {
  rewriter.eraseOp(op);
  // The padded buffers: their fill, copy and view go; the buffer itself
  // and its deallocation only if nothing else is left using it.
  for (auto &[buffer, padded] : fusion.padded) {
    rewriter.eraseOp(padded.copy);
    rewriter.eraseOp(padded.subview);
    rewriter.eraseOp(padded.fill);
    if (llvm::all_of(buffer.getUsers(), [](Operation *user) {
          return isa<memref::DeallocOp>(user);
        })) {
      for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
        rewriter.eraseOp(user);
      if (Operation *alloc = buffer.getDefiningOp<memref::AllocOp>())
        rewriter.eraseOp(alloc);
    }
  }
  if (fusion.prologue)
    rewriter.eraseOp(fusion.prologue);
  if (fusion.epilogue)
    rewriter.eraseOp(fusion.epilogue);
}

//===----------------------------------------------------------------------===//
// Tensor-core (mma) kernels
//===----------------------------------------------------------------------===//

namespace {
/// The shape of an mma kernel: a block computes blockRows x blockColumns
/// outputs of one GEMM of the batch with warpRows x warpColumns warps (of
/// warpSize threads; AMD: waves of 64), each computing 32 x 32 outputs as
/// tiles of its matrix instruction, over 32-deep steps of the reduction
/// staged in shared memory.
struct MmaShape {
  static constexpr int64_t kWarpM = 32, kWarpN = 32, kStepK = 32;
  int64_t blockRows, blockColumns, warpSize;
  int64_t warpRows() const { return blockRows / kWarpM; }
  int64_t warpColumns() const { return blockColumns / kWarpN; }
  int64_t warps() const { return warpRows() * warpColumns(); }
  int64_t threads() const { return warps() * warpSize; }
};

/// A matrix instruction's tile (C[tileM x tileN] += A[tileM x tileK] *
/// B[tileK x tileN]) and, for the instructions whose operands are each
/// lane's registers (mma.sync, MFMA), where a lane's values lie: maps
/// (lane, value) -> (row, column) in A, B and C, and the number of values
/// per lane. WMMA's fragments are opaque (no maps).
struct InstructionTile {
  int64_t m = 16, n = 16, k = 16;
  AffineMap a, b, c;
  int64_t aValues = 0, bValues = 0, cValues = 0;
};

/// NVIDIA's mma.sync with f32 sums: m16n8k16 for 16-bit operands,
/// m16n8k8 for tf32 (`element` f32). The maps are upstream's (nvgpu's,
/// from PTX's fragment tables), asked for f16 where the operands are bf16,
/// whose fragments f16's share (both 16-bit; upstream's register table
/// lacks bf16). B comes as n x k ("col"), transposed here to (k, n).
static FailureOr<InstructionTile> mmaSyncTile(OpBuilder &builder, Location loc,
                                              Type element) {
  Type f32 = builder.getF32Type();
  Type multiplicand = element.isF32() ? f32 : builder.getF16Type();
  int64_t depth = element.isF32() ? 8 : 16;
  auto map = [&](ArrayRef<int64_t> shape, Type type,
                 nvgpu::MatMulOperandRole role) {
    return nvgpu::getLaneIdAndValueIdToOperandCoord(
        builder, loc, {VectorType::get(shape, type), role});
  };
  FailureOr<AffineMap> a = map({16, depth}, multiplicand,
                               nvgpu::MatMulOperandRole::A),
                       b = map({8, depth}, multiplicand,
                               nvgpu::MatMulOperandRole::B),
                       c = map({16, 8}, f32, nvgpu::MatMulOperandRole::C);
  if (failed(a) || failed(b) || failed(c))
    return failure();
  InstructionTile tile;
  tile.n = 8;
  tile.k = depth;
  tile.a = *a;
  tile.b = AffineMap::get(2, 0, {b->getResult(1), b->getResult(0)},
                          builder.getContext());
  tile.c = *c;
  // 32-bit registers per lane: 4 of A, 2 of B, 4 sums.
  int64_t perRegister = element.isF32() ? 1 : 2;
  tile.aValues = 4 * perRegister;
  tile.bValues = 2 * perRegister;
  tile.cValues = 4;
  return tile;
}

/// `value` (f32) rounded to tf32 (10-bit mantissa; to nearest, ties away
/// from zero, as cvt.rna.tf32.f32), still as an f32; NaN and infinity as
/// they are.
static Value roundToTF32(OpBuilder &builder, Location loc, Value value) {
  Type i32 = builder.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(i32, v));
  };
  Value bits = arith::BitcastOp::create(builder, loc, i32, value);
  Value rounded = arith::AndIOp::create(
      builder, loc, arith::AddIOp::create(builder, loc, bits, constant(0x1000)),
      constant(static_cast<int32_t>(0xffffe000u)));
  Value exponent =
      arith::AndIOp::create(builder, loc, bits, constant(0x7f800000));
  Value finite = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                       exponent, constant(0x7f800000));
  return arith::BitcastOp::create(
      builder, loc, builder.getF32Type(),
      arith::SelectOp::create(builder, loc, finite, rounded, bits));
}

/// AMD's MFMA 16x16x16 (f16, bf16) with f32 sums on waves of 64 (CDNA's
/// register layout): lane l holds A[l % 16][4 (l / 16) + v], B[4 (l / 16)
/// + v][l % 16] and C[4 (l / 16) + v][l % 16], v = 0..3.
static InstructionTile mfmaTile(MLIRContext *context) {
  AffineExpr lane, value;
  bindDims(context, lane, value);
  // `across`: the lane's row of A, column of B and C; `depth`: the
  // value's column of A, row of B and C.
  AffineExpr across = lane % 16, depth = lane.floorDiv(16) * 4 + value;
  InstructionTile tile;
  tile.a = AffineMap::get(2, 0, {across, depth}, context);
  tile.b = AffineMap::get(2, 0, {depth, across}, context);
  tile.c = AffineMap::get(2, 0, {depth, across}, context);
  tile.aValues = tile.bValues = tile.cValues = 4;
  return tile;
}

/// A staged kernel's "instruction": each thread of a warp multiplies its
/// own register tile of the warp's 32 x 32 outputs one k at a time (an
/// outer product of FMAs), its lanes a (warpSize / 8) x 8 grid. Lane l
/// holds rows 32 / (warpSize / 8) x (l / 8) + v of A (A is staged
/// transposed, so they are contiguous: one vector load), columns
/// 4 (l % 8) + v of B (contiguous too) and their products' sums,
/// C[row v / 4][column v % 4]: 8 x 4 outputs a thread on NVIDIA, 4 x 4 on
/// AMD's waves of 64.
static InstructionTile fmaTile(MLIRContext *context, int64_t warpSize) {
  AffineExpr lane, value;
  bindDims(context, lane, value);
  InstructionTile tile;
  tile.m = MmaShape::kWarpM;
  tile.n = MmaShape::kWarpN;
  tile.k = 1;
  tile.bValues = 4;
  tile.aValues = MmaShape::kWarpM / (warpSize / 8);
  tile.cValues = tile.aValues * tile.bValues;
  AffineExpr row = lane.floorDiv(8) * tile.aValues,
             column = (lane % 8) * tile.bValues;
  AffineExpr zero = getAffineConstantExpr(0, context);
  tile.a = AffineMap::get(2, 0, {row + value, zero}, context);
  tile.b = AffineMap::get(2, 0, {zero, column + value}, context);
  tile.c = AffineMap::get(
      2, 0, {row + value.floorDiv(tile.bValues), column + value % tile.bValues},
      context);
  return tile;
}

/// Builds one mma kernel (see emitMmaKernel). On a GPU each thread runs
/// the body with its thread id; `emulate` runs it once per block with
/// "thread" 0 of 1 doing the cooperative loops and every warp's steps.
class MmaKernelBuilder {
public:
  MmaKernelBuilder(RewriterBase &rewriter, linalg::LinalgOp op,
                   const GemmView &view, MmaShape shape,
                   MatrixInstruction instruction, InstructionTile tile,
                   GPUTargetAttr target, const Fusion &fusion, bool emulate)
      : rewriter(rewriter), op(op), loc(op.getLoc()), view(view), shape(shape),
        instruction(instruction), tile(tile), target(target), fusion(fusion),
        emulate(emulate) {}

  LogicalResult build();

private:
  /// Staged kernels keep A transposed in shared memory (k x m): a
  /// thread's rows of A are then contiguous, and each row of the k step
  /// is read without bank conflicts.
  bool transposedA() const { return instruction == MatrixInstruction::fma; }
  /// mma.sync loads its A fragments with ldmatrix: each lane gives the
  /// address of one 16-byte row of an 8 x 8 matrix of 16-bit values (8
  /// bf16, or 4 f32 as tf32: each lane then receives whole 32-bit values)
  /// and receives its registers of the fragment (four matrices,
  /// non-transposed).
  bool ldMatrixA() const { return instruction == MatrixInstruction::mmaSync; }
  /// And its 16-bit B fragments (two matrices, transposed, as B is staged
  /// k x n; ldmatrix cannot transpose 32-bit values, so tf32's B is loaded
  /// lane by lane).
  bool ldMatrixB() const { return ldMatrixA() && !view.element.isF32(); }
  /// The operands' values in a 32-bit register (2 bf16, 1 f32) and in
  /// an ldmatrix row of 16 bytes (8 bf16, 4 f32).
  int64_t registerValues() const {
    return 32 / view.element.getIntOrFloatBitWidth();
  }
  int64_t rowValues() const { return 4 * registerValues(); }
  /// The row this lane addresses for ldmatrix: of A's 16 x (2 rowValues)
  /// tile at (row, step) (matrices: rows 0-7 and 8-15 by the first 16
  /// bytes of k, then by the next: the fragment's registers in order, a0a1
  /// .. a6a7 for bf16, a0 .. a3 for tf32), or of B's 16 x 8 tile at (step,
  /// column) (k 0-7, then 8-15: b0b1, b2b3).
  std::pair<Value, Value> ldMatrixRow(bool isA, Value row, Value column);
  /// ldmatrix of `matrices` 8 x 8 matrices (of 16-bit values) of `buffer`
  /// at this lane's row (row, column), as a vector of the lane's values
  /// (one 32-bit register a matrix).
  Value loadMatrix(Value buffer, Value row, Value column, int64_t matrices,
                   bool transpose);
  /// Emulated ldmatrix (PTX ISA, "ldmatrix"): every lane's row address
  /// first, then each lane's values from the rows the others address —
  /// non-transposed, lane l gets the 32 bits at 4 (l % 4) bytes of the row
  /// that lane 8 i + l / 4 addresses, for matrix i; transposed (16-bit),
  /// element l / 4 of the rows lanes 8 i + 2 (l % 4) + j address — into
  /// `into[lane]`.
  void emulateLoadMatrix(Value buffer, bool isA, Value row, Value column,
                         int64_t matrices, bool transpose, Value into);
  /// The shared tiles' shapes (A, B, the f32 C tile) and their bytes.
  struct StagingShapes {
    SmallVector<int64_t> a, b, c;
    int64_t bytes = 0;
  };
  StagingShapes stagingShapes() const;
  /// buffer[row][column] of a GEMM tile, through A's transposition.
  SmallVector<Value> tileIndices(Value buffer, Value row, Value column) {
    if (buffer == tileA && transposedA())
      return {column, row};
    return {row, column};
  }
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  }
  /// Sets `ivs[loop]` for `loops` from their row-major linear index.
  void delinearize(Value linear, ArrayRef<unsigned> loops,
                   SmallVectorImpl<Value> &ivs);
  /// The op's loop values at GEMM position (batch, m, n, k) (k: null for
  /// the output's positions, whose reductions are zero).
  SmallVector<Value> loopValues(Value batch, Value m, Value n, Value k);
  /// A shared (or, emulated, stack) buffer of `shape` x `element`.
  Value stagingBuffer(ArrayRef<int64_t> shape, Type element, StringRef what);
  /// for (i = thread; i < count; i += threads): body(i).
  void cooperativeLoop(int64_t count, function_ref<void(Value)> body);
  /// (row, column) of element `i` of a rows x columns tile, walked with
  /// the row index fastest when `rowFastest`.
  std::pair<Value, Value> tilePosition(Value i, int64_t rows, int64_t columns,
                                       bool rowFastest);
  /// Whether `operand`'s innermost (contiguous) index moves with any of
  /// `loops`: cooperative loops walk those fastest, for coalesced access.
  bool innermostUses(OpOperand *operand, ArrayRef<unsigned> loops);
  /// a < aExtent && b < bExtent.
  Value insideBoth(Value a, int64_t aExtent, Value b, int64_t bExtent) {
    return arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, a,
                              index(aExtent)),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, b,
                              index(bExtent)));
  }
  void barrier() {
    if (!emulate)
      gpu::BarrierOp::create(rewriter, loc);
  }
  /// Stages a rows x columns tile of GEMM operand `operand` (rows: m or k
  /// positions from rowBase, columns: k or n from columnBase) into
  /// `buffer` (of the inputs' type), zero outside the GEMM.
  void stageOperand(OpOperand *operand, Value buffer, int64_t rows,
                    int64_t columns, bool rowsAreM, Value batch, Value rowBase,
                    Value columnBase);
  /// The output positions' start values into the C tile.
  void stageStartValues(Value batch, Value mBase, Value nBase);
  /// Warp `warp`'s tensor-core steps of one staged reduction step on its
  /// accumulators `accs`, one per instruction tile; emulated, every warp's
  /// steps on the accumulators in memory (no results).
  SmallVector<Value> warpSteps(Value warp, ValueRange accs);
  /// Warp `warp`'s first row and column in the block tile.
  std::pair<Value, Value> warpOrigin(Value warp);
  /// A rows x columns tile of `buffer` at (row, column) as a WMMA
  /// fragment (`operand`: AOp, BOp, COp).
  Value loadTile(Value buffer, Value row, Value column, int64_t rows,
                 int64_t columns, StringRef operand);
  /// An accumulator fragment into the C tile at (row, column).
  void storeTile(Value fragment, Value row, Value column);
  /// Lane-level instructions (mma.sync, MFMA): this lane's values of the
  /// instruction tile at (row, column) of `buffer`, placed by `map`
  /// (InstructionTile), as a vector.
  Value loadLaneValues(Value buffer, Value row, Value column, AffineMap map,
                       int64_t count);
  /// Lane-level: this lane's accumulator values into the C tile.
  void storeLaneValues(Value values, Value row, Value column);
  /// Lane-level: acc + a * b with the instruction.
  Value multiplyLaneValues(Value a, Value b, Value acc);
  /// Staged kernels: acc + the outer product of a thread's values of A
  /// and B (widened to f32), as one vector FMA.
  Value multiplyOuter(Value a, Value b, Value acc);
  /// Emulated staged kernels: one k step of warp tile `t` (at (row,
  /// column)), each lane running its own code on its accumulators.
  void emulateOuterStep(Value t, Value row, Value column, Value step);
  /// Emulated: one 16 x 16 x 16 step of the tile at (row, column) of the
  /// C tile, over the 16-deep slice of the staged operands at `step`, as
  /// scalar loops on the C tile.
  void emulateTileStep(Value row, Value column, Value step);
  /// Emulated lane-level instructions: body() once per lane of a warp,
  /// with `lane` its index.
  void forEachLane(function_ref<void()> body);
  /// Emulated: for (i = 0; i < extent; ++i) body(i).
  void serialLoop(int64_t extent, function_ref<void(Value)> body);
  /// Emulated: stores this lane's `values` into `buffer[prefix..., lane,
  /// value]`.
  void storeLaneVector(Value values, Value buffer, ValueRange prefix);
  /// Emulated: which lane holds element (row, column) of the instruction's
  /// operand `operand` (A, B or C) and as which of its values, from the
  /// vendors' register tables (PTX ISA, "matrix fragments for
  /// mma.m16n8k16 / mma.m16n8k8"; CDNA3 ISA, MFMA 16x16x16 layout) written
  /// as owners of elements, not as the kernel's (lane, value) maps, so that
  /// running the kernel's lane code against them checks those maps.
  std::pair<Value, Value> owner(nvgpu::MatMulOperandRole operand, Value row,
                                Value column);
  /// Emulated: one instruction step of warp tile `t` (at (row, column) of
  /// the block tile, the tile.k-deep slice at `step`): each lane loads its
  /// values with the kernel's code, then the instruction multiplies the
  /// matrices its registers hold (owner) into the lanes' accumulators.
  void emulateLaneStep(Value t, Value row, Value column, Value step);
  /// Emulated: `body(t, row, column)` for every warp tile of the block, in
  /// loops (the kernel's lane code once, not once per tile: LLVM compiles
  /// the emulation in a fraction of the time).
  void forEachTileLoop(function_ref<void(Value, Value, Value)> body);
  /// The final values from the C tile to the output (and the epilogue).
  void storeOutputs(Value batch, Value mBase, Value nBase);

  RewriterBase &rewriter;
  linalg::LinalgOp op;
  Location loc;
  const GemmView &view;
  MmaShape shape;
  MatrixInstruction instruction;
  InstructionTile tile;
  GPUTargetAttr target;
  const Fusion &fusion;
  bool emulate;
  int64_t extentM = 0, extentN = 0, extentK = 0;
  Value thread, threadCount, lane;
  Value tileA, tileB, tileC;
  Value zeroF32;
  /// Emulated lane-level instructions: each warp tile's accumulators
  /// [tile][lane][value], the lanes' operand values [lane][value] and the
  /// instruction's product.
  Value laneAccs, laneA, laneB, product;
  /// Emulated ldmatrix: each lane's row address [lane][row, column].
  Value laneRows;
};
} // namespace

void MmaKernelBuilder::delinearize(Value linear, ArrayRef<unsigned> loops,
                                   SmallVectorImpl<Value> &ivs) {
  for (unsigned loop : llvm::reverse(loops)) {
    Value extent = index(view.ranges[loop]);
    ivs[loop] = arith::RemUIOp::create(rewriter, loc, linear, extent);
    linear = arith::DivUIOp::create(rewriter, loc, linear, extent);
  }
}

SmallVector<Value> MmaKernelBuilder::loopValues(Value batch, Value m, Value n,
                                                Value k) {
  SmallVector<Value> ivs(view.ranges.size(), index(0));
  delinearize(batch, view.batch, ivs);
  delinearize(m, view.m, ivs);
  delinearize(n, view.n, ivs);
  if (k)
    delinearize(k, view.k, ivs);
  return ivs;
}

Value MmaKernelBuilder::stagingBuffer(ArrayRef<int64_t> dims, Type element,
                                      StringRef what) {
  if (emulate)
    return memref::AllocaOp::create(rewriter, loc,
                                    MemRefType::get(dims, element));
  // Static shared memory: a workgroup global (outlining copies it into the
  // kernel's module; each block has its own instance), aligned past what
  // WMMA fragment loads and stores need (every fragment of these tiles
  // starts at a multiple of 32 bytes from the base).
  auto space = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto type =
      MemRefType::get(dims, element, MemRefLayoutAttrInterface(), space);
  auto module = op->getParentOfType<ModuleOp>();
  std::string name = ("dlas_mma_" + what + "_").str();
  llvm::raw_string_ostream os(name);
  llvm::interleave(dims, os, "x");
  os << "x" << element;
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    memref::GlobalOp::create(rewriter, loc, name,
                             rewriter.getStringAttr("private"), type,
                             Attribute(), /*constant=*/false,
                             /*alignment=*/rewriter.getI64IntegerAttr(128));
  }
  return memref::GetGlobalOp::create(rewriter, loc, type, name);
}

void MmaKernelBuilder::cooperativeLoop(int64_t count,
                                       function_ref<void(Value)> body) {
  auto loop =
      scf::ForOp::create(rewriter, loc, thread, index(count), threadCount);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

std::pair<Value, Value> MmaKernelBuilder::tilePosition(Value i, int64_t rows,
                                                       int64_t columns,
                                                       bool rowFastest) {
  if (rowFastest)
    return {arith::RemUIOp::create(rewriter, loc, i, index(rows)),
            arith::DivUIOp::create(rewriter, loc, i, index(rows))};
  return {arith::DivUIOp::create(rewriter, loc, i, index(columns)),
          arith::RemUIOp::create(rewriter, loc, i, index(columns))};
}

bool MmaKernelBuilder::innermostUses(OpOperand *operand,
                                     ArrayRef<unsigned> loops) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (map.getNumResults() == 0)
    return false;
  AffineExpr innermost = map.getResults().back();
  return llvm::any_of(
      loops, [&](unsigned loop) { return innermost.isFunctionOfDim(loop); });
}

void MmaKernelBuilder::stageOperand(OpOperand *operand, Value buffer,
                                    int64_t rows, int64_t columns,
                                    bool rowsAreM, Value batch, Value rowBase,
                                    Value columnBase) {
  // Rows are m (x) or k (y); columns k (x) or n (y).
  ArrayRef<unsigned> rowLoops = rowsAreM ? view.m : view.k;
  bool rowFastest = innermostUses(operand, rowLoops);
  int64_t rowExtent = rowsAreM ? extentM : extentK;
  int64_t columnExtent = rowsAreM ? extentK : extentN;
  cooperativeLoop(rows * columns, [&](Value i) {
    auto [row, column] = tilePosition(i, rows, columns, rowFastest);
    Value r = arith::AddIOp::create(rewriter, loc, rowBase, row);
    Value c = arith::AddIOp::create(rewriter, loc, columnBase, column);
    Value inside = insideBoth(r, rowExtent, c, columnExtent);
    // Clamped into the GEMM, so that the load stays in bounds.
    Value rc = arith::MinUIOp::create(rewriter, loc, r, index(rowExtent - 1));
    Value cc =
        arith::MinUIOp::create(rewriter, loc, c, index(columnExtent - 1));
    SmallVector<Value> ivs = rowsAreM ? loopValues(batch, rc, index(0), cc)
                                      : loopValues(batch, index(0), cc, rc);
    Value element = loadInput(rewriter, op, operand, ivs, fusion.padded);
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(view.element, 0));
    Value value = arith::SelectOp::create(rewriter, loc, inside, element, zero);
    // tf32: rounded once here, so that the instruction (which ignores the
    // low 13 bits) and the emulation multiply the same values.
    if (view.element.isF32() && instruction == MatrixInstruction::mmaSync)
      value = roundToTF32(rewriter, loc, value);
    memref::StoreOp::create(rewriter, loc, value, buffer,
                            tileIndices(buffer, row, column));
  });
}

void MmaKernelBuilder::stageStartValues(Value batch, Value mBase, Value nBase) {
  OpOperand *init = op.getDpsInitOperand(0);
  bool rowFastest = innermostUses(init, view.m);
  cooperativeLoop(shape.blockRows * shape.blockColumns, [&](Value i) {
    auto [row, column] =
        tilePosition(i, shape.blockRows, shape.blockColumns, rowFastest);
    Value m = arith::MinUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, mBase, row),
        index(extentM - 1));
    Value n = arith::MinUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, nBase, column),
        index(extentN - 1));
    SmallVector<Value> ivs = loopValues(batch, m, n, Value());
    Value start = zeroF32;
    if (fusion.prologue) {
      start = emitPrologueValue(rewriter, fusion, ivs);
    } else if (op.payloadUsesValueFromOperand(init)) {
      start = memref::LoadOp::create(
          rewriter, loc, init->get(),
          indicesAt(rewriter, loc, op.getMatchingIndexingMap(init), ivs));
    }
    memref::StoreOp::create(rewriter, loc, start, tileC,
                            ValueRange{row, column});
  });
}

Value MmaKernelBuilder::loadTile(Value buffer, Value row, Value column,
                                 int64_t rows, int64_t columns,
                                 StringRef operand) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  int64_t leading = cast<MemRefType>(buffer.getType()).getDimSize(1);
  return gpu::SubgroupMmaLoadMatrixOp::create(
      rewriter, loc, gpu::MMAMatrixType::get({rows, columns}, element, operand),
      buffer, ValueRange{row, column}, rewriter.getIndexAttr(leading),
      /*transpose=*/UnitAttr());
}

void MmaKernelBuilder::storeTile(Value fragment, Value row, Value column) {
  int64_t leading = cast<MemRefType>(tileC.getType()).getDimSize(1);
  gpu::SubgroupMmaStoreMatrixOp::create(rewriter, loc, fragment, tileC,
                                        ValueRange{row, column},
                                        rewriter.getIndexAttr(leading),
                                        /*transpose=*/UnitAttr());
}

/// (row, column) + map(lane, value) (an InstructionTile map).
static std::pair<Value, Value> lanePosition(RewriterBase &rewriter,
                                            Location loc, AffineMap map,
                                            Value lane, int64_t value,
                                            Value row, Value column) {
  MLIRContext *context = rewriter.getContext();
  // base + map(lane, value), as (base, lane) -> ...: the map's lane
  // becomes d1, its value the constant.
  auto offset = [&](unsigned result, Value base) {
    AffineExpr expr = map.getResult(result).replaceDimsAndSymbols(
        {getAffineDimExpr(1, context), getAffineConstantExpr(value, context)},
        {});
    AffineMap atValue =
        AffineMap::get(2, 0, {getAffineDimExpr(0, context) + expr}, context);
    return affine::AffineApplyOp::create(rewriter, loc, atValue,
                                         ValueRange{base, lane})
        .getResult();
  };
  return {offset(0, row), offset(1, column)};
}

Value MmaKernelBuilder::loadLaneValues(Value buffer, Value row, Value column,
                                       AffineMap map, int64_t count) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  auto type = VectorType::get({count}, element);
  if (instruction == MatrixInstruction::fma && buffer != tileC) {
    // A thread's values are contiguous in the buffer's rows (fmaTile),
    // at offsets that are multiples of 4 values from a 128-byte aligned
    // base: one aligned vector load (ld.shared.v4 and the like).
    auto [r, c] = lanePosition(rewriter, loc, map, lane, 0, row, column);
    int64_t bytes = count * element.getIntOrFloatBitWidth() / 8;
    llvm::MaybeAlign alignment;
    if (!emulate)
      alignment = llvm::Align(std::min<int64_t>(bytes, 16));
    return vector::LoadOp::create(rewriter, loc, type, buffer,
                                  tileIndices(buffer, r, c),
                                  /*nontemporal=*/false, alignment);
  }
  SmallVector<Value> values;
  for (int64_t value = 0; value < count; ++value) {
    auto [r, c] = lanePosition(rewriter, loc, map, lane, value, row, column);
    values.push_back(
        memref::LoadOp::create(rewriter, loc, buffer, ValueRange{r, c}));
  }
  return vector::FromElementsOp::create(rewriter, loc, type, values);
}

std::pair<Value, Value> MmaKernelBuilder::ldMatrixRow(bool isA, Value row,
                                                      Value column) {
  AffineExpr base, l;
  bindDims(rewriter.getContext(), base, l);
  auto apply = [&](AffineExpr expr, Value at) {
    return affine::AffineApplyOp::create(
               rewriter, loc, AffineMap::get(2, 0, expr), ValueRange{at, lane})
        .getResult();
  };
  // A: row + l % 16, k + 16 bytes (l / 16); B: k + l % 16 (lanes 16-31
  // repeat 0-15: .x2 reads only the first 16 addresses), column.
  if (isA)
    return {apply(base + l % 16, row),
            apply(base + l.floorDiv(16) * rowValues(), column)};
  return {apply(base + l % 16, row), column};
}

Value MmaKernelBuilder::loadMatrix(Value buffer, Value row, Value column,
                                   int64_t matrices, bool transpose) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  int64_t perRegister = registerValues();
  Value loaded = nvgpu::LdMatrixOp::create(
      rewriter, loc, VectorType::get({matrices, perRegister}, element), buffer,
      ValueRange{row, column}, transpose, matrices);
  // Flattened through its 32-bit registers (the GPU lowering has no n-D
  // shape_cast, which the canonicalizer would make of element extracts):
  // one register per matrix.
  Type i32 = rewriter.getI32Type();
  SmallVector<Value> registers;
  for (int64_t i = 0; i < matrices; ++i) {
    Value pair = vector::ExtractOp::create(rewriter, loc, loaded, i);
    Value word = vector::BitCastOp::create(rewriter, loc,
                                           VectorType::get({1}, i32), pair);
    registers.push_back(vector::ExtractOp::create(rewriter, loc, word, 0));
  }
  Value words = vector::FromElementsOp::create(
      rewriter, loc, VectorType::get({matrices}, i32), registers);
  return vector::BitCastOp::create(
      rewriter, loc, VectorType::get({perRegister * matrices}, element), words);
}

void MmaKernelBuilder::emulateLoadMatrix(Value buffer, bool isA, Value row,
                                         Value column, int64_t matrices,
                                         bool transpose, Value into) {
  forEachLane([&] {
    auto [r, c] = ldMatrixRow(isA, row, column);
    memref::StoreOp::create(rewriter, loc, r, laneRows,
                            ValueRange{lane, index(0)});
    memref::StoreOp::create(rewriter, loc, c, laneRows,
                            ValueRange{lane, index(1)});
  });
  auto add = [&](Value a, Value b) {
    return arith::AddIOp::create(rewriter, loc, a, b).getResult();
  };
  int64_t perRegister = registerValues();
  forEachLane([&] {
    Value quad = arith::RemUIOp::create(rewriter, loc, lane, index(4));
    Value group = arith::DivUIOp::create(rewriter, loc, lane, index(4));
    Value quadValues =
        arith::MulIOp::create(rewriter, loc, quad, index(perRegister));
    for (int64_t i = 0; i < matrices; ++i)
      for (int64_t j = 0; j < perRegister; ++j) {
        // The lane whose row holds the value, and the value's column in it.
        Value source = transpose ? add(index(8 * i + j), quadValues)
                                 : add(index(8 * i), group);
        Value offset = transpose ? group : add(quadValues, index(j));
        Value r = memref::LoadOp::create(rewriter, loc, laneRows,
                                         ValueRange{source, index(0)});
        Value c = memref::LoadOp::create(rewriter, loc, laneRows,
                                         ValueRange{source, index(1)});
        Value value = memref::LoadOp::create(rewriter, loc, buffer,
                                             ValueRange{r, add(c, offset)});
        memref::StoreOp::create(rewriter, loc, value, into,
                                ValueRange{lane, index(perRegister * i + j)});
      }
  });
}

void MmaKernelBuilder::storeLaneValues(Value values, Value row, Value column) {
  for (int64_t value = 0; value < tile.cValues; ++value) {
    auto [r, c] = lanePosition(rewriter, loc, tile.c, lane, value, row, column);
    Value element = vector::ExtractOp::create(rewriter, loc, values, value);
    memref::StoreOp::create(rewriter, loc, element, tileC, ValueRange{r, c});
  }
}

Value MmaKernelBuilder::multiplyLaneValues(Value a, Value b, Value acc) {
  if (instruction == MatrixInstruction::fma)
    return multiplyOuter(a, b, acc);
  if (instruction == MatrixInstruction::mfma)
    return amdgpu::MFMAOp::create(rewriter, loc, acc.getType(), tile.m, tile.n,
                                  tile.k, /*blocks=*/1, a, b, acc)
        .getResult();
  // mma.sync takes its operands in 32-bit registers (16-bit ones two to a
  // register, the first in the low half: a little-endian bitcast) and its
  // sums as scalars; it returns a struct of them.
  auto registers = [&](Value values) {
    auto type = cast<VectorType>(values.getType());
    int64_t count = type.getNumElements() * type.getElementTypeBitWidth() / 32;
    Value words = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({count}, rewriter.getI32Type()), values);
    SmallVector<Value> scalars;
    for (int64_t i = 0; i < count; ++i)
      scalars.push_back(vector::ExtractOp::create(rewriter, loc, words, i));
    return scalars;
  };
  SmallVector<Value> sums;
  for (int64_t i = 0; i < tile.cValues; ++i)
    sums.push_back(vector::ExtractOp::create(rewriter, loc, acc, i));
  Type f32 = rewriter.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(
      rewriter.getContext(), SmallVector<Type>(tile.cValues, f32));
  NVVM::MMATypes ptxType = view.element.isBF16()  ? NVVM::MMATypes::bf16
                           : view.element.isF32() ? NVVM::MMATypes::tf32
                                                  : NVVM::MMATypes::f16;
  Value result = NVVM::MmaOp::create(
      rewriter, loc, resultType, registers(a), registers(b), sums,
      {tile.m, tile.n, tile.k}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> results;
  for (int64_t i = 0; i < tile.cValues; ++i)
    results.push_back(LLVM::ExtractValueOp::create(rewriter, loc, result, i));
  return vector::FromElementsOp::create(rewriter, loc, acc.getType(), results);
}

Value MmaKernelBuilder::multiplyOuter(Value a, Value b, Value acc) {
  Type f32 = rewriter.getF32Type();
  auto widened = [&](Value values) {
    auto type = cast<VectorType>(values.getType());
    if (type.getElementType() == f32)
      return values;
    return arith::ExtFOp::create(rewriter, loc, type.clone(f32), values)
        .getResult();
  };
  a = widened(a);
  b = widened(b);
  // C[i][j] (value i * bValues + j) += A[i] * B[j]: A's values repeated,
  // B's tiled, to the accumulators' length.
  SmallVector<int64_t> rows, columns;
  for (int64_t i = 0; i < tile.aValues; ++i)
    for (int64_t j = 0; j < tile.bValues; ++j) {
      rows.push_back(i);
      columns.push_back(j);
    }
  Value aRepeated = vector::ShuffleOp::create(rewriter, loc, a, a, rows);
  Value bTiled = vector::ShuffleOp::create(rewriter, loc, b, b, columns);
  return vector::FMAOp::create(rewriter, loc, aRepeated, bTiled, acc);
}

void MmaKernelBuilder::emulateOuterStep(Value t, Value row, Value column,
                                        Value step) {
  auto type = VectorType::get({tile.cValues}, rewriter.getF32Type());
  forEachLane([&] {
    SmallVector<Value> at{t, lane, index(0)};
    Value acc = vector::LoadOp::create(rewriter, loc, type, laneAccs, at);
    Value a = loadLaneValues(tileA, row, step, tile.a, tile.aValues);
    Value b = loadLaneValues(tileB, step, column, tile.b, tile.bValues);
    vector::StoreOp::create(rewriter, loc, multiplyOuter(a, b, acc), laneAccs,
                            at);
  });
}

void MmaKernelBuilder::emulateTileStep(Value row, Value column, Value step) {
  // C[row + r][column + c] += A[row + r][step + q] * B[step + q][column + c]
  // over one WMMA tile, in f32 (f16 values are exact in f32).
  Type f32 = rewriter.getF32Type();
  serialLoop(tile.m, [&](Value r) {
    Value m = arith::AddIOp::create(rewriter, loc, row, r);
    serialLoop(tile.n, [&](Value c) {
      Value n = arith::AddIOp::create(rewriter, loc, column, c);
      Value start =
          memref::LoadOp::create(rewriter, loc, tileC, ValueRange{m, n});
      auto sum = scf::ForOp::create(
          rewriter, loc, index(0), index(tile.k), index(1), ValueRange{start},
          [&](OpBuilder &b, Location, Value q, ValueRange acc) {
            Value k = arith::AddIOp::create(b, loc, step, q);
            Value a = memref::LoadOp::create(b, loc, tileA, ValueRange{m, k});
            Value bv = memref::LoadOp::create(b, loc, tileB, ValueRange{k, n});
            a = arith::ExtFOp::create(b, loc, f32, a);
            bv = arith::ExtFOp::create(b, loc, f32, bv);
            Value product = arith::MulFOp::create(b, loc, a, bv);
            scf::YieldOp::create(
                b, loc,
                ValueRange{arith::AddFOp::create(b, loc, acc[0], product)});
          });
      memref::StoreOp::create(rewriter, loc, sum.getResult(0), tileC,
                              ValueRange{m, n});
    });
  });
}

void MmaKernelBuilder::serialLoop(int64_t extent,
                                  function_ref<void(Value)> body) {
  auto loop =
      scf::ForOp::create(rewriter, loc, index(0), index(extent), index(1));
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

void MmaKernelBuilder::storeLaneVector(Value values, Value buffer,
                                       ValueRange prefix) {
  int64_t count = cast<VectorType>(values.getType()).getNumElements();
  for (int64_t v = 0; v < count; ++v) {
    SmallVector<Value> indices(prefix.begin(), prefix.end());
    indices.append({lane, index(v)});
    memref::StoreOp::create(rewriter, loc,
                            vector::ExtractOp::create(rewriter, loc, values, v),
                            buffer, indices);
  }
}

void MmaKernelBuilder::forEachLane(function_ref<void()> body) {
  serialLoop(shape.warpSize, [&](Value iv) {
    lane = iv;
    body();
  });
  lane = Value();
}

std::pair<Value, Value>
MmaKernelBuilder::owner(nvgpu::MatMulOperandRole operand, Value row,
                        Value column) {
  auto div = [&](Value v, int64_t by) {
    return arith::DivUIOp::create(rewriter, loc, v, index(by)).getResult();
  };
  auto rem = [&](Value v, int64_t by) {
    return arith::RemUIOp::create(rewriter, loc, v, index(by)).getResult();
  };
  auto mul = [&](Value v, int64_t by) {
    return arith::MulIOp::create(rewriter, loc, v, index(by)).getResult();
  };
  auto add = [&](Value a, Value b) {
    return arith::AddIOp::create(rewriter, loc, a, b).getResult();
  };
  using Role = nvgpu::MatMulOperandRole;
  if (instruction == MatrixInstruction::mfma) {
    // A[i][k]: lane i + 16 (k / 4), value k % 4; B[k][j]: lane j + 16 (k /
    // 4), value k % 4; C[i][j]: lane j + 16 (i / 4), value i % 4.
    Value depth = operand == Role::B ? row : column;
    Value across = operand == Role::B ? column : row;
    if (operand == Role::C)
      std::swap(depth, across);
    return {add(across, mul(div(depth, 4), 16)), rem(depth, 4)};
  }
  // mma.m16n8k8 with tf32: groupID = lane / 4, threadID_in_group = lane
  // % 4. A[r][k]: r = groupID (+ 8 for a1, a3), k = threadID_in_group (+ 4
  // for a2, a3). B[k][n]: k = threadID_in_group (+ 4 for b1), n = groupID.
  // C as m16n8k16's below.
  if (view.element.isF32()) {
    switch (operand) {
    case Role::A:
      return {add(mul(rem(row, 8), 4), rem(column, 4)),
              add(div(row, 8), mul(div(column, 4), 2))};
    case Role::B:
      return {add(mul(column, 4), rem(row, 4)), div(row, 4)};
    case Role::C:
      break;
    }
  }
  // mma.m16n8k16 (16-bit A and B, f32 C): groupID = lane / 4 and
  // threadID_in_group = lane % 4. A[r][k]: r = groupID (+ 8 for a2, a3,
  // a6, a7), k = 2 threadID_in_group + (0, 1) (+ 8 for a4..a7). B[k][n]:
  // k = 2 threadID_in_group + (0, 1) (+ 8 for b2, b3), n = groupID.
  // C[r][n]: r = groupID (+ 8 for c2, c3), n = 2 threadID_in_group + (0, 1).
  switch (operand) {
  case Role::A:
    return {
        add(mul(rem(row, 8), 4), div(rem(column, 8), 2)),
        add(add(rem(column, 2), mul(div(row, 8), 2)), mul(div(column, 8), 4))};
  case Role::B:
    return {add(mul(column, 4), div(rem(row, 8), 2)),
            add(rem(row, 2), mul(div(row, 8), 2))};
  case Role::C:
    return {add(mul(rem(row, 8), 4), div(column, 2)),
            add(rem(column, 2), mul(div(row, 8), 2))};
  }
  llvm_unreachable("an operand role");
}

void MmaKernelBuilder::forEachTileLoop(
    function_ref<void(Value, Value, Value)> body) {
  int64_t tilesM = MmaShape::kWarpM / tile.m,
          tilesN = MmaShape::kWarpN / tile.n;
  serialLoop(shape.warps(), [&](Value warp) {
    std::pair<Value, Value> origin = warpOrigin(warp);
    Value warpRow = origin.first, warpColumn = origin.second;
    serialLoop(tilesM, [&](Value i) {
      serialLoop(tilesN, [&](Value j) {
        AffineExpr w, ti, tj;
        bindDims(rewriter.getContext(), w, ti, tj);
        Value t = affine::AffineApplyOp::create(
            rewriter, loc,
            AffineMap::get(3, 0, {(w * tilesM + ti) * tilesN + tj},
                           rewriter.getContext()),
            ValueRange{warp, i, j});
        Value row = arith::AddIOp::create(
            rewriter, loc, warpRow,
            arith::MulIOp::create(rewriter, loc, i, index(tile.m)));
        Value column = arith::AddIOp::create(
            rewriter, loc, warpColumn,
            arith::MulIOp::create(rewriter, loc, j, index(tile.n)));
        body(t, row, column);
      });
    });
  });
}

void MmaKernelBuilder::emulateLaneStep(Value t, Value row, Value column,
                                       Value step) {
  auto gather = [&](Value buffer, Value r, Value c, AffineMap map,
                    int64_t count, Value into) {
    forEachLane([&] {
      storeLaneVector(loadLaneValues(buffer, r, c, map, count), into, {});
    });
  };
  if (ldMatrixA())
    emulateLoadMatrix(tileA, /*isA=*/true, row, step, 4, false, laneA);
  else
    gather(tileA, row, step, tile.a, tile.aValues, laneA);
  if (ldMatrixB())
    emulateLoadMatrix(tileB, /*isA=*/false, step, column, 2, true, laneB);
  else
    gather(tileB, step, column, tile.b, tile.bValues, laneB);
  using Role = nvgpu::MatMulOperandRole;
  Type f32 = rewriter.getF32Type();
  auto widened = [&](Value buffer, std::pair<Value, Value> at) {
    Value v = memref::LoadOp::create(rewriter, loc, buffer,
                                     ValueRange{at.first, at.second});
    if (v.getType() == f32)
      return v;
    return arith::ExtFOp::create(rewriter, loc, f32, v).getResult();
  };
  serialLoop(tile.m, [&](Value r) {
    serialLoop(tile.n, [&](Value c) {
      auto [cLane, cValue] = owner(Role::C, r, c);
      Value start = memref::LoadOp::create(rewriter, loc, laneAccs,
                                           ValueRange{t, cLane, cValue});
      auto sum = scf::ForOp::create(
          rewriter, loc, index(0), index(tile.k), index(1), ValueRange{start},
          [&](OpBuilder &, Location, Value k, ValueRange acc) {
            Value a = widened(laneA, owner(Role::A, r, k));
            Value b = widened(laneB, owner(Role::B, k, c));
            Value productValue = arith::MulFOp::create(rewriter, loc, a, b);
            scf::YieldOp::create(rewriter, loc,
                                 ValueRange{arith::AddFOp::create(
                                     rewriter, loc, acc[0], productValue)});
          });
      memref::StoreOp::create(rewriter, loc, sum.getResult(0), product,
                              ValueRange{r, c});
    });
  });
  serialLoop(tile.m, [&](Value r) {
    serialLoop(tile.n, [&](Value c) {
      auto [cLane, cValue] = owner(Role::C, r, c);
      Value value =
          memref::LoadOp::create(rewriter, loc, product, ValueRange{r, c});
      memref::StoreOp::create(rewriter, loc, value, laneAccs,
                              ValueRange{t, cLane, cValue});
    });
  });
}

SmallVector<Value> MmaKernelBuilder::warpSteps(Value warp, ValueRange accs) {
  bool wmma = instruction == MatrixInstruction::wmma;
  if (emulate) {
    serialLoop(MmaShape::kStepK / tile.k, [&](Value s) {
      Value step = arith::MulIOp::create(rewriter, loc, s, index(tile.k));
      forEachTileLoop([&](Value t, Value row, Value column) {
        if (wmma)
          emulateTileStep(row, column, step);
        else if (instruction == MatrixInstruction::fma)
          emulateOuterStep(t, row, column, step);
        else
          emulateLaneStep(t, row, column, step);
      });
    });
    return {};
  }
  SmallVector<Value> results(accs.begin(), accs.end());
  int64_t tilesM = MmaShape::kWarpM / tile.m,
          tilesN = MmaShape::kWarpN / tile.n;
  auto offset = [&](Value base, int64_t by) {
    return arith::AddIOp::create(rewriter, loc, base, index(by)).getResult();
  };
  auto [warpRow, warpColumn] = warpOrigin(warp);
  for (int64_t step = 0; step < MmaShape::kStepK; step += tile.k) {
    SmallVector<Value> a, b;
    for (int64_t i = 0; i < tilesM; ++i) {
      Value row = offset(warpRow, i * tile.m);
      if (wmma) {
        a.push_back(loadTile(tileA, row, index(step), tile.m, tile.k, "AOp"));
      } else if (ldMatrixA()) {
        auto [r, c] = ldMatrixRow(/*isA=*/true, row, index(step));
        a.push_back(loadMatrix(tileA, r, c, 4, /*transpose=*/false));
      } else {
        a.push_back(
            loadLaneValues(tileA, row, index(step), tile.a, tile.aValues));
      }
    }
    for (int64_t j = 0; j < tilesN; ++j) {
      Value column = offset(warpColumn, j * tile.n);
      if (wmma) {
        b.push_back(
            loadTile(tileB, index(step), column, tile.k, tile.n, "BOp"));
      } else if (ldMatrixB()) {
        auto [r, c] = ldMatrixRow(/*isA=*/false, index(step), column);
        b.push_back(loadMatrix(tileB, r, c, 2, /*transpose=*/true));
      } else {
        b.push_back(
            loadLaneValues(tileB, index(step), column, tile.b, tile.bValues));
      }
    }
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j) {
        Value &acc = results[i * tilesN + j];
        acc = wmma ? gpu::SubgroupMmaComputeOp::create(
                         rewriter, loc, acc.getType(), a[i], b[j], acc,
                         UnitAttr(), UnitAttr())
                         .getResult()
                   : multiplyLaneValues(a[i], b[j], acc);
      }
  }
  return results;
}

std::pair<Value, Value> MmaKernelBuilder::warpOrigin(Value warp) {
  Value row = arith::MulIOp::create(
      rewriter, loc,
      arith::DivUIOp::create(rewriter, loc, warp, index(shape.warpColumns())),
      index(MmaShape::kWarpM));
  Value column = arith::MulIOp::create(
      rewriter, loc,
      arith::RemUIOp::create(rewriter, loc, warp, index(shape.warpColumns())),
      index(MmaShape::kWarpN));
  return {row, column};
}

void MmaKernelBuilder::storeOutputs(Value batch, Value mBase, Value nBase) {
  OpOperand *init = op.getDpsInitOperand(0);
  bool rowFastest = innermostUses(init, view.m);
  cooperativeLoop(shape.blockRows * shape.blockColumns, [&](Value i) {
    auto [row, column] =
        tilePosition(i, shape.blockRows, shape.blockColumns, rowFastest);
    Value m = arith::AddIOp::create(rewriter, loc, mBase, row);
    Value n = arith::AddIOp::create(rewriter, loc, nBase, column);
    Value inside = insideBoth(m, extentM, n, extentN);
    auto guard = scf::IfOp::create(rewriter, loc, inside,
                                   /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(rewriter);
    rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
    Value value =
        memref::LoadOp::create(rewriter, loc, tileC, ValueRange{row, column});
    SmallVector<Value> ivs = loopValues(batch, m, n, Value());
    if (fusion.storeOutput)
      memref::StoreOp::create(
          rewriter, loc, value, init->get(),
          indicesAt(rewriter, loc, op.getMatchingIndexingMap(init), ivs));
    if (fusion.epilogue)
      emitEpilogueStores(rewriter, op, fusion, ivs, value);
  });
}

MmaKernelBuilder::StagingShapes MmaKernelBuilder::stagingShapes() const {
  // Staged kernels pad both k-major tiles' rows by 4 elements: where
  // the cooperative loop walks k fastest (a row-major matmul's A, a
  // convolution's weights), a warp's stores then spread over 8 banks, not
  // one, and every thread's vector still starts 16-byte aligned.
  // ldmatrix reads 8 rows of 16 bytes at once: rows padded by 16 bytes
  // (A: 80 bytes for bf16, 144 for f32; B: 144 for bf16) put the 8 rows in
  // 8 different 16-byte bank groups. tf32's B, read lane by lane at k =
  // lane % 4 (+ 4) and n = lane / 4, takes rows of 72 values: 32 banks.
  int64_t padA = 0, padB = 0;
  if (transposedA())
    padA = padB = 4;
  else if (ldMatrixA())
    padA = rowValues(), padB = 8;
  StagingShapes shapes;
  shapes.a =
      transposedA()
          ? SmallVector<int64_t>{MmaShape::kStepK, shape.blockRows + padA}
          : SmallVector<int64_t>{shape.blockRows, MmaShape::kStepK + padA};
  shapes.b = {MmaShape::kStepK, shape.blockColumns + padB};
  shapes.c = {shape.blockRows, shape.blockColumns};
  int64_t bytes = view.element.getIntOrFloatBitWidth() / 8;
  shapes.bytes =
      (shapes.a[0] * shapes.a[1] + shapes.b[0] * shapes.b[1]) * bytes +
      shapes.c[0] * shapes.c[1] * 4;
  return shapes;
}

LogicalResult MmaKernelBuilder::build() {
  // Static shared memory only (no opt-in to more): a block tile larger
  // than the target holds is refused, not left to fail at launch.
  int64_t needed = stagingShapes().bytes;
  if (!emulate && needed > target.getSharedMemory())
    return op->emitOpError()
           << "a kernel of outputs = [" << shape.blockRows << ", "
           << shape.blockColumns << "] needs " << needed
           << " bytes of shared memory; " << target.getApi() << ":"
           << target.getChip() << " gives a block " << target.getSharedMemory();
  extentM = view.extent(view.m);
  extentN = view.extent(view.n);
  extentK = view.extent(view.k);
  int64_t batches = view.extent(view.batch);
  Type f32 = rewriter.getF32Type();
  Value gridZ = index(batches),
        gridY = index(llvm::divideCeil(extentM, shape.blockRows)),
        gridX = index(llvm::divideCeil(extentN, shape.blockColumns));
  // Blocks: (batch, m tile, n tile) on the grid's (z, y, x). On a GPU the
  // kernel is a gpu.launch of its own (convert-parallel-loops-to-gpu does
  // not take WMMA stores), on a CPU a loop nest with one "thread" per
  // block doing all of its work.
  Value warp, batch, mTile, nTile;
  Operation *kernel;
  if (emulate) {
    auto blocks = scf::ParallelOp::create(
        rewriter, loc, ValueRange{index(0), index(0), index(0)},
        ValueRange{gridZ, gridY, gridX},
        ValueRange{index(1), index(1), index(1)});
    kernel = blocks;
    rewriter.setInsertionPointToStart(blocks.getBody());
    batch = blocks.getInductionVars()[0];
    mTile = blocks.getInductionVars()[1];
    nTile = blocks.getInductionVars()[2];
    thread = index(0);
    threadCount = index(1);
  } else {
    Value one = index(1);
    auto launch = gpu::LaunchOp::create(rewriter, loc, gridX, gridY, gridZ,
                                        index(shape.threads()), one, one);
    kernel = launch;
    rewriter.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(rewriter, loc);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    batch = blockIds.z;
    mTile = blockIds.y;
    nTile = blockIds.x;
    thread = launch.getThreadIds().x;
    threadCount = index(shape.threads());
    warp = arith::DivUIOp::create(rewriter, loc, thread, index(shape.warpSize));
    lane = arith::RemUIOp::create(rewriter, loc, thread, index(shape.warpSize));
  }
  Value mBase =
      arith::MulIOp::create(rewriter, loc, mTile, index(shape.blockRows));
  Value nBase =
      arith::MulIOp::create(rewriter, loc, nTile, index(shape.blockColumns));
  zeroF32 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
  StagingShapes staging = stagingShapes();
  tileA = stagingBuffer(staging.a, view.element, transposedA() ? "at" : "a");
  tileB = stagingBuffer(staging.b, view.element, "b");
  tileC = stagingBuffer(staging.c, f32, "c");

  // The start values (bias, zeros or the output's) through the C tile
  // into each warp's accumulators.
  stageStartValues(batch, mBase, nBase);
  barrier();
  int64_t tilesM = MmaShape::kWarpM / tile.m,
          tilesN = MmaShape::kWarpN / tile.n;
  // This warp's tiles (on a GPU).
  auto forEachTile = [&](function_ref<void(int64_t, Value, Value)> body) {
    auto [warpRow, warpColumn] = warpOrigin(warp);
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j)
        body(i * tilesN + j,
             arith::AddIOp::create(rewriter, loc, warpRow, index(i * tile.m)),
             arith::AddIOp::create(rewriter, loc, warpColumn,
                                   index(j * tile.n)));
  };
  // The accumulators: WMMA fragments or each lane's values in registers;
  // emulated, the C tile itself (one thread runs every warp's steps in
  // turn), or for lane-level instructions each lane's values in memory.
  bool wmma = instruction == MatrixInstruction::wmma;
  SmallVector<Value> accs;
  if (!emulate)
    forEachTile([&](int64_t, Value row, Value column) {
      accs.push_back(
          wmma ? loadTile(tileC, row, column, tile.m, tile.n, "COp")
               : loadLaneValues(tileC, row, column, tile.c, tile.cValues));
    });
  bool emulateLanes = emulate && !wmma;
  if (emulateLanes) {
    int64_t tiles = shape.warps() * tilesM * tilesN;
    auto stackBuffer = [&](ArrayRef<int64_t> dims, Type element) {
      return memref::AllocaOp::create(rewriter, loc,
                                      MemRefType::get(dims, element))
          .getResult();
    };
    laneAccs = stackBuffer({tiles, shape.warpSize, tile.cValues}, f32);
    laneA = stackBuffer({shape.warpSize, tile.aValues}, view.element);
    laneB = stackBuffer({shape.warpSize, tile.bValues}, view.element);
    product = stackBuffer({tile.m, tile.n}, f32);
    laneRows = stackBuffer({shape.warpSize, 2}, rewriter.getIndexType());
    forEachTileLoop([&](Value t, Value row, Value column) {
      forEachLane([&] {
        storeLaneVector(
            loadLaneValues(tileC, row, column, tile.c, tile.cValues), laneAccs,
            t);
      });
    });
  }
  // The reduction, a 32-deep step at a time: stage, wait, multiply, wait.
  auto steps = scf::ForOp::create(rewriter, loc, index(0), index(extentK),
                                  index(MmaShape::kStepK), accs);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(steps.getBody());
    Value k = steps.getInductionVar();
    stageOperand(view.x, tileA, shape.blockRows, MmaShape::kStepK,
                 /*rowsAreM=*/true, batch, mBase, k);
    stageOperand(view.y, tileB, MmaShape::kStepK, shape.blockColumns,
                 /*rowsAreM=*/false, batch, k, nBase);
    barrier();
    SmallVector<Value> next = warpSteps(warp, steps.getRegionIterArgs());
    barrier();
    // Without loop-carried fragments (emulated) the loop has its yield.
    if (!next.empty())
      scf::YieldOp::create(rewriter, loc, next);
  }
  if (!emulate)
    forEachTile([&](int64_t t, Value row, Value column) {
      if (wmma)
        storeTile(steps.getResult(t), row, column);
      else
        storeLaneValues(steps.getResult(t), row, column);
    });
  if (emulateLanes)
    forEachTileLoop([&](Value t, Value row, Value column) {
      forEachLane([&] {
        SmallVector<Value> values;
        for (int64_t v = 0; v < tile.cValues; ++v)
          values.push_back(memref::LoadOp::create(
              rewriter, loc, laneAccs, ValueRange{t, lane, index(v)}));
        storeLaneValues(
            vector::FromElementsOp::create(
                rewriter, loc, VectorType::get({tile.cValues}, f32), values),
            row, column);
      });
    });
  barrier();
  storeOutputs(batch, mBase, nBase);
  eraseFused(rewriter, op, fusion);
  allowContraction(kernel);
  return success();
}

/// Emits `op` as a tensor-core kernel (`decision.kind = mma`): a block
/// per outputs = [rows, columns] tile of one GEMM of the batch
/// (tensorCoreGemmView), its threads staging each 32-deep step of both
/// operands in shared memory in their type, f16 or bf16 (an implicit GEMM:
/// a convolution's input is read through its indexing map, a padded input
/// from its source with bounds checks; positions outside the GEMM read as
/// zero), then each warp multiplying its 32 x 32 outputs' tiles with the
/// target's matrix instruction (chooseMatrixInstruction): WMMA
/// (gpu.subgroup_mma_* on fragments loaded from shared memory), mma.sync
/// or MFMA (each lane loading its values of the instruction's operands
/// from shared memory); the sums stay in registers (emulated: scalar f32
/// loops on the C tile). The start values (fused prologue: the bias) come
/// in and the final values go out through a shared f32 tile, the epilogue
/// applied on the way to guarded stores. A `staged` decision builds the
/// same kernel with each thread multiplying its own register tile
/// (fmaTile: vector loads from shared memory, outer products of FMAs) in
/// place of the matrix instruction, for f32 (and f16/bf16 widened to f32).
static LogicalResult emitMmaKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                   GPUKernelAttr decision, GPUTargetAttr target,
                                   const Fusion &fusion, bool emulate) {
  // An mma decision stands for tf32 where the operands are f32 (the cost
  // model makes it only with allow-tf32); a staged one multiplies f32
  // values as they are.
  bool staged = decision.getKind() == GPUKernelKind::staged;
  StringRef kind = staged ? "a staged" : "an mma";
  std::optional<GemmView> view = tensorCoreGemmView(op, /*allowF32=*/true);
  if (!view)
    return op->emitOpError()
           << kind << " kernel needs a contraction of two f16, bf16 or f32 "
           << (staged ? "" : "(tf32) ")
           << "operands into f32 sums with static shapes";
  std::optional<MatrixInstruction> instruction =
      staged ? MatrixInstruction::fma
             : chooseMatrixInstruction(target, view->element);
  if (!instruction)
    return op->emitOpError()
           << "an mma kernel on " << target.getApi() << ":" << target.getChip()
           << " has no matrix instruction for " << view->element << " operands";
  MmaShape shape{decision.getOutputs()[0], decision.getOutputs()[1],
                 target.getWarpSize()};
  if (decision.getThreads()[0] != shape.threads())
    return op->emitOpError()
           << kind << " kernel on " << target.getApi() << ":"
           << target.getChip() << " takes " << shape.threads()
           << " threads for outputs = [" << shape.blockRows << ", "
           << shape.blockColumns << "] (" << shape.warps() << " warps of "
           << shape.warpSize << "), got " << decision.getThreads()[0];
  // Emulated, WMMA is 16 x 16 x 16 steps of scalar loops, the lane-level
  // instructions run their lanes' code (emulateLaneStep).
  InstructionTile tile;
  if (*instruction == MatrixInstruction::mmaSync) {
    FailureOr<InstructionTile> mmaSync =
        mmaSyncTile(rewriter, op.getLoc(), view->element);
    if (failed(mmaSync))
      return op->emitOpError("no mma.sync fragment layout");
    tile = *mmaSync;
  } else if (*instruction == MatrixInstruction::mfma) {
    tile = mfmaTile(op->getContext());
  } else if (*instruction == MatrixInstruction::fma) {
    tile = fmaTile(op->getContext(), shape.warpSize);
  }
  return MmaKernelBuilder(rewriter, op, *view, shape, *instruction, tile,
                          target, fusion, emulate)
      .build();
}

/// `op` with its loops in the kernel's order (gpuLoopOrder).
static FailureOr<linalg::LinalgOp> reorderForKernel(RewriterBase &rewriter,
                                                    linalg::LinalgOp op) {
  SmallVector<unsigned> order = gpuLoopOrder(op);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  FailureOr<linalg::GenericOp> reordered =
      interchangeLoops(rewriter, op, order);
  if (failed(reordered))
    return op->emitOpError("dlas-gpu-map-kernels cannot reorder the loops "
                           "of this op");
  return linalg::LinalgOp(*reordered);
}

/// True for ops that may stand between a reduction and its fusion
/// partners and move before the reduction: they allocate, make constants
/// or views, and touch no element.
static bool isMovable(Operation *op) {
  return isa<memref::AllocOp, arith::ConstantOp>(op) ||
         isa<ViewLikeOpInterface>(op);
}

/// True for an elementwise op over `loops` loops writing one output with
/// an identity indexing map without reading it: a fusion partner.
static bool isElementwiseOver(linalg::LinalgOp op, unsigned loops) {
  if (!op || !op.hasPureBufferSemantics() || op.getNumLoops() != loops ||
      op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1)
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  return op.getMatchingIndexingMap(init).isIdentity() &&
         !op.payloadUsesValueFromOperand(init);
}

/// The buffer `value` views (through view-like ops), or `value`.
static Value viewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// True when an op after `from` and before `to` (same block), or `to`
/// itself as a writer, touches the buffer of `value`: reading `value` at
/// `to` would not see what it held at `from`.
static bool touchedBetween(Value value, Operation *from, linalg::LinalgOp to) {
  Value root = viewRoot(value);
  for (Operation *op = from->getNextNode(); op && op != to.getOperation();
       op = op->getNextNode())
    for (Value operand : op->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) && viewRoot(operand) == root)
        return true;
  return llvm::any_of(to.getDpsInits(),
                      [&](Value init) { return viewRoot(init) == root; });
}

/// The constant a fill-like op writes everywhere: linalg.fill's value, or
/// the value a generic without tensor inputs yields from outside its body.
static Value filledValue(linalg::LinalgOp fill) {
  if (auto linalgFill = dyn_cast<linalg::FillOp>(fill.getOperation()))
    return linalgFill.value();
  if (fill.getNumDpsInputs() != 0 || fill.getNumDpsInits() != 1 ||
      fill.getNumReductionLoops() != 0)
    return {};
  Value yielded = fill.getBlock()->getTerminator()->getOperand(0);
  return yielded.getParentRegion() == &fill->getRegion(0) ? Value() : yielded;
}

/// The inputs of `op` that are padded copies (tensor.pad, bufferized: an
/// allocation filled with a constant, the source copied into a subview of
/// it) read by nothing else: `op` can read their sources directly, and
/// the fill, the copy and the buffer disappear.
static DenseMap<Value, PaddedInput> findPaddedInputs(linalg::LinalgOp op) {
  DenseMap<Value, PaddedInput> found;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value buffer = input->get();
    if (!buffer.getDefiningOp<memref::AllocOp>() || found.count(buffer))
      continue;
    PaddedInput padded{};
    bool ok = true;
    for (Operation *user : buffer.getUsers()) {
      if (user == op.getOperation() || isa<memref::DeallocOp>(user))
        continue;
      auto linalgUser = dyn_cast<linalg::LinalgOp>(user);
      if (linalgUser && !padded.fill && linalgUser.getNumDpsInits() == 1 &&
          linalgUser.getDpsInitOperand(0)->get() == buffer &&
          (padded.value = filledValue(linalgUser))) {
        padded.fill = user;
        continue;
      }
      auto view = dyn_cast<memref::SubViewOp>(user);
      if (view && !padded.subview && view->hasOneUse() &&
          view.hasUnitStride()) {
        auto copy = dyn_cast<linalg::CopyOp>(*view->user_begin());
        auto offsets = view.getStaticOffsets();
        if (copy && copy.getOutputs()[0] == view.getResult() &&
            !llvm::is_contained(offsets, ShapedType::kDynamic) &&
            view.getType().getRank() ==
                cast<MemRefType>(buffer.getType()).getRank() &&
            cast<MemRefType>(copy.getInputs()[0].getType()).hasStaticShape()) {
          padded.subview = view;
          padded.copy = copy;
          padded.source = copy.getInputs()[0];
          padded.offsets.assign(offsets.begin(), offsets.end());
          continue;
        }
      }
      ok = false;
    }
    // The fill, then the copy, then the reader, and the source unchanged
    // in between (bufferization reuses buffers: a source may be refilled
    // and become the reader's output).
    if (!ok || !padded.fill || !padded.copy ||
        !padded.fill->isBeforeInBlock(padded.copy) ||
        padded.copy->getBlock() != op->getBlock() ||
        !padded.copy->isBeforeInBlock(op) ||
        touchedBetween(padded.source, padded.copy, op))
      continue;
    found[buffer] = padded;
  }
  return found;
}

/// The elementwise ops a reduction `op` (loops in the kernel's order) can
/// fold: the one right before it that fills its output (a bias broadcast,
/// a fill) and the one right after it that reads its output elementwise
/// (bias add, activation, residual add: elementwise fusion has already
/// made them one op). `toMove` gets the allocations and views between the
/// reduction and its epilogue, which must move before the fused kernel.
static Fusion findFusion(linalg::LinalgOp op,
                         SmallVectorImpl<Operation *> &toMove) {
  Fusion fusion;
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1)
    return fusion;
  unsigned parallel = op.getNumParallelLoops();
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outputMap = op.getMatchingIndexingMap(init);
  // Parallel loops first, each indexing one output dimension (in any
  // order: gpuLoopOrder may move one).
  if (outputMap.getNumResults() != parallel ||
      !llvm::all_of(outputMap.getResults(), [&](AffineExpr expr) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        return dim && dim.getPosition() < parallel;
      }))
    return fusion;
  for (unsigned i = 0; i < parallel; ++i)
    fusion.outputLoops.push_back(outputMap.getDimPosition(i));
  Value output = init->get();
  Operation *before = op->getPrevNode();
  while (before && isa<memref::AllocOp, arith::ConstantOp>(before))
    before = before->getPrevNode();
  auto prologue = dyn_cast_or_null<linalg::LinalgOp>(before);
  Value outputRoot = viewRoot(output);
  auto readsOutput = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) {
      return isa<BaseMemRefType>(v.getType()) && viewRoot(v) == outputRoot;
    });
  };
  // Its inputs are read when the reduction runs: none may be the output.
  if (isElementwiseOver(prologue, parallel) &&
      prologue.getDpsInitOperand(0)->get() == output &&
      !readsOutput(prologue.getDpsInputs()))
    fusion.prologue = prologue;

  SmallVector<Operation *> between;
  Operation *after = op->getNextNode();
  while (after && isMovable(after)) {
    between.push_back(after);
    after = after->getNextNode();
  }
  auto epilogue = dyn_cast_or_null<linalg::LinalgOp>(after);
  if (isElementwiseOver(epilogue, parallel)) {
    Value result = epilogue.getDpsInitOperand(0)->get();
    unsigned reads = 0;
    bool identityRead = true;
    for (OpOperand *input : epilogue.getDpsInputOperands())
      if (input->get() == output) {
        ++reads;
        identityRead &= epilogue.getMatchingIndexingMap(input).isIdentity();
      }
    // Its operands must exist where the fused kernel runs.
    bool available = llvm::all_of(epilogue->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return !def || def->getBlock() != op->getBlock() ||
             def->isBeforeInBlock(op) || llvm::is_contained(between, def);
    });
    // Its other inputs are read, and its output written, when the
    // reduction runs: none may alias the reduction's output, except the
    // epilogue's output being that very buffer (an in-place activation:
    // each element is read and written by the same thread).
    SmallVector<Value> others;
    for (Value input : epilogue.getDpsInputs())
      if (input != output)
        others.push_back(input);
    bool inPlace = result == output;
    if (!inPlace)
      others.push_back(result);
    if (reads == 1 && identityRead && available && !readsOutput(others)) {
      fusion.epilogue = epilogue;
      toMove.assign(between.begin(), between.end());
    }
  }
  // The output is stored unless nothing else reads it, or the epilogue
  // writes its own values over it.
  if (fusion.epilogue && fusion.epilogue.getDpsInitOperand(0)->get() == output)
    fusion.storeOutput = false;
  else
    fusion.storeOutput =
        !fusion.epilogue ||
        llvm::any_of(output.getUsers(), [&](Operation *user) {
          return user != op.getOperation() &&
                 user != fusion.epilogue.getOperation() &&
                 user != fusion.prologue.getOperation() &&
                 !isa<memref::DeallocOp,
                      memref::ExtractAlignedPointerAsIndexOp>(user);
        });
  return fusion;
}

/// Lowers `op` (loops in the kernel's order) and the partners `fusion`
/// folds into it to a mapped parallel loop nest.
static LogicalResult mapOp(RewriterBase &rewriter, linalg::LinalgOp op,
                           GPUKernelAttr decision, GPUTargetAttr target,
                           const Fusion &fusion, bool emulate) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  if (isBlockTileKernel(decision.getKind()))
    return emitMmaKernel(rewriter, op, decision, target, fusion, emulate);
  // A tiled kernel's outer dimensions share the grid's z: at most 65535
  // blocks (the cost model never decides more; an override may).
  unsigned parallel = op.getNumParallelLoops();
  if (decision.getKind() == GPUKernelKind::tiled && parallel > 2) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t outer = 1;
    for (int64_t range : ArrayRef<int64_t>(ranges).take_front(parallel - 2))
      outer = ShapedType::isDynamic(range) ? outer : outer * range;
    outer *= decision.getSplit();
    if (outer > 65535)
      return op->emitOpError()
             << "a tiled GPU kernel over " << outer
             << " outer iterations (reduction chunks included) exceeds the "
                "grid's 65535 blocks in z; give it a flat decision "
                "(dlas.gpu_threads = array<i64: t>)";
  }
  if (decision.getSplit() > 1 && !isSumReduction(op))
    return op->emitOpError()
           << "a split reduction (split = " << decision.getSplit()
           << ") needs a sum reduction into one f32 output";
  // Outputs in registers across the reductions.
  bool hasParallel = llvm::is_contained(op.getIteratorTypesArray(),
                                        utils::IteratorType::parallel);
  FailureOr<scf::ParallelOp> emitted =
      emitRegisterLoops(rewriter, op, decision, fusion);
  if (failed(emitted))
    return op->emitOpError("dlas-gpu-map-kernels builds kernels for ops whose "
                           "outputs are indexed by projected permutations");
  // Without parallel loops: one thread of its own kernel.
  if (!hasParallel)
    return mapLoop(*emitted, {gpu::Processor::BlockX});
  if (failed(shapeAndMap(rewriter, *emitted, decision)))
    return emitError(loc) << "dlas-gpu-map-kernels: cannot map the loops of "
                          << decision.getKey();
  return success();
}

namespace {
struct GPUMapKernelsPass : dlas::impl::GPUMapKernelsBase<GPUMapKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<GPUTargetAttr> required =
        requireGPUTarget(module, "dlas-gpu-map-kernels");
    if (failed(required))
      return signalPassFailure();
    GPUTargetAttr target = *required;
    IRRewriter rewriter(&getContext());
    // Copies bufferization left as memref.copy (returned views, reshapes
    // that need a new buffer) run as copy kernels too.
    SmallVector<memref::CopyOp> copies;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
      return WalkResult::advance();
    });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    // Ops already in kernels (or in device modules) are left alone.
    SmallVector<linalg::LinalgOp> ops;
    WalkResult walked = module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (!linalgOp.hasPureBufferSemantics()) {
          op->emitOpError("dlas-gpu-map-kernels runs after bufferization; "
                          "this op still has tensor operands");
          return WalkResult::interrupt();
        }
        ops.push_back(linalgOp);
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    // Decisions (read before the loops are reordered: a named op becomes a
    // generic), then loop order, then fusion partners, then kernels.
    SmallVector<std::pair<linalg::LinalgOp, GPUKernelAttr>> kernels;
    for (linalg::LinalgOp op : ops) {
      auto decision =
          op->getAttrOfType<GPUKernelAttr>(DLASDialect::kLoweringAttrName);
      if (!decision)
        decision = chooseGPUKernel(op, target);
      FailureOr<linalg::LinalgOp> reordered = reorderForKernel(rewriter, op);
      if (failed(reordered))
        return signalPassFailure();
      kernels.push_back({*reordered, decision});
    }
    DenseMap<Operation *, Fusion> fusions;
    DenseSet<Operation *> folded;
    if (fuse) {
      for (auto &[op, decision] : kernels) {
        if (folded.contains(op))
          continue;
        SmallVector<Operation *> toMove;
        Fusion fusion = findFusion(op, toMove);
        // A split reduction's output is complete only after its last chunk:
        // its start value and what reads it stay kernels of their own.
        if (decision.getSplit() > 1) {
          fusion.prologue = fusion.epilogue = {};
          fusion.storeOutput = true;
          toMove.clear();
        }
        fusion.padded = findPaddedInputs(op);
        if (fusion.empty())
          continue;
        for (auto &[buffer, padded] : fusion.padded) {
          folded.insert(padded.fill);
          folded.insert(padded.copy);
        }
        for (Operation *moved : toMove)
          moved->moveBefore(op);
        if (fusion.prologue)
          folded.insert(fusion.prologue);
        if (fusion.epilogue)
          folded.insert(fusion.epilogue);
        fusions[op] = fusion;
      }
    }
    // Each kernel's layer, per function in program order, for
    // dlas-gpu-name-kernels (the ops are gone once mapped).
    llvm::MapVector<Operation *, SmallVector<Attribute>> kernelNames;
    for (auto &[op, decision] : kernels) {
      if (folded.contains(op))
        continue;
      if (auto func = op->getParentOfType<func::FuncOp>())
        kernelNames[func].push_back(
            StringAttr::get(&getContext(), gpuKernelName(decision.getKey())));
      if (failed(mapOp(rewriter, op, decision, target, fusions.lookup(op),
                       emulate)))
        return signalPassFailure();
    }
    for (auto &[func, names] : kernelNames)
      func->setAttr(kGPUKernelNamesAttrName,
                    ArrayAttr::get(&getContext(), names));
  }
};
} // namespace
