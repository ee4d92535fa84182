//===- Microkernels.cpp - shared by the microkernel passes ----------------===//
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Support/ConstantData.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::dlas;

Value dlas::broadcastGroup(OpBuilder &b, Location loc, Value group,
                           int64_t lanes) {
  auto type = cast<VectorType>(group.getType());
  Value word = vector::ExtractOp::create(
      b, loc,
      vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()),
                                group),
      ArrayRef<int64_t>{0});
  return vector::BitCastOp::create(
      b, loc,
      VectorType::get({lanes * type.getNumElements()}, type.getElementType()),
      vector::BroadcastOp::create(
          b, loc, VectorType::get({lanes}, b.getI32Type()), word));
}

std::string dlas::dotProductIntrinsic(Type input, int64_t lanes) {
  return (input.isInteger(8) ? "llvm.x86.avx512.vpdpbusd."
                             : "llvm.x86.avx512bf16.dpbf16ps.") +
         std::to_string(lanes * 32);
}

/// The global that `v` reads through contiguous reshapes (which keep its
/// row-major order), if any.
memref::GetGlobalOp dlas::globalBehindReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
      v = collapse.getSrc();
    else if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
      v = expand.getSrc();
    else
      break;
    // Any element type: the i8 weights of an int8 GEMM too.
    if (!isContiguous(v))
      return nullptr;
  }
  return v.getDefiningOp<memref::GetGlobalOp>();
}

/// The initial value of the constant global `v` reads through reshapes,
/// or null.
Attribute dlas::constantGlobalValue(Value v, SymbolTable &symbols) {
  memref::GetGlobalOp getGlobal = globalBehindReshapes(v);
  if (!getGlobal)
    return {};
  auto global = symbols.lookup<memref::GlobalOp>(getGlobal.getName());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return {};
  return *global.getInitialValue();
}

/// The i8 values of `v` when it reads a constant global of i8 (through
/// reshapes), else empty.
std::vector<int8_t> dlas::constantBytes(Value v, SymbolTable &symbols) {
  Attribute init = constantGlobalValue(v, symbols);
  if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(init);
      dense && dense.getElementType().isInteger(8)) {
    auto values = dense.getValues<int8_t>();
    return std::vector<int8_t>(values.begin(), values.end());
  }
  if (auto resource = dyn_cast_or_null<DenseI8ResourceElementsAttr>(init))
    if (std::optional<ArrayRef<int8_t>> values =
            resourceValues<int8_t>(resource))
      return std::vector<int8_t>(values->begin(), values->end());
  return {};
}

/// A private constant global of `type` holding `value`, at the top of the
/// module.
memref::GlobalOp dlas::createConstantGlobal(OpBuilder &b, SymbolTable &symbols,
                                      Location loc, StringRef name,
                                      MemRefType type, Attribute value) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&symbols.getOp()->getRegion(0).front());
  auto global = memref::GlobalOp::create(b, loc, name,
                                         b.getStringAttr("private"), type,
                                         value, /*constant=*/true,
                                         b.getI64IntegerAttr(64));
  symbols.insert(global);
  return global;
}


bool dlas::isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  // Operands narrower than the accumulator (bf16, f16 into f32; i8 into
  // i32) are widened by an arith.extf or arith.extsi each first.
  int64_t widenings = llvm::count_if(body.getOperations(), [](Operation &o) {
    return isa<arith::ExtFOp, arith::ExtSIOp>(o);
  });
  if (int64_t(body.getOperations().size()) != 3 + widenings)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add))
    return false;
  Value acc = body.getArgument(2);
  Value other = add->getOperand(0) == acc   ? add->getOperand(1)
                : add->getOperand(1) == acc ? add->getOperand(0)
                                            : Value();
  Operation *mul = other ? other.getDefiningOp() : nullptr;
  if (!isa_and_nonnull<arith::MulFOp, arith::MulIOp>(mul) ||
      isa<arith::AddFOp>(add) != isa<arith::MulFOp>(mul))
    return false;
  auto widened = [](Value v) {
    if (Operation *ext = v.getDefiningOp();
        isa_and_nonnull<arith::ExtFOp, arith::ExtSIOp>(ext))
      return ext->getOperand(0);
    return v;
  };
  Value x = body.getArgument(0), y = body.getArgument(1);
  Value lhs = widened(mul->getOperand(0)), rhs = widened(mul->getOperand(1));
  return (lhs == x && rhs == y) || (lhs == y && rhs == x);
}

