//===- SparseToLoops.cpp - the convert-sparse-to-loops pass ---------------===//
//
// Direct sparse convolution and sparse linear layers: the non-zeros of a
// compile-time constant weight drive vector FMAs over flat output rows.
// See the pass description in Codegen/Passes.td for the scheme.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Dialect/Sparse/SparseDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::dlas {
#define GEN_PASS_DEF_CONVERTSPARSETOLOOPS
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using namespace mlir::dlas;
using sparse::BlockShape;
using sparse::CompressedWeight;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return llvm::divideCeilSigned(a, b); }

/// Parallel iterations a kernel offers at least (where it has the rows):
/// a few per thread of the CPUs DLAS targets, for OpenMP's static schedule.
/// Not more: a chunk of output channels reads its tile's input slab from
/// L1 once per row, so few rows per chunk read it from L2 again and again
/// (ResNet-50's 14x14 3x3 layer at 10%, 2 tiles: chunks of 8 rows 0.320
/// ms, of 32 rows 0.306; Zen 5, 1 thread).
constexpr int64_t kParallelIterations = 16;

/// Independent accumulator chains the kernel's FMAs should have at least:
/// an FMA's latency (4 cycles) times the FMAs a core starts per cycle (2).
constexpr int64_t kMinChains = 8;

/// A max pool fused after a convolution (sparse.conv2d's pool_*): the
/// kernel's parallel iterations are bands of pooled rows; each band's
/// convolution rows go to a scratch buffer of its own (in cache), are
/// pooled from there, and only the pool is stored.
struct PoolShape {
  int64_t kernel[2], strides[2];
  int64_t padding[4];             // top, left, bottom, right
  int64_t convRows, convCols;     // OH, OW
  int64_t rowWidth;               // Wq: the convolution's flat row width
  int64_t pooledRows, pooledCols; // the result's spatial size
  int64_t bandRows = 1;           // pooled rows per band
  int64_t bands() const { return ceilDiv(pooledRows, bandRows); }
  int64_t convRowsPerBand() const {
    return (bandRows - 1) * strides[0] + kernel[0];
  }
  /// Flat convolution positions of an interior band (of a whole map
  /// when one band covers it).
  int64_t bandPositions() const {
    return std::min(convRowsPerBand(), convRows) * rowWidth;
  }
  // Scratch elements before a band's first position: a window's columns
  // left of column 0 (the padding) read them.
  int64_t margin() const { return padding[1]; }
  /// Vectors of an interior band's last, narrower tile (0: it ends in a
  /// full tile).
  int64_t restVectors(int64_t lanes, int64_t vectors) const {
    return ceilDiv(bandPositions(), lanes) % vectors;
  }
};

/// Tiles along output rows instead of flat positions: where the output
/// rows are whole vectors wide (OW a multiple of the lanes) but the planes'
/// rows are wider (Wq = OW + the column shift), tiles that stop at a row's
/// end compute no column past OW and store the output compact, so it needs
/// no slicing afterwards (a pass over the whole output: ResNet-50's 7x7
/// stem writes 112 x 115 positions per channel and kept 112 x 112). A row
/// of `OW / lanes` vectors is `tilesPerRow` tiles of `vectors` vectors,
/// the last one `lastVectors` (fewer where they do not divide).
struct RowTiles {
  int64_t rows, width, rowStride; // OH, OW, Wq
  int64_t lanes, tilesPerRow, vectors, lastVectors;
  int64_t tiles() const { return rows * tilesPerRow; }
};

/// Row tiles for an output of `rows x width` in planes `rowStride` wide,
/// at most `maxVectors` per tile: the fewest tiles per row, balanced.
std::optional<RowTiles> chooseRowTiles(int64_t rows, int64_t width,
                                       int64_t rowStride, int64_t lanes,
                                       int64_t maxVectors) {
  if (rowStride == width || lanes < 2 || width % lanes != 0 || maxVectors < 1)
    return std::nullopt;
  int64_t rowVectors = width / lanes;
  int64_t tilesPerRow = ceilDiv(rowVectors, maxVectors);
  int64_t vectors = ceilDiv(rowVectors, tilesPerRow);
  return RowTiles{rows,
                  width,
                  rowStride,
                  lanes,
                  tilesPerRow,
                  vectors,
                  rowVectors - (tilesPerRow - 1) * vectors};
}

/// What the kernel computes, known at compile time.
struct KernelShape {
  // NI: independent input/output planes; ShapedType::kDynamic for a
  // dynamic batch (the loops then read it from the output buffer).
  int64_t images;
  int64_t inputLength;   // L: flat input elements per image
  int64_t outputLength;  // P: flat output positions per channel computed
  int64_t lanes;         // VL
  int64_t vectorsPerTile; // U
  bool relu = false;
  // Input-channel slabs: the tile's input of one slab stays in L1 while
  // every output channel of a chunk reads it.
  int64_t slabColumns = 0; // weight columns per slab (0: one slab)
  int64_t slabs = 1;
  // Whether the last tile's input loads may pass the input's end (an input
  // used in place); a copied input gets slack rows instead.
  bool maskLoads = false;
  // Offsets and values as immediates in straight-line code per block row
  // and slab, instead of the loop over the arrays.
  bool bake = false;
  // 16-bit offsets where they all fit.
  bool narrowOffsets = true;
  // A tile of one position (a batch-1 linear layer, a 1x1 map) in CSR:
  // each row's non-zeros taken this many at a time, their inputs gathered
  // (0: one 1-lane FMA per non-zero).
  int64_t gatherLanes = 0;
  std::optional<PoolShape> pool;
  std::optional<RowTiles> rowTiles;
  // Register shifts: the stored blocks of each row and slab come in
  // `shiftGroups` groups by their tap's column shift s; group s reads its
  // taps s elements early (on the vector grid, where the planes' rows are
  // whole vectors), one vector more per tile, and its sums are shifted
  // left by s lanes (a shuffle of two vectors) into the accumulators.
  int64_t shiftGroups = 1;
  // Parallel iterations ordered (image, tile, chunk) instead of (image,
  // chunk, tile): with a copied input, OpenMP's static schedule then gives
  // each thread the tiles whose plane rows it copied itself (the copy's
  // bands follow the tiles), so the kernel reads them from its own cache
  // instead of from the other core's (ResNet-50's stride-2 3x3 layer, 2
  // threads: the kernel 0.36 -> 0.17 ms with planes already in place).
  bool spatialMajor = false;
  // Stored-weight bytes (values and offsets) per chunk of output channels
  // at most, 0: no limit. Where a layer's weights take more and it has
  // several spatial items, its chunks run one after the other over every
  // item (chunk-major), so that a chunk's weights come from L2 at every
  // item after the first (weightChunks).
  int64_t weightChunkBytes = 0;
  int64_t tile() const { return lanes * vectorsPerTile; }
  /// Tiles of a band (a fused pool's): its rows' positions, rounded up.
  int64_t tilesPerBand() const {
    return ceilDiv(pool->bandPositions(), tile());
  }
  /// A band's scratch row: the margin, the band's tiles, and room for the
  /// pool's last (partly unused) vector of windows.
  int64_t scratchColumns() const {
    return pool->margin() + tilesPerBand() * tile() + lanes * pool->strides[1] +
           pool->kernel[1];
  }
  int64_t paddedLength() const { return ceilDiv(outputLength, tile()) * tile(); }
};

/// Lanes and vectors per tile for `block` over `outputLength` positions:
/// full vectors where the positions allow, and as many accumulators as
/// the registers hold (an input vector reused by r block rows must stay
/// in a register too).
std::pair<int64_t, int64_t> chooseTile(const TargetShape &target,
                                       BlockShape block, int64_t outputLength,
                                       int64_t forcedVectors) {
  int64_t lanes = outputLength >= target.vectorWidth ? target.vectorWidth : 1;
  int64_t budget = std::max<int64_t>(target.vectorRegisters - 2, 2);
  int64_t maxVectors =
      block.rows == 1 ? std::min<int64_t>(budget - 2, 8)
                      : std::max<int64_t>(budget / (block.rows + 1), 1);
  if (forcedVectors > 0)
    maxVectors = forcedVectors;
  int64_t vectors =
      std::clamp<int64_t>(ceilDiv(outputLength, lanes), 1, std::max<int64_t>(maxVectors, 1));
  return {lanes, vectors};
}

/// The gather width for a tile of one position in CSR (see
/// KernelShape::gatherLanes): the target's vector width, or 0 where the
/// tile has more positions, the weight blocks, the weights are baked or
/// gathers are turned off.
int64_t gatherLanesFor(const KernelShape &shape, BlockShape block,
                       const TargetShape &target, bool enabled) {
  bool onePosition = shape.lanes == 1 && shape.vectorsPerTile == 1 &&
                     shape.outputLength == 1 && !shape.pool && !shape.rowTiles;
  if (!enabled || shape.bake || !onePosition || block.rows != 1 ||
      block.cols != 1)
    return 0;
  return target.vectorWidth;
}

/// Pooled rows per band. A band computes its convolution rows in tiles of
/// `vectors` vectors and a last narrower one; rows shared with the next
/// band (a window taller than its stride) are computed twice, and every
/// tile also loads an offset and broadcasts a value per stored weight. The
/// cost per pooled row, in those vector operations, falls with the band's
/// height; the band is the lowest one within 3% of the cheapest, so that
/// bands (and not chunks of output channels, which each read the whole
/// input again) make the parallel iterations.
int64_t chooseBandRows(PoolShape pool, int64_t lanes, int64_t vectors) {
  auto costPerRow = [&](int64_t rows) {
    pool.bandRows = rows;
    int64_t needed = ceilDiv(pool.bandPositions(), lanes);
    int64_t rest = needed % vectors;
    double work = needed / vectors * (vectors + 2) + (rest ? rest + 2 : 0);
    return work / rows;
  };
  double best = INFINITY;
  for (int64_t rows = 1; rows <= pool.pooledRows; ++rows)
    best = std::min(best, costPerRow(rows));
  for (int64_t rows = 1; rows < pool.pooledRows; ++rows)
    if (costPerRow(rows) <= 1.03 * best)
      return rows;
  return pool.pooledRows;
}

/// Input-channel slabs ("units": a channel, `columnsPerUnit` weight
/// columns each) such that a slab's share of a tile (`bytesPerUnit` per
/// unit) fits the L1, but with 8 stored blocks per row and slab on
/// average (each slab reloads and stores the accumulators); `forced` units
/// per slab if positive. (Half the L1 reloaded the partial sums more often
/// than the input lines it saved from L2 cost: with 16 parallel
/// iterations, ResNet-50's conv set at 10% went 3.11 -> 2.87 ms, Zen 5, 1
/// thread.)
void chooseSlabs(KernelShape &shape, const TargetShape &target,
                 const CompressedWeight &weight, int64_t units,
                 int64_t columnsPerUnit, int64_t bytesPerUnit, int64_t forced) {
  int64_t perSlab = forced;
  if (perSlab <= 0) {
    perSlab = std::max<int64_t>(1, target.l1Bytes /
                                       std::max<int64_t>(bytesPerUnit, 1));
    double blocksPerUnit = static_cast<double>(weight.storedBlocks()) /
                           std::max<int64_t>(weight.blockRows(), 1) /
                           std::max<int64_t>(units, 1);
    if (blocksPerUnit > 0)
      perSlab = std::max<int64_t>(perSlab, std::ceil(8.0 / blocksPerUnit));
  }
  perSlab = std::clamp<int64_t>(perSlab, 1, std::max<int64_t>(units, 1));
  shape.slabs = ceilDiv(std::max<int64_t>(units, 1), perSlab);
  shape.slabColumns = perSlab * columnsPerUnit;
}

/// The kernel's arrays as globals, read through memref.get_global.
struct KernelArrays {
  Value offsets;   // i16 (zero-extended) or i32, per stored block and block
                   // column: input offset
  Value values;    // f32, per stored block r x c row-major
  Value chunks;    // i32, first block row of each parallel chunk, and the end
  Value slabs;     // i32, per block row: the first stored block of each slab
                   // and the row's end (slabs + 1 entries)
};

/// Whether every offset fits the 16-bit offsets array (createArrays).
bool offsetsFit16Bits(ArrayRef<int32_t> blockOffsets) {
  return llvm::all_of(blockOffsets, [](int32_t offset) {
    return offset >= 0 && offset <= std::numeric_limits<uint16_t>::max();
  });
}

