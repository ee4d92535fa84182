//===- GemmNeighbours.cpp - what dlas-gemm-microkernel folds ---------------===//
//
// Finds the neighbours of a contraction that its microkernel folds: the one
// write that initializes C (a fill, a bias broadcast, a flat convolution's
// padded init) and the chain of elementwise ops that consumes C, so that C
// is written once, from registers, with its final values.
//
//===----------------------------------------------------------------------===//
#include "GemmContraction.h"
#include "DLAS/Codegen/CPU/Microkernels.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::dlas::gemm;
using mlir::dlas::FusedInit;
using mlir::dlas::MicrokernelAttr;
using mlir::dlas::isContiguousF32;

namespace {

/// How the kernel can read `buffer`, indexed by `map` over the dims of
/// `nb.full`, at its tile's positions; nullopt when it cannot.
std::optional<TileRead> asTileRead(const Gemm &g, const Neighbours &nb,
                                   Value buffer, AffineMap map) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  // f32 operands, the i32 zero points of int8's dequantize, and i8, bf16
  // and f16 tensors that the epilogue's body widens (dlas-fuse-conversions).
  Type element = type ? type.getElementType() : Type();
  if (!type || !type.hasStaticShape() ||
      !dlas::isEpilogueOperandType(element) || !type.getLayout().isIdentity())
    return std::nullopt;
  MLIRContext *ctx = buffer.getContext();
  AffineMap cMap = g.op.getMatchingIndexingMap(g.c);
  auto fullType = cast<MemRefType>(nb.full.getType());
  // A dim of full that is a whole dim of C is that dim's loop dim.
  SmallVector<AffineExpr> loopDimOf(fullType.getRank(),
                                    getAffineConstantExpr(0, ctx));
  SmallVector<bool> standsAlone(fullType.getRank(), false);
  for (auto [pos, group] : llvm::enumerate(nb.groups)) {
    if (group.size() != 1)
      continue;
    loopDimOf[group[0]] = getAffineDimExpr(cMap.getDimPosition(pos), ctx);
    standsAlone[group[0]] = true;
  }
  bool readsCollapsedDim = false;
  for (unsigned d = 0; d < standsAlone.size(); ++d)
    readsCollapsedDim |= !standsAlone[d] && map.isFunctionOfDim(d);
  TileRead read{buffer, AffineMap(), false, Value()};
  if (!readsCollapsedDim) {
    read.map = map.replaceDimsAndSymbols(loopDimOf, {}, g.ranges.size(), 0);
  } else if (map.isIdentity() && type.getShape() == fullType.getShape()) {
    read.map = cMap;
    read.collapse = true;
  } else {
    return std::nullopt;
  }
  for (auto [i, e] : llvm::enumerate(read.map.getResults())) {
    if (auto constant = dyn_cast<AffineConstantExpr>(e);
        constant && constant.getValue() == 0)
      continue; // a broadcast unit dim
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || (dim.getPosition() == g.n &&
                 i + 1 != read.map.getNumResults()))
      return std::nullopt;
  }
  return read;
}

/// The buffer `v` is a view of (through view-like ops), or `v`.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The value or tile read `writer` (a fill or a broadcast of `buffer`)
/// sets every element of `buffer` to, as the kernel's init; false if none.
/// A broadcast counts only when `buffer`'s dims are full's (full itself,
/// or the unpadded output of a flat convolution).
bool setInitFrom(const Gemm &g, Neighbours &nb, DominanceInfo &dom,
                 Operation *writer, Value buffer, bool indexedLikeFull) {
  if (Value value = dlas::fillValue(writer, buffer)) {
    nb.initValue = value;
    return true;
  }
  auto broadcast = dyn_cast<linalg::BroadcastOp>(writer);
  if (!indexedLikeFull || !broadcast || broadcast.getInit() != buffer ||
      !dom.properlyDominates(broadcast.getInput(), g.op))
    return false;
  std::optional<TileRead> read = asTileRead(
      g, nb, broadcast.getInput(),
      broadcast.getMatchingIndexingMap(broadcast.getDpsInputOperand(0)));
  if (!read || read->collapse)
    return false;
  nb.initRead = read;
  return true;
}

