//===- VectorizeIm2Col.cpp - the dlas-vectorize-im2col pass ---------------===//
//
// The patch matrix of an im2col convolution, copied row by row with vector
// loads and stores (see Passes.td). Each patch row is a run of OW elements
// of one input row, taken every `stride` elements: a plain copy for stride
// 1, a load of `stride` times as many elements and a lane shuffle
// otherwise.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_VECTORIZEIM2COL
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// Bytes per copy vector: one AVX2 register.
constexpr int64_t kVectorBytes = 32;

/// The window of a marked patch copy: `dlas.im2col`'s six numbers.
struct Im2ColWindow {
  int64_t kh, kw, strideH, strideW, dilationH, dilationW;
};

/// Whether `type` is a rank-4 buffer with static shape whose rows are
/// contiguous (vector loads need a unit innermost stride).
bool hasContiguousRows(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() != 4 || !memref.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The window of `op` when it is a patch copy this pass can rewrite.
std::optional<Im2ColWindow> im2colWindow(linalg::GenericOp op) {
  auto marker = op->getAttrOfType<DenseI64ArrayAttr>(
      dlas::kIm2ColAttrName);
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

/// Emits the row copies that replace one patch copy.
class RowCopier {
public:
  RowCopier(OpBuilder &b, linalg::GenericOp op, Im2ColWindow window)
      : b(b), loc(op.getLoc()), window(window),
        input(op.getDpsInputOperand(0)->get()),
        output(op.getDpsInitOperand(0)->get()) {
    auto inType = cast<MemRefType>(input.getType());
    auto outType = cast<MemRefType>(output.getType());
    elementType = inType.getElementType();
    inWidth = inType.getDimSize(3);
    batch = outType.getDimSize(0);
    patchRows = outType.getDimSize(1);
    outHeight = outType.getDimSize(2);
    outWidth = outType.getDimSize(3);
    lanes = copyLanes();
  }

  /// The copy: per patch row q (in parallel when asked), per (n, oh).
  void emit(bool parallel) {
    auto body = [&](Value q) {
      int64_t taps = window.kh * window.kw;
      Value channel = arith::DivUIOp::create(b, loc, q, index(taps));
      Value tap = arith::RemUIOp::create(b, loc, q, index(taps));
      Value kh = arith::DivUIOp::create(b, loc, tap, index(window.kw));
      Value kw = arith::RemUIOp::create(b, loc, tap, index(window.kw));
      Value rowOffset = mul(kh, window.dilationH);
      Value column = mul(kw, window.dilationW);
      loop(batch, [&](Value n) {
        loop(outHeight, [&](Value oh) {
          Value row = arith::AddIOp::create(b, loc, mul(oh, window.strideH),
                                            rowOffset);
          copyRow(ValueRange{n, channel, row}, column,
                  ValueRange{n, q, oh});
        });
      });
    };
    if (!parallel)
      return loop(patchRows, body);
    scf::ParallelOp::create(b, loc, ValueRange{index(0)},
                            ValueRange{index(patchRows)},
                            ValueRange{index(1)},
                            [&](OpBuilder &nested, Location, ValueRange ivs) {
                              OpBuilder::InsertionGuard guard(b);
                              b.setInsertionPointToStart(nested.getBlock());
                              body(ivs[0]);
                            });
  }

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value mul(Value v, int64_t c) {
    return c == 1 ? v : arith::MulIOp::create(b, loc, v, index(c)).getResult();
  }
  Value add(Value v, int64_t c) {
    return c == 0 ? v : arith::AddIOp::create(b, loc, v, index(c)).getResult();
  }
  void loop(int64_t count, function_ref<void(Value)> body) {
    if (count == 1)
      return body(index(0));
    dlas::buildForLoop(b, loc, index(0), index(count), 1, body);
  }

  /// Elements per vector: the most that fit in kVectorBytes (a power of
  /// two) and in one row; 1 (scalar) where a stride's loads would run past
  /// the input row or the row has one element.
  int64_t copyLanes() const {
    int64_t bytes = std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
    int64_t result = kVectorBytes / bytes;
    while (result > outWidth)
      result /= 2;
    // The last vector of a row reads up to column
    // (KW - 1) * dw + s * OW - 1 (s - 1 past the last element it keeps).
    int64_t reach = (window.kw - 1) * window.dilationW +
                    window.strideW * outWidth;
    if (window.strideW > 1 && reach > inWidth)
      return 1;
    return result;
  }

  /// P[dst..., j] = X[src..., column + s * j] for j in [0, OW).
  void copyRow(ValueRange src, Value column, ValueRange dst) {
    int64_t s = window.strideW;
    if (lanes < 2) {
      loop(outWidth, [&](Value j) {
        SmallVector<Value> from(src), to(dst);
        from.push_back(arith::AddIOp::create(b, loc, column, mul(j, s)));
        to.push_back(j);
        Value v = memref::LoadOp::create(b, loc, input, from);
        memref::StoreOp::create(b, loc, v, output, to);
      });
      return;
    }
    // Vector starts: every `lanes` elements, and the last one flush with
    // the row's end (overlapping the one before; a copy may rewrite what
    // it already wrote).
    SmallVector<int64_t> starts;
    for (int64_t j = 0; j + lanes <= outWidth; j += lanes)
      starts.push_back(j);
    if (outWidth % lanes != 0)
      starts.push_back(outWidth - lanes);
    auto loadType = VectorType::get({lanes * s}, elementType);
    SmallVector<int64_t> everyS;
    for (int64_t l = 0; l < lanes; ++l)
      everyS.push_back(l * s);
    for (int64_t j : starts) {
      SmallVector<Value> from(src), to(dst);
      from.push_back(add(column, j * s));
      to.push_back(index(j));
      Value v = vector::LoadOp::create(b, loc, loadType, input, from);
      if (s > 1)
        v = vector::ShuffleOp::create(b, loc, v, v, everyS);
      vector::StoreOp::create(b, loc, v, output, to);
    }
  }

  OpBuilder &b;
  Location loc;
  Im2ColWindow window;
  Value input, output;
  Type elementType;
  int64_t inWidth, batch, patchRows, outHeight, outWidth, lanes;
};

struct VectorizeIm2ColPass
    : dlas::impl::VectorizeIm2ColBase<VectorizeIm2ColPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, Im2ColWindow>> copies;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<Im2ColWindow> window = im2colWindow(op))
        copies.push_back({op, *window});
    });
    OpBuilder b(&getContext());
    for (auto [op, window] : copies) {
      b.setInsertionPoint(op);
      RowCopier(b, op, window).emit(parallel);
      op->erase();
      ++numVectorized;
    }
  }
};

} // namespace
