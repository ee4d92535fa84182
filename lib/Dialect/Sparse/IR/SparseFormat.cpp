//===- SparseFormat.cpp - CSR and block-CSR weights -----------------------===//
//
// The formats sparse weights take (upstream sparse_tensor encodings) and
// their compression at compile time.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Dialect/Sparse/SparseDialect.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::sparse;
namespace st = mlir::sparse_tensor;

/// The canonical encoding of `block`: CSR for 1 x 1; otherwise the block
/// row and block column levels (dense, compressed), then the row and column
/// within the block (dense), each only where the block has more than one.
/// Upstream simplifies `d floordiv 1` away, so a 1-wide block side has no
/// level of its own.
static st::SparseTensorEncodingAttr weightEncoding(MLIRContext *context,
                                                   BlockShape block) {
  st::LevelType dense = st::LevelFormat::Dense;
  st::LevelType compressed = st::LevelFormat::Compressed;
  AffineExpr d0 = getAffineDimExpr(0, context);
  AffineExpr d1 = getAffineDimExpr(1, context);
  SmallVector<AffineExpr> levels{d0.floorDiv(block.rows), d1.floorDiv(block.cols)};
  SmallVector<st::LevelType> types{dense, compressed};
  if (block.rows > 1) {
    levels.push_back(d0 % block.rows);
    types.push_back(dense);
  }
  if (block.cols > 1) {
    levels.push_back(d1 % block.cols);
    types.push_back(dense);
  }
  auto dimToLvl = AffineMap::get(2, 0, levels, context);
  if (block.size() == 1)
    return st::SparseTensorEncodingAttr::get(context, types);
  return st::SparseTensorEncodingAttr::get(context, types, dimToLvl,
                                           st::inferLvlToDim(dimToLvl, context));
}

/// The block side `level` (d floordiv n) of a dimension-to-level map's
/// leading results: n, or 1 when it is the plain dimension.
static int64_t blockSide(AffineExpr level) {
  auto binary = dyn_cast<AffineBinaryOpExpr>(level);
  if (!binary || binary.getKind() != AffineExprKind::FloorDiv)
    return 1;
  auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
  return divisor && divisor.getValue() > 0 ? divisor.getValue() : 1;
}

RankedTensorType sparse::getWeightType(MLIRContext *context, int64_t rows,
                                       int64_t cols, BlockShape block) {
  return RankedTensorType::get({rows, cols}, Float32Type::get(context),
                               weightEncoding(context, block));
}

FailureOr<BlockShape> sparse::getWeightBlockShape(RankedTensorType type,
                                                  std::string *why) {
  auto fail = [&](const Twine &message) -> FailureOr<BlockShape> {
    if (why)
      *why = message.str();
    return failure();
  };
  st::SparseTensorEncodingAttr encoding = st::getSparseTensorEncoding(type);
  if (!encoding)
    return fail("has no #sparse_tensor.encoding");
  if (type.getRank() != 2)
    return fail("is not 2-D");
  BlockShape block;
  AffineMap dimToLvl = encoding.getDimToLvl();
  if (dimToLvl && dimToLvl.getNumResults() >= 2)
    block = {blockSide(dimToLvl.getResult(0)), blockSide(dimToLvl.getResult(1))};
  // Compare with the canonical encoding of that block: the same levels in
  // the same order (bit widths are free).
  st::SparseTensorEncodingAttr expected =
      weightEncoding(type.getContext(), block);
  if (encoding.getLvlTypes() != expected.getLvlTypes() ||
      encoding.getDimToLvl() != expected.getDimToLvl() ||
      !encoding.getDimSlices().empty())
    return fail("must be CSR ((d0, d1) -> (d0 : dense, d1 : compressed)) or "
                "block-CSR ((d0, d1) -> (d0 floordiv r : dense, d1 floordiv c "
                ": compressed, d0 mod r : dense, d1 mod c : dense), a side of "
                "1 without its floordiv and mod)");
  for (int64_t dim : type.getShape())
    if (ShapedType::isDynamic(dim))
      return fail("must have a static shape");
  if (type.getDimSize(0) % block.rows != 0 || type.getDimSize(1) % block.cols != 0)
    return fail(Twine("shape ") + Twine(type.getDimSize(0)) + "x" +
                Twine(type.getDimSize(1)) + " is not a multiple of its " +
                Twine(block.rows) + "x" + Twine(block.cols) + " blocks");
  return block;
}

