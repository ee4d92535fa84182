//===- Microkernels.h - shared by the microkernel passes --------*- C++ -*-===//
//
// What the vector microkernel passes (dlas-gemm-microkernel,
// dlas-depthwise-microkernel) share: the target's vector shape and the
// recognition of multiply-accumulate bodies.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_CODEGEN_CPU_MICROKERNELS_H
#define DLAS_CODEGEN_CPU_MICROKERNELS_H

#include "DLAS/Codegen/CPU/CPUTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::dlas {

/// Marks the patch copy of an im2col convolution (set by
/// dlas-select-conv-algorithm, read by dlas-vectorize-row-copies):
/// `array<i64: KH, KW, sh, sw, dh, dw>`.
inline constexpr llvm::StringLiteral kIm2ColAttrName = "dlas.im2col";

/// Mark Winograd F(2x2, 3x3)'s transforms (set by
/// dlas-select-conv-algorithm, read by dlas-winograd-transforms, which
/// turns them into one vector pass each): the input transform
/// `V[t, n, c, i, j] += T[t, k, l] * X[n, c, 2i + k, 2j + l]` and the
/// output transform `Y[n, f, i, p, j, q] += A[p, q, t] * M[t, n, f, i, j]`,
/// T and A the constant transform matrices.
inline constexpr llvm::StringLiteral kWinogradInputAttrName =
    "dlas.winograd_input";
inline constexpr llvm::StringLiteral kWinogradOutputAttrName =
    "dlas.winograd_output";

/// True when `op`'s body is `out + lhs * rhs` (in any operand order).
bool isMultiplyAccumulate(linalg::LinalgOp op);

/// The operand types the kernels load and widen to f32 accumulators:
/// f32, bf16 and f16.
bool isKernelInputType(Type type);
/// The accumulator the kernels use for `input`: i32 for i8, else f32.
Type kernelAccumulatorType(Type input);
/// True when an elementwise epilogue may turn a kernel's output of type
/// `from` into `to` (shaped types of the same shape): the same type, an
/// i32 accumulator into f32 (int8's dequantize), f32 into i8 (its
/// requantization) or into bf16/f16 (a narrow layer's rounding).
bool isEpilogueResultType(Type from, Type to);
/// True for the element types a fused epilogue may read from other
/// buffers: f32, the i32 zero points of int8's dequantize, and i8, bf16
/// and f16 tensors that its body widens (dlas-fuse-conversions).
bool isEpilogueOperandType(Type element);

/// `group`, a vector of 32 bits (4 i8 or 2 bf16 values), repeated over
/// `lanes` 32-bit lanes: one 32-bit broadcast, the operand vpdpbusd and
/// vdpbf16ps take for one row (GEMM) or output column (blocked kernel).
Value broadcastGroup(OpBuilder &b, Location loc, Value group, int64_t lanes);

/// The dot product on 32-bit groups of `input` at `lanes` 32-bit lanes:
/// vpdpbusd for i8, vdpbf16ps for bf16 (LLVM intrinsic names).
std::string dotProductIntrinsic(Type input, int64_t lanes);

/// The global that `v` reads through contiguous reshapes (which keep its
/// row-major order), if any.
memref::GetGlobalOp globalBehindReshapes(Value v);

/// The initial value of the constant global `v` reads through reshapes,
/// or null.
Attribute constantGlobalValue(Value v, SymbolTable &symbols);

/// The i8 values of `v` when it reads a constant global of i8 (through
/// reshapes), in row-major order; else empty.
std::vector<int8_t> constantBytes(Value v, SymbolTable &symbols);

/// A private constant global of `type` holding `value`, at the top of the
/// module (64-byte aligned: the kernels load it in whole vectors).
memref::GlobalOp createConstantGlobal(OpBuilder &b, SymbolTable &symbols,
                                      Location loc, StringRef name,
                                      MemRefType type, Attribute value);

/// True for a static, contiguous (identity layout) memref or a static
/// tensor, of any element type.
bool isContiguous(Value v);

/// True when `out` is a static allocation in `block` that nothing before
/// `writer` (an out-of-place epilogue in `block`) uses: a kernel that folds
/// `writer` may write `out` where the kernel was instead.
bool isFreshBufferOf(Value out, Operation *writer, Block *block);

