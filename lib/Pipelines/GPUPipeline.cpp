//===- GPUPipeline.cpp - dlas-gpu-pipeline --------------------------------===//
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Codegen/GPU/Passes.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Pipelines/Pipelines.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace mlir::dlas;

// A toolkit MLIR's NVVM target can use: ptxas to assemble, and libdevice,
// which it links whenever a kernel calls a math function.
static bool isCompleteCUDAToolkit(StringRef root) {
  return !root.empty() && llvm::sys::fs::can_execute(root + "/bin/ptxas") &&
         llvm::sys::fs::exists(root + "/nvvm/libdevice/libdevice.10.bc");
}

// Resolved when the pipeline is built, like the CPU pipeline's `host`, so
// that no pass asks the machine.
std::string dlas::findCUDAToolkit() {
  // MLIR's own answer first (CUDA_ROOT, CUDA_HOME, CUDA_PATH, else the path
  // it was built with), then where Debian's MLIR does not look: the ptxas on
  // PATH (links resolved; a wrapper script in /usr/local/bin is not a
  // toolkit) and /usr/local/cuda.
  SmallVector<std::string> candidates = {NVVM::getCUDAToolkitPath().str()};
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas")) {
    SmallString<256> resolved;
    if (!llvm::sys::fs::real_path(*ptxas, resolved))
      candidates.push_back(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(resolved))
              .str());
  }
  candidates.push_back("/usr/local/cuda");
  for (const std::string &root : candidates)
    if (isCompleteCUDAToolkit(root))
      return root;
  return "";
}

/// Device code: the GPU modules' kernels to NVVM or ROCDL, the host code to
/// the LLVM dialect (with mgpu* runtime calls), then each GPU module to a
/// binary embedded in the host module.
static void buildGPULLVMLoweringStage(OpPassManager &pm,
                                      const GPUPipelineOptions &options,
                                      const GPUTargetName &target) {
  bool cuda = target.api == "cuda";
  if (cuda) {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = target.chip;
    attach.features = target.features;
    attach.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(attach));
  } else {
    GpuROCDLAttachTargetOptions attach;
    attach.chip = target.chip;
    attach.features = target.features;
    attach.optLevel = 3;
    pm.addPass(createGpuROCDLAttachTarget(attach));
  }
  pm.addPass(createLowerAffinePass());
  // Host-side gpu ops become asynchronous on one stream per call; the
  // runtime synchronizes it before the entry returns.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createSCFToControlFlowPass());
  if (cuda) {
    // nvgpu.ldmatrix (the mma.sync kernels' fragment loads) first.
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVGPUToNVVMPass());
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  } else {
    ConvertGpuOpsToROCDLOpsOptions rocdl;
    rocdl.chipset = target.chip;
    // The pass takes every loaded dialect's ConvertToLLVM patterns unless
    // told which: NVVM's (loaded by dlas-gpu-map-kernels, which can emit
    // nvvm.mma.sync) would lower math.tanh to llvm.intr.tanh, which the
    // AMDGPU backend cannot compile, instead of ROCDL's __ocml_tanh_f32.
    rocdl.allowedDialects = {"arith", "cf",     "func", "index",
                             "math",  "memref", "ub",   "vector"};
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToROCDLOps(rocdl));
  }
  // Expands with several run-time sizes in a group, which
  // expand-strided-metadata cannot expand.
  pm.addNestedPass<func::FuncOp>(createLowerDynamicExpandShapes());
  pm.addNestedPass<func::FuncOp>(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  if (cuda && binary.toolkitPath.empty())
    binary.toolkitPath = findCUDAToolkit();
#ifdef DLAS_ROCM_TOOLKIT_DIR
  // MLIR links hsaco with <toolkit>/llvm/bin/ld.lld; the build makes such a
  // directory over lld-22.
  if (!cuda && binary.toolkitPath.empty())
    binary.toolkitPath = DLAS_ROCM_TOOLKIT_DIR;
#endif
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createTargetToLLVM());
}

void dlas::buildGPUPipeline(OpPassManager &pm,
                            const GPUPipelineOptions &options) {
  pm.addPass(createCheckConstants());
  GPUAttachTargetOptions attach;
  attach.target = options.target;
  pm.addPass(createGPUAttachTarget(attach));
  // The graph-level stage is the CPU pipeline's, without what has no GPU
  // kernel yet (sparse weights) and without layer functions (one host
  // function launches every kernel). Low-precision layers come out of it
  // as linalg ops on bf16/f16 operands accumulating in f32, which the
  // kernels below compute as they are (dlas-mixed-precision reads the GPU
  // target: `auto` is bf16 there, int8 is refused).
  CPUPipelineOptions graph;
  graph.foldBatchNorm = options.foldBatchNorm;
  graph.sparsify = "never";
  graph.outlineLayers = false;
  graph.precision = options.precision;
  graph.keepF32 = options.keepF32;
  graph.printPrecision = options.printPrecision;
  buildNNToLinalgStage(pm, graph);
  if (options.fuseElementwise) {
    pm.addPass(createLinalgElementwiseOpFusionPass());
    pm.addPass(createCanonicalizerPass());
  }
  GPUSelectLoweringOptions select;
  select.print = options.printDecisions;
  select.threads.assign(options.threadsPerBlock.begin(),
                        options.threadsPerBlock.end());
  select.outputs.assign(options.outputsPerThread.begin(),
                        options.outputsPerThread.end());
  select.splitReductions = options.splitReductions;
  select.split = options.reductionSplit;
  select.tensorCores = options.tensorCores;
  select.allowTF32 = options.allowTF32;
  select.staged = options.staged;
  pm.addPass(createGPUSelectLowering(select));
  if (options.emitCInterface)
    pm.addPass(createPrepareEntryABI());
  // After the last CSE on tensors: layer outputs get buffers of their own.
  pm.addNestedPass<func::FuncOp>(createGPUSeparateEmptyTensors());
  buildBufferizationStage(pm);
  // No canonicalization in between: it would merge the mapped nests.
  GPUMapKernelsOptions map;
  map.fuse = options.fuseKernels;
  map.emulate = options.emulateOnCPU;
  pm.addPass(createGPUMapKernels(map));
  if (options.emulateOnCPU) {
    pm.addPass(createGPUNameKernels()); // only drops the names: no kernels
    // Emulated tensor-core tiles: 2-D transfers become loops of 1-D ones.
    pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
        VectorTransferToSCFOptions().enableFullUnroll()));
    pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
    pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
    buildLLVMLoweringStage(pm);
    return;
  }
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createGPUNameKernels());
  pm.addPass(createCanonicalizerPass());
  if (options.externalWeights)
    pm.addPass(createExternalizeWeights());
  pm.addPass(createGPUDeviceBuffers());
  // Constants (loop bounds, the collapsed dimensions' sizes) move into the
  // kernels, where LLVM turns the index divisions by them into shifts and
  // multiplies, instead of becoming kernel parameters.
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Outlining copies the shared-memory globals of tensor-core kernels into
  // their gpu.module; the host module's originals go (the host cannot
  // address workgroup memory).
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  if (!options.lowerToLLVM)
    return;
  // An unknown name has failed dlas-gpu-attach-target above; the lowering
  // is only built for a known one.
  if (std::optional<GPUTargetName> target = lookupGPUTargetName(options.target))
    buildGPULLVMLoweringStage(pm, options, *target);
}