/// setInitFrom for a write of the buffer that `expand` views with full's
/// dims (a grouped convolution's bias broadcast over [N, C, H, W] read as
/// [N, G, C/G, H, W]): the broadcast's input is expanded the same way, in a
/// view made before the contraction.
bool setInitThroughExpand(const Gemm &g, Neighbours &nb, DominanceInfo &dom,
                          Operation *writer, memref::ExpandShapeOp expand) {
  Value source = expand.getSrc();
  if (Value value = dlas::fillValue(writer, source)) {
    nb.initValue = value;
    return true;
  }
  auto broadcast = dyn_cast<linalg::BroadcastOp>(writer);
  if (!broadcast || broadcast.getInit() != source ||
      !dom.properlyDominates(broadcast.getInput(), g.op))
    return false;
  Value input = broadcast.getInput();
  auto inputType = dyn_cast<MemRefType>(input.getType());
  if (!inputType || !inputType.hasStaticShape() ||
      !inputType.getLayout().isIdentity())
    return false;
  MemRefType expandedType = expand.getResultType();
  MLIRContext *ctx = expand.getContext();
  ArrayRef<int64_t> added = broadcast.getDimensions();
  SmallVector<ReassociationIndices> sourceGroups =
      expand.getReassociationIndices();
  // Each dim the input keeps becomes the dims its source dim expands into.
  SmallVector<ReassociationIndices> inputGroups;
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> reads;
  for (int64_t d = 0, e = sourceGroups.size(); d < e; ++d) {
    if (llvm::is_contained(added, d))
      continue;
    ReassociationIndices group;
    for (int64_t xd : sourceGroups[d]) {
      group.push_back(shape.size());
      shape.push_back(expandedType.getDimSize(xd));
      reads.push_back(getAffineDimExpr(xd, ctx));
    }
    inputGroups.push_back(group);
  }
  OpBuilder b(g.op);
  Value expanded = input;
  if (shape.size() != (size_t)inputType.getRank())
    expanded = memref::ExpandShapeOp::create(
        b, g.op->getLoc(), MemRefType::get(shape, inputType.getElementType()),
        input, inputGroups);
  std::optional<TileRead> read = asTileRead(
      g, nb, expanded,
      AffineMap::get(expandedType.getRank(), 0, reads, ctx));
  if (!read || read->collapse) {
    if (expanded != input)
      expanded.getDefiningOp()->erase();
    return false;
  }
  nb.initRead = read;
  return true;
}

/// True for a generic that overwrites all of `buffer` without reading it.
bool overwrites(Operation *op, Value buffer) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getDpsInitOperand(0)->get() != buffer ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return false;
  return llvm::none_of(generic.getDpsInputs(),
                       [&](Value v) { return v == buffer; }) &&
         generic.getBody()->getArgument(generic.getNumDpsInputs()).use_empty();
}

