//===- DepthwiseMicrokernel.cpp - the dlas-depthwise-microkernel pass -----===//
//
// Lowers NCHW depthwise convolutions on memrefs to register-blocked vector
// stencils, folding the padding buffer, the output initialization and the
// elementwise epilogue around them into the kernel (see Passes.td).
//
// Depthwise convolutions do KH*KW multiply-adds per output element and
// read every input element about once per output element: they are bound
// by memory traffic, not by FMAs. What pays is therefore touching each
// byte once: no padded copy of the input, no separate pass to initialize
// the output and none to apply the activation after it.
//
//===----------------------------------------------------------------------===//
#include "Decisions.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Codegen/TuningFile.h"
#include "DLAS/Transforms/Buffers.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_DEPTHWISEMICROKERNEL
#include "DLAS/Codegen/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;
using mlir::dlas::DecisionSource;
using mlir::dlas::MicrokernelAttr;
using mlir::dlas::MicrokernelKind;
using mlir::dlas::StencilPins;
using mlir::dlas::TargetShape;
using mlir::dlas::TensorFusion;
using mlir::dlas::TuningTable;

namespace {

/// Name of the per-op parameter override.
constexpr llvm::StringLiteral kTilesAttrName = "dlas.depthwise_tiles";
/// The tuning file's section for this pass.
constexpr llvm::StringLiteral kTuningSection = "depthwise";

/// The padding buffer folded into the kernel: taps outside the unpadded
/// input read `value`.
struct Padding {
  Value value; // null: the input is read as it is
  int64_t top = 0, left = 0;
  SmallVector<Operation *> deadOps; // fill, copy, subview, deallocs, alloc
};

/// An operand of a fused epilogue: the output itself, a tensor of the
/// output's shape (read at the stored position) or a per-channel vector.
enum class EpilogueOperand { Output, Full, PerChannel };

/// How a window is reduced: a depthwise convolution's multiply-add, or a
/// pooling's max or sum (whose second operand only gives the window shape).
enum class Reduction { MulAdd, Max, Sum };

/// A depthwise convolution y[n,c,oh,ow] += x[n,c,oh*sH+kh*dH-top,
/// ow*sW+kw*dW-left] * w[c,kh,kw] (or a pooling, y = max/sum(y, x[...])),
/// with the neighbours folded into it.
struct Depthwise {
  linalg::LinalgOp op;
  Reduction reduction = Reduction::MulAdd;
  Value input, filter, output; // input: unpadded when padding is folded
  int64_t N, C, H, W, OH, OW, KH, KW, sH, sW, dH, dW;
  Padding pad;
  /// A linalg.fill or a per-channel linalg.broadcast of the output.
  Operation *init = nullptr;
  SmallVector<linalg::GenericOp> epilogues;
  /// The buffer each epilogue reads the running value from (the output,
  /// or an earlier out-of-place epilogue's result).
  SmallVector<Value> epilogueSources;
  /// Where the kernel stores: the output, or the last out-of-place
  /// epilogue's buffer (int8's dequantize into f32, requantize into i8).
  Value result;
};

struct Tiles {
  int64_t rows, vectors;
};

/// The reduction of a window op's body: out + x * w (either order),
/// max(out, x) or out + x with x the first input.
std::optional<Reduction> windowReduction(linalg::LinalgOp op) {
  if (dlas::isMultiplyAccumulate(op))
    return Reduction::MulAdd;
  Block &body = op->getRegion(0).front();
  if (body.getOperations().size() != 2 || body.getNumArguments() != 3)
    return std::nullopt;
  Operation *combine = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != &body)
    return std::nullopt;
  Value x = body.getArgument(0), out = body.getArgument(2);
  bool operands = (combine->getOperand(0) == out && combine->getOperand(1) == x) ||
                  (combine->getOperand(0) == x && combine->getOperand(1) == out);
  if (!operands)
    return std::nullopt;
  if (isa<arith::MaximumFOp, arith::MaxSIOp>(combine))
    return Reduction::Max;
  if (isa<arith::AddFOp>(combine))
    return Reduction::Sum;
  return std::nullopt;
}

StringRef kernelName(Reduction reduction) {
  switch (reduction) {
  case Reduction::MulAdd:
    return "depthwise";
  case Reduction::Max:
    return "max-pool";
  case Reduction::Sum:
    return "sum-pool";
  }
  llvm_unreachable("unknown reduction");
}

/// The element types the stencils take: a convolution's operands in f32,
/// bf16, f16 or i8 with the kernels' accumulator (f32, or i32 for i8) as
/// its output; a max pool in f32 or i8 (exact in either) or in bf16/f16
/// (compared in f32: exact too); a sum in f32.
bool stencilTypesSupported(Reduction reduction, Type x, Type w, Type out) {
  switch (reduction) {
  case Reduction::MulAdd:
    return dlas::isKernelInputType(x) && w == x &&
           out == dlas::kernelAccumulatorType(x);
  case Reduction::Max:
    return out == x && (x.isF32() || x.isInteger(8) || x.isBF16() || x.isF16());
  case Reduction::Sum:
    return out == x && x.isF32();
  }
  llvm_unreachable("unknown reduction");
}

/// Whether the kernel can read `source` (its input, or the source of its
/// padded input's copy): a 4-d memref whose rows are unit-stride (the
/// kernel loads spans of a row, masked at its ends; the outer dims may be
/// strided, as a view of a padded-width convolution result is). A tensor
/// (a decision on tensors) always is.
bool hasUnitStrideRows(Value source) {
  if (auto tensor = dyn_cast<RankedTensorType>(source.getType()))
    return tensor.getRank() == 4;
  auto type = dyn_cast<MemRefType>(source.getType());
  return type && type.getRank() == 4 && type.isLastDimUnitStride();
}