bool dlas::isKernelInputType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16() || type.isInteger(8);
}

Type dlas::kernelAccumulatorType(Type input) {
  if (input.isInteger(8))
    return IntegerType::get(input.getContext(), 32);
  return Float32Type::get(input.getContext());
}

bool dlas::isContiguous(Value v) {
  if (auto tensor = dyn_cast<RankedTensorType>(v.getType()))
    return tensor.hasStaticShape();
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

bool dlas::isFreshBufferOf(Value out, Operation *writer, Block *block) {
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != block || !alloc.getOperands().empty())
    return false;
  return llvm::none_of(out.getUsers(), [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    return !ancestor || ancestor->isBeforeInBlock(writer);
  });
}

bool dlas::isContiguousF32(Value v) {
  return isContiguous(v) && getElementTypeOrSelf(v).isF32();
}

/// The value `v` reshapes (through collapse/expand_shape), or `v`.
static Value throughReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// True for a linalg.fill or an input-less linalg.map yielding one value.
static bool isFill(Operation *def) {
  if (isa_and_nonnull<linalg::FillOp>(def))
    return true;
  auto map = dyn_cast_or_null<linalg::MapOp>(def);
  return map && map.getInputs().empty() && dlas::fillValue(map, map.getInit());
}

/// How the accumulators of a kernel writing into `init` start; sets
/// `fusion`'s init and pad ops.
static FusedInit initPartners(Value init, TensorFusion &fusion) {
  Operation *def = throughReshapes(init).getDefiningOp();
  // A flat convolution's padded output: the real init is inserted into a
  // filled buffer whose extra columns are computed and dropped. Padded
  // with a constant (bufferized as a fill and a copy of the source into
  // it) is the same. Only a padded fill or broadcast folds: the kernel
  // starts every column from it.
  Value source;
  if (auto insert = dyn_cast_or_null<tensor::InsertSliceOp>(def)) {
    Operation *fill = throughReshapes(insert.getDest()).getDefiningOp();
    if (!isFill(fill))
      return FusedInit::loaded;
    fusion.padOp = fill;
    source = insert.getSource();
  } else if (auto pad = dyn_cast_or_null<tensor::PadOp>(def);
             pad && pad.getConstantPaddingValue()) {
    fusion.padOp = pad;
    source = pad.getSource();
  }
  if (source) {
    TensorFusion inner;
    FusedInit kind = initPartners(source, inner);
    if (kind == FusedInit::loaded || inner.padOp) {
      fusion.padOp = nullptr;
      return FusedInit::loaded;
    }
    fusion.initOp = inner.initOp;
    return kind;
  }
  if (isFill(def)) {
    fusion.initOp = def;
    return FusedInit::fill;
  }
  if (isa_and_nonnull<linalg::BroadcastOp>(def)) {
    fusion.initOp = def;
    return FusedInit::broadcast;
  }
  return FusedInit::loaded;
}

/// The one user of `v`, or null.
static Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

bool dlas::isEpilogueResultType(Type from, Type to) {
  auto source = cast<ShapedType>(from), result = cast<ShapedType>(to);
  if (source.getShape() != result.getShape())
    return false;
  Type in = source.getElementType(), out = result.getElementType();
  // i32 -> f32: the dequantize of an int8 layer's accumulator; f32 -> i8:
  // its requantization for the next int8 layer; f32 -> bf16/f16: a bf16 or
  // f16 layer's rounding to its storage type (the store narrows).
  return in == out || (in.isInteger(32) && out.isF32()) ||
         (in.isF32() && (out.isInteger(8) || out.isBF16() || out.isF16()));
}

bool dlas::isEpilogueOperandType(Type element) {
  return element.isF32() || element.isInteger(32) || element.isInteger(8) ||
         element.isBF16() || element.isF16();
}

