//===- VectorizeRowCopies.cpp - the dlas-vectorize-row-copies pass --------===//
//
// im2col patch matrices and strided copies, row by row with vector loads
// and stores (see Passes.td). Each destination row is a run of elements of
// one source row, taken every `stride` elements: a plain copy for stride
// 1, a load of `stride` times as many elements and a lane shuffle
// otherwise.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Transforms/Buffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_VECTORIZEROWCOPIES
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// Bytes per copy vector: one AVX2 register.
constexpr int64_t kVectorBytes = 32;
/// Rows of more vectors than this copy them in a loop rather than
/// unrolled (a wide slice would otherwise emit one load and store per
/// vector of every row).
constexpr int64_t kMaxUnrolledVectors = 8;

Value constantIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
/// v * c, folded where v is a constant.
Value mulConstant(OpBuilder &b, Location loc, Value v, int64_t c) {
  return c == 1
             ? v
             : b.createOrFold<arith::MulIOp>(loc, v, constantIndex(b, loc, c));
}

/// The window of a marked patch copy: `dlas.im2col`'s six numbers.
struct Im2ColWindow {
  int64_t kh, kw, strideH, strideW, dilationH, dilationW;
};

using dlas::hasContiguousRows;

/// The window of `op` when it is a patch copy this pass can rewrite.
std::optional<Im2ColWindow> im2colWindow(linalg::GenericOp op) {
  auto marker = op->getAttrOfType<DenseI64ArrayAttr>(dlas::kIm2ColAttrName);
  if (!marker || marker.size() != 6 || !op.hasPureBufferSemantics() ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return std::nullopt;
  Value input = op.getDpsInputOperand(0)->get();
  Value output = op.getDpsInitOperand(0)->get();
  if (!hasContiguousRows(input.getType()) ||
      !hasContiguousRows(output.getType()) ||
      getElementTypeOrSelf(input) != getElementTypeOrSelf(output))
    return std::nullopt;
  ArrayRef<int64_t> v = marker.asArrayRef();
  if (llvm::any_of(v, [](int64_t x) { return x < 1; }))
    return std::nullopt;
  return Im2ColWindow{v[0], v[1], v[2], v[3], v[4], v[5]};
}

/// Row copies `dst[..., j] = src[..., column + s * j]`, j in [0, width),
/// with vectors.
class RowCopier {
public:
  /// `strideFits`: whether a stride's last vector (which reads s - 1
  /// elements past the last one it keeps) still lies in the source row.
  RowCopier(OpBuilder &b, Location loc, Type elementType, int64_t width,
            int64_t stride, bool strideFits)
      : b(b), loc(loc), elementType(elementType), width(width), stride(stride) {
    int64_t bytes =
        std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
    lanes = kVectorBytes / bytes;
    while (lanes > width)
      lanes /= 2;
    if (stride > 1 && !strideFits)
      lanes = 1;
  }

  void copy(Value src, ValueRange srcRow, Value column, Value dst,
            ValueRange dstRow) {
    if (lanes < 2) {
      loop(b, loc, width, [&](Value j) {
        SmallVector<Value> from(srcRow), to(dstRow);
        from.push_back(arith::AddIOp::create(b, loc, column,
                                             mulConstant(b, loc, j, stride)));
        to.push_back(j);
        Value v = memref::LoadOp::create(b, loc, src, from);
        memref::StoreOp::create(b, loc, v, dst, to);
      });
      return;
    }
    forEachVector([&](Value j) {
      SmallVector<Value> from(srcRow), to(dstRow);
      // Folds to a constant where the row starts at a constant column.
      from.push_back(b.createOrFold<arith::AddIOp>(
          loc, column, mulConstant(b, loc, j, stride)));
      to.push_back(j);
      Value v = vector::LoadOp::create(
          b, loc, VectorType::get({lanes * stride}, elementType), src, from);
      if (stride > 1) {
        SmallVector<int64_t> everyS;
        for (int64_t l = 0; l < lanes; ++l)
          everyS.push_back(l * stride);
        v = vector::ShuffleOp::create(b, loc, v, v, everyS);
      }
      vector::StoreOp::create(b, loc, v, dst, to);
    });
  }

  /// `dst[..., column + j] = value`, j in [0, width) (stride 1).
  void fill(Value value, Value dst, ValueRange dstRow, Value column) {
    auto at = [&](Value j) {
      SmallVector<Value> to(dstRow);
      to.push_back(b.createOrFold<arith::AddIOp>(loc, column, j));
      return to;
    };
    if (lanes < 2) {
      loop(b, loc, width, [&](Value j) {
        memref::StoreOp::create(b, loc, value, dst, at(j));
      });
      return;
    }
    Value splat = vector::BroadcastOp::create(
        b, loc, VectorType::get({lanes}, elementType), value);
    forEachVector([&](Value j) {
      vector::StoreOp::create(b, loc, splat, dst, at(j));
    });
  }

  static void loop(OpBuilder &b, Location loc, int64_t count,
                   function_ref<void(Value)> body) {
    if (count == 1)
      return body(constantIndex(b, loc, 0));
    dlas::buildForLoop(b, loc, constantIndex(b, loc, 0),
                       constantIndex(b, loc, count), 1, body);
  }

  /// `body(iv)` over [0, count), as scf.parallel when asked.
  static void outerLoop(OpBuilder &b, Location loc, int64_t count,
                        bool parallel, function_ref<void(Value)> body) {
    if (!parallel || count == 1)
      return loop(b, loc, count, body);
    scf::ParallelOp::create(b, loc, ValueRange{constantIndex(b, loc, 0)},
                            ValueRange{constantIndex(b, loc, count)},
                            ValueRange{constantIndex(b, loc, 1)},
                            [&](OpBuilder &nested, Location, ValueRange ivs) {
                              OpBuilder::InsertionGuard guard(b);
                              b.setInsertionPointToStart(nested.getBlock());
                              body(ivs[0]);
                            });
  }

private:
  /// `body(j)` for j every `lanes` elements, then once flush with the
  /// row's end (overlapping the vector before: a copy or fill may rewrite
  /// what it already wrote).
  void forEachVector(function_ref<void(Value)> body) {
    int64_t whole = width / lanes;
    if (whole > kMaxUnrolledVectors)
      dlas::buildForLoop(b, loc, constantIndex(b, loc, 0),
                         constantIndex(b, loc, whole * lanes), lanes, body);
    else
      for (int64_t j = 0; j < whole; ++j)
        body(constantIndex(b, loc, j * lanes));
    if (width % lanes != 0)
      body(constantIndex(b, loc, width - lanes));
  }

  OpBuilder &b;
  Location loc;
  Type elementType;
  int64_t width, stride, lanes;
};

/// The patch copy: per patch row q (in parallel when asked), per (n, oh),
/// one row of OW elements.
void emitIm2Col(OpBuilder &b, linalg::GenericOp op, Im2ColWindow window,
                bool parallel) {
  Location loc = op.getLoc();
  Value input = op.getDpsInputOperand(0)->get();
  Value output = op.getDpsInitOperand(0)->get();
  auto inType = cast<MemRefType>(input.getType());
  auto outType = cast<MemRefType>(output.getType());
  int64_t outWidth = outType.getDimSize(3);
  // A stride's last vector reads up to column (KW - 1) * dw + s * OW - 1
  // (s - 1 past the last element it keeps).
  bool strideFits =
      (window.kw - 1) * window.dilationW + window.strideW * outWidth <=
      inType.getDimSize(3);
  RowCopier row(b, loc, inType.getElementType(), outWidth, window.strideW,
                strideFits);
  auto index = [&](int64_t v) { return constantIndex(b, loc, v); };
  auto mul = [&](Value v, int64_t c) { return mulConstant(b, loc, v, c); };
  RowCopier::outerLoop(b, loc, outType.getDimSize(1), parallel, [&](Value q) {
    int64_t taps = window.kh * window.kw;
    Value channel = arith::DivUIOp::create(b, loc, q, index(taps));
    Value tap = arith::RemUIOp::create(b, loc, q, index(taps));
    Value kh = arith::DivUIOp::create(b, loc, tap, index(window.kw));
    Value kw = arith::RemUIOp::create(b, loc, tap, index(window.kw));
    Value rowOffset = mul(kh, window.dilationH);
    Value column = mul(kw, window.dilationW);
    RowCopier::loop(b, loc, outType.getDimSize(0), [&](Value n) {
      RowCopier::loop(b, loc, outType.getDimSize(2), [&](Value oh) {
        Value inRow =
            arith::AddIOp::create(b, loc, mul(oh, window.strideH), rowOffset);
        row.copy(input, ValueRange{n, channel, inRow}, column, output,
                 ValueRange{n, q, oh});
      });
    });
  });
}

/// Whether `op` is a copy between buffers with contiguous rows and the
/// same shape and element type.
bool isStridedRowCopy(linalg::CopyOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  Type src = op.getInputs()[0].getType(), dst = op.getOutputs()[0].getType();
  return hasContiguousRows(src, std::nullopt) &&
         hasContiguousRows(dst, std::nullopt) &&
         cast<MemRefType>(src).getShape() == cast<MemRefType>(dst).getShape() &&
         getElementTypeOrSelf(src) == getElementTypeOrSelf(dst);
}

/// The copy: loops over all dims but the last (the first with more than
/// one row in parallel when asked), a vector row copy inside.
void emitRowCopy(OpBuilder &b, linalg::CopyOp op, bool parallel) {
  Location loc = op.getLoc();
  Value src = op.getInputs()[0], dst = op.getOutputs()[0];
  auto type = cast<MemRefType>(src.getType());
  ArrayRef<int64_t> shape = type.getShape();
  RowCopier row(b, loc, type.getElementType(), shape.back(), 1, true);
  Value zero = constantIndex(b, loc, 0);
  std::function<void(unsigned, SmallVector<Value>, bool)> nest =
      [&](unsigned dim, SmallVector<Value> ivs, bool parallelLeft) {
        if (dim + 1 == shape.size())
          return row.copy(src, ivs, zero, dst, ivs);
        bool here = parallelLeft && shape[dim] > 1;
        RowCopier::outerLoop(b, loc, shape[dim], here, [&](Value iv) {
          SmallVector<Value> next = ivs;
          next.push_back(iv);
          nest(dim + 1, next, parallelLeft && !here);
        });
      };
  nest(0, {}, parallel);
}

/// A box [offsets, offsets + sizes) of a buffer.
struct Box {
  SmallVector<int64_t> offsets, sizes;

  int64_t volume() const { return ShapedType::getNumElements(sizes); }
  bool overlaps(const Box &other) const {
    for (auto [o, s, p, q] :
         llvm::zip(offsets, sizes, other.offsets, other.sizes))
      if (o + s <= p || p + q <= o)
        return false;
    return true;
  }
};

/// The box `view` selects of `buffer`: a static, unit-stride subview of
/// it that keeps its rank.
std::optional<Box> boxOf(Value view, Value buffer) {
  auto subview = view.getDefiningOp<memref::SubViewOp>();
  if (!subview || subview.getSource() != buffer || !dlas::isStaticBox(subview))
    return std::nullopt;
  return Box{llvm::to_vector(subview.getStaticOffsets()),
             llvm::to_vector(subview.getStaticSizes())};
}

/// A row copy into the interior of a buffer whose border the fills just
/// before it set to one value (how dlas-fill-pad-borders leaves a
/// bufferized tensor.pad): one loop nest writes each padded row whole,
/// its border and its interior, instead of sequential border fills before
/// the copy's parallel loop.
/// Whether an op inside an scf.parallel uses `buffer` or a view of it.
bool readInParallelLoop(Value buffer) {
  for (Value alias : dlas::aliasesOf(buffer))
    for (Operation *user : alias.getUsers())
      if (user->getParentOfType<scf::ParallelOp>())
        return true;
  return false;
}

struct PaddedCopy {
  linalg::CopyOp copy;
  Value buffer;
  Box interior;
  Value value;
  SmallVector<Operation *> fills;
};

/// `copy` as a padded copy, if the ops before it in its block fill exactly
/// the border of the buffer it copies into, and nothing between them and
/// the copy touches that buffer.
std::optional<PaddedCopy> paddedCopyOf(linalg::CopyOp copy) {
  Value target = copy.getOutputs()[0];
  auto subview = target.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return std::nullopt;
  Value buffer = subview.getSource();
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  std::optional<Box> interior = boxOf(target, buffer);
  if (!interior)
    return std::nullopt;
  llvm::SmallPtrSet<Value, 8> aliases = dlas::aliasesOf(buffer);
  if (aliases.contains(copy.getInputs()[0]))
    return std::nullopt;
  PaddedCopy padded{copy, buffer, *interior, nullptr, {}};
  SmallVector<Box> border;
  for (Operation *op = copy->getPrevNode(); op; op = op->getPrevNode()) {
    if (isa<memref::SubViewOp>(op))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(op);
    std::optional<Box> box =
        fill && fill.hasPureBufferSemantics()
            ? boxOf(fill.output(), buffer)
            : std::nullopt;
    if (!box || (padded.value && fill.value() != padded.value)) {
      if (dlas::touches(op, aliases))
        break;
      continue;
    }
    padded.value = fill.value();
    padded.fills.push_back(fill);
    border.push_back(*box);
  }
  // The border boxes are disjoint, outside the interior, and fill all of
  // the buffer that the interior does not.
  int64_t covered = interior->volume();
  for (auto [i, box] : llvm::enumerate(border)) {
    if (box.overlaps(*interior))
      return std::nullopt;
    for (const Box &other : ArrayRef(border).drop_front(i + 1))
      if (box.overlaps(other))
        return std::nullopt;
    covered += box.volume();
  }
  if (border.empty() || covered != type.getNumElements())
    return std::nullopt;
  return padded;
}

/// The padded copy: loops over the buffer's rows, split per dim into the
/// border before the interior, the interior (the first such dim with more
/// than one row in parallel when asked) and the border after it; interior
/// rows fill their border columns and copy the source row.
void emitPaddedCopy(OpBuilder &b, const PaddedCopy &padded, bool parallel) {
  linalg::CopyOp copy = padded.copy;
  Location loc = copy.getLoc();
  Value src = copy.getInputs()[0];
  Value interiorView = copy.getOutputs()[0];
  Value buffer = padded.buffer;
  auto type = cast<MemRefType>(buffer.getType());
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> offsets = padded.interior.offsets;
  ArrayRef<int64_t> sizes = padded.interior.sizes;
  Type element = type.getElementType();
  unsigned last = shape.size() - 1;
  Value zero = constantIndex(b, loc, 0);
  auto fillColumns = [&](ValueRange row, int64_t begin, int64_t end) {
    if (begin < end)
      RowCopier(b, loc, element, end - begin, 1, true)
          .fill(padded.value, buffer, row, constantIndex(b, loc, begin));
  };
  // Every row of the buffer from `dim` on, below the buffer row `rows`:
  // the border.
  std::function<void(unsigned, SmallVector<Value>)> fillBlock =
      [&](unsigned dim, SmallVector<Value> rows) {
        if (dim == last)
          return fillColumns(rows, 0, shape[last]);
        RowCopier::loop(b, loc, shape[dim], [&](Value iv) {
          SmallVector<Value> next = rows;
          next.push_back(iv);
          fillBlock(dim + 1, next);
        });
      };
  auto fillRange = [&](unsigned dim, const SmallVector<Value> &rows,
                       int64_t begin, int64_t end) {
    if (begin >= end)
      return;
    RowCopier::loop(b, loc, end - begin, [&](Value iv) {
      SmallVector<Value> next = rows;
      next.push_back(b.createOrFold<arith::AddIOp>(
          loc, iv, constantIndex(b, loc, begin)));
      fillBlock(dim + 1, next);
    });
  };
  RowCopier interiorRow(b, loc, element, sizes[last], 1, true);
  // `inner` indexes the interior (and the source), `rows` the buffer.
  std::function<void(unsigned, SmallVector<Value>, SmallVector<Value>, bool)>
      nest = [&](unsigned dim, SmallVector<Value> inner,
                 SmallVector<Value> rows, bool parallelLeft) {
        if (dim == last) {
          fillColumns(rows, 0, offsets[last]);
          interiorRow.copy(src, inner, zero, interiorView, inner);
          fillColumns(rows, offsets[last] + sizes[last], shape[last]);
          return;
        }
        fillRange(dim, rows, 0, offsets[dim]);
        bool here = parallelLeft && sizes[dim] > 1;
        RowCopier::outerLoop(b, loc, sizes[dim], here, [&](Value iv) {
          SmallVector<Value> nextInner = inner, nextRows = rows;
          nextInner.push_back(iv);
          nextRows.push_back(b.createOrFold<arith::AddIOp>(
              loc, iv, constantIndex(b, loc, offsets[dim])));
          nest(dim + 1, nextInner, nextRows, parallelLeft && !here);
        });
        fillRange(dim, rows, offsets[dim] + sizes[dim], shape[dim]);
      };
  nest(0, {}, {}, parallel);
}

struct VectorizeRowCopiesPass
    : dlas::impl::VectorizeRowCopiesBase<VectorizeRowCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, Im2ColWindow>> patches;
    SmallVector<linalg::CopyOp> copies;
    getOperation()->walk([&](Operation *op) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        if (std::optional<Im2ColWindow> window = im2colWindow(generic))
          patches.push_back({generic, *window});
      } else if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
        if (isStridedRowCopy(copy))
          copies.push_back(copy);
      }
    });
    OpBuilder b(&getContext());
    for (auto [op, window] : patches) {
      b.setInsertionPoint(op);
      emitIm2Col(b, op, window, worthThreads(op.getDpsInitOperand(0)->get()));
      op->erase();
      ++numIm2Col;
    }
    for (linalg::CopyOp op : copies) {
      b.setInsertionPoint(op);
      if (std::optional<PaddedCopy> padded = paddedCopyOf(op)) {
        emitPaddedCopyForReaders(b, *padded);
        for (Operation *fill : padded->fills)
          fill->erase();
        op->erase();
        ++numPaddedCopies;
        continue;
      }
      emitRowCopy(b, op, worthThreads(op.getOutputs()[0]));
      op->erase();
      ++numCopies;
    }
  }

  /// Whether a copy into `output` runs its rows in parallel: when asked
  /// and when it writes at least minParallelElements.
  bool worthThreads(Value output) const {
    auto type = cast<MemRefType>(output.getType());
    return parallel && (!type.hasStaticShape() ||
                        type.getNumElements() >= minParallelElements);
  }

  /// `padded` as one nest: in parallel where worthThreads says so; where
  /// only parallel readers make it worth it (a small buffer), in parallel
  /// when OpenMP has more than one thread and sequentially otherwise (one
  /// thread would pay a parallel region's entry for nothing, about 0.5 us
  /// on WRN-40-2's 13 us 128-channel 8x8 G(16) layer). Asking OpenMP takes
  /// a declaration in the module, which only a run on the module may add
  /// (the CPU pipeline's); a run nested on functions emits the parallel
  /// nest alone.
  void emitPaddedCopyForReaders(OpBuilder &b, const PaddedCopy &padded) {
    bool threads = worthThreads(padded.buffer);
    if (threads || !worthThreadsBeforeParallelReaders(padded) ||
        !isa<ModuleOp>(getOperation())) {
      emitPaddedCopy(b, padded,
                     threads || worthThreadsBeforeParallelReaders(padded));
      return;
    }
    linalg::CopyOp copy = padded.copy;
    Location loc = copy.getLoc();
    Value several = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ugt,
        dlas::openMPMaxThreads(b, loc, copy), constantIndex(b, loc, 1));
    auto branch = scf::IfOp::create(b, loc, several, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    emitPaddedCopy(b, padded, /*parallel=*/true);
    b.setInsertionPointToStart(branch.elseBlock());
    emitPaddedCopy(b, padded, /*parallel=*/false);
  }

  /// Whether a padded copy runs its rows in parallel. A buffer that a
  /// parallel loop reads afterwards (a kernel's threads sharing the
  /// groups or tiles of a convolution) is written by the threads from
  /// minParallelReadElements on: split the same way (a grouped kernel's
  /// threads take contiguous groups, the copy contiguous channels), each
  /// thread writes the rows its own core reads next, instead of one core
  /// writing them all and every other core pulling its rows across (and
  /// the writer invalidating them again on the next call).
  bool worthThreadsBeforeParallelReaders(const PaddedCopy &padded) const {
    if (worthThreads(padded.buffer))
      return true;
    auto type = cast<MemRefType>(padded.buffer.getType());
    return parallel && type.getNumElements() >= minParallelReadElements &&
           readInParallelLoop(padded.buffer);
  }
};

} // namespace