/// Matches `op` as a depthwise convolution or NCHW pooling (without its
/// neighbours); on failure `why` says what does not fit.
FailureOr<Depthwise> matchDepthwise(linalg::LinalgOp op, std::string &why) {
  auto reject = [&](StringRef reason) {
    why = reason.str();
    return failure();
  };
  if (!(op.hasPureBufferSemantics() || op.hasPureTensorSemantics()) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 6)
    return reject("not a two-input, one-output, 6-loop op");
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type || !type.hasStaticShape())
      return reject("needs static operands");
  }
  std::optional<Reduction> reduction = windowReduction(op);
  if (!reduction)
    return reject("body is not out + lhs * rhs, max(out, x) or out + x");
  OpOperand *out = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  if (outMap.getNumResults() != 4 || !outMap.isProjectedPermutation())
    return reject("output is not y[n, c, oh, ow]");
  if (!dlas::isContiguous(out->get()))
    return reject("output is not contiguous");
  unsigned n = outMap.getDimPosition(0), c = outMap.getDimPosition(1),
           oh = outMap.getDimPosition(2), ow = outMap.getDimPosition(3);

  OpOperand *x = op.getDpsInputOperand(0), *w = op.getDpsInputOperand(1);
  if (op.getMatchingIndexingMap(x).getNumResults() != 4)
    std::swap(x, w);
  AffineMap xMap = op.getMatchingIndexingMap(x);
  AffineMap wMap = op.getMatchingIndexingMap(w);
  bool pooling = *reduction != Reduction::MulAdd;
  // A pooling reads its input as the first block argument.
  if (pooling && x->getOperandNumber() != 0)
    return reject("pooling body does not reduce its input");
  if (xMap.getNumResults() != 4 ||
      wMap.getNumResults() != (pooling ? 2u : 3u) ||
      !wMap.isProjectedPermutation())
    return reject(pooling ? "operands are not x[n, c, h, w] and a window[kh, kw]"
                          : "operands are not x[n, c, h, w] and w[c, kh, kw]");
  if (!pooling && wMap.getDimPosition(0) != c)
    return reject("filter is not indexed by the output channel (a channel "
                  "multiplier or a grouped convolution)");
  unsigned kh = wMap.getDimPosition(pooling ? 0 : 1),
           kw = wMap.getDimPosition(pooling ? 1 : 2);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d : {n, c, oh, ow})
    if (iterators[d] != utils::IteratorType::parallel)
      return reject("output dims are not parallel");
  if (iterators[kh] != utils::IteratorType::reduction ||
      iterators[kw] != utils::IteratorType::reduction)
    return reject("filter window dims are not reductions");
  auto isDim = [](AffineExpr e, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  };
  if (!isDim(xMap.getResult(0), n) || !isDim(xMap.getResult(1), c))
    return reject("input is not read at the output's batch and channel");
  auto window = [&](AffineExpr e, unsigned outDim, unsigned tapDim,
                    int64_t &stride, int64_t &dilation) {
    auto terms = dlas::linearTerms(e, op.getNumLoops());
    if (!terms || terms->size() != 2 || !terms->count(outDim) ||
        !terms->count(tapDim))
      return false;
    stride = terms->lookup(outDim);
    dilation = terms->lookup(tapDim);
    return stride > 0 && dilation > 0;
  };
  Depthwise d;
  if (!window(xMap.getResult(2), oh, kh, d.sH, d.dH) ||
      !window(xMap.getResult(3), ow, kw, d.sW, d.dW))
    return reject("input rows/columns are not oh*s + kh*d, ow*s + kw*d");
  if (!hasUnitStrideRows(x->get()))
    return reject("input rows are not unit-stride");
  if (!stencilTypesSupported(*reduction, getElementTypeOrSelf(x->get()),
                             getElementTypeOrSelf(w->get()),
                             getElementTypeOrSelf(out->get())))
    return reject("element types not supported: f32 (or bf16, f16 into f32, "
                  "i8 into i32) for a convolution, f32, bf16, f16 or i8 for "
                  "a max pool, f32 for a sum");
  d.op = op;
  d.reduction = *reduction;
  d.input = x->get();
  d.filter = w->get();
  d.output = out->get();
  d.result = d.output;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  d.N = ranges[n];
  d.C = ranges[c];
  d.OH = ranges[oh];
  d.OW = ranges[ow];
  d.KH = ranges[kh];
  d.KW = ranges[kw];
  ArrayRef<int64_t> xShape = cast<ShapedType>(d.input.getType()).getShape();
  d.H = xShape[2];
  d.W = xShape[3];
  return d;
}

/// Folds `alloc; fill(p); copy(x, subview(alloc))` feeding the convolution
/// (how tensor.pad bufferizes): the kernel reads x and uses p outside it.
void foldPadding(Depthwise &d, const dlas::BoundPartners &partners) {
  auto alloc = d.input.getDefiningOp<memref::AllocOp>();
  Block *block = d.op->getBlock();
  if (!alloc || alloc->getBlock() != block)
    return;
  Operation *fill = nullptr;
  memref::SubViewOp view;
  SmallVector<Operation *> deallocs;
  Value padValue;
  for (Operation *user : alloc->getUsers()) {
    if (user == d.op)
      continue;
    if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
      continue;
    }
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      if (view)
        return;
      view = subview;
      continue;
    }
    Value value = dlas::fillValue(user, alloc);
    if (fill || !value || !partners.accepts(user, dlas::FusionRole::pad))
      return;
    fill = user;
    padValue = value;
  }
  if (!fill || !view || !view->hasOneUse() || view->getBlock() != block)
    return;
  Operation *copy = *view->getUsers().begin();
  Value source;
  if (auto c = dyn_cast<linalg::CopyOp>(copy); c && c.getOutputs()[0] == view)
    source = c.getInputs()[0];
  else if (auto c = dyn_cast<memref::CopyOp>(copy); c && c.getTarget() == view)
    source = c.getSource();
  if (!source || !hasUnitStrideRows(source) ||
      getElementTypeOrSelf(source) != getElementTypeOrSelf(d.input) ||
      copy->getBlock() != block || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(d.op))
    return;
  if (!llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return;
  // The kernel reads `source` where the copy did: refuse when something
  // writes it in between (a buffer reused for the output's init fill) or
  // the kernel itself writes it.
  llvm::SmallPtrSet<Value, 8> sourceAliases =
      dlas::aliasesOf(dlas::rootBuffer(source));
  if (dlas::writtenBetween(copy, d.op, sourceAliases) ||
      dlas::mayWrite(d.op, sourceAliases))
    return;
  ArrayRef<int64_t> offsets = view.getStaticOffsets();
  ArrayRef<int64_t> sizes = view.getStaticSizes();
  auto sourceShape = cast<MemRefType>(source.getType()).getShape();
  if (offsets.size() != 4 || ShapedType::isDynamic(offsets[2]) ||
      ShapedType::isDynamic(offsets[3]) || offsets[0] != 0 || offsets[1] != 0 ||
      ArrayRef<int64_t>(sizes) != sourceShape)
    return;
  d.pad.value = padValue;
  d.pad.top = offsets[2];
  d.pad.left = offsets[3];
  d.pad.deadOps = {fill, copy, view};
  llvm::append_range(d.pad.deadOps, deallocs);
  d.pad.deadOps.push_back(alloc);
  d.input = source;
  d.H = sourceShape[2];
  d.W = sourceShape[3];
}