KernelArrays createArrays(OpBuilder &b, Location loc, ModuleOp module,
                          SymbolTable &symbols, const CompressedWeight &weight,
                          ArrayRef<int32_t> blockOffsets,
                          ArrayRef<int32_t> chunks, ArrayRef<int32_t> slabs,
                          bool narrowOffsets) {
  auto global = [&](StringRef name, auto data, Type type) -> Value {
    using T = std::remove_const_t<typename decltype(data)::value_type>;
    SmallVector<T> padded(data.begin(), data.end());
    if (padded.empty())
      padded.push_back(T());
    auto tensorType =
        RankedTensorType::get({static_cast<int64_t>(padded.size())}, type);
    auto memrefType = MemRefType::get(tensorType.getShape(), type);
    memref::GlobalOp op;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      op = memref::GlobalOp::create(
          b, loc, name, b.getStringAttr("private"), memrefType,
          DenseElementsAttr::get(tensorType, ArrayRef<T>(padded)),
          /*constant=*/true, b.getI64IntegerAttr(64));
      symbols.insert(op);
    }
    return memref::GetGlobalOp::create(b, loc, memrefType, op.getSymName());
  };
  KernelArrays arrays;
  // A kernel that streams its arrays (few positions per stored weight)
  // reads 6 bytes per non-zero with 16-bit offsets instead of 8.
  if (narrowOffsets && offsetsFit16Bits(blockOffsets)) {
    // Stored as the bits of the unsigned value; read with index_castui.
    SmallVector<int16_t> narrow;
    for (int32_t offset : blockOffsets)
      narrow.push_back(static_cast<int16_t>(static_cast<uint16_t>(offset)));
    arrays.offsets = global("__dlas_sparse_offsets", ArrayRef<int16_t>(narrow),
                            b.getI16Type());
  } else {
    arrays.offsets =
        global("__dlas_sparse_offsets", blockOffsets, b.getI32Type());
  }
  arrays.values =
      global("__dlas_sparse_values", ArrayRef<float>(weight.values), b.getF32Type());
  arrays.chunks = global("__dlas_sparse_chunks", chunks, b.getI32Type());
  arrays.slabs = global("__dlas_sparse_slabs", slabs, b.getI32Type());
  return arrays;
}

/// Element `index` of an i32 array, or of a 16-bit one zero-extended.
Value loadIndex(OpBuilder &b, Location loc, Value memref, Value index) {
  Value value = memref::LoadOp::create(b, loc, memref, index);
  if (value.getType().isInteger(16))
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), value);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// The sum over stored weights [begin, end) (CSR, one position) of value
/// times the input at `tileStart` + its offset, `lanes` weights at a time:
/// their offsets (16-bit ones zero-extended) and values loaded as vectors,
/// the inputs gathered, one FMA; the last group masked, the lanes summed
/// at the end. One 1-lane FMA per weight took about 6 cycles each (an
/// offset load, the input load that depends on it, a broadcast).
Value emitGatheredDot(OpBuilder &b, Location loc, int64_t lanes,
                      const KernelArrays &arrays, Value input, Value image,
                      Value tileStart, Value begin, Value end) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto offsetType = cast<MemRefType>(arrays.offsets.getType()).getElementType();
  auto floats = VectorType::get({lanes}, f32);
  auto offsetVector = VectorType::get({lanes}, offsetType);
  auto indexVector = VectorType::get({lanes}, i32);
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  Value zeros = arith::ConstantOp::create(b, loc, floats,
                                          DenseElementsAttr::get(floats, 0.0f));
  Value zeroOffsets = arith::ConstantOp::create(
      b, loc, offsetVector,
      DenseElementsAttr::get(
          offsetVector, APInt::getZero(offsetType.getIntOrFloatBitWidth())));
  Value allTrue = arith::ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, true));
  auto step = [&](OpBuilder &b, Location loc, Value k, Value acc,
                  Value mask) -> Value {
    Value offsets =
        mask == allTrue
            ? vector::LoadOp::create(b, loc, offsetVector, arrays.offsets, k)
                  .getResult()
            : vector::MaskedLoadOp::create(b, loc, offsetVector, arrays.offsets,
                                           k, mask, zeroOffsets)
                  .getResult();
    if (offsetType != i32)
      offsets = arith::ExtUIOp::create(b, loc, indexVector, offsets);
    Value w = mask == allTrue
                  ? vector::LoadOp::create(b, loc, floats, arrays.values, k)
                        .getResult()
                  : vector::MaskedLoadOp::create(b, loc, floats, arrays.values,
                                                 k, mask, zeros)
                        .getResult();
    Value x = vector::GatherOp::create(b, loc, floats, input,
                                       ValueRange{image, tileStart}, offsets,
                                       mask, zeros);
    return vector::FMAOp::create(b, loc, w, x, acc);
  };
  Value width = arith::ConstantIndexOp::create(b, loc, lanes);
  Value count = arith::SubIOp::create(b, loc, end, begin);
  Value fullEnd = arith::SubIOp::create(
      b, loc, end, arith::RemUIOp::create(b, loc, count, width));
  auto groups = scf::ForOp::create(
      b, loc, begin, fullEnd, width, ValueRange{zeros},
      [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
        scf::YieldOp::create(b, loc, step(b, loc, k, acc[0], allTrue));
      });
  // The last (possibly empty) group: a mask of the weights left.
  Value left = arith::SubIOp::create(b, loc, end, fullEnd);
  Value mask = vector::CreateMaskOp::create(b, loc, maskType, ValueRange{left});
  Value acc = step(b, loc, fullEnd, groups.getResult(0), mask);
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, acc);
}

/// The images (first dimension) of `buffer`: a constant, or read from the
/// buffer for a dynamic batch.
Value imageCount(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.isDynamicDim(0))
    return memref::DimOp::create(b, loc, buffer, 0);
  return arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
}

/// Bytes the kernel's arrays hold per stored block: its values and its
/// offsets (16-bit where createArrays narrows them).
int64_t bytesPerStoredBlock(const CompressedWeight &weight,
                            ArrayRef<int32_t> blockOffsets,
                            bool narrowOffsets) {
  int64_t offsetBytes =
      narrowOffsets && offsetsFit16Bits(blockOffsets) ? 2 : 4;
  return weight.block.rows * weight.block.cols * 4 +
         weight.block.cols * offsetBytes;
}

/// Chunks of output channels whose stored weights fit `chunkBytes` each
/// (1 with no limit). Without them, every spatial item reads the whole
/// weight: a layer whose weights do not fit the L2 streams them from
/// memory once per item (VGG-16's 512-channel 3x3 layers at 50% density,
/// 7 MB at 14-28 items, ran 1.5x longer than 10% density's time times
/// five on Zen 3).
int64_t weightChunks(const CompressedWeight &weight,
                     ArrayRef<int32_t> blockOffsets, bool narrowOffsets,
                     int64_t chunkBytes) {
  if (chunkBytes <= 0)
    return 1;
  int64_t bytes = weight.storedBlocks() *
                  bytesPerStoredBlock(weight, blockOffsets, narrowOffsets);
  return ceilDiv(bytes, chunkBytes);
}

/// Block-row chunks of about equal stored blocks, as first block rows
/// (and the end): the parallel iterations balanced by non-zeros. At least
/// `minChunks` (if the rows allow) so that threads have work when images
/// and tiles are few.
std::vector<int32_t> balancedChunks(const CompressedWeight &weight,
                                    int64_t minChunks) {
  int64_t rows = weight.blockRows();
  int64_t chunks = std::clamp<int64_t>(minChunks, 1, std::max<int64_t>(rows, 1));
  std::vector<int32_t> starts{0};
  int64_t total = weight.storedBlocks();
  for (int64_t chunk = 1; chunk < chunks; ++chunk) {
    // The first row whose start reaches chunk/chunks of the blocks, and
    // past the previous chunk's start.
    int64_t target = total * chunk / chunks;
    int64_t row = starts.back() + 1;
    while (row < rows && weight.positions[row] < target)
      ++row;
    if (row >= rows)
      break;
    starts.push_back(static_cast<int32_t>(row));
  }
  starts.push_back(static_cast<int32_t>(rows));
  return starts;
}

/// Per block row, the first stored block of each slab of `slabColumns`
/// weight columns, and the row's end.
std::vector<int32_t> slabStarts(const CompressedWeight &weight,
                                int64_t slabColumns, int64_t slabs) {
  std::vector<int32_t> starts;
  starts.reserve(weight.blockRows() * (slabs + 1));
  for (int64_t row = 0; row < weight.blockRows(); ++row) {
    int32_t k = weight.positions[row], end = weight.positions[row + 1];
    for (int64_t slab = 0; slab < slabs; ++slab) {
      while (k < end && weight.coordinates[k] * weight.block.cols <
                            slab * slabColumns)
        ++k;
      starts.push_back(k);
    }
    starts.push_back(end);
  }
  return starts;
}

/// Register shifts (KernelShape::shiftGroups): `weight` with each row's
/// stored blocks of each slab ordered by their tap's column shift
/// (`shiftOf(column)`, below `groups`), and per row, slab and shift the
/// first stored block, then the row's end (the kernel's slab array).
std::pair<CompressedWeight, std::vector<int32_t>>
groupByShift(const CompressedWeight &weight, int64_t slabColumns,
             int64_t slabs, int64_t groups,
             function_ref<int64_t(int64_t)> shiftOf) {
  CompressedWeight grouped = weight;
  std::vector<int32_t> starts;
  int64_t size = weight.block.size(), cols = weight.block.cols;
  for (int64_t row = 0; row < weight.blockRows(); ++row) {
    int32_t k = weight.positions[row], end = weight.positions[row + 1];
    int32_t next = k;
    for (int64_t slab = 0; slab < slabs; ++slab) {
      int32_t slabEnd = k;
      while (slabEnd < end && (slab == slabs - 1 ||
                               weight.coordinates[slabEnd] * cols <
                                   (slab + 1) * slabColumns))
        ++slabEnd;
      for (int64_t g = 0; g < groups; ++g) {
        starts.push_back(next);
        for (int32_t m = k; m < slabEnd; ++m) {
          if (shiftOf(weight.coordinates[m] * cols) != g)
            continue;
          grouped.coordinates[next] = weight.coordinates[m];
          std::copy_n(weight.values.begin() + m * size, size,
                      grouped.values.begin() + next * size);
          ++next;
        }
      }
      k = slabEnd;
    }
    starts.push_back(end);
  }
  return {std::move(grouped), std::move(starts)};
}

using AccumulatorIndexFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value row, Value position)>;
/// Emits one tile of `vectors` vectors of a band into `scratch` (at
/// `scratchIndex`).
using BandTileEmitter = function_ref<void(
    OpBuilder &, Location, Value image, Value chunk, Value tileStart,
    int64_t vectors, Value scratch, AccumulatorIndexFn)>;

/// A fused max pool: in parallel over images, block-row chunks and bands
/// of pooled rows. Each iteration computes its band's convolution rows
/// (every tile of them, `emitTile`) into a scratch buffer of its own, one
/// scratch row per output channel of the chunk, and pools them into
/// `output` (memref<NI x rows x POH x POW>) while they are in cache.
///
/// Padding never wins: the scratch's margin (before a band's first
/// position) and every row's columns past the convolution's width are set
/// to -inf, and a window's columns left of column 0 are the previous
/// row's last ones (the row width leaves room for that, see lowerConv);
/// window rows outside the convolution are skipped.
/// The kernel's parallel loop over images, `chunks` block-row chunks and
/// `items` spatial items (tiles or bands), chunk-major or, with
/// `spatialMajor`, item-major; `body` gets (image, chunk, item) either way.
void buildKernelParallel(
    OpBuilder &b, Location loc, Value output, int64_t chunks, int64_t items,
    bool spatialMajor,
    function_ref<void(OpBuilder &, Location, Value, Value, Value)> body) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = index(0), one = index(1);
  Value inner = index(spatialMajor ? chunks : items);
  Value outer = index(spatialMajor ? items : chunks);
  scf::ParallelOp::create(
      b, loc, ValueRange{zero, zero, zero},
      ValueRange{imageCount(b, loc, output), outer, inner},
      ValueRange{one, one, one},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Value chunk = spatialMajor ? ivs[2] : ivs[1];
        Value item = spatialMajor ? ivs[1] : ivs[2];
        body(b, loc, ivs[0], chunk, item);
      });
}

