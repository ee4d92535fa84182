//===- Pipelines.h - named DLAS pass pipelines ------------------*- C++ -*-===//
#ifndef DLAS_PIPELINES_PIPELINES_H
#define DLAS_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::dlas {

/// Options of `dlas-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("CPU to compile for: host, x86-64-v3, x86-64-v4 or an "
                     "LLVM x86-64 CPU name (znver3, sapphirerapids, ...); "
                     "empty: the module's dlas.target, else host. Put on the "
                     "module by dlas-attach-target; host is resolved here, "
                     "when the pipeline is built"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("+name/-name changes to the target's features "
                     "(dlas-attach-target features)"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> targetVectorBits{
      *this, "target-vector-bits",
      llvm::cl::desc("Vector width the kernels use (0: the widest the "
                     "target has; dlas-attach-target vector-bits)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Lower to the LLVM dialect; false stops after the loop "
                     "stage (scf/cf on memrefs) for inspection"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give public functions _mlir_ciface_ wrappers and a "
                     "dlas.signature attribute (needed by dlas-run)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> profileLayers{
      *this, "profile-layers",
      llvm::cl::desc("Time every layer through dlas_layer_begin/end hooks "
                     "(dlas-instrument-layers; dlas-run --profile)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> foldQDQ{
      *this, "fold-qdq",
      llvm::cl::desc("Run the float layers of QDQ-quantized models on the "
                     "int8 kernels (dlas-fold-qdq)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> hoistQuantize{
      *this, "hoist-quantize",
      llvm::cl::desc("Run max pools, concats and reshapes between int8 "
                     "layers on i8 (dlas-hoist-quantize)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> int8Residuals{
      *this, "int8-residuals",
      llvm::cl::desc("Under precision=int8, residual adds read the i8 "
                     "tensor the next layer quantizes, and int8 blocks "
                     "exchange i8 (dlas-quantize-residuals)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> foldBatchNorm{
      *this, "fold-batch-norm",
      llvm::cl::desc("Fold inference batch norms into the convolutions "
                     "before them (dlas-fold-batch-norm)"),
      llvm::cl::init(true)};
  PassOptions::Option<double> prune{
      *this, "prune",
      llvm::cl::desc("Magnitude-prune every conv/linear weight to this "
                     "fraction of zeros first (dlas-prune; 0: off)"),
      llvm::cl::init(0.0)};
  PassOptions::Option<std::string> pruneStructure{
      *this, "prune-structure",
      llvm::cl::desc("unstructured, block-RxC or N:M (dlas-prune)"),
      llvm::cl::init("unstructured")};
  PassOptions::Option<std::string> sparsify{
      *this, "sparsify",
      llvm::cl::desc("Sparse kernels for sparse constant weights "
                     "(dlas-sparsify policy): auto, always or never"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> sparseAlignTaps{
      *this, "sparse-align-taps",
      llvm::cl::desc("Aligned taps in sparse convolutions "
                     "(convert-sparse-to-loops align-taps): never, auto or "
                     "always"),
      llvm::cl::init("never")};
  PassOptions::Option<std::string> sparseShiftTaps{
      *this, "sparse-shift-taps",
      llvm::cl::desc("Register shifts in sparse convolutions "
                     "(convert-sparse-to-loops shift-taps): auto, always or "
                     "never"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> sparseNarrowTaps{
      *this, "sparse-narrow-taps",
      llvm::cl::desc("Half-width vectors with aligned taps in sparse "
                     "convolutions on maps too narrow for register shifts "
                     "(convert-sparse-to-loops narrow-taps): auto, always or "
                     "never"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> sparseWeightChunkBytes{
      *this, "sparse-weight-chunk-bytes",
      llvm::cl::desc("Stored-weight bytes per chunk of output channels in "
                     "sparse kernels (convert-sparse-to-loops "
                     "weight-chunk-bytes): -1 half the target's L2, 0 never"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> printSparsify{
      *this, "print-sparsify",
      llvm::cl::desc("Print dlas-sparsify's decision for every layer, and "
                     "dlas-prune's achieved sparsity"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Per-layer precision policy (dlas-mixed-precision): "
                     "f32, bf16, fp16, int8 (with calibration) or auto"),
      llvm::cl::init("f32")};
  PassOptions::Option<std::string> keepF32{
      *this, "keep-f32",
      llvm::cl::desc("Layer kinds the precision policy keeps in f32, a "
                     "comma list of first-conv, classifier, softmax or none "
                     "(empty: all three; dlas-mixed-precision keep-f32)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> calibration{
      *this, "calibration",
      llvm::cl::desc("precision=int8: the calibration file (dlas-run "
                     "--calibrate; dlas-mixed-precision calibration)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> calibrate{
      *this, "calibrate",
      llvm::cl::desc("Return every quantizable layer's input from the entry, "
                     "for int8 calibration (dlas-calibration-probes, where "
                     "the precision policy would run)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> printPrecision{
      *this, "print-precision",
      llvm::cl::desc("Print every layer's precision and why "
                     "(dlas-mixed-precision print)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> outlineLayers{
      *this, "outline-layers",
      llvm::cl::desc("Compile every nn layer as a function of its own "
                     "(dlas-outline-layers); keeps LLVM compile time linear"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> dedupeLayers{
      *this, "dedupe-layers",
      llvm::cl::desc("Let layer functions that differ only in their "
                     "weights share one body (dlas-dedupe-layers): each "
                     "kernel is compiled once per shape"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> convAlgorithm{
      *this, "conv-algorithm",
      llvm::cl::desc("Convolution algorithm: auto (cost model), direct, "
                     "flat, gemm, im2col or winograd "
                     "(dlas-select-conv-algorithm)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> gspc{
      *this, "gspc",
      llvm::cl::desc("Grouped convolutions as Grouped Spatial Pack "
                     "Convolutions: auto (cost model), always, never "
                     "(dlas-grouped-conv-packing; never also keeps them out "
                     "of the blocked layout)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> winograd{
      *this, "winograd",
      llvm::cl::desc("When the convolution cost model picks Winograd for "
                     "3x3 stride-1 layers of 64+ channels: auto or on (the "
                     "target's rule), off (dlas-select-conv-algorithm)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> winogradTile{
      *this, "winograd-tile",
      llvm::cl::desc("Winograd's output tile: 2, 4 or 0 for the cost "
                     "model's (dlas-select-conv-algorithm winograd-tile)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> transposedGemm{
      *this, "transposed-gemm",
      llvm::cl::desc("Batch-1 float 1x1/im2col convolutions on 7x7-like "
                     "planes run as the transposed GEMM, vectors over the "
                     "output channels (dlas-select-conv-algorithm)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> compactFlatMinWidth{
      *this, "compact-flat-min-width",
      llvm::cl::desc("Flat convolutions at least this wide compute only "
                     "their OH*OW outputs (dlas-select-conv-algorithm)"),
      llvm::cl::init(16)};
  PassOptions::Option<bool> blockedLayout{
      *this, "blocked-layout",
      llvm::cl::desc("Run dense convolutions in the blocked NCHWc layout, "
                     "propagated through the graph, where few conversions "
                     "remain (dlas-blocked-layout)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> blockedMaxWidth{
      *this, "blocked-max-width",
      llvm::cl::desc("Block only convolutions whose output is at most this "
                     "wide (0: any; dlas-blocked-layout max-width)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> blockedDepthwise{
      *this, "blocked-depthwise",
      llvm::cl::desc("Block depthwise convolutions too (dlas-blocked-layout "
                     "depthwise)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> blockedInt8{
      *this, "blocked-int8",
      llvm::cl::desc("Block int8 convolutions too, on vpdpbusd "
                     "(dlas-blocked-layout int8)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blockedBF16{
      *this, "blocked-bf16",
      llvm::cl::desc("Block bf16 convolutions too, on vdpbf16ps "
                     "(dlas-blocked-layout bf16)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blockedEntry{
      *this, "blocked-entry",
      llvm::cl::desc("Public functions take and return activations blocked "
                     "[N, C/16, H, W, 16] where they would convert "
                     "(dlas-blocked-layout blocked-entry)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fusePools{
      *this, "fuse-pools",
      llvm::cl::desc("Fuse a max pool into the blocked or sparse convolution "
                     "kernel before it (dlas-blocked-layout pools, "
                     "dlas-blocked-conv-microkernel fuse-pools, dlas-sparsify "
                     "fuse-pools)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> skipPaddingTaps{
      *this, "skip-padding-taps",
      llvm::cl::desc("Blocked convolution kernels skip the taps that read "
                     "only a padded input's zero border "
                     "(dlas-blocked-conv-microkernel skip-padding-taps); "
                     "false: every tap runs, and a NaN or inf filter value "
                     "times the zero padding propagates as in PyTorch's "
                     "reference convolution"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("exp, expm1, tanh, erf, log, log1p and log2 as "
                     "vectorizable polynomials (dlas-cpu-approximate-math, "
                     "f32 relative error about 2^-22); false: libm calls"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> winogradTransforms{
      *this, "winograd-transforms",
      llvm::cl::desc("Emit Winograd's input and output transforms as one "
                     "vector pass each (dlas-winograd-transforms; =false "
                     "leaves them loop nests, for testing)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> blockedConvsPerConversion{
      *this, "blocked-convs-per-conversion",
      llvm::cl::desc("Blocked convolutions needed per layout conversion left "
                     "at the graph's edges (0: block regardless; "
                     "dlas-blocked-layout convs-per-conversion)"),
      llvm::cl::init(4)};
  PassOptions::Option<int64_t> blockedMacsPerConvertedElement{
      *this, "blocked-macs-per-converted-element",
      llvm::cl::desc("Block also where more conversions remain when the "
                     "blocked convolutions do this many MACs per converted "
                     "element (0: off; dlas-blocked-layout "
                     "macs-per-converted-element)"),
      llvm::cl::init(2000)};
  PassOptions::Option<bool> printConvAlgorithms{
      *this, "print-conv-algorithms",
      llvm::cl::desc("Report the algorithm chosen for each convolution"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> vectorizableLoopOrder{
      *this, "vectorizable-loop-order",
      llvm::cl::desc("Reorder linalg loops so that LLVM vectorizes the "
                     "innermost one (dlas-vectorizable-loop-order)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> microkernels{
      *this, "microkernels",
      llvm::cl::desc("Lower GEMM-shaped contractions (matmuls, 1x1, im2col "
                     "and flat convolutions) to packed, register-blocked "
                     "vector microkernels (dlas-gemm-microkernel) and "
                     "depthwise convolutions to vector stencils "
                     "(dlas-depthwise-microkernel)"),
      llvm::cl::init(true)};
  PassOptions::ListOption<int64_t> microkernelTiles{
      *this, "microkernel-tiles",
      llvm::cl::desc("m0,vectors,kc,mc for every microkernel (0 keeps the "
                     "heuristic's value)")};
  PassOptions::ListOption<int64_t> depthwiseTiles{
      *this, "depthwise-tiles",
      llvm::cl::desc("rows,vectors for every depthwise microkernel (0 keeps "
                     "the heuristic's value)")};
  PassOptions::Option<std::string> microkernelPackB{
      *this, "microkernel-pack-b",
      llvm::cl::desc("auto, always or never (dlas-gemm-microkernel pack-b)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> tuningFile{
      *this, "tuning-file",
      llvm::cl::desc("JSON file of microkernel parameters per shape key "
                     "(docs/Tuning.md), read by dlas-cpu-select-lowering"),
      llvm::cl::init("")};
  PassOptions::Option<bool> printMicrokernels{
      *this, "print-microkernels",
      llvm::cl::desc("Report the microkernel chosen for each contraction"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> printDecisions{
      *this, "print-decisions",
      llvm::cl::desc("Explain each lowering decision of "
                     "dlas-cpu-select-lowering (and each op left to loops)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> threading{
      *this, "threading",
      llvm::cl::desc("Run the outermost parallel loop of each loop nest on "
                     "OpenMP threads (libomp; thread count at run time)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> minParallelIterations{
      *this, "min-parallel-iterations",
      llvm::cl::desc("Iterations a loop nest that no kernel took (fills, "
                     "copies, elementwise ops) needs in all to run on "
                     "threads (dlas-affine-parallelize)"),
      llvm::cl::init(32768)};
  PassOptions::Option<bool> externalWeights{
      *this, "external-weights",
      llvm::cl::desc("Declare large constant tensors as external globals "
                     "listed in dlas.external_weights, for a JIT to bind "
                     "(dlas-run does); keeps weights out of LLVM"),
      llvm::cl::init(false)};
};

/// Puts the pipeline's target on the module (dlas-attach-target); `host`,
/// or no target at all, is resolved here from the machine that builds the
/// pipeline.
/// Options of `dlas-gpu-pipeline`.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU to compile for: cuda:sm_80, cuda:sm_86, "
                     "cuda:sm_89, cuda:sm_90, rocm:gfx90a or rocm:gfx942 "
                     "(dlas-gpu-attach-target)"),
      llvm::cl::init("cuda:sm_80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Device code in the module: isa (PTX text, or AMDGPU "
                     "assembly), bin (cubin through the CUDA toolkit's "
                     "ptxas, hsaco through ld.lld) or fatbin "
                     "(gpu-module-to-binary format)"),
      llvm::cl::init("isa")};
  PassOptions::Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Lower to the LLVM dialect with device binaries; false "
                     "stops after the kernels are outlined (gpu.module and "
                     "gpu.launch_func) for inspection"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give public functions _mlir_ciface_ wrappers and a "
                     "dlas.signature attribute (needed by dlas-run)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> externalWeights{
      *this, "external-weights",
      llvm::cl::desc("Leave weights out of the module as external symbols "
                     "bound at run time (dlas-externalize-weights)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> foldBatchNorm{
      *this, "fold-batch-norm",
      llvm::cl::desc("Fold inference batch norms into the convolutions "
                     "before them (dlas-fold-batch-norm)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse elementwise chains (bias, activation, residual "
                     "add) into one kernel (linalg-fuse-elementwise-ops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseKernels{
      *this, "fuse-kernels",
      llvm::cl::desc("Fold the elementwise ops around a reduction (bias "
                     "init, activation, residual add) into its kernel "
                     "(dlas-gpu-map-kernels fuse)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Run layers in lower precision (dlas-mixed-precision): "
                     "f32, bf16, fp16, or auto (bf16: every GPU target has "
                     "it); convolutions and matmuls read bf16/f16 and "
                     "accumulate in f32. int8 has no GPU kernels yet"),
      llvm::cl::init("f32")};
  PassOptions::Option<std::string> keepF32{
      *this, "keep-f32",
      llvm::cl::desc("Layer kinds `precision` keeps in f32 "
                     "(dlas-mixed-precision keep-f32; empty: its default)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> printPrecision{
      *this, "print-precision",
      llvm::cl::desc("Print every layer's precision and the reason"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("f16 and bf16 contractions (precision=fp16, bf16) on "
                     "tensor cores (NVIDIA) or matrix cores (AMD): auto, "
                     "always (any size) or never "
                     "(dlas-gpu-select-lowering tensor-cores)"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> allowTF32{
      *this, "allow-tf32",
      llvm::cl::desc("f32 contractions on NVIDIA tensor cores too, their "
                     "operands rounded to tf32 "
                     "(dlas-gpu-select-lowering allow-tf32)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> staged{
      *this, "staged",
      llvm::cl::desc("Contractions without tensor cores as kernels that "
                     "stage their operands in shared memory: auto, always "
                     "(any size) or never (dlas-gpu-select-lowering staged)"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> printDecisions{
      *this, "print-decisions",
      llvm::cl::desc("Print every op's GPU kernel decision "
                     "(dlas-gpu-select-lowering print)"),
      llvm::cl::init(false)};
  PassOptions::ListOption<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("t or rows,columns: every kernel's threads "
                     "(dlas-gpu-select-lowering threads; empty: the cost "
                     "model's)")};
  PassOptions::ListOption<int64_t> outputsPerThread{
      *this, "outputs-per-thread",
      llvm::cl::desc("rows,columns: the register tile of every tiled kernel "
                     "(dlas-gpu-select-lowering outputs; empty: the cost "
                     "model's)")};
  PassOptions::Option<bool> splitReductions{
      *this, "split-reductions",
      llvm::cl::desc("Split the reductions of kernels too small to occupy "
                     "the GPU, adding partial sums atomically (the result's "
                     "last bits vary between runs); false: deterministic"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> reductionSplit{
      *this, "reduction-split",
      llvm::cl::desc("Chunks of every sum reduction's split "
                     "(dlas-gpu-select-lowering split; 0: the cost model's)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("rocm format=bin: a directory with llvm/bin/ld.lld "
                     "(gpu-module-to-binary toolkit; empty: the one the build "
                     "made, over lld-22); cuda: the CUDA toolkit (empty: "
                     "CUDA_HOME, PATH or /usr/local/cuda)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> emulateOnCPU{
      *this, "emulate-on-cpu",
      llvm::cl::desc("Test aid: stop when the kernels are mapped parallel "
                     "loops (dlas-gpu-map-kernels) and lower those for this "
                     "CPU, mapping ignored, so that the GPU strategy's loop "
                     "nests run and are checked where no GPU is"),
      llvm::cl::init(false)};
};

/// The CUDA toolkit (libdevice, ptxas) the GPU pipeline uses when its
/// `toolkit` option is empty: CUDA_HOME, CUDA_PATH, CUDA_ROOT, the directory
/// above a ptxas on PATH, or /usr/local/cuda; empty when there is none.
std::string findCUDAToolkit();

/// The GPU pipeline: nn -> linalg (the CPU pipeline's stage) -> GPU
/// decisions -> bufferization -> mapped parallel loops -> gpu.launch with
/// device buffers -> NVVM or ROCDL kernels and host LLVM IR with embedded
/// device binaries.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

void buildTargetStage(OpPassManager &pm, const CPUPipelineOptions &options);

/// The stages of the CPU pipeline, in order. The codegen strategy (tiling,
/// packing, vectorization, threading) runs between the linalg and the
/// bufferization stages.
void buildNNToLinalgStage(OpPassManager &pm, const CPUPipelineOptions &options);
void buildCPUCodegenStrategyStage(OpPassManager &pm,
                                  const CPUPipelineOptions &options);
/// The strategy stage's two halves: the activation layout, decided for
/// the whole model (dlas-blocked-layout), then each layer's kernels
/// (GSPC packing, convolution algorithm, loop order, microkernel tiles),
/// decided from the layer alone and the tuning file: dlas-tune re-runs
/// only the second half on one layer to measure a candidate.
void buildCPULayoutStage(OpPassManager &pm, const CPUPipelineOptions &options);
void buildCPUKernelDecisionStage(OpPassManager &pm,
                                 const CPUPipelineOptions &options);

struct SelectConvAlgorithmOptions;
/// The options the kernel-decision stage gives dlas-select-conv-algorithm
/// (dlas-tune asks its choice for the same convolutions).
SelectConvAlgorithmOptions
convAlgorithmOptions(const CPUPipelineOptions &options);
void buildEntryABIStage(OpPassManager &pm, const CPUPipelineOptions &options);
void buildBufferizationStage(OpPassManager &pm);
void buildLoopLoweringStage(OpPassManager &pm, const CPUPipelineOptions &options);
/// `approximateMath`: exp, tanh, erf and log as vectorizable polynomials
/// (dlas-cpu-approximate-math) instead of libm calls.
void buildLLVMLoweringStage(OpPassManager &pm, bool approximateMath = true);

/// nn -> linalg -> bufferization -> loops -> LLVM dialect for the host CPU.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

void registerDLASPipelines();

} // namespace mlir::dlas

#endif // DLAS_PIPELINES_PIPELINES_H