/// Folds the one write of the output before the convolution when it is a
/// fill or the broadcast of a per-channel bias.
void foldInit(Depthwise &d, const dlas::BoundPartners &partners) {
  FailureOr<Operation *> writer = dlas::soleUserBefore(d.output, d.op);
  if (failed(writer) || !*writer ||
      !partners.accepts(*writer, dlas::FusionRole::init))
    return;
  Operation *before = *writer;
  if (dlas::fillValue(before, d.output)) {
    d.init = before;
    return;
  }
  auto broadcast = dyn_cast<linalg::BroadcastOp>(before);
  if (broadcast && broadcast.getInit() == d.output &&
      broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3} &&
      isa<MemRefType>(broadcast.getInput().getType()))
    d.init = before;
}

/// How `operand` of epilogue `g`, which reads the running value from
/// `source`, is read, if it can be.
std::optional<EpilogueOperand> classifyEpilogueOperand(const Depthwise &d,
                                                       linalg::GenericOp g,
                                                       OpOperand &operand,
                                                       Value source) {
  AffineMap map = g.getMatchingIndexingMap(&operand);
  Value v = operand.get();
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type)
    return std::nullopt;
  Type element = type.getElementType();
  bool readable = dlas::isEpilogueOperandType(element);
  auto shape = cast<ShapedType>(d.output.getType()).getShape();
  if (map.isIdentity()) {
    if (v == source)
      return EpilogueOperand::Output;
    // Buffers the chain writes hold stale values once it is fused.
    bool written = v == d.output || llvm::any_of(d.epilogues, [&](auto e) {
                     return e.getDpsInitOperand(0)->get() == v;
                   });
    if (readable && !written && dlas::isContiguous(v) &&
        type.getShape() == shape)
      return EpilogueOperand::Full;
    return std::nullopt;
  }
  if (readable && map.getNumResults() == 1 && map.getDimPosition(0) == 1 &&
      type.getRank() == 1 && type.getDimSize(0) == d.C)
    return EpilogueOperand::PerChannel;
  return std::nullopt;
}

/// True when nothing but the stencil, its init, the fused epilogues, `next`
/// and deallocations uses `buffer`, a local allocation: the kernel may then
/// stop writing it.
bool onlyFoldedUsers(const Depthwise &d, Value buffer, linalg::GenericOp next) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return user == d.op || user == d.init || user == next ||
           isa<memref::DeallocOp>(user) ||
           llvm::is_contained(d.epilogues, user);
  });
}

/// True when `g` computes f(running value, ...) elementwise with a body of
/// arith/math ops that have vector forms, reading the running value from
/// `source`: in place, or into a fresh buffer of the same shape (int8's
/// i32 -> f32 dequantize, f32 -> i8 requantize) when nothing else reads
/// `source`.
bool isFusableEpilogue(const Depthwise &d, linalg::GenericOp g, Value source) {
  if (!g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != 4 || g.getNumReductionLoops() != 0 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      !dlas::isVectorizableElementwiseBody(g.getBody()))
    return false;
  bool readsSource = false;
  for (OpOperand *operand : g.getDpsInputOperands()) {
    std::optional<EpilogueOperand> kind =
        classifyEpilogueOperand(d, g, *operand, source);
    if (!kind)
      return false;
    readsSource |= *kind == EpilogueOperand::Output;
  }
  Value out = g.getDpsInitOperand(0)->get();
  bool outReadInBody =
      !g.getBody()->getArgument(g.getNumDpsInputs()).use_empty();
  if (out == source)
    return readsSource || outReadInBody;
  // The kernel writes `out` where the stencil was: nothing before `g` may
  // use it.
  return readsSource && !outReadInBody &&
         dlas::isFreshBufferOf(out, g, d.op->getBlock()) &&
         dlas::isEpilogueResultType(cast<ShapedType>(source.getType()),
                                    cast<ShapedType>(out.getType())) &&
         onlyFoldedUsers(d, source, g);
}

/// Collects the elementwise ops that follow the convolution on its output
/// (in place, or each into a fresh buffer the next one reads), up to the
/// first op that could observe or change memory, and at most `limit` of
/// them.
void foldEpilogues(Depthwise &d, int64_t limit,
                   const dlas::BoundPartners &partners) {
  llvm::SmallPtrSet<Value, 4> freed;
  Value current = d.output;
  for (Operation *op = d.op->getNextNode(); op; op = op->getNextNode()) {
    if (auto g = dyn_cast<linalg::GenericOp>(op)) {
      if (int64_t(d.epilogues.size()) == limit)
        break;
      bool touchesFreed = llvm::any_of(
          g->getOperands(), [&](Value v) { return freed.contains(v); });
      if (touchesFreed || !partners.acceptsEpilogue(g, d.epilogues.size()) ||
          !isFusableEpilogue(d, g, current))
        break;
      d.epilogues.push_back(g);
      d.epilogueSources.push_back(current);
      current = g.getDpsInitOperand(0)->get();
      continue;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (dealloc.getMemref() == current)
        break;
      freed.insert(dealloc.getMemref());
      continue;
    }
    // A fresh buffer aliases nothing the chain reads or writes (an
    // out-of-place epilogue's own result is allocated between the ops).
    if (isa<memref::AllocOp>(op))
      continue;
    if (!isMemoryEffectFree(op))
      break;
  }
  d.result = current;
}

/// The tuning-file key of a stencil:
/// "<conv|max|sum>_c<C>_o<OH>x<OW>_k<KH>x<KW>_s<SH>x<SW>[_d<DH>x<DW>]".
std::string shapeKey(const Depthwise &d) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << (d.reduction == Reduction::MulAdd ? "conv"
         : d.reduction == Reduction::Max  ? "max"
                                          : "sum")
     << "_c" << d.C << "_o" << d.OH << "x" << d.OW << "_k" << d.KH << "x"
     << d.KW << "_s" << d.sH << "x" << d.sW;
  if (d.dH != 1 || d.dW != 1)
    os << "_d" << d.dH << "x" << d.dW;
  return key;
}