/// A flat convolution's init: full, the output padded to Wp columns, is
/// filled with a constant, then X (the real init: a fill or a per-channel
/// bias broadcast) is copied into the subview of its first OW columns. The
/// other columns are computed and dropped, never read (full is only read
/// through that subview afterwards), so the kernel starts every column from
/// X's value: the fill, the copy and, when X is overwritten before anyone
/// else reads it, X's own write go away.
bool findPaddedInit(const Gemm &g, Neighbours &nb, DominanceInfo &dom,
                    const dlas::BoundPartners &partners) {
  Block *block = g.op->getBlock();
  Operation *fill = nullptr;
  memref::SubViewOp view;
  for (Operation *user : nb.full.getUsers()) {
    if (user == g.op || user == nb.cView || isa<memref::DeallocOp>(user))
      continue;
    if (auto subview = dyn_cast<memref::SubViewOp>(user); subview && !view) {
      view = subview;
      continue;
    }
    if (fill || !dlas::fillValue(user, nb.full) ||
        !partners.accepts(user, dlas::FusionRole::pad))
      return false;
    fill = user;
  }
  if (!fill || !view || fill->getBlock() != block ||
      !fill->isBeforeInBlock(g.op) ||
      !llvm::all_of(view.getStaticOffsets(), [](int64_t o) { return o == 0; }) ||
      !llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return false;
  // The copy of X into the view, the view's one use before the contraction.
  linalg::CopyOp copy;
  for (Operation *user : view->getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor)
      return false;
    if (!ancestor->isBeforeInBlock(g.op))
      continue;
    auto c = dyn_cast<linalg::CopyOp>(user);
    if (copy || !c || c.getOutputs()[0] != view.getResult() ||
        !fill->isBeforeInBlock(c))
      return false;
    copy = c;
  }
  if (!copy)
    return false;
  // X's one write before the copy, which sets the init. A grouped
  // convolution copies X through an expand_shape that splits its channels
  // into groups: the write is then of the allocation it expands.
  Value x = copy.getInputs()[0];
  auto expand = x.getDefiningOp<memref::ExpandShapeOp>();
  if (expand && !x.hasOneUse())
    return false;
  Value written = expand ? expand.getSrc() : x;
  Operation *writer = nullptr;
  Operation *nextUse = nullptr;
  for (Operation *user : written.getUsers()) {
    if (user == copy || user == expand)
      continue;
    if (user->getBlock() != block)
      return false;
    if (user->isBeforeInBlock(copy)) {
      if (writer)
        return false;
      writer = user;
    } else if (!nextUse || user->isBeforeInBlock(nextUse)) {
      nextUse = user;
    }
  }
  auto xType = dyn_cast<MemRefType>(x.getType());
  if (!writer || !partners.accepts(writer, dlas::FusionRole::init) || !xType ||
      xType.getRank() != cast<MemRefType>(nb.full.getType()).getRank())
    return false;
  bool initSet = expand ? setInitThroughExpand(g, nb, dom, writer, expand)
                        : setInitFrom(g, nb, dom, writer, x,
                                      /*indexedLikeFull=*/true);
  if (!initSet)
    return false;
  nb.init = fill;
  nb.initDead.push_back(copy);
  // X's write is dead too when X is next overwritten without being read.
  if (written.getDefiningOp<memref::AllocOp>() && nextUse &&
      overwrites(nextUse, written))
    nb.initDead.push_back(writer);
  return true;
}

/// The one write of full (or, a fill, of C's view of it) before the
/// contraction, when it is a fill or a broadcast the kernel can start its
/// accumulators from; or a flat convolution's padded init.
void findInit(const Gemm &g, Neighbours &nb, DominanceInfo &dom,
              const dlas::BoundPartners &partners) {
  if (nb.cView && findPaddedInit(g, nb, dom, partners))
    return;
  // A bound padded init is the padded one or none.
  if (partners.bound && partners.pad)
    return;
  FailureOr<Operation *> fullWriter =
      dlas::soleUserBefore(nb.full, g.op, nb.cView);
  FailureOr<Operation *> viewWriter =
      nb.cView ? dlas::soleUserBefore(nb.cView, g.op)
               : FailureOr<Operation *>(static_cast<Operation *>(nullptr));
  if (failed(fullWriter) || failed(viewWriter) ||
      (*fullWriter && *viewWriter))
    return;
  // A grouped convolution's full is an expand_shape of the allocation its
  // init writes ([N, C, H, W] viewed as [N, G, C/G, H, W]).
  auto expand = nb.full.getDefiningOp<memref::ExpandShapeOp>();
  if (!*fullWriter && !*viewWriter && expand &&
      expand.getSrc().getDefiningOp<memref::AllocOp>()) {
    FailureOr<Operation *> sourceWriter =
        dlas::soleUserBefore(expand.getSrc(), g.op, expand);
    if (succeeded(sourceWriter) && *sourceWriter &&
        partners.accepts(*sourceWriter, dlas::FusionRole::init) &&
        setInitThroughExpand(g, nb, dom, *sourceWriter, expand))
      nb.init = *sourceWriter;
    return;
  }
  Operation *writer = *fullWriter ? *fullWriter : *viewWriter;
  if (writer && partners.accepts(writer, dlas::FusionRole::init) &&
      setInitFrom(g, nb, dom, writer,
                            *fullWriter ? nb.full : Value(nb.cView),
                            /*indexedLikeFull=*/*fullWriter != nullptr))
    nb.init = writer;
}