/// True when `generic` applies an elementwise body to `current` (read
/// and written with identity maps over its whole shape).
static bool isElementwiseConsumer(linalg::GenericOp generic, Value current) {
  auto type = dyn_cast<RankedTensorType>(current.getType());
  if (!type || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      generic.getNumLoops() != type.getRank() ||
      !dlas::isEpilogueResultType(type, generic.getResult(0).getType()) ||
      !dlas::isVectorizableElementwiseBody(generic.getBody()) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return false;
  return llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
    return input->get() == current &&
           generic.getMatchingIndexingMap(input).isIdentity();
  });
}

/// True when the inputs of `generic` other than `current` exist before
/// `kernel` runs: the kernel's epilogue reads them as it stores. (A sum of
/// two products, add(p1, p2), folds into p2's kernel, not p1's: p2 is
/// computed after p1.)
static bool otherInputsPrecede(linalg::GenericOp generic, Value current,
                               Operation *kernel) {
  return llvm::all_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
    Value v = input->get();
    if (v == current)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def)
      return true;
    Operation *ancestor = kernel->getBlock()->findAncestorOpInBlock(*def);
    return !ancestor || ancestor->isBeforeInBlock(kernel);
  });
}

dlas::TensorFusion dlas::tensorFusionPartners(linalg::LinalgOp op) {
  TensorFusion fusion;
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return fusion;
  fusion.init = initPartners(op.getDpsInitOperand(0)->get(), fusion);
  // The kernel applies epilogues to the buffer its output is a view of
  // (the init's, before any reshape): an epilogue on the result reshaped
  // to another shape reads a view the kernel does not write through. A
  // crop (a flat convolution's padded columns) ends the chain too: the
  // epilogue reads a part of what the kernel writes.
  // "The buffer" is what C views through one collapse_shape, as the kernel
  // pass sees it after bufferization (GemmNeighbours' `full`): a grouped
  // convolution's [N, G, C/G, H, W], not the [N, C, H, W] it expands.
  // The fill of a zero init may sit on the collapsed view (canonicalized
  // above the collapse): the buffer is still the view's source.
  Value init = op.getDpsInitOperand(0)->get();
  if (auto fill = init.getDefiningOp<linalg::FillOp>();
      fill && getElementTypeOrSelf(init.getType()).isInteger(32))
    init = fill.getOutputs()[0];
  if (auto collapse = init.getDefiningOp<tensor::CollapseShapeOp>())
    init = collapse.getSrc();
  Type fullType = init.getType();
  Value current = op->getResult(0);
  while (Operation *user = soleUser(current)) {
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
      current = user->getResult(0);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic ||
        cast<ShapedType>(current.getType()).getShape() !=
            cast<ShapedType>(fullType).getShape() ||
        !isElementwiseConsumer(generic, current) ||
        !otherInputsPrecede(generic, current, op))
      break;
    ++fusion.epilogues;
    fusion.epilogueOps.push_back(generic);
    current = generic.getResult(0);
  }
  return fusion;
}

bool BoundPartners::accepts(Operation *candidate, FusionRole role) const {
  if (!bound)
    return true;
  return candidate && candidate == (role == FusionRole::init ? init : pad);
}

bool BoundPartners::acceptsEpilogue(Operation *candidate,
                                    size_t position) const {
  if (!bound)
    return true;
  return position < epilogues.size() && epilogues[position] == candidate;
}

BoundPartners dlas::boundPartners(Operation *op, MicrokernelAttr decision) {
  BoundPartners partners;
  if (!decision || decision.getGroup() == 0)
    return partners;
  partners.bound = true;
  Operation *scope = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  SmallVector<std::pair<int64_t, Operation *>> epilogues;
  scope->walk([&](Operation *candidate) {
    FusedAttr tag = lookupFused(candidate);
    if (!tag || tag.getGroup() != decision.getGroup())
      return;
    switch (tag.getRole()) {
    case FusionRole::init:
      partners.init = candidate;
      break;
    case FusionRole::pad:
      partners.pad = candidate;
      break;
    case FusionRole::epilogue:
      epilogues.push_back({tag.getPosition(), candidate});
      break;
    }
  });
  llvm::sort(epilogues, llvm::less_first());
  for (auto [position, epilogue] : epilogues)
    partners.epilogues.push_back(epilogue);
  return partners;
}