/// True for a static, contiguous (identity layout) f32 memref, or a
/// static f32 tensor (which bufferization gives an identity layout: the
/// kernel pass checks the buffer again).
bool isContiguousF32(Value v);

/// The element types a kernel builder is parametric in: its operands'
/// (`input`) and its accumulators' (`acc`, also the output's). The kernels
/// load operands as `input` vectors, widen them with `promote` and
/// accumulate with `multiplyAdd`; f32/f32 makes both trivial. The
/// mixed-precision formats (bf16/f16 with f32, i8 with i32) slot in here,
/// not as new kernels.
struct KernelTypes {
  Type input, acc;

  static KernelTypes of(MicrokernelAttr decision) {
    return {decision.getInput(), decision.getAcc()};
  }
  int64_t inputBytes() const { return input.getIntOrFloatBitWidth() / 8; }
  VectorType inputVector(int64_t lanes) const {
    return VectorType::get({lanes}, input);
  }
  VectorType accVector(int64_t lanes) const {
    return VectorType::get({lanes}, acc);
  }
  /// A zero of `type` (a scalar or vector of input or acc elements).
  Value zero(OpBuilder &b, Location loc, Type type) const;
  /// `v` (input elements, scalar or vector) as acc elements (integers
  /// into floats by value: i8 sums kept exactly in f32).
  Value promote(OpBuilder &b, Location loc, Value v) const;
  /// acc + x * y on acc vectors.
  Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y,
                    Value accumulator) const;
};

/// A kernel's fusion partners as decided on tensors: how its accumulators
/// start and how many elementwise ops after it the kernel applies, and the
/// ops that do it.
struct TensorFusion {
  FusedInit init = FusedInit::loaded;
  int64_t epilogues = 0;
  /// The fill or broadcast the accumulators start from (null: loaded).
  Operation *initOp = nullptr;
  /// A padded output's fill or tensor.pad, whose padding the kernel's
  /// init replaces (null: not padded).
  Operation *padOp = nullptr;
  /// The elementwise generics, in order.
  SmallVector<Operation *> epilogueOps;
};

/// The fusion partners of `op` (a contraction or stencil on tensors with
/// one init): the init is the fill or broadcast its output operand comes
/// from (through reshapes, or inserted into a filled padded buffer), the
/// epilogues the chain of single-use elementwise generics over its result
/// (through reshapes back to the init's shape). Nothing for an op on
/// memrefs.
TensorFusion tensorFusionPartners(linalg::LinalgOp op);

/// The partners dlas-cpu-select-lowering bound to `decision` (made for
/// `op`) with `dlas.fused` tags, as the kernel passes see them after
/// bufferization.
struct BoundPartners {
  /// False when the decision binds none (group 0: written by hand or made
  /// on memrefs); the kernel then locates its partners itself.
  bool bound = false;
  Operation *init = nullptr;
  Operation *pad = nullptr;
  SmallVector<Operation *> epilogues;

  /// True when the kernel may fold `candidate` as its `role` partner: the
  /// bound op when the decision binds partners, anything otherwise.
  bool accepts(Operation *candidate, FusionRole role) const;
  /// True when `candidate` may be the epilogue at `position`.
  bool acceptsEpilogue(Operation *candidate, size_t position) const;
};

/// The ops in `op`'s function tagged with `decision`'s fusion group.
BoundPartners boundPartners(Operation *op, MicrokernelAttr decision);

/// What a kernel's `print` remark adds for where its tile came from:
/// ", tuned" (the tuning file), ", overridden" (an option or the op's
/// attribute), nothing for the cost model.
StringRef sourceNote(MicrokernelAttr decision);

/// Warns at `op` when the kernel found fewer fusion partners after
/// bufferization (`init`, `epilogues`) than `decision` decided on tensors:
/// the code is right, but slower than decided.
void checkDecidedFusion(Operation *op, MicrokernelAttr decision,
                        FusedInit init, int64_t epilogues);

/// An scf.for from `lb` to `ub` by `step` whose body `body` builds with `b`
/// (left after the loop afterwards).
void buildForLoop(OpBuilder &b, Location loc, Value lb, Value ub, int64_t step,
                  function_ref<void(Value)> body);