void emitPooledBands(OpBuilder &b, Location loc, const KernelShape &shape,
                     BlockShape block, ArrayRef<int32_t> chunkStarts,
                     Value chunkArray, Value output, BandTileEmitter emitTile) {
  const PoolShape &pool = *shape.pool;
  int64_t lanes = shape.lanes, tile = shape.tile();
  int64_t width = pool.rowWidth, margin = pool.margin();
  Type f32 = b.getF32Type();
  auto vectorType = VectorType::get({lanes}, f32);
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](OpBuilder &b, Value x, int64_t y) -> Value {
    return y == 0 ? x : arith::AddIOp::create(b, loc, x, index(b, y));
  };
  auto mul = [&](OpBuilder &b, Value x, int64_t y) -> Value {
    return y == 1 ? x : arith::MulIOp::create(b, loc, x, index(b, y));
  };
  auto sub = [&](OpBuilder &b, Value x, Value y) -> Value {
    return arith::SubIOp::create(b, loc, x, y);
  };
  auto clampBelow = [&](OpBuilder &b, Value x, int64_t low) -> Value {
    return arith::MaxSIOp::create(b, loc, x, index(b, low));
  };
  auto clampAbove = [&](OpBuilder &b, Value x, int64_t high) -> Value {
    return arith::MinSIOp::create(b, loc, x, index(b, high));
  };
  auto forLoop =
      [&](OpBuilder &b, Value lower, Value upper, int64_t step, ValueRange init,
          function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)>
              body) {
        return scf::ForOp::create(
            b, loc, lower, upper, index(b, step), init,
            [&](OpBuilder &b, Location, Value iv, ValueRange args) {
              scf::YieldOp::create(b, loc, body(b, iv, args));
            });
      };
  int64_t chunkRows = 1;
  for (size_t i = 0; i + 1 < chunkStarts.size(); ++i)
    chunkRows = std::max<int64_t>(
        chunkRows, (chunkStarts[i + 1] - chunkStarts[i]) * block.rows);
  auto scratchType = MemRefType::get({chunkRows, shape.scratchColumns()}, f32);
  float negInf = -std::numeric_limits<float>::infinity();
  Value lowest = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(negInf));
  Value lowestVector = arith::ConstantOp::create(
      b, loc, vectorType, DenseElementsAttr::get(vectorType, negInf));
  Value zero = index(b, 0);
  int64_t chunks = chunkStarts.size() - 1;

  buildKernelParallel(
      b, loc, output, chunks, pool.bands(), shape.spatialMajor,
      [&](OpBuilder &b, Location loc, Value image, Value chunk, Value band) {
        // Freed by the buffer deallocation pass at the iteration's end.
        Value scratch = memref::AllocOp::create(b, loc, scratchType,
                                                b.getI64IntegerAttr(64));
        Value firstPooled = mul(b, band, pool.bandRows);
        Value endPooled =
            clampAbove(b, add(b, firstPooled, pool.bandRows), pool.pooledRows);
        Value convStart = clampBelow(
            b, add(b, mul(b, firstPooled, pool.strides[0]), -pool.padding[0]),
            0);
        Value convEnd =
            clampAbove(b,
                       add(b, mul(b, endPooled, pool.strides[0]),
                           pool.kernel[0] - pool.strides[0] - pool.padding[0]),
                       pool.convRows);
        Value bandStart = mul(b, convStart, width);
        Value bandRowCount = sub(b, convEnd, convStart);
        // Full tiles, then the band's last positions: a tile of the
        // vectors an interior band needs there, or a full one for a band
        // that needs more (a first or last band of another height).
        Value positions = mul(b, bandRowCount, width);
        Value tiles = arith::DivSIOp::create(b, loc, positions, index(b, tile));
        Value lastTileStart = mul(b, tiles, tile);
        Value rest = sub(b, positions, lastTileStart);
        Value firstRow =
            mul(b, loadIndex(b, loc, chunkArray, chunk), block.rows);
        Value endRow =
            mul(b, loadIndex(b, loc, chunkArray, add(b, chunk, 1)), block.rows);
        auto scratchIndex = [&](OpBuilder &b, Location, Value row,
                                Value position) -> SmallVector<Value> {
          return {sub(b, row, firstRow),
                  add(b, sub(b, position, bandStart), margin)};
        };
        forLoop(b, zero, tiles, 1, {},
                [&](OpBuilder &b, Value t, ValueRange) -> SmallVector<Value> {
                  Value tileStart =
                      arith::AddIOp::create(b, loc, bandStart, mul(b, t, tile));
                  emitTile(b, loc, image, chunk, tileStart,
                           shape.vectorsPerTile, scratch, scratchIndex);
                  return {};
                });
        Value restStart =
            arith::AddIOp::create(b, loc, bandStart, lastTileStart);
        auto restTile = [&](OpBuilder &b, int64_t vectors) {
          scf::IfOp::create(b, loc,
                            arith::CmpIOp::create(
                                b, loc, arith::CmpIPredicate::sgt, rest, zero),
                            [&](OpBuilder &b, Location loc) {
                              emitTile(b, loc, image, chunk, restStart, vectors,
                                       scratch, scratchIndex);
                              scf::YieldOp::create(b, loc);
                            });
        };
        int64_t restVectors = pool.restVectors(lanes, shape.vectorsPerTile);
        if (restVectors == 0) {
          restTile(b, shape.vectorsPerTile);
        } else {
          Value fits =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, rest,
                                    index(b, restVectors * lanes));
          scf::IfOp::create(
              b, loc, fits,
              [&](OpBuilder &b, Location loc) {
                restTile(b, restVectors);
                scf::YieldOp::create(b, loc);
              },
              [&](OpBuilder &b, Location loc) {
                restTile(b, shape.vectorsPerTile);
                scf::YieldOp::create(b, loc);
              });
        }
        // A window's `lanes` consecutive columns from `column` of scratch
        // row `row`, `strides[1]` apart.
        auto windowColumns = [&](OpBuilder &b, Value row,
                                 Value column) -> Value {
          int64_t stride = pool.strides[1];
          auto at = [&](int64_t offset) -> SmallVector<Value> {
            return {row, add(b, column, offset)};
          };
          if (stride == 1)
            return vector::LoadOp::create(b, loc, vectorType, scratch, at(0));
          if (stride == 2) {
            Value low =
                vector::LoadOp::create(b, loc, vectorType, scratch, at(0));
            Value high =
                vector::LoadOp::create(b, loc, vectorType, scratch, at(lanes));
            SmallVector<int64_t> even;
            for (int64_t i = 0; i < lanes; ++i)
              even.push_back(2 * i);
            return vector::ShuffleOp::create(b, loc, low, high, even);
          }
          SmallVector<Value> elements;
          for (int64_t i = 0; i < lanes; ++i)
            elements.push_back(
                memref::LoadOp::create(b, loc, scratch, at(i * stride)));
          return vector::FromElementsOp::create(b, loc, vectorType, elements);
        };
        forLoop(
            b, firstRow, endRow, 1, {},
            [&](OpBuilder &b, Value row, ValueRange) -> SmallVector<Value> {
              Value local = sub(b, row, firstRow);
              for (int64_t m = 0; m < margin; ++m)
                memref::StoreOp::create(b, loc, lowest, scratch,
                                        ValueRange{local, index(b, m)});
              if (width > pool.convCols)
                forLoop(b, zero, bandRowCount, 1, {},
                        [&](OpBuilder &b, Value r,
                            ValueRange) -> SmallVector<Value> {
                          Value rowStart = add(b, mul(b, r, width), margin);
                          forLoop(b, index(b, pool.convCols), index(b, width),
                                  1, {},
                                  [&](OpBuilder &b, Value column,
                                      ValueRange) -> SmallVector<Value> {
                                    memref::StoreOp::create(
                                        b, loc, lowest, scratch,
                                        ValueRange{local, arith::AddIOp::create(
                                                              b, loc, rowStart,
                                                              column)});
                                    return {};
                                  });
                          return {};
                        });
              forLoop(
                  b, firstPooled, endPooled, 1, {},
                  [&](OpBuilder &b, Value py,
                      ValueRange) -> SmallVector<Value> {
                    Value top =
                        add(b, mul(b, py, pool.strides[0]), -pool.padding[0]);
                    Value rowLow = clampBelow(b, top, 0);
                    Value rowHigh = clampAbove(b, add(b, top, pool.kernel[0]),
                                               pool.convRows);
                    // Pooled columns [px, px + lanes) of row py.
                    auto pooledVector = [&](OpBuilder &b, Value px,
                                            bool masked) {
                      auto windows = forLoop(
                          b, rowLow, rowHigh, 1, ValueRange{lowestVector},
                          [&](OpBuilder &b, Value y,
                              ValueRange acc) -> SmallVector<Value> {
                            // Column px * stride - left of conv row y; the
                            // margin equals the left padding.
                            Value start = arith::AddIOp::create(
                                b, loc, mul(b, sub(b, y, convStart), width),
                                mul(b, px, pool.strides[1]));
                            Value best = acc[0];
                            for (int64_t kx = 0; kx < pool.kernel[1]; ++kx)
                              best = arith::MaximumFOp::create(
                                  b, loc, best,
                                  windowColumns(b, local, add(b, start, kx)));
                            return {best};
                          });
                      SmallVector<Value> at{image, row, py, px};
                      Value result = windows.getResult(0);
                      if (!masked)
                        return (void)vector::StoreOp::create(b, loc, result,
                                                             output, at);
                      Value mask = vector::CreateMaskOp::create(
                          b, loc, maskType,
                          ValueRange{index(b, pool.pooledCols % lanes)});
                      vector::MaskedStoreOp::create(b, loc, output, at, mask,
                                                    result);
                    };
                    int64_t fullColumns = pool.pooledCols / lanes * lanes;
                    forLoop(b, zero, index(b, fullColumns), lanes, {},
                            [&](OpBuilder &b, Value px,
                                ValueRange) -> SmallVector<Value> {
                              pooledVector(b, px, false);
                              return {};
                            });
                    if (fullColumns < pool.pooledCols)
                      pooledVector(b, index(b, fullColumns), true);
                    return {};
                  });
              return {};
            });
      });
}

/// Row tiles (RowTiles): in parallel over images, block-row chunks and
/// (output row, tile of the row). Tile j of row y reads the planes from
/// flat position y * Wq + j * vectors * lanes and writes the compact output
/// (memref<NI x rows x OH*OW>) from y * OW + j * vectors * lanes.
void emitRowTiles(OpBuilder &b, Location loc, const RowTiles &tiles,
                  int64_t chunks, bool spatialMajor, Value output,
                  BandTileEmitter emitTile) {
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t tileWidth = tiles.vectors * tiles.lanes;
  buildKernelParallel(
      b, loc, output, chunks, tiles.tiles(), spatialMajor,
      [&](OpBuilder &b, Location loc, Value image, Value chunk, Value item) {
        Value tilesPerRow = index(b, tiles.tilesPerRow);
        Value row = arith::DivUIOp::create(b, loc, item, tilesPerRow);
        Value column = arith::MulIOp::create(
            b, loc, arith::RemUIOp::create(b, loc, item, tilesPerRow),
            index(b, tileWidth));
        Value tileStart = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, row, index(b, tiles.rowStride)),
            column);
        Value outputStart = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, row, index(b, tiles.width)),
            column);
        // The accumulators of position p of the tile (p - tileStart lanes
        // into it) are at outputStart + (p - tileStart).
        auto outputIndex = [&](OpBuilder &b, Location loc, Value channel,
                               Value position) -> SmallVector<Value> {
          Value offset = arith::SubIOp::create(b, loc, position, tileStart);
          return {image, channel,
                  arith::AddIOp::create(b, loc, outputStart, offset)};
        };
        if (tiles.lastVectors == tiles.vectors)
          return emitTile(b, loc, image, chunk, tileStart, tiles.vectors,
                          output, outputIndex);
        Value last = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(b, loc, item, tilesPerRow),
            index(b, tiles.tilesPerRow - 1));
        scf::IfOp::create(
            b, loc, last,
            [&](OpBuilder &b, Location loc) {
              emitTile(b, loc, image, chunk, tileStart, tiles.lastVectors,
                       output, outputIndex);
              scf::YieldOp::create(b, loc);
            },
            [&](OpBuilder &b, Location loc) {
              emitTile(b, loc, image, chunk, tileStart, tiles.vectors, output,
                       outputIndex);
              scf::YieldOp::create(b, loc);
            });
      });
}