Value KernelTypes::zero(OpBuilder &b, Location loc, Type type) const {
  return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
}

Value KernelTypes::promote(OpBuilder &b, Location loc, Value v) const {
  if (input == acc)
    return v;
  Type target = acc;
  if (auto vector = dyn_cast<VectorType>(v.getType()))
    target = vector.clone(acc);
  if (isa<FloatType>(acc) && isa<IntegerType>(input))
    return arith::SIToFPOp::create(b, loc, target, v);
  if (isa<FloatType>(acc))
    return arith::ExtFOp::create(b, loc, target, v);
  return arith::ExtSIOp::create(b, loc, target, v);
}

Value KernelTypes::multiplyAdd(OpBuilder &b, Location loc, Value x, Value y,
                               Value accumulator) const {
  if (isa<FloatType>(acc))
    return vector::FMAOp::create(b, loc, x, y, accumulator);
  return arith::AddIOp::create(b, loc, accumulator,
                               arith::MulIOp::create(b, loc, x, y));
}

StringRef dlas::sourceNote(MicrokernelAttr decision) {
  switch (decision.getSource()) {
  case DecisionSource::cost_model:
    return "";
  case DecisionSource::tuning_file:
    return ", tuned";
  case DecisionSource::override:
    return ", overridden";
  }
  llvm_unreachable("unknown decision source");
}

void dlas::checkDecidedFusion(Operation *op, MicrokernelAttr decision,
                              FusedInit init, int64_t epilogues) {
  if (init == decision.getInit() && epilogues == decision.getEpilogues())
    return;
  op->emitWarning() << "decided to fold init '"
                    << stringifyFusedInit(decision.getInit()) << "' and "
                    << decision.getEpilogues()
                    << " epilogue op(s) on tensors; after bufferization "
                       "the kernel folds init '"
                    << stringifyFusedInit(init) << "' and " << epilogues;
}

void dlas::buildForLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                        int64_t step, function_ref<void(Value)> body) {
  Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
  scf::ForOp::create(b, loc, lb, ub, stepValue, ValueRange{},
                     [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                       OpBuilder::InsertionGuard guard(b);
                       b.setInsertionPointToStart(nested.getBlock());
                       body(iv);
                       scf::YieldOp::create(b, loc);
                     });
}

bool dlas::hasContiguousRows(Type type, std::optional<int64_t> rank) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() < 2 ||
      (rank && memref.getRank() != *rank))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

Value dlas::fillValue(Operation *op, Value buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs()[0] == buffer ? fill.getInputs()[0] : Value();
  auto map = dyn_cast<linalg::MapOp>(op);
  if (!map || !map.getInputs().empty() || map.getInit() != buffer)
    return Value();
  Value yielded = map.getMapper().front().getTerminator()->getOperand(0);
  return map->isProperAncestor(yielded.getParentBlock()->getParentOp())
             ? Value()
             : yielded;
}

bool dlas::isVectorizableElementwiseBody(Block *body) {
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() != 0 || op.getNumResults() != 1 ||
        !isa_and_nonnull<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return false;
    if (op.getNumOperands() > 0 && !op.hasTrait<OpTrait::Elementwise>())
      return false;
  }
  return true;
}

Value dlas::cloneBodyOnVectors(OpBuilder &b, Location loc, Block *body,
                               IRMapping &mapping, int64_t width) {
  auto vectorOf = [&](Type t) { return VectorType::get({width}, t); };
  for (Operation &op : body->without_terminator()) {
    for (Value operand : op.getOperands())
      if (!mapping.contains(operand))
        mapping.map(operand, vector::BroadcastOp::create(
                                 b, loc, vectorOf(operand.getType()), operand));
    if (op.getNumOperands() == 0) { // a constant of the body
      Operation *scalar = b.clone(op);
      mapping.map(op.getResult(0),
                  vector::BroadcastOp::create(
                      b, loc, vectorOf(scalar->getResult(0).getType()),
                      scalar->getResult(0)));
      continue;
    }
    Operation *vectorOp = b.clone(op, mapping);
    for (Value result : vectorOp->getResults())
      result.setType(vectorOf(result.getType()));
  }
  return mapping.lookup(body->getTerminator()->getOperand(0));
}