/// The one user of `v` (other than `op` and `skip`) in `op`'s block before
/// `op`: null when there is none, failure when there are several or one
/// nested in another op (whose effect on `v` a caller cannot fold).
FailureOr<Operation *> soleUserBefore(Value v, Operation *op,
                                      Operation *skip = nullptr);

/// Whether `type` is a buffer of rank `rank` (at least 2) with static shape
/// whose rows are contiguous (vector loads need a unit innermost stride).
bool hasContiguousRows(Type type, std::optional<int64_t> rank = 4);

/// The value every element of `buffer` is set to by `op` (a linalg.fill or
/// an input-less linalg.map yielding a value from outside), or null.
Value fillValue(Operation *op, Value buffer);

/// True when `body` (of an elementwise linalg op) holds only arith/math
/// ops with a vector form, so that `cloneBodyOnVectors` can apply it.
bool isVectorizableElementwiseBody(Block *body);

/// Applies `body` to vectors of `width` lanes: each op is cloned with
/// vector results; `mapping` must map the block arguments the body uses,
/// values from outside are broadcast. Returns the yielded vector.
Value cloneBodyOnVectors(OpBuilder &b, Location loc, Block *body,
                         IRMapping &mapping, int64_t width);

/// `e` as a sum of coefficient * dim with no constant term (the nonzero
/// coefficients by dim position); nullopt for anything else.
std::optional<llvm::SmallDenseMap<unsigned, int64_t>>
linearTerms(AffineExpr e, unsigned numDims);

/// True for an op that dlas-blocked-layout or dlas-grouped-conv-packing
/// built for dlas-blocked-conv-microkernel (tagged dlas.blocked_conv,
/// dlas.blocked_depthwise or dlas.gspc): a kernel pass that cannot take it
/// always says why.
inline bool isBlockedKernelForm(Operation *op) {
  return op->hasAttr("dlas.blocked_conv") ||
         op->hasAttr("dlas.blocked_depthwise") || op->hasAttr("dlas.gspc");
}

/// A linalg.generic accumulating input * filter (f32, or i8 widened into an
/// i32 init) into `init` through
/// `maps`, its last `reductions` loops reductions, tagged `tag`: the
/// blocked convolutions that dlas-blocked-layout and
/// dlas-grouped-conv-packing build for dlas-blocked-conv-microkernel.
Value mulAddGeneric(OpBuilder &b, Location loc, Value input, Value filter,
                    Value init, ArrayRef<AffineMap> maps, unsigned reductions,
                    StringRef tag);

/// omp_get_max_threads() as an index, declared in `op`'s module on first
/// use.
Value openMPMaxThreads(OpBuilder &b, Location loc, Operation *op);

/// Splits [0, count) into `parts` contiguous chunks (0: one per OpenMP
/// thread, asked at run time) and runs `body(first, end)` for each in an
/// scf.parallel, which the CPU pipeline hands to OpenMP. One chunk per
/// thread keeps each thread's share of the output, and of the operand it
/// splits, to itself (8 fixed chunks measured 11-16% slower at 2 threads
/// on ResNet-50's 14x14 GEMMs). `anchor` is any op of the module.
void parallelChunks(OpBuilder &b, Location loc, Operation *anchor,
                    int64_t count, int64_t parts,
                    function_ref<void(Value first, Value end)> body);

/// Fewer column tiles than this run in parallel over row panels instead.
inline constexpr int64_t kMinParallelTiles = 8;

/// How dlas-gemm-microkernel's threads share a GEMM of `sizeM` x `sizeN`
/// (per batch) with `m0`-row panels and `tileColumns`-column tiles:
/// `requested` where its side has two chunks to give, else by the tile and
/// panel counts: rows when the tiles are few (fewer than 8, or with B
/// packed per k block fewer than 16 and at most half the panels), tiles
/// otherwise. Never `automatic`. dlas-tune reads it as a decision's
/// default split.
ThreadSplit gemmThreadSplit(ThreadSplit requested, int64_t sizeM, int64_t sizeN,
                            int64_t m0, int64_t tileColumns, bool packB);

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_CPU_MICROKERNELS_H