/// The loops: in parallel over images, block-row chunks and tiles of flat
/// output positions; within, every block row of the chunk: the stored
/// blocks of the row as FMAs into r x U accumulators, then the ReLU and
/// the store. A tile's input (every channel's few rows) stays in L1/L2
/// while all the chunk's output channels read it. `input` is memref<NI x
/// L>, `output` memref<NI x rows x P>, `bias` memref<rows> or null,
/// `residual` memref<NI x rows x P> (added before the ReLU) or null.
/// With a fused pool, `output` is memref<NI x rows x POH x POW> and the
/// parallel iterations are bands of pooled rows instead of tiles.
void buildKernel(OpBuilder &b, Location loc, const KernelShape &shape,
                 const CompressedWeight &weight, const KernelArrays &arrays,
                 ArrayRef<int32_t> offsetData, ArrayRef<int32_t> slabData,
                 ArrayRef<int32_t> chunkStarts, Value input, Value output,
                 Value bias, Value residual) {
  int64_t chunks = chunkStarts.size() - 1;
  BlockShape block = weight.block;
  int64_t lanes = shape.lanes, fullVectors = shape.vectorsPerTile;
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = index(b, 0), one = index(b, 1);
  int64_t tiles = shape.paddedLength() / shape.tile();
  // The lanes of a vector at `position` below `bound` (the last tile's);
  // vector.create_mask clamps the count to [0, lanes].
  auto laneMask = [&](OpBuilder &b, Location loc, Value position,
                      int64_t bound) -> Value {
    Value left = arith::SubIOp::create(b, loc, index(b, bound), position);
    return vector::CreateMaskOp::create(b, loc, maskType, ValueRange{left});
  };
  Value zeroVector = arith::ConstantOp::create(
      b, loc, vectorType, DenseElementsAttr::get(vectorType, 0.0f));
  // Full vectors everywhere but in the last tile, whose lanes past the
  // output (and past the input's end) are masked off.
  auto load = [&](OpBuilder &b, Location loc, Value memref,
                  SmallVector<Value> indices, int64_t bound, bool masked) -> Value {
    if (!masked)
      return vector::LoadOp::create(b, loc, vectorType, memref, indices);
    Value mask = laneMask(b, loc, indices.back(), bound);
    return vector::MaskedLoadOp::create(b, loc, vectorType, memref, indices,
                                        mask, zeroVector);
  };
  auto store = [&](OpBuilder &b, Location loc, Value value, Value memref,
                   SmallVector<Value> indices, bool masked) {
    if (!masked)
      return (void)vector::StoreOp::create(b, loc, value, memref, indices);
    Value mask = laneMask(b, loc, indices.back(), shape.outputLength);
    vector::MaskedStoreOp::create(b, loc, memref, indices, mask, value);
  };

  // A tile of `vectors` vectors (the kernel's full tiles have
  // `fullVectors`; the output's last tile and a fused pool's bands may end
  // in a narrower one). Vectors from `maskedFrom` on may pass the output's
  // end: their lanes past it are masked off. The accumulators of row `row`
  // at flat position `position` go to (and between slabs come back from)
  // `accumulators` at `accumulatorIndex`: the output, or a fused pool's
  // scratch.
  auto emitTile = [&](OpBuilder &b, Location loc, Value image, Value chunk,
                      Value tileStart, int64_t vectors, int64_t maskedFrom,
                      Value accumulators, AccumulatorIndexFn accumulatorIndex) {
    Value firstBlockRow = loadIndex(b, loc, arrays.chunks, chunk);
    Value lastBlockRow = loadIndex(
        b, loc, arrays.chunks, arith::AddIOp::create(b, loc, chunk, one));
    scf::ForOp::create(
        b, loc, zero, index(b, shape.slabs), one, ValueRange{},
        [&](OpBuilder &b, Location loc, Value slab, ValueRange) {
    Value firstSlab =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slab, zero);
    Value lastSlab = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           slab, index(b, shape.slabs - 1));
    scf::ForOp::create(
        b, loc, firstBlockRow, lastBlockRow, one, ValueRange{},
        [&](OpBuilder &b, Location loc, Value blockRow, ValueRange) {
          // Row blockRow's stored blocks of slab `slab`, shift group g:
          // [groupStart(g), groupStart(g + 1)).
          int64_t groups = shape.shiftGroups;
          Value slot = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, blockRow,
                                    index(b, shape.slabs * groups + 1)),
              arith::MulIOp::create(b, loc, slab, index(b, groups)));
          auto groupStart = [&](int64_t g) {
            return loadIndex(
                b, loc, arrays.slabs,
                g == 0 ? slot : arith::AddIOp::create(b, loc, slot, index(b, g)));
          };
          Value begin = groupStart(0);
          Value end = groupStart(1);
          Value firstRow =
              arith::MulIOp::create(b, loc, blockRow, index(b, block.rows));
          SmallVector<Value> rows;
          SmallVector<Value> positions;
          for (int64_t i = 0; i < block.rows; ++i)
            rows.push_back(arith::AddIOp::create(b, loc, firstRow, index(b, i)));
          for (int64_t u = 0; u < vectors; ++u)
            positions.push_back(
                arith::AddIOp::create(b, loc, tileStart, index(b, u * lanes)));
          // The accumulators start at the bias (or zero) in the first
          // slab, at the partial sums stored by the one before after.
          auto fresh = [&](OpBuilder &b, Location loc) {
            SmallVector<Value> init;
            for (int64_t i = 0; i < block.rows; ++i) {
              Value start = zeroVector;
              if (bias)
                start = vector::BroadcastOp::create(
                    b, loc, vectorType,
                    memref::LoadOp::create(b, loc, bias, rows[i]));
              init.append(vectors, start);
            }
            return init;
          };
          auto stored = [&](OpBuilder &b, Location loc) {
            SmallVector<Value> init;
            for (int64_t i = 0; i < block.rows; ++i)
              for (int64_t u = 0; u < vectors; ++u)
                init.push_back(
                    load(b, loc, accumulators,
                         accumulatorIndex(b, loc, rows[i], positions[u]),
                         shape.outputLength, u >= maskedFrom));
            return init;
          };
          SmallVector<Value> init;
          if (shape.slabs == 1) {
            init = fresh(b, loc);
          } else {
            auto choose = scf::IfOp::create(
                b, loc, firstSlab,
                [&](OpBuilder &b, Location loc) {
                  scf::YieldOp::create(b, loc, fresh(b, loc));
                },
                [&](OpBuilder &b, Location loc) {
                  scf::YieldOp::create(b, loc, stored(b, loc));
                });
            init.assign(choose.getResults().begin(), choose.getResults().end());
          }
          // One stored block: its columns' input vectors times its values,
          // into the accumulators.
          // `width` vectors of positions: the tile's, or one more for a
          // shift group.
          auto accumulate = [&](OpBuilder &b, Location loc,
                                SmallVector<Value> &next,
                                function_ref<Value(int64_t)> offsetOf,
                                function_ref<Value(int64_t, int64_t)> valueOf,
                                int64_t width) {
            for (int64_t j = 0; j < block.cols; ++j) {
              Value offset =
                  arith::AddIOp::create(b, loc, offsetOf(j), tileStart);
              SmallVector<Value> x;
              for (int64_t u = 0; u < width; ++u)
                x.push_back(load(
                    b, loc, input,
                    {image, arith::AddIOp::create(b, loc, offset,
                                                  index(b, u * lanes))},
                    shape.inputLength, u >= maskedFrom && shape.maskLoads));
              for (int64_t i = 0; i < block.rows; ++i) {
                Value w = valueOf(i, j);
                for (int64_t u = 0; u < width; ++u) {
                  Value &a = next[i * width + u];
                  a = vector::FMAOp::create(b, loc, w, x[u], a);
                }
              }
            }
          };
          SmallVector<Value> sums;
          if (shape.gatherLanes > 1) {
            Value sum = emitGatheredDot(b, loc, shape.gatherLanes, arrays,
                                        input, image, tileStart, begin, end);
            sums.push_back(arith::AddFOp::create(
                b, loc, init[0],
                vector::BroadcastOp::create(b, loc, vectorType, sum)));
          } else if (!shape.bake) {
            // Stored block `storedBlock`'s FMAs into `next`.
            auto accumulateBlock = [&](OpBuilder &b, Location loc,
                                       Value storedBlock,
                                       SmallVector<Value> &next,
                                       int64_t width) {
              accumulate(
                  b, loc, next,
                  [&](int64_t j) {
                    return loadIndex(
                        b, loc, arrays.offsets,
                        arith::AddIOp::create(
                            b, loc,
                            arith::MulIOp::create(b, loc, storedBlock,
                                                  index(b, block.cols)),
                            index(b, j)));
                  },
                  [&](int64_t i, int64_t j) -> Value {
                    Value valueIndex = arith::AddIOp::create(
                        b, loc,
                        arith::MulIOp::create(b, loc, storedBlock,
                                              index(b, block.size())),
                        index(b, i * block.cols + j));
                    return vector::BroadcastOp::create(
                        b, loc, vectorType,
                        memref::LoadOp::create(b, loc, arrays.values,
                                               valueIndex));
                  },
                  width);
            };
            // The stored blocks [first, last) into `init` (block.rows x
            // width accumulators).
            auto runBlocks = [&](OpBuilder &b, Location loc, Value first,
                                 Value last, SmallVector<Value> init,
                                 int64_t width) -> SmallVector<Value> {
              // Few accumulators (a 1-lane tile of a batch-1 linear layer, a
              // 7x7 map's few vectors) would make every stored block wait
              // for the FMA before it (a chain of the FMA's latency per
              // block): `sets` interleaved sets of accumulators take
              // consecutive blocks and are added at the end.
              int64_t perSet = block.rows * width;
              int64_t sets = std::clamp<int64_t>(kMinChains / perSet, 1, 4);
              Value step = index(b, sets);
              Value count = arith::SubIOp::create(b, loc, last, first);
              Value pairedEnd =
                  sets == 1 ? last
                            : arith::SubIOp::create(
                                  b, loc, last,
                                  arith::RemUIOp::create(b, loc, count, step));
              SmallVector<Value> setInit(init);
              for (int64_t k = 1; k < sets; ++k)
                setInit.append(perSet, zeroVector);
              auto blocks = scf::ForOp::create(
                  b, loc, first, pairedEnd, step, setInit,
                  [&](OpBuilder &b, Location loc, Value k0, ValueRange acc) {
                    SmallVector<Value> next(acc.begin(), acc.end());
                    for (int64_t k = 0; k < sets; ++k) {
                      SmallVector<Value> set(next.begin() + k * perSet,
                                             next.begin() + (k + 1) * perSet);
                      accumulateBlock(b, loc,
                                      k == 0 ? k0
                                             : arith::AddIOp::create(
                                                   b, loc, k0, index(b, k)),
                                      set, width);
                      llvm::copy(set, next.begin() + k * perSet);
                    }
                    scf::YieldOp::create(b, loc, next);
                  });
              SmallVector<Value> result;
              result.assign(blocks.getResults().begin(),
                          blocks.getResults().begin() + perSet);
              for (int64_t k = 1; k < sets; ++k)
                for (int64_t a = 0; a < perSet; ++a)
                  result[a] = arith::AddFOp::create(
                      b, loc, result[a], blocks.getResult(k * perSet + a));
              if (sets > 1) {
                // The blocks left over (fewer than `sets`), into the sum.
                auto rest = scf::ForOp::create(
                    b, loc, pairedEnd, last, one, result,
                    [&](OpBuilder &b, Location loc, Value storedBlock,
                        ValueRange acc) {
                      SmallVector<Value> next(acc.begin(), acc.end());
                      accumulateBlock(b, loc, storedBlock, next, width);
                      scf::YieldOp::create(b, loc, next);
                    });
                result.assign(rest.getResults().begin(), rest.getResults().end());
              }
              return result;
            };
            sums = runBlocks(b, loc, begin, end, init, vectors);
            // Shift group g: its sums over one vector more, taken g lanes
            // on (two vectors shuffled) into the tile's accumulators.
            for (int64_t g = 1; g < groups; ++g) {
              SmallVector<Value> zeros(block.rows * (vectors + 1), zeroVector);
              SmallVector<Value> shifted = runBlocks(
                  b, loc, groupStart(g), groupStart(g + 1), zeros, vectors + 1);
              SmallVector<int64_t> lanesFrom(lanes);
              std::iota(lanesFrom.begin(), lanesFrom.end(), g);
              for (int64_t i = 0; i < block.rows; ++i)
                for (int64_t u = 0; u < vectors; ++u) {
                  Value low = shifted[i * (vectors + 1) + u];
                  Value high = shifted[i * (vectors + 1) + u + 1];
                  Value part =
                      vector::ShuffleOp::create(b, loc, low, high, lanesFrom);
                  Value &sum = sums[i * vectors + u];
                  sum = arith::AddFOp::create(b, loc, sum, part);
                }
            }
          } else {
            // Baked: a case per (block row, slab) that has stored blocks,
            // its offsets and values immediates.
            SmallVector<int64_t> cases;
            for (int64_t s = 0, e = slabData.size(); s < e; ++s)
              if ((s + 1) % (shape.slabs + 1) != 0 &&
                  slabData[s] < slabData[s + 1])
                cases.push_back(s);
            auto sw = scf::IndexSwitchOp::create(
                b, loc, ValueRange(init).getTypes(), slot, cases, cases.size());
            for (auto [n, slotValue] : llvm::enumerate(cases)) {
              Block &body = sw.getCaseRegions()[n].emplaceBlock();
              OpBuilder cb = OpBuilder::atBlockEnd(&body);
              SmallVector<Value> next(init);
              for (int32_t k = slabData[slotValue]; k < slabData[slotValue + 1];
                   ++k)
                accumulate(
                    cb, loc, next,
                    [&](int64_t j) {
                      return index(cb, offsetData[k * block.cols + j]);
                    },
                    [&](int64_t i, int64_t j) -> Value {
                      return arith::ConstantOp::create(
                          cb, loc, vectorType,
                          DenseElementsAttr::get(
                              vectorType,
                              weight.values[k * block.size() + i * block.cols + j]));
                    },
                    vectors);
              scf::YieldOp::create(cb, loc, next);
            }
            Block &fallback = sw.getDefaultRegion().emplaceBlock();
            OpBuilder fb = OpBuilder::atBlockEnd(&fallback);
            scf::YieldOp::create(fb, loc, init);
            sums.assign(sw.getResults().begin(), sw.getResults().end());
          }
          for (int64_t i = 0; i < block.rows; ++i)
            for (int64_t u = 0; u < vectors; ++u) {
              Value result = sums[i * vectors + u];
              // The shortcut is added once, after the last slab.
              if (residual) {
                // Laid out as the output (the accumulators, without a
                // fused pool).
                Value shortcut =
                    load(b, loc, residual,
                         accumulatorIndex(b, loc, rows[i], positions[u]),
                         shape.outputLength, u >= maskedFrom);
                Value sum = arith::AddFOp::create(b, loc, result, shortcut);
                result = shape.slabs == 1
                             ? sum
                             : arith::SelectOp::create(b, loc, lastSlab, sum,
                                                       result);
              }
              if (shape.relu) {
                Value relu = arith::MaximumFOp::create(b, loc, result, zeroVector);
                result = shape.slabs == 1
                             ? relu
                             : arith::SelectOp::create(b, loc, lastSlab, relu,
                                                       result);
              }
              store(b, loc, result, accumulators,
                    accumulatorIndex(b, loc, rows[i], positions[u]),
                    u >= maskedFrom);
            }
          scf::YieldOp::create(b, loc);
        });
    scf::YieldOp::create(b, loc);
        });
  };

  if (shape.pool) {
    emitPooledBands(b, loc, shape, block, chunkStarts, arrays.chunks, output,
                    [&](OpBuilder &b, Location loc, Value image, Value chunk,
                        Value tileStart, int64_t vectors, Value scratch,
                        AccumulatorIndexFn scratchIndex) {
                      emitTile(b, loc, image, chunk, tileStart, vectors,
                               /*maskedFrom=*/vectors, scratch, scratchIndex);
                    });
    return;
  }
  if (shape.rowTiles) {
    emitRowTiles(b, loc, *shape.rowTiles, chunks, shape.spatialMajor, output,
                 [&](OpBuilder &b, Location loc, Value image, Value chunk,
                     Value tileStart, int64_t vectors, Value output,
                     AccumulatorIndexFn outputIndex) {
                   emitTile(b, loc, image, chunk, tileStart, vectors,
                            /*maskedFrom=*/vectors, output, outputIndex);
                 });
    return;
  }
  // The last tile: the vectors its positions need, the last one masked
  // where it passes the output's end.
  int64_t lastPositions = shape.outputLength - (tiles - 1) * shape.tile();
  int64_t lastVectors = ceilDiv(lastPositions, lanes);
  int64_t lastUnmasked = lastPositions / lanes;
  bool maskedTail = lastPositions != shape.tile();
  buildKernelParallel(
      b, loc, output, chunks, tiles, shape.spatialMajor,
      [&](OpBuilder &b, Location loc, Value image, Value chunk, Value tile) {
        auto outputIndex = [&](OpBuilder &, Location, Value row,
                               Value position) -> SmallVector<Value> {
          return {image, row, position};
        };
        Value tileStart =
            arith::MulIOp::create(b, loc, tile, index(b, shape.tile()));
        if (!maskedTail)
          return emitTile(b, loc, image, chunk, tileStart, fullVectors,
                          fullVectors, output, outputIndex);
        Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           tile, index(b, tiles - 1));
        scf::IfOp::create(
            b, loc, last,
            [&](OpBuilder &b, Location loc) {
              emitTile(b, loc, image, chunk, tileStart, lastVectors,
                       lastUnmasked, output, outputIndex);
              scf::YieldOp::create(b, loc);
            },
            [&](OpBuilder &b, Location loc) {
              emitTile(b, loc, image, chunk, tileStart, fullVectors,
                       fullVectors, output, outputIndex);
              scf::YieldOp::create(b, loc);
            });
        // scf.parallel's body builder adds the terminator.
      });
}