FailureOr<Operation *> dlas::soleUserBefore(Value v, Operation *op,
                                            Operation *skip) {
  Block *block = op->getBlock();
  Operation *found = nullptr;
  for (Operation *user : v.getUsers()) {
    if (user == op || user == skip)
      continue;
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor)
      return failure();
    if (!ancestor->isBeforeInBlock(op))
      continue;
    if (found || ancestor != user)
      return failure();
    found = user;
  }
  return found;
}

Value dlas::openMPMaxThreads(OpBuilder &b, Location loc, Operation *op) {
  constexpr llvm::StringLiteral name = "omp_get_max_threads";
  auto module = op->getParentOfType<ModuleOp>();
  auto fnType = b.getFunctionType({}, {b.getI32Type()});
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    func::FuncOp::create(b, loc, name, fnType).setPrivate();
  }
  Value threads =
      func::CallOp::create(b, loc, name, fnType.getResults(), ValueRange{})
          .getResult(0);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), threads);
}

std::optional<llvm::SmallDenseMap<unsigned, int64_t>>
dlas::linearTerms(AffineExpr e, unsigned numDims) {
  SmallVector<int64_t> flat;
  // [dims..., locals (of mod/div)..., constant]
  if (failed(getFlattenedAffineExpr(e, numDims, 0, &flat)) ||
      flat.size() != numDims + 1 || flat.back() != 0)
    return std::nullopt;
  llvm::SmallDenseMap<unsigned, int64_t> terms;
  for (unsigned d = 0; d < numDims; ++d)
    if (flat[d] != 0)
      terms[d] = flat[d];
  return terms;
}

void dlas::parallelChunks(OpBuilder &b, Location loc, Operation *anchor,
                          int64_t count, int64_t parts,
                          function_ref<void(Value, Value)> body) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value total = index(count);
  Value split = parts > 0 ? index(parts) : openMPMaxThreads(b, loc, anchor);
  Value size = arith::MaxUIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, total, split), index(1));
  Value chunks = arith::CeilDivUIOp::create(b, loc, total, size);
  scf::ParallelOp::create(
      b, loc, ValueRange{index(0)}, ValueRange{chunks}, ValueRange{index(1)},
      [&](OpBuilder &nested, Location, ValueRange ivs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nested.getBlock());
        Value first = arith::MulIOp::create(b, loc, ivs[0], size);
        Value end = arith::MinUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, first, size), total);
        body(first, end);
      });
}

Value dlas::mulAddGeneric(OpBuilder &b, Location loc, Value input,
                          Value filter, Value init, ArrayRef<AffineMap> maps,
                          unsigned reductions, StringRef tag) {
  using utils::IteratorType;
  unsigned loops = maps.front().getNumDims();
  SmallVector<IteratorType> iterators(loops - reductions,
                                      IteratorType::parallel);
  iterators.append(reductions, IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{input, filter}, ValueRange{init},
      maps, iterators, [](OpBuilder &nb, Location l, ValueRange args) {
        Type acc = args[2].getType();
        if (isa<FloatType>(acc)) {
          // bf16 operands, an f32 accumulator: widened first.
          auto widen = [&](Value v) {
            return v.getType() == acc ? v
                                      : arith::ExtFOp::create(nb, l, acc, v)
                                            .getResult();
          };
          Value product =
              arith::MulFOp::create(nb, l, widen(args[0]), widen(args[1]));
          linalg::YieldOp::create(
              nb, l, arith::AddFOp::create(nb, l, args[2], product).getResult());
          return;
        }
        // i8 operands, an i32 accumulator: widened by value first.
        Value lhs = arith::ExtSIOp::create(nb, l, acc, args[0]);
        Value rhs = arith::ExtSIOp::create(nb, l, acc, args[1]);
        Value product = arith::MulIOp::create(nb, l, lhs, rhs);
        linalg::YieldOp::create(
            nb, l, arith::AddIOp::create(nb, l, args[2], product).getResult());
      });
  generic->setAttr(tag, b.getUnitAttr());
  return generic.getResult(0);
}