/// True when nothing but the contraction, its view, its init, the fused
/// epilogues and deallocations uses `buffer`, a local allocation: its
/// contents may then stop being written.
bool onlyFoldedUsers(const Gemm &g, const Neighbours &nb, Value buffer,
                     linalg::GenericOp next) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return false;
  if (buffer == nb.full && nb.cView &&
      llvm::any_of(nb.cView->getUsers(), [&](Operation *user) {
        return user != g.op && user != nb.init;
      }))
    return false;
  for (Operation *user : buffer.getUsers()) {
    if (user == g.op || user == nb.cView || user == nb.init ||
        user == next || isa<memref::DeallocOp>(user) ||
        llvm::is_contained(nb.epilogues, user))
      continue;
    return false;
  }
  return true;
}

/// Adds `generic` to the epilogue chain whose running value is in `current`
/// when it is elementwise over full's shape, reads `current` and otherwise
/// only buffers the kernel can read; updates `current` to where it writes.
bool addEpilogue(const Gemm &g, Neighbours &nb, linalg::GenericOp generic,
                 Value &current, const llvm::SmallPtrSetImpl<Value> &freed,
                 DominanceInfo &dom) {
  auto fullType = cast<MemRefType>(nb.full.getType());
  if (!generic.hasPureBufferSemantics() || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      generic.getNumLoops() != fullType.getRank() ||
      !dlas::isVectorizableElementwiseBody(generic.getBody()))
    return false;
  OpOperand *init = generic.getDpsInitOperand(0);
  Value out = init->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!generic.getMatchingIndexingMap(init).isIdentity() || !outType ||
      !outType.getLayout().isIdentity() ||
      !dlas::isEpilogueResultType(
          fullType.clone(getElementTypeOrSelf(current.getType())), outType) ||
      freed.contains(out))
    return false;
  SmallVector<std::optional<TileRead>> reads;
  bool readsCurrent = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value v = input->get();
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (v == current && map.isIdentity()) {
      reads.push_back(std::nullopt);
      readsCurrent = true;
      continue;
    }
    // Buffers written by the chain hold stale values once it is fused.
    Value root = rootBuffer(v);
    if (root == current || root == nb.full || freed.contains(v) ||
        llvm::any_of(nb.epilogues, [&](linalg::GenericOp e) {
          return e.getDpsInitOperand(0)->get() == root;
        }))
      return false;
    std::optional<TileRead> read = asTileRead(g, nb, v, map);
    if (!read || !dom.properlyDominates(v, g.op))
      return false;
    reads.push_back(read);
  }
  bool inPlace = out == current;
  if (inPlace) {
    if (!readsCurrent &&
        generic.getBody()->getArgument(generic.getNumDpsInputs()).use_empty())
      return false;
  } else {
    // The kernel writes `out` where the contraction was: nothing before
    // `generic` may use it (the contraction's own operands included).
    if (!readsCurrent ||
        !dlas::isFreshBufferOf(out, generic, g.op->getBlock()) ||
        !generic.getBody()
             ->getArgument(generic.getNumDpsInputs())
             .use_empty() ||
        !onlyFoldedUsers(g, nb, current, generic))
      return false;
  }
  nb.epilogues.push_back(generic);
  nb.epilogueReads.push_back(std::move(reads));
  current = out;
  return true;
}

} // namespace