/// `offset(row, column)` is the input offset of weight element (row,
/// column); rows of one block share it.
std::vector<int32_t> blockOffsets(const CompressedWeight &weight,
                                  function_ref<int64_t(int64_t, int64_t)> offset) {
  std::vector<int32_t> result;
  result.reserve(weight.coordinates.size() * weight.block.cols);
  for (int64_t blockRow = 0; blockRow < weight.blockRows(); ++blockRow)
    for (int32_t k = weight.positions[blockRow]; k < weight.positions[blockRow + 1]; ++k)
      for (int64_t j = 0; j < weight.block.cols; ++j)
        result.push_back(static_cast<int32_t>(
            offset(blockRow * weight.block.rows,
                   weight.coordinates[k] * weight.block.cols + j)));
  return result;
}

Value toBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
}

/// The kernel's result buffer `images x rows x P` (with a fused pool
/// `images x rows x POH x POW`), as a tensor.
Value runKernel(OpBuilder &b, Location loc, ModuleOp module,
                SymbolTable &symbols, const KernelShape &shape,
                const CompressedWeight &weight, ArrayRef<int32_t> offsets,
                Value flatInput, Value bias, Value flatResidual = {},
                ArrayRef<int32_t> groupStarts = {}) {
  // Enough parallel iterations for the threads a CPU runs: block-row
  // chunks make up for few images and tiles.
  int64_t spatialItems = shape.pool       ? shape.pool->bands()
                         : shape.rowTiles ? shape.rowTiles->tiles()
                                          : shape.paddedLength() / shape.tile();
  // (A dynamic batch counts as one image.)
  int64_t knownImages = ShapedType::isDynamic(shape.images) ? 1 : shape.images;
  int64_t parallelChunks = ceilDiv(
      kParallelIterations, std::max<int64_t>(knownImages * spatialItems, 1));
  int64_t cacheChunks =
      spatialItems > 1 ? weightChunks(weight, offsets, shape.narrowOffsets,
                                      shape.weightChunkBytes)
                       : 1;
  std::vector<int32_t> chunks =
      balancedChunks(weight, std::max(parallelChunks, cacheChunks));
  KernelShape ordered = shape;
  // Each chunk over every item before the next: its weights stay in L2.
  if (cacheChunks > 1)
    ordered.spatialMajor = false;
  std::vector<int32_t> slabs =
      shape.shiftGroups > 1
          ? std::vector<int32_t>(groupStarts.begin(), groupStarts.end())
          : slabStarts(weight, shape.slabColumns, shape.slabs);
  KernelArrays arrays = createArrays(b, loc, module, symbols, weight, offsets,
                                     chunks, slabs, shape.narrowOffsets);
  Value input = toBuffer(b, loc, flatInput);
  SmallVector<int64_t> outputShape{shape.images, weight.rows,
                                   shape.outputLength};
  if (shape.pool)
    outputShape = {shape.images, weight.rows, shape.pool->pooledRows,
                   shape.pool->pooledCols};
  if (shape.rowTiles)
    outputShape[2] = shape.rowTiles->rows * shape.rowTiles->width;
  auto outputType = MemRefType::get(outputShape, b.getF32Type());
  SmallVector<Value> dynamicImages;
  if (ShapedType::isDynamic(shape.images))
    dynamicImages.push_back(memref::DimOp::create(b, loc, input, 0));
  Value output = memref::AllocOp::create(b, loc, outputType, dynamicImages,
                                         b.getI64IntegerAttr(64));
  Value biasBuffer = bias ? toBuffer(b, loc, bias) : Value();
  Value residualBuffer =
      flatResidual ? toBuffer(b, loc, flatResidual) : Value();
  buildKernel(b, loc, ordered, weight, arrays, offsets, slabs, chunks, input,
              output, biasBuffer, residualBuffer);
  return bufferization::ToTensorOp::create(
      b, loc,
      RankedTensorType::get(outputType.getShape(), outputType.getElementType()),
      output, /*restrict=*/true, /*writable=*/true);
}

Value sliceLeading(OpBuilder &b, Location loc, Value source,
                   ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(source.getType());
  if (type.getShape() == sizes)
    return source;
  int64_t rank = type.getRank();
  // A dynamic size (the batch) is kept whole.
  SmallVector<OpFoldResult> mixedSizes;
  for (auto [d, size] : llvm::enumerate(sizes))
    mixedSizes.push_back(ShapedType::isDynamic(size)
                             ? tensor::getMixedSize(b, loc, source, d)
                             : b.getIndexAttr(size));
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(sizes, type.getElementType()), source,
      getAsIndexOpFoldResult(b.getContext(), SmallVector<int64_t>(rank, 0)),
      mixedSizes,
      getAsIndexOpFoldResult(b.getContext(), SmallVector<int64_t>(rank, 1)));
}

/// `source` zero-padded by `low` and `high` (which may be negative: rows
/// cut off at the end).
Value padOrCut(OpBuilder &b, Location loc, Value source, ArrayRef<int64_t> low,
               ArrayRef<int64_t> high) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> kept(type.getShape());
  SmallVector<int64_t> padHigh(high);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (high[d] < 0) {
      kept[d] += high[d];
      padHigh[d] = 0;
    }
  source = sliceLeading(b, loc, source, kept);
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(padHigh, [](int64_t v) { return v == 0; }))
    return source;
  SmallVector<int64_t> shape(kept);
  for (int64_t d = 0; d < type.getRank(); ++d)
    shape[d] += low[d] + padHigh[d];
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, b.getF32Type()), source,
      getAsIndexOpFoldResult(b.getContext(), low),
      getAsIndexOpFoldResult(b.getContext(), padHigh), zero);
}

Value transpose(OpBuilder &b, Location loc, Value source,
                ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, source, init, perm).getResult()[0];
}

/// The kernel's input: `input` [N, C, H, W] zero-padded by `pad` (top,
/// left) and split into its `sh x sw` phase planes of `planeHeight x
/// planeWidth`, P[n, c, py, px, r, q] = X[n, c, r*sh + py - pt,
/// q*sw + px - pl] (zero outside X), in one pass: per (image, channel) in
/// parallel, per phase and plane row, zero rows where the row is padding,
/// else zeros left and right of the columns X has and between them vector
/// copies, each a load of `sw * lanes` elements and a lane shuffle, the
/// last one shifted to end at the input row's end. A tensor.pad and a
/// linalg.transpose did this in three passes (fill, copy, and the
/// transpose's scalar loop nest: 0.5 ms of a 1.1 ms 10%-dense stride-2
/// layer).
///
/// The copy runs in parallel over (image, band, channel), band i being
/// plane rows [start(i), start(i + 1)) with start(i) = min(i * rowsNum /
/// rowsDen, PH) (the last band ending at PH): the bands follow the
/// kernel's tiles, so that with spatial-major kernel iterations
/// (KernelShape::spatialMajor) OpenMP's static schedule hands each thread
/// the planes' rows it reads. One band is the whole plane.
///
/// With `shifts` S > 1 every plane is followed by S - 1 copies of itself,
/// copy s shifted left by s columns (each row: column q holds the plane's
/// column q + s, zero past X), so that a tap s columns right of the output
/// position reads copy s at the position's own alignment: with plane rows
/// a whole number of vectors wide, every load of the kernel is then
/// aligned (see alignTaps), and the rows need only be as wide as the
/// output's (a 7x7 map's 8 on 8-lane vectors, where a flat shift needs
/// its padded 9).
struct PlaneBands {
  int64_t count = 1;
  int64_t rowsNum = 0, rowsDen = 1;
};