double CompressedWeight::storedFraction() const {
  if (rows * cols == 0)
    return 0.0;
  return static_cast<double>(storedBlocks() * block.size()) /
         static_cast<double>(rows * cols);
}

double sparse::density(ArrayRef<float> dense) {
  if (dense.empty())
    return 0.0;
  int64_t nonZeros = llvm::count_if(dense, [](float v) { return v != 0.0f; });
  return static_cast<double>(nonZeros) / static_cast<double>(dense.size());
}

CompressedWeight sparse::compress(ArrayRef<float> dense, int64_t rows,
                                  int64_t cols, BlockShape block) {
  CompressedWeight weight;
  weight.rows = rows;
  weight.cols = cols;
  weight.block = block;
  weight.positions.push_back(0);
  int64_t blockCols = cols / block.cols;
  auto element = [&](int64_t row, int64_t col) { return dense[row * cols + col]; };
  for (int64_t blockRow = 0; blockRow < rows / block.rows; ++blockRow) {
    for (int64_t blockCol = 0; blockCol < blockCols; ++blockCol) {
      bool nonZero = false;
      for (int64_t i = 0; i < block.rows && !nonZero; ++i)
        for (int64_t j = 0; j < block.cols && !nonZero; ++j)
          nonZero = element(blockRow * block.rows + i,
                            blockCol * block.cols + j) != 0.0f;
      if (!nonZero)
        continue;
      weight.coordinates.push_back(static_cast<int32_t>(blockCol));
      for (int64_t i = 0; i < block.rows; ++i)
        for (int64_t j = 0; j < block.cols; ++j)
          weight.values.push_back(
              element(blockRow * block.rows + i, blockCol * block.cols + j));
    }
    weight.positions.push_back(static_cast<int32_t>(weight.coordinates.size()));
  }
  return weight;
}

std::optional<CompressedWeight> sparse::getCompressedWeight(Value weight) {
  auto type = cast<RankedTensorType>(weight.getType());
  FailureOr<BlockShape> block = getWeightBlockShape(type);
  if (failed(block))
    return std::nullopt;
  if (auto pack = weight.getDefiningOp<PackOp>()) {
    std::optional<std::vector<float>> dense = readF32Constant(pack.getSource());
    if (!dense)
      return std::nullopt;
    return compress(*dense, type.getDimSize(0), type.getDimSize(1), *block);
  }
  auto constant = weight.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  CompressedWeight result;
  result.rows = type.getDimSize(0);
  result.cols = type.getDimSize(1);
  result.block = *block;
  result.positions.assign(constant.getPositions().begin(),
                          constant.getPositions().end());
  result.coordinates.assign(constant.getCoordinates().begin(),
                            constant.getCoordinates().end());
  auto values = cast<DenseElementsAttr>(constant.getValues()).getValues<float>();
  result.values.assign(values.begin(), values.end());
  return result;
}

ConstantOp sparse::createConstant(OpBuilder &b, Location loc,
                                  const CompressedWeight &weight) {
  auto valuesType = RankedTensorType::get(
      {static_cast<int64_t>(weight.values.size())}, b.getF32Type());
  auto values = DenseElementsAttr::get(valuesType, ArrayRef(weight.values));
  return ConstantOp::create(
      b, loc,
      getWeightType(b.getContext(), weight.rows, weight.cols, weight.block),
      b.getDenseI32ArrayAttr(weight.positions),
      b.getDenseI32ArrayAttr(weight.coordinates), values);
}

std::string sparse::describeLayer(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return "\"" + name.getName().str() + "\"";
  std::string text;
  llvm::raw_string_ostream os(text);
  op->getLoc().print(os);
  return text;
}
