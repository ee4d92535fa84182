//===- GPUTarget.h - GPU targets and the GPU cost model ---------*- C++ -*-===//
#ifndef DLAS_CODEGEN_GPU_GPUTARGET_H
#define DLAS_CODEGEN_GPU_GPUTARGET_H

#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace mlir::dlas {

/// True when `name` names a GPU target (`cuda...` or `rocm...`), which the
/// tools route to the GPU pipeline.
bool isGPUTargetName(llvm::StringRef name);

/// The names resolveGPUTarget knows, for messages.
std::string knownGPUTargetNames();

/// What the pipeline builder needs of a known GPU target before any IR
/// exists: its API (`cuda`, `rocm`), chip and device-code features.
struct GPUTargetName {
  std::string api, chip, features;
};
std::optional<GPUTargetName> lookupGPUTargetName(llvm::StringRef name);

/// The `#dlas.gpu_target` for `api:chip` (`cuda:sm_90`), or an error that
/// lists the known names.
llvm::Expected<GPUTargetAttr> resolveGPUTarget(MLIRContext *context,
                                               llvm::StringRef name);

/// The module's `#dlas.gpu_target`, or failure after an error naming
/// `pass` that says how to set one.
FailureOr<GPUTargetAttr> requireGPUTarget(ModuleOp module,
                                          llvm::StringRef pass);

/// The loop order a GPU kernel runs `op` in (position -> `op`'s loop):
/// its parallel loops in the order of the dimensions of its first output
/// (so that the innermost, which consecutive threads walk, is contiguous in
/// memory), then any other parallel loop, then the reductions. In a
/// reduction, a parallel loop that the first input does not index (a
/// convolution's output channel) moves next to the innermost, so that a
/// register tile over the two innermost reuses each input element.
SmallVector<unsigned> gpuLoopOrder(linalg::LinalgOp op);

/// True for an op with reductions whose one f32 output is their sum: its
/// payload yields `arith.addf` of the output's value and something not
/// using it. Such an op can add partial sums to its output in any order
/// (atomically), which is what a split reduction does.
bool isSumReduction(linalg::LinalgOp op);

/// Which of a kernel's reduction loops (`reductions`: their extents in the
/// kernel's order) a split reduction cuts into chunks: the longest (the
/// first of equals; a convolution's channels, not its window).
int64_t splitReductionLoop(ArrayRef<int64_t> reductions);

/// A contraction seen as a batch of GEMMs, C[b, m, n] += X[b, m, k] *
/// Y[b, k, n], for tensor-core kernels: `x` and `y` are its two inputs
/// (any affine indexing: a convolution's input is read as an implicit
/// im2col matrix), and each GEMM dimension is a list of the op's loops
/// (row-major): `batch` loops index both inputs and the output, `m` loops
/// only `x` and the output, `n` loops only `y` and the output, `k` loops
/// are the reductions. `ranges` are the op's static loop ranges.
struct GemmView {
  OpOperand *x = nullptr, *y = nullptr;
  /// The inputs' element type (f16, bf16; f32 for tf32).
  Type element;
  SmallVector<unsigned> batch, m, n, k;
  SmallVector<int64_t> ranges;
  int64_t extent(ArrayRef<unsigned> loops) const {
    int64_t product = 1;
    for (unsigned loop : loops)
      product *= ranges[loop];
    return product;
  }
};

/// `op` as a GemmView when tensor cores can compute it: static shapes, one
/// f32 output that every parallel loop indexes (through a projected
/// permutation), two inputs of one 16-bit float type (f16 or bf16; with
/// `allowF32`, also f32, for tf32), and a payload that adds the product of
/// the two (widened) inputs to the output; none otherwise.
std::optional<GemmView> tensorCoreGemmView(linalg::LinalgOp op,
                                           bool allowF32 = false);

/// The matrix instructions an `mma` kernel multiplies its tiles with:
/// NVIDIA's WMMA (gpu.subgroup_mma_*, f16; sm_70 and newer) and mma.sync
/// (nvvm.mma.sync m16n8k16 for bf16, m16n8k8 for f32 as tf32; sm_80 and
/// newer), AMD's MFMA (amdgpu.mfma 16x16x16, f16 and bf16; gfx90a and the
/// gfx94x/gfx950 chips). `fma` is none of them: a `staged` kernel's
/// threads multiply their own register tiles with FMAs.
enum class MatrixInstruction { wmma, mmaSync, mfma, fma };

/// The instruction an `mma` kernel uses on `target` for inputs of
/// `element` type; none where the target has no matrix instruction for it.
std::optional<MatrixInstruction> chooseMatrixInstruction(GPUTargetAttr target,
                                                         Type element);

/// The GPU cost model's decision for `op` on `target` (see
/// dlas-gpu-select-lowering), before per-op overrides.
/// `tensorCores`: auto (the size rule), always (any size) or never.
/// `allowTF32`: f32 contractions may become tf32 mma kernels.
/// `staged`: contractions that take no mma kernel become staged kernels:
/// auto (when their blocks fill the processors), always (any size) or
/// never.
GPUKernelAttr chooseGPUKernel(linalg::LinalgOp op, GPUTargetAttr target,
                              llvm::StringRef tensorCores = "auto",
                              bool allowTF32 = false,
                              llvm::StringRef staged = "auto");

/// Whether a decision of `kind` computes a block tile of a GEMM (mma,
/// staged: its `outputs` are the block's), not a thread's outputs.
inline bool isBlockTileKernel(GPUKernelKind kind) {
  return kind == GPUKernelKind::mma || kind == GPUKernelKind::staged;
}

/// The op attributes that override the decision's thread counts and its
/// register tile (outputs per thread).
inline constexpr llvm::StringLiteral kGPUThreadsAttrName = "dlas.gpu_threads";
inline constexpr llvm::StringLiteral kGPUOutputsAttrName = "dlas.gpu_outputs";

/// The function attribute in which dlas-gpu-map-kernels lists the layer of
/// each kernel it made, in program order, for dlas-gpu-name-kernels.
inline constexpr llvm::StringLiteral kGPUKernelNamesAttrName =
    "dlas.gpu_kernel_names";

/// A kernel's name for a decision key ("linalg.conv_2d_nchw_fchw_1x64x...")
/// that PTX and HSA accept as a symbol: the op's name without its dialect,
/// every character outside [A-Za-z0-9_] an underscore.
std::string gpuKernelName(llvm::StringRef key);

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_GPU_GPUTARGET_H