/// C's init and the chain of elementwise ops that follows the contraction
/// up to the first op that could observe or change memory. With partners
/// bound on tensors, only those: the walk checks that the buffers still let
/// the kernel fold them.
Neighbours dlas::gemm::findNeighbours(const Gemm &g, DominanceInfo &dom,
                                      MicrokernelAttr decision) {
  dlas::BoundPartners partners = dlas::boundPartners(g.op, decision);
  Neighbours nb;
  Value c = g.c->get();
  nb.full = c;
  if (auto view = c.getDefiningOp<memref::CollapseShapeOp>();
      view && dlas::isContiguous(view.getSrc())) {
    nb.full = view.getSrc();
    nb.cView = view;
    nb.groups = view.getReassociationIndices();
  } else {
    for (int64_t d = 0; d < cast<MemRefType>(c.getType()).getRank(); ++d)
      nb.groups.push_back({d});
  }
  nb.result = nb.full;
  if (!decision || decision.getInit() != FusedInit::loaded)
    findInit(g, nb, dom, partners);
  llvm::SmallPtrSet<Value, 4> freed;
  for (Operation *op = g.op->getNextNode(); op; op = op->getNextNode()) {
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (dealloc.getMemref() == nb.result)
        break;
      freed.insert(dealloc.getMemref());
      continue;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (decision && int64_t(nb.epilogues.size()) == decision.getEpilogues())
        break;
      if (!partners.acceptsEpilogue(generic, nb.epilogues.size()) ||
          !addEpilogue(g, nb, generic, nb.result, freed, dom))
        break;
      continue;
    }
    // A fresh buffer aliases nothing the chain reads or writes (an
    // out-of-place epilogue's own result is allocated between the ops).
    if (isa<memref::AllocOp>(op))
      continue;
    if (!isMemoryEffectFree(op))
      break;
  }
  if (decision)
    dlas::checkDecidedFusion(g.op, decision,
                             nb.initRead ? FusedInit::broadcast
                             : nb.init   ? FusedInit::fill
                                         : FusedInit::loaded,
                             nb.epilogues.size());
  return nb;
}

/// Builds, before the contraction, the collapsed views the kernel reads and
/// writes through, and moves the result's allocation above it.
void dlas::gemm::prepareViews(OpBuilder &b, const Gemm &g, Neighbours &nb) {
  Location loc = g.op.getLoc();
  auto viewOf = [&](Value buffer) -> Value {
    if (!nb.cView)
      return buffer;
    return memref::CollapseShapeOp::create(b, loc, buffer, nb.groups);
  };
  if (Operation *alloc = nb.result.getDefiningOp();
      alloc && alloc->getBlock() == g.op->getBlock() &&
      g.op->isBeforeInBlock(alloc))
    alloc->moveBefore(g.op);
  nb.resultView = nb.result == nb.full ? g.c->get() : viewOf(nb.result);
  for (auto &reads : nb.epilogueReads)
    for (std::optional<TileRead> &read : reads)
      if (read)
        read->view = read->collapse ? viewOf(read->buffer) : read->buffer;
  if (nb.initRead)
    nb.initRead->view = nb.initRead->buffer;
}


Value dlas::gemm::applyEpilogues(OpBuilder &b, Location loc,
                                 const Neighbours &nb, Value acc,
                                 int64_t width,
                                 function_ref<Value(const TileRead &)> read) {
  for (auto [epilogue, reads] : llvm::zip(nb.epilogues, nb.epilogueReads)) {
    linalg::GenericOp generic = epilogue;
    Block *body = generic.getBody();
    IRMapping mapping;
    for (auto [arg, tileRead] : llvm::zip(body->getArguments(), reads))
      mapping.map(arg, tileRead ? read(*tileRead) : acc);
    mapping.map(body->getArgument(generic.getNumDpsInputs()), acc);
    acc = dlas::cloneBodyOnVectors(b, loc, body, mapping, width);
  }
  return acc;
}