class PhasePlaneCopier {
public:
  PhasePlaneCopier(OpBuilder &b, Location loc, int64_t lanes)
      : b(b), loc(loc), lanes(lanes) {}

  /// The planes as a memref<N x C x sh x sw x S x PH x PW> (without the
  /// S dimension when S is 1).
  Value copy(Value input, ArrayRef<int64_t> pad, int64_t sh, int64_t sw,
             int64_t shifts, int64_t planeHeight, int64_t planeWidth,
             PlaneBands bands) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t n = type.getDimSize(0), c = type.getDimSize(1);
    int64_t h = type.getDimSize(2);
    w = type.getDimSize(3);
    this->sw = sw;
    width = planeWidth;
    Value x = toBuffer(b, loc, input);
    Value images = imageCount(b, loc, x);
    SmallVector<Value> dynamicImages;
    if (ShapedType::isDynamic(n))
      dynamicImages.push_back(images);
    SmallVector<int64_t> shape{n, c, sh, sw};
    if (shifts > 1)
      shape.push_back(shifts);
    shape.append({planeHeight, planeWidth});
    planes = memref::AllocOp::create(b, loc,
                                     MemRefType::get(shape, b.getF32Type()),
                                     dynamicImages, b.getI64IntegerAttr(64));
    zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vectorType(lanes), 0.0f));
    auto parallel = scf::ParallelOp::create(
        b, loc, ValueRange{index(0), index(0), index(0)},
        ValueRange{images, index(bands.count), index(c)},
        ValueRange{index(1), index(1), index(1)});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(parallel.getBody());
    Value image = parallel.getInductionVars()[0];
    Value band = parallel.getInductionVars()[1];
    Value channel = parallel.getInductionVars()[2];
    // The band's rows [bandBegin, bandEnd).
    Value bandBegin = index(0), bandEnd = index(planeHeight);
    if (bands.count > 1) {
      bandBegin = bandStart(band, bands, planeHeight);
      Value next = arith::AddIOp::create(b, loc, band, index(1));
      Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         next, index(bands.count));
      bandEnd = arith::SelectOp::create(b, loc, last, index(planeHeight),
                                        bandStart(next, bands, planeHeight));
    }
    auto clampBelow = [&](Value v, int64_t low) {
      return b.createOrFold<arith::MaxSIOp>(loc, v, index(low));
    };
    auto clampAbove = [&](Value v, int64_t high) {
      return b.createOrFold<arith::MinSIOp>(loc, v, index(high));
    };
    for (int64_t py = 0; py < sh; ++py) {
      for (int64_t px = 0; px < sw; ++px) {
        // Plane rows that X has: [rowBegin, rowEnd).
        int64_t rowBegin = validBegin(pad[0] - py, sh, planeHeight);
        int64_t rowEnd = validEnd(h - 1 + pad[0] - py, sh, planeHeight);
        for (int64_t s = 0; s < shifts; ++s) {
          // Copy s's column q is X's column (q + s) * sw + px - pl; the
          // columns X has: [colBegin, colEnd).
          int64_t left = pad[1] - px - s * sw;
          int64_t colBegin = validBegin(left, sw, planeWidth);
          int64_t colEnd = validEnd(w - 1 + left, sw, planeWidth);
          SmallVector<Value> plane = {image, channel, index(py), index(px)};
          if (shifts > 1)
            plane.push_back(index(s));
          if (rowEnd <= rowBegin || colEnd <= colBegin) {
            zeroRows(plane, bandBegin, bandEnd);
            continue;
          }
          // The band's rows above, below and in X's rows.
          zeroRows(plane, bandBegin, clampAbove(bandEnd, rowBegin));
          zeroRows(plane, clampBelow(bandBegin, rowEnd), bandEnd);
          dlas::buildForLoop(
              b, loc, clampBelow(bandBegin, rowBegin),
              clampAbove(bandEnd, rowEnd), 1, [&](Value row) {
                SmallVector<Value> to(plane);
                to.push_back(row);
                // X's row row*sh + py - pt.
                Value srcRow = arith::AddIOp::create(
                    b, loc, arith::MulIOp::create(b, loc, row, index(sh)),
                    index(py - pad[0]));
                SmallVector<Value> from = {image, channel, srcRow};
                zeroColumns(to, 0, colBegin);
                zeroColumns(to, colEnd, planeWidth);
                copyColumns(x, from, to, colBegin, colEnd, -left);
              });
        }
      }
    }
    return planes;
  }

private:
  /// The first of [0, limit) whose `i * stride - shift` is >= 0.
  static int64_t validBegin(int64_t shift, int64_t stride, int64_t limit) {
    return std::clamp<int64_t>(ceilDiv(shift, stride), 0, limit);
  }
  /// One past the last of [0, limit) whose `i * stride` is <= `last`.
  static int64_t validEnd(int64_t last, int64_t stride, int64_t limit) {
    if (last < 0)
      return 0;
    return std::clamp<int64_t>(last / stride + 1, 0, limit);
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType vectorType(int64_t size) {
    return VectorType::get({size}, b.getF32Type());
  }
  SmallVector<Value> at(ArrayRef<Value> row, Value column) {
    SmallVector<Value> indices(row);
    indices.push_back(column);
    return indices;
  }

  /// Band `band`'s first plane row.
  Value bandStart(Value band, PlaneBands bands, int64_t planeHeight) {
    Value scaled = arith::MulIOp::create(b, loc, band, index(bands.rowsNum));
    Value row = arith::DivUIOp::create(b, loc, scaled, index(bands.rowsDen));
    return arith::MinSIOp::create(b, loc, row, index(planeHeight));
  }

  /// Zero rows [begin, end) (none where end <= begin).
  void zeroRows(ArrayRef<Value> plane, Value begin, Value end) {
    auto constant = [](Value v) { return getConstantIntValue(v); };
    if (constant(begin) && constant(end) && *constant(end) <= *constant(begin))
      return;
    dlas::buildForLoop(b, loc, begin, end, 1, [&](Value row) {
      SmallVector<Value> to(plane);
      to.push_back(row);
      zeroColumns(to, 0, width);
    });
  }

  /// `body(q)` for q = begin, begin + lanes, ... (`vectors` of them):
  /// unrolled up to 8, a loop beyond (a wide row would otherwise emit one
  /// load and store per vector).
  void forEachVector(int64_t begin, int64_t vectors,
                     function_ref<void(Value)> body) {
    if (vectors > 8) {
      dlas::buildForLoop(b, loc, index(begin), index(begin + vectors * lanes),
                         lanes, body);
      return;
    }
    for (int64_t v = 0; v < vectors; ++v)
      body(index(begin + v * lanes));
  }

  /// Zeros into columns [begin, end) of a plane row: vectors (the last
  /// flush with `end`) where the run is a vector long, else elements.
  void zeroColumns(ArrayRef<Value> row, int64_t begin, int64_t end) {
    int64_t count = end - begin;
    if (count <= 0)
      return;
    if (count < lanes) {
      for (int64_t j = begin; j < end; ++j)
        memref::StoreOp::create(b, loc, zero, planes, at(row, index(j)));
      return;
    }
    forEachVector(begin, count / lanes, [&](Value q) {
      vector::StoreOp::create(b, loc, zeros, planes, at(row, q));
    });
    if (count % lanes != 0)
      vector::StoreOp::create(b, loc, zeros, planes,
                              at(row, index(end - lanes)));
  }

  /// Plane columns [begin, end) of a row from X's row `from`, column q
  /// reading X's column q*sw + shift.
  void copyColumns(Value x, ArrayRef<Value> from, ArrayRef<Value> to,
                   int64_t begin, int64_t end, int64_t shift) {
    int64_t count = end - begin;
    if (count < lanes || w < sw * lanes) {
      for (int64_t q = begin; q < end; ++q) {
        Value v =
            memref::LoadOp::create(b, loc, x, at(from, index(q * sw + shift)));
        memref::StoreOp::create(b, loc, v, planes, at(to, index(q)));
      }
      return;
    }
    // Lane l of the vector at column q is X's element `first + l * sw`
    // of a load at `first - pick` (pick 0 but for the last vector).
    auto copyVector = [&](Value q, Value first, int64_t pick) {
      Value loadAt =
          pick == 0 ? first
                    : b.createOrFold<arith::SubIOp>(loc, first, index(pick));
      Value v = vector::LoadOp::create(b, loc, vectorType(sw * lanes), x,
                                       at(from, loadAt));
      if (sw > 1 || pick != 0) {
        SmallVector<int64_t> picks;
        for (int64_t l = 0; l < lanes; ++l)
          picks.push_back(pick + l * sw);
        v = vector::ShuffleOp::create(b, loc, v, v, picks);
      }
      vector::StoreOp::create(b, loc, v, planes, at(to, q));
    };
    // Every vector but the last reads within the row (its last element is
    // followed by the row's next valid one); the last, flush with `end`
    // (overlapping the one before where `count` is not a multiple of the
    // lanes), would read up to sw - 1 elements past it: it loads the row's
    // last sw * lanes elements instead.
    forEachVector(begin, ceilDiv(count - lanes, lanes), [&](Value q) {
      Value first = b.createOrFold<arith::AddIOp>(
          loc, b.createOrFold<arith::MulIOp>(loc, q, index(sw)), index(shift));
      copyVector(q, first, 0);
    });
    int64_t last = end - lanes, first = last * sw + shift;
    int64_t pick = first - std::min(first, w - sw * lanes);
    copyVector(index(last), index(first), pick);
  }

  OpBuilder &b;
  Location loc;
  int64_t lanes;
  int64_t w = 0, sw = 1, width = 0; // the input's and the planes' widths
  Value planes, zero, zeros;
};

Value collapseAfter(OpBuilder &b, Location loc, Value source, int64_t keep) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < keep; ++d)
    groups.push_back({d});
  ReassociationIndices rest;
  for (int64_t d = keep; d < type.getRank(); ++d)
    rest.push_back(d);
  groups.push_back(rest);
  return tensor::CollapseShapeOp::create(b, loc, source, groups);
}

