//===- WinogradTransforms.cpp - the dlas-winograd-transforms pass ---------===//
//
// Winograd F(2x2, 3x3)'s input and output transforms, marked by
// dlas-select-conv-algorithm as contractions with constant 0/+-1 matrices,
// become one pass of vector additions each (see Passes.td): per 4x4 input
// tile B^T d B in 32 additions, per 2x2 output tile A^T M A in 24, lanes
// running over the tiles of a row (even and odd columns split and joined
// with shuffles).
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "WinogradMatrices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_WINOGRADTRANSFORMS
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

/// Tiles per vector: 8 f32 lanes (one AVX2 register; two halves of an
/// AVX-512 one), fewer for a row's last tiles.
constexpr int64_t kMaxLanes = 8;

/// Emits the vector code of the transforms of F(m x m, 3x3) at a
/// builder's point.
class TransformEmitter {
public:
  TransformEmitter(OpBuilder &b, Location loc, bool parallel,
                   const dlas::WinogradMatrices &w)
      : b(b), loc(loc), parallel(parallel), w(w) {}

  /// V[t = alpha a + b][n][c][i][j] = (B^T d B)[a][b] (+ V where
  /// `accumulate`), d[k][l] = X[n][c][m i + k][m j + l].
  void inputTransform(Value x, Value v, bool accumulate) {
    auto vType = cast<MemRefType>(v.getType());
    int64_t images = vType.getDimSize(1), channels = vType.getDimSize(2);
    int64_t rows = vType.getDimSize(3), cols = vType.getDimSize(4);
    int64_t alpha = w.alpha, m = w.m;
    forEachPlane(images, channels, [&](Value image, Value channel) {
      buildLoop(0, rows, 1, [&](Value i) {
        Value top = mul(i, m);
        forEachBlock(cols, [&](Value j, int64_t lanes) {
          // Row k of the block's tiles, d[k][l] = column m j + l: the m
          // phases (lanes l mod m) of a load of m * lanes elements at m j
          // for l < m, and of one at m j + alpha - m (which ends where the
          // row's last tile does) for the others. B^T applied along l
          // right away keeps alpha, not alpha^2, vectors of d live.
          SmallVector<SmallVector<Value>> r(alpha); // r[k][b] = (d B)[k][b]
          Value column = mul(j, m);
          for (int64_t k = 0; k < alpha; ++k) {
            Value row = add(top, k);
            SmallVector<Value> first =
                phases(loadWide(x, {image, channel, row, column}, m * lanes));
            SmallVector<Value> second = phases(loadWide(
                x, {image, channel, row, add(column, alpha - m)}, m * lanes));
            SmallVector<Value> d;
            for (int64_t l = 0; l < alpha; ++l)
              d.push_back(l < m ? first[l] : second[l - (alpha - m)]);
            for (int64_t bb = 0; bb < alpha; ++bb)
              r[k].push_back(combine(d, w.bt[bb]));
          }
          // Then along k: out[a][b] = sum_k B^T[a][k] r[k][b].
          for (int64_t bb = 0; bb < alpha; ++bb) {
            SmallVector<Value> column;
            for (int64_t k = 0; k < alpha; ++k)
              column.push_back(r[k][bb]);
            for (int64_t a = 0; a < alpha; ++a) {
              Value value = combine(column, w.bt[a]);
              SmallVector<Value> at = {index(alpha * a + bb), image, channel, i,
                                       j};
              if (accumulate)
                value =
                    sum(value,
                        vector::LoadOp::create(b, loc, value.getType(), v, at));
              vector::StoreOp::create(b, loc, value, v, at);
            }
          }
        });
      });
    });
  }