/// Rows x vectors from the register budget: taps (at most half the file;
/// the rest become memory-operand broadcasts), the loaded row and the
/// accumulators.
Tiles chooseTiles(const Depthwise &d, const dlas::TargetShape &t) {
  int64_t regs = t.vectorRegisters;
  int64_t taps = std::min(d.KH * d.KW, regs / 2);
  int64_t vectors = 1;
  int64_t rows = (regs - taps - 2 * d.sW * vectors) / vectors;
  rows = std::clamp<int64_t>(rows, 1, 8);
  return {std::min(rows, d.OH), vectors};
}

/// The vector width for `d`'s output rows on a target of `width` lanes:
/// the narrowest power of two of at least 8 lanes that holds a row. A
/// vector covers part of one output row, so a 16-lane vector on a 7-wide
/// row leaves 9 lanes idle; an 8-lane FMA issues at least as fast as a
/// 16-lane one on AVX-512 cores (Zen 4 splits the 16-lane one in two), so
/// the narrower vector does the row in as many instructions and moves
/// half the bytes. x86-64-v4 on Zen 4, NCHW, best of 4 processes:
/// MobileNetV2's 960-channel 7x7 depthwise layer 0.018 -> 0.011 ms at 1
/// thread (oneDNN, blocked, 0.010), ResNet-34's 512-channel 7x7 one
/// 0.010 -> 0.006.
int64_t rowLanes(const Depthwise &d, int64_t width) {
  int64_t lanes = std::max<int64_t>(8, llvm::PowerOf2Ceil(d.OW));
  return std::min(lanes, width);
}

/// Applies `attr`, a `dlas.depthwise_tiles` override of `op` or its
/// tuning-file entry (null: none); fails on a malformed one.
LogicalResult applyOverride(Operation *op, Attribute attr, Tiles &tiles) {
  return dlas::applyIntegerOverrides(
      op, kTilesAttrName, attr,
      {{"rows", &tiles.rows}, {"vectors", &tiles.vectors}});
}

/// True when the input of a stencil on tensors is a constant pad that the
/// kernel can fold (of the spatial dims only: how tensor.pad bufferizes
/// into the fill, subview and copy that foldPadding recognizes).
bool padsSpatialDimsOnly(Value input) {
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getConstantPaddingValue())
    return false;
  for (unsigned d : {0u, 1u})
    if (pad.getStaticLow()[d] != 0 || pad.getStaticHigh()[d] != 0)
      return false;
  return llvm::none_of(pad.getStaticLow(), ShapedType::isDynamic);
}

MicrokernelKind kindOf(Reduction reduction) {
  switch (reduction) {
  case Reduction::MulAdd:
    return MicrokernelKind::depthwise;
  case Reduction::Max:
    return MicrokernelKind::max_pool;
  case Reduction::Sum:
    return MicrokernelKind::sum_pool;
  }
  llvm_unreachable("unknown reduction");
}
} // namespace

LogicalResult dlas::decideStencil(linalg::LinalgOp op, const TargetShape &target,
                                  const TuningTable *tuning,
                                  const StencilPins &pins,
                                  MicrokernelAttr &decision, std::string &why) {
  decision = {};
  FailureOr<Depthwise> match = matchDepthwise(op, why);
  if (failed(match))
    return success();
  Depthwise &d = *match;
  Tiles tiles = chooseTiles(d, target);
  DecisionSource source = DecisionSource::cost_model;
  if (pins.rows > 0 || pins.vectors > 0)
    source = DecisionSource::override;
  if (pins.rows > 0)
    tiles.rows = pins.rows;
  if (pins.vectors > 0)
    tiles.vectors = pins.vectors;
  std::string key = shapeKey(d);
  DictionaryAttr tuned =
      tuning ? tuning->lookup(kTuningSection, key, targetCpu(op)) : nullptr;
  Attribute override = op->getAttr(kTilesAttrName);
  if (failed(applyOverride(op, tuned, tiles)) ||
      failed(applyOverride(op, override, tiles)))
    return failure();
  if (tuned)
    source = DecisionSource::tuning_file;
  if (override)
    source = DecisionSource::override;
  tiles.rows = std::min(tiles.rows, d.OH);
  TensorFusion fusion = tensorFusionPartners(op);
  bool padding = op.hasPureTensorSemantics() && padsSpatialDimsOnly(d.input);
  Type input = getElementTypeOrSelf(d.input.getType());
  Type acc = getElementTypeOrSelf(d.output.getType());
  decision = MicrokernelAttr::get(
      op->getContext(), kindOf(d.reduction), tiles.rows, tiles.vectors,
      /*lines=*/1, rowLanes(d, target.vectorWidth), /*kc=*/0, /*mc=*/0,
      /*packB=*/false,
      input, acc, fusion.init, fusion.epilogues, padding, key, source,
      /*group=*/0, ThreadSplit::automatic);
  return success();
}

namespace {
/// Emits the stencil for one matched convolution before it.
class DepthwiseEmitter {
public:
  DepthwiseEmitter(OpBuilder &b, const Depthwise &d, Tiles tiles,
                   dlas::KernelTypes types, int64_t vectorWidth, bool rowMajor)
      : b(b), loc(d.op->getLoc()), d(d), tiles(tiles), rowMajor(rowMajor),
        vw(vectorWidth), types(types), vecType(types.accVector(vw)),
        int8InF32(isInt8ExactInF32(d, types)),
        halfMaxInF32(d.reduction == Reduction::Max &&
                     (types.input.isBF16() || types.input.isF16())),
        arithmetic(int8InF32 || halfMaxInF32
                       ? dlas::KernelTypes{types.input, b.getF32Type()}
                       : types),
        computeType(arithmetic.accVector(vw)) {}