struct SparseToLoops
    : public dlas::impl::ConvertSparseToLoopsBase<SparseToLoops> {
  using ConvertSparseToLoopsBase::ConvertSparseToLoopsBase;

  /// An empty result (a batch of 0) has nothing to compute.
  static bool replaceEmpty(Operation *op) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!type.hasStaticShape() || type.getNumElements() != 0)
      return false;
    OpBuilder b(op);
    Value empty = tensor::EmptyOp::create(b, op->getLoc(), type.getShape(),
                                          type.getElementType());
    op->getResult(0).replaceAllUsesWith(empty);
    op->erase();
    return true;
  }

  /// The weight's arrays and the target's shape for layer `op`, or an
  /// error naming what the kernels cannot take.
  FailureOr<std::pair<CompressedWeight, TargetShape>>
  kernelInputs(Operation *op, Value weight, StringRef weightName, Value input) {
    std::optional<CompressedWeight> arrays = sparse::getCompressedWeight(weight);
    if (!arrays)
      return op->emitOpError()
             << weightName
             << " must be a compile-time constant (sparse.constant, or "
                "sparse.pack of an arith.constant)";
    // A dynamic batch is the kernels' outermost loop; every other size
    // shapes the compile-time arrays, and the ops' verifiers make them
    // static.
    assert(llvm::none_of(
               cast<RankedTensorType>(input.getType()).getShape().drop_front(),
               ShapedType::isDynamic) &&
           "sparse op verifiers require static non-batch sizes");
    FailureOr<TargetShape> target =
        targetShapeFor(op, vectorWidth, vectorRegisters);
    if (failed(target))
      return failure();
    return std::make_pair(std::move(*arrays), *target);
  }

  /// The kernel's limit on stored-weight bytes per chunk of output
  /// channels (weight-chunk-bytes; -1: half the target's L2).
  int64_t chunkBytesFor(const TargetShape &target) const {
    return weightChunkBytes < 0 ? target.l2Bytes / 2 : weightChunkBytes;
  }

  /// Whether rows rounded up to `rounded` columns compute at most 1/8 more
  /// positions than rows of `width` (the rule of align-taps' and
  /// shift-taps' `auto`, and narrow taps' refusal of the latter).
  static bool atMostAnEighthMore(int64_t rounded, int64_t width) {
    return 8 * rounded <= 9 * width;
  }

  /// Whether a convolution's taps are made aligned (PhasePlaneCopier's
  /// shifted copies, planes a whole number of vectors wide). `auto`: on
  /// 16-lane targets, where a tap off the vector grid makes every load of
  /// a full tile split a cache line, when rounding the plane's rows up
  /// costs at most 1/8 more positions (not a 7x7 map's 9 -> 16) and the
  /// input is copied anyway (padding or a column shift). `never` is the
  /// default: on Zen 5 aligned taps were 1.1-1.2x faster at 1 thread but
  /// 1.3-1.45x slower at 2 (the input three times larger; docs/Sparse.md).
  bool alignTaps(const TargetShape &target, int64_t rowShift, int64_t colShift,
                 int64_t planeWidth, int64_t computedWidth,
                 ArrayRef<int64_t> pad, int64_t sh, int64_t sw) const {
    int64_t lanes = target.vectorWidth;
    bool offGrid = colShift > 0 || (rowShift > 0 && planeWidth % lanes != 0);
    if (alignTapsMode == "never" || !offGrid || colShift >= lanes)
      return false;
    if (alignTapsMode == "always")
      return true;
    bool copied = colShift > 0 || sh > 1 || sw > 1 ||
                  llvm::any_of(pad, [](int64_t p) { return p != 0; });
    // (The shifted copies' rows need only the computed columns.)
    int64_t rounded = llvm::alignTo(computedWidth, lanes);
    return lanes >= 16 && copied && atMostAnEighthMore(rounded, planeWidth);
  }

  /// Stored density up to which `narrow-taps=auto` applies: the shifted
  /// copies triple a 3x3 layer's input, and at higher densities each row
  /// of weights reads most of its slab's lines, so the larger input costs
  /// more refills of the L1 than the aligned loads save. ResNet-50's
  /// 512-channel 3x3 layer on 7x7, Zen 4, x86-64-v4, best of 6 processes:
  /// 10% 0.69 -> 0.47 ms (2 threads 0.35 -> 0.31), 20% 1.07 -> 0.93, but
  /// 30% 1.68 -> 1.98.
  static constexpr double kNarrowTapsMaxDensity = 0.2;

  /// Whether a convolution runs on half-width vectors with aligned taps
  /// (shifted copies with rows alignTo(OW, lanes / 2) wide). `auto`: on
  /// 16-lane targets, where some tap is off the vector grid by a column
  /// shift, register shifts are refused (rounding the rows up to 16 costs
  /// more than 1/8: a 7x7 map's 9 -> 16), the half-width rows compute no
  /// more positions than the flat 16-lane tiles (7 rows of 8 against 4
  /// vectors of 16), and the weight is sparse enough
  /// (kNarrowTapsMaxDensity). Off the grid, every 16-lane load of such a
  /// tile splits a cache line, where every 8-lane load of the copies is
  /// aligned. No fused pool (its rows are wider than OW).
  bool narrowTaps(const TargetShape &target, const CompressedWeight &weight,
                  int64_t colShift, int64_t planeWidth, int64_t oh, int64_t ow,
                  bool pooled) const {
    int64_t half = target.vectorWidth / 2;
    if (narrowTapsMode == "never" || pooled || half < 8 || colShift == 0 ||
        colShift >= half || weight.block.cols != 1)
      return false;
    if (narrowTapsMode == "always")
      return true;
    int64_t lanes = target.vectorWidth;
    bool shifted =
        atMostAnEighthMore(llvm::alignTo(planeWidth, lanes), planeWidth);
    int64_t narrowPositions = oh * static_cast<int64_t>(llvm::alignTo(ow, half));
    int64_t flatPositions = llvm::alignTo(oh * planeWidth, lanes);
    return !shifted && narrowPositions <= flatPositions &&
           weight.storedFraction() <= kNarrowTapsMaxDensity;
  }

  /// Whether a convolution reads its taps on the vector grid and shifts
  /// them in registers (KernelShape::shiftGroups). `auto`: where some tap
  /// is off the grid by a column shift below the lanes, blocks are one
  /// column wide, and rounding the planes' rows up to whole vectors costs
  /// at most 1/8 more positions (ResNet-50's 56x56 maps: 58 -> 64 columns;
  /// not a 7x7 map's 9 -> 16). Off the grid, a full tile's loads split
  /// cache lines (on 16-lane targets two of a 3x3 window's three columns).
  bool shiftTaps(const TargetShape &target, const CompressedWeight &weight,
                 int64_t colShift, int64_t planeWidth) const {
    int64_t lanes = target.vectorWidth;
    if (shiftTapsMode == "never" || colShift == 0 || colShift >= lanes ||
        weight.block.cols != 1 || lanes < 2)
      return false;
    if (shiftTapsMode == "always")
      return true;
    return atMostAnEighthMore(llvm::alignTo(planeWidth, lanes), planeWidth);
  }

  /// Spatial-major iterations need this many tiles or bands: with fewer,
  /// a thread's share is whole tiles of unequal cost (the last is
  /// narrower), where chunk-major shares are balanced by non-zeros
  /// (ResNet-50's 14x14 3x3 layer, 2 tiles, 2 threads: 0.215 against 0.200
  /// ms; its stride-2 layer, 7 tiles: 0.28 against 0.42 ms).
  static constexpr int64_t kMinSpatialMajorItems = 4;

  /// Copy bands that follow the kernel's spatial items: a fused pool's
  /// bands (bandRows pooled rows, each `stride` rows of planes), row tiles
  /// (tilesPerRow to a row) or flat tiles (tile() positions of rows
  /// `planeWidth` wide).
  static PlaneBands planeBands(const KernelShape &shape, int64_t planeWidth) {
    if (shape.pool)
      return {shape.pool->bands(),
              shape.pool->bandRows * shape.pool->strides[0], 1};
    if (shape.rowTiles)
      return {shape.rowTiles->tiles(), 1, shape.rowTiles->tilesPerRow};
    return {shape.paddedLength() / shape.tile(), shape.tile(), planeWidth};
  }

  /// A 1x1 stride-1 unpadded convolution without a pool computes each
  /// position on its own, so an H x W map is a 1 x HW one. Where the map
  /// is one tile that is not whole vectors of a 16-lane target (ResNet-50's
  /// 7x7 maps), so that its input is copied anyway (lowerConv), `op` is
  /// rewritten on the 1 x HW map (collapsed input and shortcut, the result
  /// expanded back) and the new op returned: its one plane row is copied
  /// `alignTo(HW, lanes)` wide, every channel's plane on the vector grid,
  /// so every load is aligned (Zen 5, 10%: 1x1 512 -> 2048 on 7x7, 0.21
  /// -> 0.14 ms at 1 thread, 0.13 -> 0.10 at 2). Maps of more tiles are
  /// read in place: the copy's cost at 2 threads (each thread reads planes
  /// the other wrote) outweighs the aligned loads (1024 -> 256 on 14x14:
  /// 0.21 -> 0.19 ms at 1 thread, 0.10 -> 0.20 at 2).
  static std::optional<sparse::Conv2DOp>
  flattenPointwise(sparse::Conv2DOp op, const TargetShape &target,
                   BlockShape block, int64_t forcedVectors) {
    RankedTensorType inputType = op.getInput().getType();
    int64_t h = inputType.getDimSize(2), w = inputType.getDimSize(3);
    if (h == 1 || !readsAlignedRow(op, target, block, forcedVectors))
      return std::nullopt;
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> lastTwo{{0}, {1}, {2, 3}};
    // [N, C, H, W] -> [N, C, 1, HW] and back.
    auto rowType = [&](Type type) {
      auto image = cast<RankedTensorType>(type);
      return RankedTensorType::get(
          {image.getDimSize(0), image.getDimSize(1), 1, h * w},
          image.getElementType());
    };
    auto reshape = [&](Value image, RankedTensorType type) -> Value {
      Value collapsed =
          tensor::CollapseShapeOp::create(b, loc, image, lastTwo);
      return tensor::ExpandShapeOp::create(b, loc, type, collapsed, lastTwo);
    };
    IRMapping mapping;
    for (Value image : {op.getInput(), op.getResidual()})
      if (image)
        mapping.map(image, reshape(image, rowType(image.getType())));
    auto flat = cast<sparse::Conv2DOp>(b.clone(*op, mapping));
    Value result = op.getOutput();
    flat.getOutput().setType(rowType(result.getType()));
    result.replaceAllUsesWith(reshape(flat.getOutput(),
                                      cast<RankedTensorType>(result.getType())));
    op.erase();
    return flat;
  }

  /// Whether `op` is a pointwise layer whose map is one tile of several
  /// positions that are not whole vectors of a 16-lane target: those are
  /// computed as one row copied whole vectors wide (flattenPointwise makes
  /// the row, lowerConv widens it). One position (a 1x1 map) stays a
  /// gathered dot product.
  static bool readsAlignedRow(sparse::Conv2DOp op, const TargetShape &target,
                              BlockShape block, int64_t forcedVectors) {
    if (!isPointwise(op))
      return false;
    RankedTensorType inputType = op.getInput().getType();
    int64_t positions = inputType.getDimSize(2) * inputType.getDimSize(3);
    auto [lanes, vectors] =
        chooseTile(target, block, positions, forcedVectors);
    return lanes >= 16 && positions > 1 && positions % lanes != 0 &&
           positions <= lanes * vectors;
  }

  /// A 1x1 stride-1 unpadded convolution without a fused pool.
  static bool isPointwise(sparse::Conv2DOp op) {
    return llvm::all_equal({op.getKernelSize()[0], op.getKernelSize()[1],
                            op.getStrides()[0], op.getStrides()[1],
                            int64_t{1}}) &&
           llvm::all_of(op.getPadding(), [](int64_t p) { return p == 0; }) &&
           !op.getPool();
  }

  LogicalResult lowerConv(sparse::Conv2DOp op, ModuleOp module,
                          SymbolTable &symbols) {
    auto inputs = kernelInputs(op, op.getFilter(), "filter", op.getInput());
    if (failed(inputs))
      return failure();
    if (std::optional<sparse::Conv2DOp> flat =
            flattenPointwise(op, inputs->second, inputs->first.block,
                             tileVectors))
      return lowerConv(*flat, module, symbols);
    const CompressedWeight &weight = inputs->first;
    const TargetShape &target = inputs->second;
    RankedTensorType inputType = op.getInput().getType();
    RankedTensorType outputType = op.getOutput().getType();
    int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1);
    int64_t h = inputType.getDimSize(2);
    int64_t kh = op.getKernelSize()[0], kw = op.getKernelSize()[1];
    int64_t sh = op.getStrides()[0], sw = op.getStrides()[1];
    int64_t dh = op.getDilations()[0], dw = op.getDilations()[1];
    ArrayRef<int64_t> pad = op.getPadding();
    // The convolution's output size (the result's is the pool's, if any).
    auto [oh, ow] = op.getConvOutputSize();
    int64_t groups = op.getGroups();
    // Phase planes: tap (kh, kw) of output (y, x) reads plane
    // (kh*dh % sh, kw*dw % sw) at row y + kh*dh / sh, column x + kw*dw / sw.
    int64_t rowShift = (kh - 1) * dh / sh, colShift = (kw - 1) * dw / sw;
    // The columns a row computes: OW, or a fused pool's windows'.
    int64_t computedWidth = ow;
    sparse::Conv2DOp::Pool pool = op.getPool();
    if (pool) {
      // A pool window's columns left of column 0 are the previous row's
      // last ones, and those right of OW-1 are past it: both must be
      // computed columns the kernel then sets to -inf.
      int64_t pooledCols = outputType.getDimSize(3);
      computedWidth = std::max({ow, ow + pool.padding[1],
                                (pooledCols - 1) * pool.strides[1] -
                                    pool.padding[1] + pool.kernel[1]});
    }
    int64_t planeWidth = std::max(ow + colShift, computedWidth);
    // Aligned taps: rows a whole number of vectors wide and a shifted copy
    // of each plane per column offset, so that no load of the kernel
    // splits a cache line; narrow taps do that on half-width vectors.
    // (tileTarget: the target as the tiles see it.)
    TargetShape tileTarget = target;
    bool narrow = narrowTaps(target, weight, colShift, planeWidth, oh, ow,
                             static_cast<bool>(pool));
    if (narrow)
      tileTarget.vectorWidth = target.vectorWidth / 2;
    int64_t shifts = 1;
    if (narrow || alignTaps(target, rowShift, colShift, planeWidth,
                            computedWidth, pad, sh, sw)) {
      planeWidth = llvm::alignTo(computedWidth, tileTarget.vectorWidth);
      shifts = colShift + 1;
    }
    // Register shifts: rows a whole number of vectors wide, the taps read
    // on the vector grid and shifted in registers.
    bool registerShifts =
        shifts == 1 && shiftTaps(target, weight, colShift, planeWidth);
    if (registerShifts)
      planeWidth = llvm::alignTo(planeWidth, target.vectorWidth);
    // A pointwise layer on one row (flattenPointwise's) reads its row
    // copied whole vectors wide.
    if (h == 1 && readsAlignedRow(op, target, weight.block, tileVectors))
      planeWidth = llvm::alignTo(planeWidth, target.vectorWidth);
    KernelShape shape;
    shape.images = n;
    shape.outputLength = oh * planeWidth;
    std::tie(shape.lanes, shape.vectorsPerTile) =
        chooseTile(tileTarget, weight.block, shape.outputLength, tileVectors);
    shape.relu = op.getRelu();
    if (!pool) {
      shape.rowTiles =
          chooseRowTiles(oh, ow, planeWidth, shape.lanes, shape.vectorsPerTile);
      if (shape.rowTiles)
        shape.vectorsPerTile = shape.rowTiles->vectors;
    } else {
      PoolShape p;
      llvm::copy(pool.kernel, p.kernel);
      llvm::copy(pool.strides, p.strides);
      llvm::copy(pool.padding, p.padding);
      p.convRows = oh;
      p.convCols = ow;
      p.rowWidth = planeWidth;
      p.pooledRows = outputType.getDimSize(2);
      p.pooledCols = outputType.getDimSize(3);
      p.bandRows = chooseBandRows(p, shape.lanes, shape.vectorsPerTile);
      shape.pool = p;
    }
    shape.bake = static_cast<int64_t>(weight.coordinates.size()) <= bakeLimit;
    shape.narrowOffsets = narrowOffsets;
    shape.weightChunkBytes = chunkBytesFor(target);
    shape.gatherLanes = gatherLanesFor(shape, weight.block, target, gather);
    if (registerShifts && !shape.bake && shape.gatherLanes == 0 &&
        shape.lanes > 1)
      shape.shiftGroups = colShift + 1;
    int64_t unshiftedColumns = shifts > 1 ? 0 : colShift;
    chooseSlabs(shape, target, weight, c / groups, kh * kw,
                sh * sw * shifts *
                    (shape.tile() + rowShift * planeWidth + unshiftedColumns) *
                    4,
                slabChannels);
    // An unpadded stride-1 input whose rows are the planes' (no column
    // shift) is read in place, the last tile's loads masked at its end.
    // Any other input is copied anyway (padding, phases): it gets enough
    // rows that the last tile of the last tap stays in its plane, and
    // full-vector loads throughout. So is an input whose only tile is a
    // masked one (a 7x7 map): masked loads cost more than the copy there
    // (1x1 512 -> 2048 at 7x7, 10%: 0.63 ms in place, 0.28 ms copied);
    // with two tiles (14x14) in place still wins (1x1 1024 -> 256: 0.26
    // against 0.34 ms).
    // A fused pool's bands start at any row: the last tile of the last
    // band may reach a tile past the output, which the planes make room
    // for.
    int64_t tiles = ceilDiv(shape.outputLength, shape.tile());
    bool inPlace = !pool && shifts == 1 && shape.shiftGroups == 1 &&
                   planeWidth == ow &&
                   llvm::all_of(pad, [](int64_t p) { return p == 0; }) &&
                   sh == 1 && sw == 1 && colShift == 0 &&
                   (tiles >= 2 || shape.outputLength % shape.tile() == 0);
    // (Without a pool the last tile reads the vectors its positions need.)
    int64_t computedLength =
        pool ? shape.outputLength + shape.tile()
             : llvm::alignTo(shape.outputLength, shape.lanes);
    // (A shift group reads a vector past the tile; shifted copies read
    // none past it.)
    int64_t readPast = shape.shiftGroups > 1 ? shape.lanes
                       : shifts > 1          ? 0
                                             : colShift;
    int64_t planeHeight =
        inPlace ? h
                : ceilDiv(computedLength + rowShift * planeWidth + readPast,
                          planeWidth);
    shape.maskLoads = inPlace;
    int64_t planeSize = planeHeight * planeWidth;
    __int128 total = static_cast<__int128>(c) * sh * sw * shifts * planeSize;
    if (total > INT32_MAX)
      return op.emitOpError("input too large for the sparse kernel's 32-bit "
                            "offsets (")
             << static_cast<int64_t>(total) << " elements per image)";
    shape.inputLength = static_cast<int64_t>(total);

    OpBuilder b(op);
    Location loc = op.getLoc();
    Value flat;
    if (inPlace) {
      flat = collapseAfter(b, loc, op.getInput(), 1);
    } else {
      PlaneBands bands;
      if (planeBands(shape, planeWidth).count >= kMinSpatialMajorItems) {
        bands = planeBands(shape, planeWidth);
        shape.spatialMajor = true;
      }
      Value planes = PhasePlaneCopier(b, loc, shape.lanes)
                         .copy(op.getInput(), pad, sh, sw, shifts, planeHeight,
                               planeWidth, bands);
      auto planesType = cast<MemRefType>(planes.getType());
      flat = collapseAfter(
          b, loc,
          bufferization::ToTensorOp::create(
              b, loc,
              RankedTensorType::get(planesType.getShape(), b.getF32Type()),
              planes, /*restrict=*/true, /*writable=*/true),
          1);
    }

    int64_t channelsPerGroup = c / groups;
    int64_t outPerGroup = weight.rows / groups;
    auto offset = [&](int64_t row, int64_t column) -> int64_t {
      int64_t tapsPerChannel = kh * kw;
      int64_t channel = row / outPerGroup * channelsPerGroup +
                        column / tapsPerChannel;
      int64_t ky = column % tapsPerChannel / kw, kx = column % kw;
      int64_t phase = (channel * sh + ky * dh % sh) * sw + kx * dw % sw;
      int64_t columnShift = kx * dw / sw;
      // (Column offset s reads shifted copy s at the row's own columns;
      // with register shifts, shift group s reads s elements early.)
      if (shape.shiftGroups > 1)
        return phase * planeSize + ky * dh / sh * planeWidth;
      int64_t copy = shifts > 1 ? columnShift : 0;
      return (phase * shifts + copy) * planeSize + ky * dh / sh * planeWidth +
             (columnShift - copy);
    };
    CompressedWeight grouped;
    std::vector<int32_t> groupStarts;
    if (shape.shiftGroups > 1)
      std::tie(grouped, groupStarts) = groupByShift(
          weight, shape.slabColumns, shape.slabs, shape.shiftGroups,
          [&](int64_t column) { return column % kw * dw / sw; });
    const CompressedWeight &kernelWeight =
        shape.shiftGroups > 1 ? grouped : weight;
    std::vector<int32_t> offsets = blockOffsets(kernelWeight, offset);
    // The shortcut is read at the output's positions: rows as wide as the
    // planes (the columns past OW are computed and dropped), flattened.
    int64_t f = weight.rows;
    // (Row tiles write, and read the shortcut, compact.)
    int64_t outputWidth = shape.rowTiles ? ow : planeWidth;
    Value flatResidual;
    if (Value residual = op.getResidual())
      flatResidual = tensor::CollapseShapeOp::create(
          b, loc,
          padOrCut(b, loc, residual, {0, 0, 0, 0}, {0, 0, 0, outputWidth - ow}),
          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    Value result = runKernel(b, loc, module, symbols, shape, kernelWeight,
                             offsets, flat, op.getBias(), flatResidual,
                             groupStarts);
    if (pool) {
      op.replaceAllUsesWith(result);
      op.erase();
      return success();
    }
    // [N, F, OH * Wq] -> [N, F, OH, Wq] -> [N, F, OH, OW].
    result = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({n, f, oh, outputWidth}, b.getF32Type()),
        result, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    result = sliceLeading(b, loc, result, {n, f, oh, ow});
    op.replaceAllUsesWith(result);
    op.erase();
    return success();
  }

  LogicalResult lowerLinear(sparse::LinearOp op, ModuleOp module,
                            SymbolTable &symbols) {
    auto inputs = kernelInputs(op, op.getWeight(), "weight", op.getInput());
    if (failed(inputs))
      return failure();
    const CompressedWeight &weight = inputs->first;
    const TargetShape &target = inputs->second;
    RankedTensorType inputType = op.getInput().getType();
    int64_t batch = inputType.getDimSize(0), features = inputType.getDimSize(1);
    // A dynamic batch runs as that many images of one position each (a
    // sparse matrix-vector product per row of x, read in place): the
    // offsets are fixed at compile time, and with the batch as the
    // position they would depend on it.
    bool perRow = ShapedType::isDynamic(batch);
    int64_t positions = perRow ? 1 : batch;
    KernelShape shape;
    shape.images = perRow ? batch : 1;
    shape.outputLength = positions;
    std::tie(shape.lanes, shape.vectorsPerTile) =
        chooseTile(target, weight.block, positions, tileVectors);
    shape.relu = op.getRelu();
    shape.bake = static_cast<int64_t>(weight.coordinates.size()) <= bakeLimit;
    shape.narrowOffsets = narrowOffsets;
    shape.weightChunkBytes = chunkBytesFor(target);
    shape.gatherLanes = gatherLanesFor(shape, weight.block, target, gather);
    chooseSlabs(shape, target, weight, features, 1, shape.tile() * 4,
                slabChannels);
    shape.inputLength = features * positions;
    shape.maskLoads = true;
    if (shape.inputLength > INT32_MAX)
      return op.emitOpError("input too large for the sparse kernel's 32-bit "
                            "offsets");

    OpBuilder b(op);
    Location loc = op.getLoc();
    // x^T [K, N], one plane row per feature; the batch is the position
    // (for a batch of 1, or one row per image, the same memory: no
    // transpose).
    Value flat = op.getInput();
    if (positions != 1) {
      Value x = transpose(b, loc, op.getInput(), {1, 0});
      x = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({1, features, batch}, b.getF32Type()),
          x, SmallVector<ReassociationIndices>{{0, 1}, {2}});
      flat = collapseAfter(b, loc, x, 1);
    }
    auto offset = [&](int64_t, int64_t column) { return column * positions; };
    std::vector<int32_t> offsets = blockOffsets(weight, offset);
    Value result = runKernel(b, loc, module, symbols, shape, weight, offsets,
                             flat, op.getBias());
    // [1, O, N] -> [O, N] -> [N, O] ([1, O, 1] -> [1, O], [N, O, 1] ->
    // [N, O]).
    result = tensor::CollapseShapeOp::create(
        b, loc, result,
        positions != 1 ? SmallVector<ReassociationIndices>{{0, 1}, {2}}
                       : SmallVector<ReassociationIndices>{{0}, {1, 2}});
    if (positions != 1)
      result = transpose(b, loc, result, {1, 0});
    op.replaceAllUsesWith(result);
    op.erase();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto [name, mode] :
         {std::pair<StringRef, StringRef>{"align-taps", alignTapsMode},
          {"shift-taps", shiftTapsMode},
          {"narrow-taps", narrowTapsMode}})
      if (!llvm::is_contained({"auto", "always", "never"}, mode)) {
        module.emitError("convert-sparse-to-loops: ")
            << name << " must be auto, always or never, not '" << mode << "'";
        return signalPassFailure();
      }
    if (weightChunkBytes < -1) {
      module.emitError("convert-sparse-to-loops: weight-chunk-bytes must be "
                       "-1 (half the L2), 0 (no limit) or a byte count, not ")
          << static_cast<int64_t>(weightChunkBytes);
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<Operation *> layers;
    module.walk([&](Operation *op) {
      if (isa<sparse::Conv2DOp, sparse::LinearOp>(op))
        layers.push_back(op);
    });
    for (Operation *op : layers) {
      if (replaceEmpty(op))
        continue;
      LogicalResult lowered =
          isa<sparse::Conv2DOp>(op)
              ? lowerConv(cast<sparse::Conv2DOp>(op), module, symbols)
              : lowerLinear(cast<sparse::LinearOp>(op), module, symbols);
      if (failed(lowered))
        return signalPassFailure();
      ++numKernels;
    }
    // The weights were read at compile time; anything sparse left has no
    // lowering.
    SmallVector<Operation *> weights;
    module.walk([&](Operation *op) {
      if (isa<sparse::ConstantOp, sparse::PackOp>(op))
        weights.push_back(op);
    });
    for (Operation *op : llvm::reverse(weights))
      if (op->use_empty())
        op->erase();
    WalkResult leftover = module.walk([&](Operation *op) {
      bool sparseValue = llvm::any_of(op->getResultTypes(), [](Type type) {
        return sparse_tensor::getSparseTensorEncoding(type) != nullptr;
      });
      if (isa<sparse::SparseDialect>(op->getDialect()) || sparseValue) {
        op->emitOpError("has no lowering to loops: a sparse weight must "
                        "only feed sparse.conv2d or sparse.linear");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