  /// Y[n][f][m i + p][m j + q] = init + (A^T M A)[p][q], M[a][b] =
  /// M[alpha a + b][n][f][i][j], then `epilogue` (an elementwise body, or
  /// null); `y` is [N, F, TH, m, m TW]: row m i + p is y[n][f][i][p]. The
  /// init is y's contents (`loadInit`), else bias[f] (`bias`), else zero.
  void outputTransform(Value mm, Value y, bool loadInit, Value bias,
                       Block *epilogue) {
    auto mType = cast<MemRefType>(mm.getType());
    int64_t images = mType.getDimSize(1), channels = mType.getDimSize(2);
    int64_t rows = mType.getDimSize(3), cols = mType.getDimSize(4);
    int64_t alpha = w.alpha, m = w.m;
    forEachPlane(images, channels, [&](Value image, Value channel) {
      Value channelBias =
          bias ? memref::LoadOp::create(b, loc, bias, channel) : Value();
      buildLoop(0, rows, 1, [&](Value i) {
        forEachBlock(cols, [&](Value j, int64_t lanes) {
          auto type = VectorType::get({lanes}, b.getF32Type());
          // A^T's rows over a as the products load (s = A^T M), then over
          // b per output row.
          SmallVector<SmallVector<Value>> s(m, SmallVector<Value>(alpha));
          for (int64_t bb = 0; bb < alpha; ++bb) {
            SmallVector<Value> column;
            for (int64_t a = 0; a < alpha; ++a)
              column.push_back(vector::LoadOp::create(
                  b, loc, type, mm,
                  ValueRange{index(alpha * a + bb), image, channel, i, j}));
            for (int64_t p = 0; p < m; ++p)
              s[p][bb] = combine(column, w.at[p]);
          }
          for (int64_t p = 0; p < m; ++p) {
            SmallVector<Value> columns;
            for (int64_t q = 0; q < m; ++q)
              columns.push_back(combine(s[p], w.at[q]));
            // Columns m j + q of row m i + p: the m results interleaved.
            Value result = interleave(columns);
            SmallVector<Value> at = {image, channel, i, index(p), mul(j, m)};
            if (loadInit)
              result =
                  sum(result,
                      vector::LoadOp::create(b, loc, result.getType(), y, at));
            else if (channelBias)
              result = sum(result, vector::BroadcastOp::create(
                                       b, loc, result.getType(), channelBias));
            if (epilogue) {
              IRMapping mapping;
              mapping.map(epilogue->getArgument(0), result);
              result = dlas::cloneBodyOnVectors(b, loc, epilogue, mapping,
                                                m * lanes);
            }
            vector::StoreOp::create(b, loc, result, y, at);
          }
        });
      });
    });
  }

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value v, int64_t c) {
    return c == 0 ? v : b.createOrFold<arith::AddIOp>(loc, v, index(c));
  }
  Value mul(Value v, int64_t c) {
    return c == 1 ? v : b.createOrFold<arith::MulIOp>(loc, v, index(c));
  }

  void buildLoop(int64_t begin, int64_t end, int64_t step,
                 function_ref<void(Value)> body) {
    if (end - begin == step)
      return body(index(begin));
    dlas::buildForLoop(b, loc, index(begin), index(end), step, body);
  }

  /// `body(image, channel)` over every plane, in parallel when asked.
  void forEachPlane(int64_t images, int64_t channels,
                    function_ref<void(Value, Value)> body) {
    if (!parallel) {
      buildLoop(0, images, 1, [&](Value image) {
        buildLoop(0, channels, 1, [&](Value c) { body(image, c); });
      });
      return;
    }
    scf::ParallelOp::create(b, loc, ValueRange{index(0), index(0)},
                            ValueRange{index(images), index(channels)},
                            ValueRange{index(1), index(1)},
                            [&](OpBuilder &nested, Location, ValueRange ivs) {
                              OpBuilder::InsertionGuard guard(b);
                              b.setInsertionPointToStart(nested.getBlock());
                              body(ivs[0], ivs[1]);
                            });
  }

  /// `body(j, lanes)` over blocks of a row's `cols` tiles: of 8 lanes in a
  /// loop, then at most one each of 4, 2 and 1 for the rest (exact: the
  /// output transform adds into its result, so no block may overlap
  /// another).
  void forEachBlock(int64_t cols, function_ref<void(Value, int64_t)> body) {
    int64_t whole = cols / kMaxLanes * kMaxLanes;
    if (whole > 0)
      buildLoop(0, whole, kMaxLanes, [&](Value j) { body(j, kMaxLanes); });
    for (int64_t lanes = kMaxLanes / 2, at = whole; lanes >= 1; lanes /= 2)
      if (cols - at >= lanes) {
        body(index(at), lanes);
        at += lanes;
      }
  }

  /// `count` consecutive elements of `x` at `indices`, widened to f32.
  Value loadWide(Value x, SmallVector<Value> indices, int64_t count) {
    Type element = cast<MemRefType>(x.getType()).getElementType();
    Value v = vector::LoadOp::create(b, loc, VectorType::get({count}, element),
                                     x, indices);
    if (!element.isF32())
      v = arith::ExtFOp::create(b, loc,
                                VectorType::get({count}, b.getF32Type()), v);
    return v;
  }

  /// The m phases of `v` (m lanes per tile): phase q holds lanes q, q + m,
  /// ... (log2 m levels of even/odd splits).
  SmallVector<Value> phases(Value v) {
    SmallVector<Value> level = {v};
    for (int64_t ways = 1; ways < w.m; ways *= 2) {
      // level[q] holds lanes q mod ways; its halves q and q + ways.
      SmallVector<Value> next(2 * ways);
      for (int64_t q = 0; q < ways; ++q) {
        auto split = vector::DeinterleaveOp::create(b, loc, level[q]);
        next[q] = split.getRes1();
        next[q + ways] = split.getRes2();
      }
      level = std::move(next);
    }
    return level;
  }

  /// The inverse of `phases`: lane t m + q of the result is values[q][t].
  Value interleave(ArrayRef<Value> values) {
    if (values.size() == 1)
      return values.front();
    SmallVector<Value> even, odd;
    for (auto [q, value] : llvm::enumerate(values))
      (q % 2 ? odd : even).push_back(value);
    return vector::InterleaveOp::create(b, loc, interleave(even),
                                        interleave(odd));
  }

  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value sum(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }

  /// sum_k row[k] * in[k]: terms of +1 first (the start, then additions),
  /// others as FMAs with a splat, -1 last as subtractions; zeros skipped.
  Value combine(ArrayRef<Value> in, const double *row) {
    SmallVector<std::pair<double, Value>> terms;
    for (auto [k, value] : llvm::enumerate(in))
      if (row[k] != 0)
        terms.push_back({row[k], value});
    auto rank = [](double c) { return c == 1 ? 0 : c == -1 ? 2 : 1; };
    llvm::stable_sort(terms, [&](const auto &x, const auto &y) {
      return rank(x.first) < rank(y.first);
    });
    Value acc;
    for (auto [c, value] : terms) {
      if (c == 1)
        acc = acc ? sum(acc, value) : value;
      else if (c == -1)
        acc = acc ? sub(acc, value) : arith::NegFOp::create(b, loc, value);
      else if (acc)
        acc = vector::FMAOp::create(b, loc, splat(c, value.getType()), value,
                                    acc);
      else
        acc = arith::MulFOp::create(b, loc, splat(c, value.getType()), value);
    }
    return acc;
  }

  Value splat(double c, Type type) {
    auto vectorType = cast<VectorType>(type);
    return arith::ConstantOp::create(
        b, loc, vectorType,
        DenseElementsAttr::get(vectorType, static_cast<float>(c)));
  }

  OpBuilder &b;
  Location loc;
  bool parallel;
  const dlas::WinogradMatrices &w;
};