  /// True when an i8 x i8 -> i32 convolution's sums are computed exactly
  /// in f32: every partial sum of KH*KW products of at most 2^14, plus a
  /// zero init, stays below 2^24. One FMA then replaces vpmulld + vpaddd
  /// (vpmulld is two uops of 10 cycles' latency on Intel cores; on Zen 3
  /// the two measured alike, the layer being bound by its epilogue), and
  /// the input converts once per load, not once per tap.
  static bool isInt8ExactInF32(const Depthwise &d, dlas::KernelTypes types) {
    if (d.reduction != Reduction::MulAdd || !types.input.isInteger(8) ||
        !types.acc.isInteger(32) || !d.init)
      return false;
    // A fill of zero; a broadcast (a per-channel i32 start) has no bound.
    Value start = dlas::fillValue(d.init, d.output);
    if (!start || !matchPattern(start, m_Zero()))
      return false;
    return d.KH * d.KW * 128 * 128 < (int64_t(1) << 24);
  }

  void emit(bool parallel) {
    auto body = [&](Value n, Value c) {
      this->n = n;
      this->c = c;
      emitChannel();
    };
    if (parallel) {
      scf::ParallelOp::create(
          b, loc, ValueRange{index(0), index(0)}, ValueRange{index(d.N), index(d.C)},
          ValueRange{index(1), index(1)},
          [&](OpBuilder &nested, Location, ValueRange ivs) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(nested.getBlock());
            body(ivs[0], ivs[1]);
          });
      return;
    }
    loop(index(0), index(d.N), 1, [&](Value n) {
      loop(index(0), index(d.C), 1, [&](Value c) { body(n, c); });
    });
  }

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value v, int64_t k) {
    return k == 0 ? v : arith::AddIOp::create(b, loc, v, index(k)).getResult();
  }
  Value mul(Value v, int64_t k) {
    return k == 1 ? v : arith::MulIOp::create(b, loc, v, index(k)).getResult();
  }
  /// `v` (input elements, scalar or vector) as the arithmetic's elements.
  Value promote(Value v) { return arithmetic.promote(b, loc, v); }

  Value splat(Value scalar) {
    return vector::BroadcastOp::create(
        b, loc, VectorType::get({vw}, scalar.getType()), scalar);
  }

  void loop(Value lb, Value ub, int64_t step, function_ref<void(Value)> body) {
    dlas::buildForLoop(b, loc, lb, ub, step, body);
  }

  /// Runs `emitOne` for items [0, count): the longest run of `interior`
  /// items as a loop over `item * step`, the others with their constant
  /// item so that their masks and bounds are known at compile time.
  void forEachItem(int64_t count, int64_t step,
                   function_ref<bool(int64_t)> interior,
                   function_ref<void(Value, std::optional<int64_t>)> emitOne) {
    int64_t bestLo = 0, bestHi = 0;
    for (int64_t lo = 0; lo < count;) {
      int64_t hi = lo;
      while (hi < count && interior(hi))
        ++hi;
      if (hi - lo > bestHi - bestLo)
        bestLo = lo, bestHi = hi;
      lo = hi + 1;
    }
    if (bestHi - bestLo < 2)
      bestLo = bestHi = count; // nothing worth a loop
    for (int64_t i = 0; i < bestLo; ++i)
      emitOne(index(i * step), i * step);
    if (bestHi > bestLo)
      loop(index(bestLo * step), index(bestHi * step), step,
           [&](Value iv) { emitOne(iv, std::nullopt); });
    for (int64_t i = bestHi; i < count; ++i)
      if (i >= bestLo)
        emitOne(index(i * step), i * step);
  }

  void emitChannel() {
    taps.clear();
    for (int64_t kh = 0; kh < d.KH && d.reduction == Reduction::MulAdd; ++kh)
      for (int64_t kw = 0; kw < d.KW; ++kw)
        taps.push_back(splat(promote(memref::LoadOp::create(
            b, loc, d.filter, ValueRange{c, index(kh), index(kw)}))));
    initVector = Value();
    if (auto bias = dyn_cast_or_null<linalg::BroadcastOp>(d.init))
      initVector = splat(memref::LoadOp::create(b, loc, bias.getInput(), c));
    else if (d.init)
      initVector = int8InF32 ? arithmetic.zero(b, loc, computeType)
                   : halfMaxInF32
                       ? splat(promote(dlas::fillValue(d.init, d.output)))
                       : splat(dlas::fillValue(d.init, d.output));
    padVector = d.pad.value ? splat(promote(d.pad.value)) : Value();
    zeroVector = arithmetic.zero(b, loc, computeType);
    channelValues.clear();
    for (auto [epilogue, source] : llvm::zip(d.epilogues, d.epilogueSources))
      for (OpOperand *operand :
           linalg::GenericOp(epilogue).getDpsInputOperands())
        if (classifyEpilogueOperand(d, epilogue, *operand, source) ==
            EpilogueOperand::PerChannel)
          channelValues[operand] = splat(
              memref::LoadOp::create(b, loc, operand->get(), c));

    int64_t n0 = tiles.vectors * vw;
    int64_t columnTiles = llvm::divideCeil(d.OW, n0);
    auto interiorTile = [&](int64_t t) {
      int64_t ow0 = t * n0;
      if (ow0 + n0 > d.OW)
        return false;
      for (int64_t kw = 0; kw < d.KW; ++kw) {
        int64_t first = ow0 * d.sW + kw * d.dW - d.pad.left;
        int64_t end = (ow0 + n0) * d.sW + kw * d.dW - d.pad.left;
        if (first < 0 || end > d.W)
          return false;
      }
      return true;
    };
    int64_t rows = tiles.rows;
    int64_t blocks = llvm::divideCeil(d.OH, rows);
    auto interiorBlock = [&](int64_t block) {
      int64_t oh0 = block * rows;
      int64_t first = oh0 * d.sH - d.pad.top;
      int64_t last = (oh0 + rows - 1) * d.sH + (d.KH - 1) * d.dH - d.pad.top;
      return oh0 + rows <= d.OH && first >= 0 && last < d.H;
    };
    auto rowBlocks = [&](function_ref<void(Value, std::optional<int64_t>,
                                          int64_t)> body) {
      forEachItem(blocks, rows, interiorBlock,
                  [&](Value oh0, std::optional<int64_t> oh0Const) {
                    body(oh0, oh0Const,
                         oh0Const ? std::min(rows, d.OH - *oh0Const) : rows);
                  });
    };
    auto columnTilesOf = [&](function_ref<void(Value, std::optional<int64_t>)>
                                 body) {
      forEachItem(columnTiles, n0, interiorTile, body);
    };
    // Row blocks outside, column tiles inside: the plane is read in rows,
    // a stream the hardware prefetcher follows (column strips down the
    // whole plane measured slower on planes that do not fit L2).
    if (rowMajor) {
      rowBlocks([&](Value oh0, std::optional<int64_t> oh0Const,
                    int64_t blockRows) {
        columnTilesOf([&](Value ow0, std::optional<int64_t> ow0Const) {
          emitBlock(oh0, oh0Const, blockRows, ow0, ow0Const);
        });
      });
      return;
    }
    columnTilesOf([&](Value ow0, std::optional<int64_t> ow0Const) {
      rowBlocks([&](Value oh0, std::optional<int64_t> oh0Const,
                    int64_t blockRows) {
        emitBlock(oh0, oh0Const, blockRows, ow0, ow0Const);
      });
    });
  }

  /// Lanes of a vector at output column `ow0Const + offset` that lie
  /// before OW; all of them when the column is not known (interior).
  SmallVector<bool> outputLanes(std::optional<int64_t> ow0Const,
                                int64_t offset) {
    SmallVector<bool> lanes(vw, true);
    if (ow0Const)
      for (int64_t l = 0; l < vw; ++l)
        lanes[l] = *ow0Const + offset + l < d.OW;
    return lanes;
  }

  Value maskConstant(ArrayRef<bool> lanes) {
    auto type = VectorType::get({static_cast<int64_t>(lanes.size())},
                                b.getI1Type());
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, lanes));
  }

  /// A vector of the output (or a same-shaped buffer) at (oh, col).
  Value loadOutputShaped(Value buffer, Value oh, Value col,
                         ArrayRef<bool> lanes) {
    SmallVector<Value> indices{n, c, oh, col};
    auto type = VectorType::get({vw}, getElementTypeOrSelf(buffer));
    if (llvm::all_of(lanes, [](bool l) { return l; }))
      return vector::LoadOp::create(b, loc, type, buffer, indices);
    return vector::MaskedLoadOp::create(b, loc, type, buffer, indices,
                                        maskConstant(lanes),
                                        types.zero(b, loc, type));
  }

  /// The output's current values as the accumulator's start (no folded
  /// init): widened where a bf16/f16 max pool compares in f32.
  Value loadAccumulator(Value oh, Value col, ArrayRef<bool> lanes) {
    Value current = loadOutputShaped(d.output, oh, col, lanes);
    return halfMaxInF32 ? promote(current) : current;
  }

  /// Input row `ih` (known valid), columns for output vector `v` shifted by
  /// tap `kw`: s*vw contiguous values, every s-th taken when strided, as
  /// accumulator elements.
  Value loadTap(Value ih, Value ow0, std::optional<int64_t> ow0Const,
                int64_t v, int64_t kw) {
    Value window = loadWindow(ih, ow0, ow0Const, v, kw);
    return window ? everyStride(window, 0) : padTap();
  }

  /// A tap wholly in the padding.
  Value padTap() { return padVector ? padVector : zeroVector; }

  /// Row `ih`'s sW*vw contiguous input values from tap `kw`'s column for
  /// output vector `v`, in input elements (the pad value outside the
  /// row); null where none lies inside the row.
  Value loadWindow(Value ih, Value ow0, std::optional<int64_t> ow0Const,
                   int64_t v, int64_t kw) {
    int64_t span = d.sW * vw;
    auto spanType = VectorType::get({span}, types.input);
    int64_t shift = kw * d.dW - d.pad.left;
    // (ow0 + v*vw) * sW + shift, as index arithmetic.
    Value col = mul(add(ow0, v * vw), d.sW);
    col = shift >= 0 ? add(col, shift)
                     : arith::SubIOp::create(b, loc, col, index(-shift)).getResult();
    SmallVector<Value> indices{n, c, ih, col};
    SmallVector<bool> lanes(span, true);
    if (ow0Const) {
      int64_t first = (*ow0Const + v * vw) * d.sW + shift;
      for (int64_t l = 0; l < span; ++l)
        lanes[l] = first + l >= 0 && first + l < d.W;
    }
    if (llvm::none_of(lanes, [](bool l) { return l; }))
      return nullptr;
    if (llvm::all_of(lanes, [](bool l) { return l; }))
      return vector::LoadOp::create(b, loc, spanType, d.input, indices);
    if (types.input.getIntOrFloatBitWidth() < 32 && d.W >= span)
      return shiftedRowLoad(ih, (*ow0Const + v * vw) * d.sW + shift, span);
    Value pass = vector::BroadcastOp::create(
        b, loc, spanType,
        d.pad.value ? d.pad.value : types.zero(b, loc, types.input));
    return vector::MaskedLoadOp::create(b, loc, spanType, d.input, indices,
                                        maskConstant(lanes), pass);
  }

  /// Every sW-th value of a window (loadWindow) from `offset`, as
  /// accumulator elements.
  Value everyStride(Value window, int64_t offset) {
    if (d.sW == 1 && offset == 0)
      return promote(window);
    SmallVector<int64_t> every;
    for (int64_t l = 0; l < vw; ++l)
      every.push_back(offset + l * d.sW);
    return promote(vector::ShuffleOp::create(b, loc, window, window, every));
  }

  /// Whether tap `kw`'s values for an output vector lie inside the first
  /// tap's window (with stride 2 and dilation 1: kw 0 and 1), so that a
  /// strided kernel takes them from one load of it: each tap loaded its
  /// own window before (3x3 stride 2: 6 vector loads per output vector
  /// and input row, now 4). A window of all KW taps (sW*vw + (KW-1)*dW
  /// values) would save one load more, but its last tap then draws on
  /// three vectors, and LLVM builds such a shuffle lane by lane.
  bool inFirstWindow(int64_t kw) const { return kw * d.dW < d.sW; }

  /// The `span` input elements of row `ih` from column `first`, a window
  /// that crosses the row's start or end (W >= span): one plain load of
  /// the span inside the row, shuffled into place with the pad value
  /// where the window lies outside. AVX2 has no masked load of bytes or
  /// halves; LLVM inserts such a masked load's lanes one by one.
  Value shiftedRowLoad(Value ih, int64_t first, int64_t span) {
    auto spanType = VectorType::get({span}, types.input);
    int64_t start = std::clamp<int64_t>(first, 0, d.W - span);
    Value row = vector::LoadOp::create(b, loc, spanType, d.input,
                                       ValueRange{n, c, ih, index(start)});
    Value pad = vector::BroadcastOp::create(
        b, loc, spanType,
        d.pad.value ? d.pad.value : types.zero(b, loc, types.input));
    // Shuffle indices: [0, span) the loaded row, [span, 2*span) the pad.
    SmallVector<int64_t> placed;
    for (int64_t l = 0; l < span; ++l) {
      int64_t column = first + l;
      placed.push_back(column >= 0 && column < d.W ? column - start : span);
    }
    return vector::ShuffleOp::create(b, loc, row, pad, placed);
  }

  /// True when `pad` is the reduction's identity: 0 for sums, -inf (or
  /// the least integer) for max.
  bool isIdentityPad(Value pad) {
    APFloat floatValue(0.0f);
    APInt intValue;
    if (d.reduction != Reduction::Max)
      return matchPattern(pad, m_AnyZeroFloat()) || matchPattern(pad, m_Zero());
    if (matchPattern(pad, m_ConstantFloat(&floatValue)))
      return floatValue.isInfinity() && floatValue.isNegative();
    return matchPattern(pad, m_ConstantInt(&intValue)) &&
           intValue.isMinSignedValue();
  }

  /// One block of `blockRows` output rows from `oh0` by one column tile.
  void emitBlock(Value oh0, std::optional<int64_t> oh0Const, int64_t blockRows,
                 Value ow0, std::optional<int64_t> ow0Const) {
    int64_t vectors = tiles.vectors;
    SmallVector<Value> acc(blockRows * vectors);
    SmallVector<Value> ohs, cols;
    for (int64_t r = 0; r < blockRows; ++r)
      ohs.push_back(add(oh0, r));
    for (int64_t v = 0; v < vectors; ++v)
      cols.push_back(add(ow0, v * vw));
    for (int64_t r = 0; r < blockRows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        acc[r * vectors + v] =
            initVector ? initVector
                       : loadAccumulator(ohs[r], cols[v],
                                         outputLanes(ow0Const, v * vw));
    // Rows wholly in the padding change nothing when the pad value is the
    // reduction's identity (0 for sums, -inf or the least integer for
    // max): they are skipped.
    bool identityPad = !d.pad.value || isIdentityPad(d.pad.value);
    int64_t span = (blockRows - 1) * d.sH + (d.KH - 1) * d.dH + 1;
    Value firstRow = mul(oh0, d.sH);
    for (int64_t rel = 0; rel < span; ++rel) {
      // (output row, kh) pairs that read input row oh0*sH - top + rel.
      SmallVector<std::pair<int64_t, int64_t>> users;
      for (int64_t r = 0; r < blockRows; ++r)
        for (int64_t kh = 0; kh < d.KH; ++kh)
          if (r * d.sH + kh * d.dH == rel)
            users.push_back({r, kh});
      if (users.empty())
        continue;
      bool valid = true;
      if (oh0Const) {
        int64_t ih = *oh0Const * d.sH - d.pad.top + rel;
        valid = ih >= 0 && ih < d.H;
      }
      if (!valid && identityPad)
        continue;
      Value ih;
      if (valid) {
        int64_t shift = rel - d.pad.top;
        ih = shift >= 0
                 ? add(firstRow, shift)
                 : arith::SubIOp::create(b, loc, firstRow, index(-shift))
                       .getResult();
      }
      // Strided: the taps inside the first one's window from one load
      // of it per vector (null: in the padding).
      bool shareWindow = valid && d.sW > 1 && d.KW > 1 && inFirstWindow(1);
      SmallVector<Value> windows(vectors);
      if (shareWindow)
        for (int64_t v = 0; v < vectors; ++v)
          windows[v] = loadWindow(ih, ow0, ow0Const, v, /*kw=*/0);
      for (int64_t kw = 0; kw < d.KW; ++kw) {
        for (int64_t v = 0; v < vectors; ++v) {
          Value x;
          if (!valid)
            x = padVector;
          else if (shareWindow && inFirstWindow(kw))
            x = windows[v] ? everyStride(windows[v], kw * d.dW) : padTap();
          else
            x = loadTap(ih, ow0, ow0Const, v, kw);
          for (auto [r, kh] : users) {
            Value &a = acc[r * vectors + v];
            switch (d.reduction) {
            case Reduction::MulAdd:
              a = arithmetic.multiplyAdd(b, loc, x, taps[kh * d.KW + kw], a);
              break;
            case Reduction::Max:
              a = isa<FloatType>(types.acc)
                      ? arith::MaximumFOp::create(b, loc, a, x).getResult()
                      : arith::MaxSIOp::create(b, loc, a, x).getResult();
              break;
            case Reduction::Sum:
              a = arith::AddFOp::create(b, loc, a, x);
              break;
            }
          }
        }
      }
    }
    for (int64_t r = 0; r < blockRows; ++r) {
      for (int64_t v = 0; v < vectors; ++v) {
        SmallVector<bool> lanes = outputLanes(ow0Const, v * vw);
        if (llvm::none_of(lanes, [](bool l) { return l; }))
          continue;
        Value sum = acc[r * vectors + v];
        if (int8InF32) // exact integers: the conversion is too
          sum = arith::FPToSIOp::create(b, loc, vecType, sum);
        if (halfMaxInF32) // the maximum of widened values: exact
          sum = arith::TruncFOp::create(b, loc, vecType, sum);
        Value value = applyEpilogues(sum, ohs[r], cols[v], lanes);
        SmallVector<Value> indices{n, c, ohs[r], cols[v]};
        if (llvm::all_of(lanes, [](bool l) { return l; }))
          vector::StoreOp::create(b, loc, value, d.result, indices);
        else
          vector::MaskedStoreOp::create(b, loc, d.result, indices,
                                        maskConstant(lanes), value);
      }
    }
  }

  /// The epilogues' bodies on vectors: clones of their scalar ops with
  /// vector results; values from outside are broadcast.
  Value applyEpilogues(Value acc, Value oh, Value col, ArrayRef<bool> lanes) {
    for (auto [epilogue, source] : llvm::zip(d.epilogues, d.epilogueSources)) {
      linalg::GenericOp g = epilogue;
      Block *body = g.getBody();
      IRMapping mapping;
      for (OpOperand *operand : g.getDpsInputOperands()) {
        BlockArgument arg = body->getArgument(operand->getOperandNumber());
        switch (*classifyEpilogueOperand(d, g, *operand, source)) {
        case EpilogueOperand::Output:
          mapping.map(arg, acc);
          break;
        case EpilogueOperand::PerChannel:
          mapping.map(arg, channelValues.lookup(operand));
          break;
        case EpilogueOperand::Full:
          mapping.map(arg, loadOutputShaped(operand->get(), oh, col, lanes));
          break;
        }
      }
      mapping.map(body->getArgument(g.getNumDpsInputs()), acc);
      acc = dlas::cloneBodyOnVectors(b, loc, body, mapping, vw);
    }
    return acc;
  }

  OpBuilder &b;
  Location loc;
  const Depthwise &d;
  Tiles tiles;
  bool rowMajor;
  int64_t vw;
  /// Operand and accumulator element types (the decision's).
  dlas::KernelTypes types;
  /// Accumulator (and output) vectors.
  VectorType vecType;
  /// i8 sums computed in f32 (exact): the arithmetic's element types (the
  /// decision's otherwise) and vectors.
  bool int8InF32;
  /// A bf16/f16 max pool compares widened values in f32 (LLVM would widen
  /// and narrow each lane around every maximum, scalarized: GoogLeNet's bf16
  /// max pools took 2.7-3.7 ms each, 45% of the model) and narrows the
  /// maximum once, exactly, before its epilogues.
  bool halfMaxInF32;
  dlas::KernelTypes arithmetic;
  VectorType computeType;
  // Per channel.
  Value n, c, initVector, padVector, zeroVector;
  SmallVector<Value> taps;
  DenseMap<OpOperand *, Value> channelValues;
};

