//===- SparseDialect.h - the DLAS sparse dialect ----------------*- C++ -*-===//
#ifndef DLAS_DIALECT_SPARSE_SPARSEDIALECT_H
#define DLAS_DIALECT_SPARSE_SPARSEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <vector>

#include "DLAS/Dialect/Sparse/SparseOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "DLAS/Dialect/Sparse/SparseOps.h.inc"

namespace mlir::dlas::sparse {

/// The block of a weight format: 1 x 1 for CSR, r x c for block-CSR.
struct BlockShape {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t size() const { return rows * cols; }
  bool operator==(const BlockShape &other) const {
    return rows == other.rows && cols == other.cols;
  }
};

/// The block shape of `type`'s encoding when it is CSR or block-CSR as the
/// dialect documents them; otherwise failure, and `why` (if given) says
/// what is wrong.
FailureOr<BlockShape> getWeightBlockShape(RankedTensorType type,
                                          std::string *why = nullptr);

/// The 2-D f32 weight type `rows x cols` in CSR (a 1 x 1 block) or
/// block-CSR encoding.
RankedTensorType getWeightType(MLIRContext *context, int64_t rows,
                               int64_t cols, BlockShape block);

/// A compressed weight with its arrays (see sparse.constant).
struct CompressedWeight {
  int64_t rows = 0, cols = 0;
  BlockShape block;
  std::vector<int32_t> positions, coordinates;
  std::vector<float> values;

  int64_t storedBlocks() const { return coordinates.size(); }
  int64_t blockRows() const { return rows / block.rows; }
  /// Stored elements (zeros inside stored blocks included) over all.
  double storedFraction() const;
};

/// `dense` (`rows x cols`, row-major) compressed in `block`s: every block
/// holding a non-zero is stored. `rows` and `cols` must be multiples of
/// the block's.
CompressedWeight compress(ArrayRef<float> dense, int64_t rows, int64_t cols,
                          BlockShape block);

/// The number of non-zero elements of `dense` over its size.
double density(ArrayRef<float> dense);

/// The arrays of `weight` when it is a sparse.constant, or a sparse.pack
/// of an f32 `arith.constant`; nullopt otherwise.
std::optional<CompressedWeight> getCompressedWeight(Value weight);

/// How the sparse passes' reports name a layer: its ONNX node name (a
/// NameLoc) in quotes, else its location.
std::string describeLayer(Operation *op);

/// A sparse.constant holding `weight`.
ConstantOp createConstant(OpBuilder &b, Location loc,
                          const CompressedWeight &weight);

} // namespace mlir::dlas::sparse

#endif // DLAS_DIALECT_SPARSE_SPARSEDIALECT_H