/// Whether `op` is a zero fill of `buffer`.
bool isZeroFill(Operation *op, Value buffer) {
  Value value = op ? dlas::fillValue(op, buffer) : Value();
  auto constant = value ? value.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto attr = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  return attr && attr.getValue().isZero();
}

struct WinogradTransforms
    : public dlas::impl::WinogradTransformsBase<WinogradTransforms> {
  using WinogradTransformsBase::WinogradTransformsBase;

  /// The input transform: X [N, C, m TH + 2, m TW + 2] (f32, bf16 or
  /// f16), V [(m+2)^2, N, C, TH, TW] f32, m = 2 or 4 (from V's shape). A
  /// zero fill of V just before it is folded (the transform stores instead
  /// of adding).
  bool rewriteInput(linalg::GenericOp op) {
    Value x = op.getDpsInputOperand(0)->get();
    Value v = op.getDpsInitOperand(0)->get();
    auto xType = dyn_cast<MemRefType>(x.getType());
    auto vType = dyn_cast<MemRefType>(v.getType());
    if (!dlas::hasContiguousRows(x.getType(), 4) ||
        !dlas::hasContiguousRows(v.getType(), 5) ||
        !vType.getElementType().isF32() ||
        !dlas::isKernelInputType(xType.getElementType()))
      return false;
    const dlas::WinogradMatrices *w =
        dlas::winogradMatricesForElements(vType.getDimSize(0));
    if (!w || xType.getDimSize(2) != w->m * vType.getDimSize(3) + 2 ||
        xType.getDimSize(3) != w->m * vType.getDimSize(4) + 2)
      return false;
    FailureOr<Operation *> fill = dlas::soleUserBefore(v, op);
    bool folded = succeeded(fill) && isZeroFill(*fill, v);
    OpBuilder b(op);
    TransformEmitter(b, op.getLoc(), parallel, *w)
        .inputTransform(x, v, /*accumulate=*/!folded);
    if (folded)
      (*fill)->erase();
    op.erase();
    return true;
  }

  /// Where the output transform's result starts and goes: the init
  /// (`initOp`: a per-channel bias broadcast or a zero fill of the result
  /// buffer, folded: the transform starts from the bias or zero instead
  /// of loading) and the one elementwise op after it (`epilogueOp`, the
  /// activation, applied before the store, into its output).
  struct OutputFusion {
    Operation *initOp = nullptr;
    Value bias;
    linalg::GenericOp epilogueOp;
  };

  /// A bias broadcast [F] -> [N, F, H, W] or a zero fill of `result`.
  static bool isFoldableInit(Operation *op, Value result, Value &bias) {
    if (isZeroFill(op, result))
      return true;
    auto broadcast = dyn_cast<linalg::BroadcastOp>(op);
    if (!broadcast || broadcast.getInit() != result ||
        broadcast.getDimensions() != ArrayRef<int64_t>{0, 2, 3})
      return false;
    auto biasType = dyn_cast<MemRefType>(broadcast.getInput().getType());
    if (!biasType || !biasType.getElementType().isF32())
      return false;
    bias = broadcast.getInput();
    return true;
  }

  /// An elementwise generic reading only `result` (directly or through
  /// one reshape of it: identity maps, its own output f32, contiguous and
  /// of the 4-D shape it reads, a body of vectorizable arith/math that does
  /// not read its output), after `op` in its block, the last reader of
  /// `result`.
  static linalg::GenericOp fusibleEpilogue(Value result, Operation *op) {
    linalg::GenericOp found;
    for (Operation *user : result.getUsers()) {
      if (user == op || user->isBeforeInBlock(op) ||
          isa<memref::DeallocOp>(user))
        continue;
      Value read = result;
      if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user) &&
          user->hasOneUse()) {
        read = user->getResult(0);
        user = *user->getUsers().begin();
      }
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (found || !generic || generic->getBlock() != op->getBlock() ||
          !generic.hasPureBufferSemantics() || generic.getNumDpsInputs() != 1 ||
          generic.getNumDpsInits() != 1 ||
          generic.getDpsInputOperand(0)->get() != read)
        return nullptr;
      Value out = generic.getDpsInitOperand(0)->get();
      auto readType = cast<MemRefType>(read.getType());
      auto outType = dyn_cast<MemRefType>(out.getType());
      if (out == read || !outType || !dlas::hasContiguousRows(outType, 4) ||
          readType.getShape() != outType.getShape() ||
          !outType.getElementType().isF32() ||
          !llvm::all_of(generic.getIndexingMapsArray(),
                        [](AffineMap map) { return map.isIdentity(); }) ||
          !dlas::isVectorizableElementwiseBody(generic.getBody()) ||
          !generic.getBody()->getArgument(1).use_empty())
        return nullptr;
      found = generic;
    }
    return found;
  }

  /// The fusion partners of output transform `op` whose result `y` is an
  /// allocation or a reshape of one.
  static OutputFusion outputFusion(linalg::GenericOp op, Value y) {
    OutputFusion fusion;
    auto expand = y.getDefiningOp<memref::ExpandShapeOp>();
    Value result = expand ? expand.getSrc() : y;
    if (!result.getDefiningOp<memref::AllocOp>())
      return fusion;
    FailureOr<Operation *> before = dlas::soleUserBefore(result, op, expand);
    if (succeeded(before) && *before &&
        isFoldableInit(*before, result, fusion.bias))
      fusion.initOp = *before;
    fusion.epilogueOp = fusibleEpilogue(result, op);
    // The transform writes the epilogue's output where it stands: that
    // buffer must exist there (an allocation after it moves up).
    if (fusion.epilogueOp) {
      Operation *def =
          fusion.epilogueOp.getDpsInitOperand(0)->get().getDefiningOp();
      if (def && def->getBlock() == op->getBlock() &&
          op->isBeforeInBlock(def) &&
          !(isa<memref::AllocOp>(def) && def->getNumOperands() == 0))
        fusion.epilogueOp = nullptr;
    }
    return fusion;
  }

  /// The output transform: M [(m+2)^2, N, F, TH, TW] f32, Y [N, F, TH, m,
  /// TW, m] f32 (added into), m = 2 or 4 (from M's shape).
  bool rewriteOutput(linalg::GenericOp op) {
    Value m = op.getDpsInputOperand(0)->get();
    Value y = op.getDpsInitOperand(0)->get();
    auto mType = dyn_cast<MemRefType>(m.getType());
    auto yType = dyn_cast<MemRefType>(y.getType());
    if (!dlas::hasContiguousRows(m.getType(), 5) ||
        !dlas::hasContiguousRows(y.getType(), 6) ||
        !mType.getElementType().isF32() || !yType.getElementType().isF32())
      return false;
    const dlas::WinogradMatrices *w =
        dlas::winogradMatricesForElements(mType.getDimSize(0));
    if (!w || yType.getDimSize(3) != w->m || yType.getDimSize(5) != w->m ||
        yType.getDimSize(2) != mType.getDimSize(3) ||
        yType.getDimSize(4) != mType.getDimSize(4))
      return false;
    // Rows of m TW: column m j + q of row m i + p is y[n][f][i][p][m j + q].
    SmallVector<ReassociationIndices> rowsOfY = {{0}, {1}, {2}, {3}, {4, 5}};
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(yType, rowsOfY))
      return false;
    OutputFusion fusion = outputFusion(op, y);
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value rows;
    if (fusion.epilogueOp) {
      // The activation's output, [N, F, m TH, m TW] as [N, F, TH, m, m TW].
      Value out = fusion.epilogueOp.getDpsInitOperand(0)->get();
      if (Operation *def = out.getDefiningOp();
          def && def->getBlock() == op->getBlock() && op->isBeforeInBlock(def))
        def->moveBefore(op);
      auto outType = cast<MemRefType>(out.getType());
      rows = memref::ExpandShapeOp::create(
          b, loc,
          SmallVector<int64_t>{outType.getDimSize(0), outType.getDimSize(1),
                               outType.getDimSize(2) / w->m, w->m,
                               outType.getDimSize(3)},
          out, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4}});
    } else {
      rows = memref::CollapseShapeOp::create(b, loc, y, rowsOfY);
    }
    TransformEmitter(b, loc, parallel, *w)
        .outputTransform(m, rows, /*loadInit=*/!fusion.initOp, fusion.bias,
                         fusion.epilogueOp ? fusion.epilogueOp.getBody()
                                           : nullptr);
    if (fusion.epilogueOp)
      fusion.epilogueOp.erase();
    if (fusion.initOp)
      fusion.initOp->erase();
    op.erase();
    return true;
  }

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> inputs, outputs;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
          op.getNumDpsInits() != 1)
        return;
      if (op->hasAttr(dlas::kWinogradInputAttrName))
        inputs.push_back(op);
      else if (op->hasAttr(dlas::kWinogradOutputAttrName))
        outputs.push_back(op);
    });
    for (linalg::GenericOp op : inputs)
      numInput += rewriteInput(op);
    for (linalg::GenericOp op : outputs)
      numOutput += rewriteOutput(op);
  }
};

} // namespace