struct DepthwiseMicrokernelPass
    : dlas::impl::DepthwiseMicrokernelBase<DepthwiseMicrokernelPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    return dlas::loadTuningFile(context, tuningFile, tuningTable);
  }

  std::shared_ptr<const dlas::TuningTable> tuningTable;

  void runOnOperation() override {
    FailureOr<dlas::TargetShape> targetOr =
        dlas::targetShapeFor(getOperation(), vectorWidth, vectorRegisters);
    if (failed(targetOr))
      return signalPassFailure();
    dlas::TargetShape target = *targetOr;
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() > 0)
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      std::string why;
      MicrokernelAttr decision;
      StencilPins pins{rows, vectors};
      auto decide = [&](MicrokernelAttr &dec, std::string &reason) {
        return dlas::decideStencil(op, target, tuningTable.get(), pins, dec,
                                   reason);
      };
      if (failed(dlas::decisionFor(
              op, target, decidedOnly,
              [](MicrokernelAttr dec) { return dec.isStencil(); }, decide,
              decision, why)))
        return signalPassFailure();
      FailureOr<Depthwise> match =
          decision ? matchDepthwise(op, why) : FailureOr<Depthwise>(failure());
      if (failed(match)) {
        if (decision && dlas::lookupLowering(op))
          op->emitWarning() << "decided " << decision
                            << " on tensors, but the buffers do not fit the "
                               "kernel: "
                            << why;
        else if (print && op.hasPureBufferSemantics() &&
                 op.getNumLoops() == 6 && !dlas::lookupLowering(op) &&
                 !decidedOnly)
          op->emitRemark() << "no depthwise microkernel: " << why;
        continue;
      }
      Depthwise &d = *match;
      // Decided on tensors: fold what the decision says and no more, and
      // the partners it bound where it bound them.
      bool decided = dlas::lookupLowering(op) != nullptr;
      if (fuse) {
        dlas::BoundPartners partners =
            dlas::boundPartners(op, decided ? decision : MicrokernelAttr());
        if (!decided || decision.getPadding())
          foldPadding(d, partners);
        if (!decided || decision.getInit() != dlas::FusedInit::loaded)
          foldInit(d, partners);
        foldEpilogues(d, decided ? decision.getEpilogues() : -1, partners);
        if (decided) {
          dlas::checkDecidedFusion(
              op, decision,
              !d.init ? dlas::FusedInit::loaded
              : isa<linalg::BroadcastOp>(d.init) ? dlas::FusedInit::broadcast
                                                 : dlas::FusedInit::fill,
              d.epilogues.size());
          if (decision.getPadding() && !d.pad.value)
            op->emitWarning() << "decided to fold the input's padding on "
                                 "tensors; after bufferization the kernel "
                                 "cannot";
        }
      }
      Tiles tiles{decision.getRows(), decision.getVectors()};
      std::string key = decision.getKey().str();
      // An out-of-place epilogue's buffer is allocated after the stencil,
      // where the kernel now writes it.
      if (Operation *alloc = d.result.getDefiningOp();
          alloc && alloc->getBlock() == op->getBlock() &&
          op->isBeforeInBlock(alloc))
        alloc->moveBefore(op);

      OpBuilder b(op);
      DepthwiseEmitter(b, d, tiles, dlas::KernelTypes::of(decision),
                       decision.getLanes(), rowMajor)
          .emit(parallel);
      if (print)
        op->emitRemark() << kernelName(d.reduction) << " microkernel "
                         << tiles.rows << "x"
                         << tiles.vectors * decision.getLanes() << " (rows="
                         << tiles.rows << ", vectors=" << tiles.vectors
                         << dlas::sourceNote(decision) << ") key '" << key
                         << "' for C=" << d.C << " " << d.OH << "x" << d.OW
                         << " " << d.KH << "x" << d.KW << " stride " << d.sH
                         << "x" << d.sW << "; padding "
                         << (d.pad.value ? "folded" : "none") << ", init "
                         << (d.init ? d.init->getName().getStringRef()
                                    : StringRef("loaded"))
                         << ", " << d.epilogues.size() << " epilogue op(s) fused";
      eraseFolded(d);
      ++numKernels;
      numFusedEpilogues += d.epilogues.size();
    }
  }

  /// Erases the convolution and what was folded into its kernel.
  static void eraseFolded(Depthwise &d) {
    for (linalg::GenericOp g : d.epilogues)
      g->erase();
    d.op->erase();
    if (d.init)
      d.init->erase();
    for (Operation *op : d.pad.deadOps)
      op->erase();
  }
};
} // namespace
