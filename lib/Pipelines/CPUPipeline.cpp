//===- CPUPipeline.cpp - dlas-cpu-pipeline --------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Conversion/Passes.h"
#include "DLAS/Dialect/NN/Transforms/Passes.h"
#include "DLAS/Dialect/Sparse/Transforms/Passes.h"
#include "DLAS/Pipelines/Pipelines.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::dlas;

void dlas::buildTargetStage(OpPassManager &pm,
                            const CPUPipelineOptions &options) {
  // The one place a pipeline asks the machine (for `host`): when it is
  // built, never while it runs. Without a named target a module's own
  // dlas.target wins.
  StringRef name = options.target;
  CPUTargetOverrides user;
  user.features = options.targetFeatures;
  user.vectorBits = options.targetVectorBits;
  auto [concrete, overrides] =
      concreteCPUTarget(name.empty() ? "host" : name, user);
  AttachTargetOptions attach;
  attach.target = concrete;
  attach.features = overrides.features;
  attach.vectorBits = overrides.vectorBits;
  attach.l1 = overrides.l1;
  attach.l2 = overrides.l2;
  attach.l3 = overrides.l3;
  attach.keepExisting = name.empty();
  pm.addPass(createAttachTarget(attach));
}

void dlas::buildNNToLinalgStage(OpPassManager &pm,
                                const CPUPipelineOptions &options) {
  // Graph-level nn passes.
  if (options.foldBatchNorm)
    pm.addPass(nn::createFoldBatchNorm());
  pm.addPass(createCanonicalizerPass());
  // Bias adds and activations next to the matmuls they follow, so that
  // they join its layer as an epilogue.
  pm.addPass(nn::createSinkReshapes());
  // The float layers of QDQ models onto the int8 kernels (nothing to do
  // without an nn.dequantize before a layer); a canonicalization below
  // folds the quantize(dequantize) pairs this leaves.
  if (options.foldQDQ)
    pm.addNestedPass<func::FuncOp>(nn::createFoldQDQ());
  // Pruning (an experiment's option) and the sparse-or-dense decision come
  // before outlining: a sparse layer is a layer function of its own too.
  if (options.prune > 0.0) {
    sparse::PruneOptions prune;
    prune.sparsity = options.prune;
    prune.structure = options.pruneStructure;
    prune.report = options.printSparsify;
    pm.addPass(sparse::createPrune(prune));
  }
  sparse::SparsifyOptions sparsify;
  sparsify.policy = options.sparsify;
  sparsify.print = options.printSparsify;
  sparsify.fusePools = options.fusePools;
  pm.addPass(sparse::createSparsify(sparsify));
  // Precision after the sparse decision (sparse kernels stay f32) and
  // before outlining, so that casts between two low-precision layers fold
  // before they become layer boundaries.
  // Calibration probes sit where the policy would, after the same passes,
  // so that their layer keys name the layers the policy will see.
  if (options.calibrate) {
    pm.addPass(nn::createCalibrationProbes());
  } else if (options.precision != "f32" || options.printPrecision) {
    nn::MixedPrecisionOptions mixed;
    mixed.policy = options.precision;
    mixed.calibration = options.calibration;
    SmallVector<StringRef> kinds;
    StringRef(options.keepF32).split(kinds, ',', -1, /*KeepEmpty=*/false);
    for (StringRef kind : kinds)
      mixed.keepF32.push_back(kind.trim().str());
    mixed.print = options.printPrecision;
    pm.addPass(nn::createMixedPrecision(mixed));
    pm.addPass(createCanonicalizerPass());
    // Layers that read the same tensor quantize it alike (a bottleneck's
    // first 1x1 convolution and its downsample): one quantize serves both.
    pm.addPass(createCSEPass());
  }
  // Residual adds read the i8 tensor the next int8 layer quantizes, so
  // that no f32 activation is stored between int8 blocks. Only for DLAS's
  // own policy: an imported model's adds keep the precision its graph says.
  if (options.int8Residuals && options.precision == "int8")
    pm.addNestedPass<func::FuncOp>(nn::createQuantizeResiduals());
  // int8 layers exchange i8 through max pools, concats and reshapes (the
  // policy's quantizes, and those QDQ models leave, climb above them).
  if (options.hoistQuantize && !options.calibrate &&
      (options.precision == "int8" || options.foldQDQ)) {
    pm.addNestedPass<func::FuncOp>(nn::createHoistQuantize());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.outlineLayers)
    pm.addPass(nn::createOutlineLayers());
  if (options.profileLayers)
    pm.addPass(createInstrumentLayers());
  pm.addNestedPass<func::FuncOp>(createConvertNNToLinalg());
  ConvertSparseToLoopsOptions sparseLoops;
  sparseLoops.alignTapsMode = options.sparseAlignTaps;
  sparseLoops.shiftTapsMode = options.sparseShiftTaps;
  sparseLoops.narrowTapsMode = options.sparseNarrowTaps;
  sparseLoops.weightChunkBytes = options.sparseWeightChunkBytes;
  pm.addPass(createConvertSparseToLoops(sparseLoops));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Conversions run inside the ops next to them: an i8 skip connection's
  // dequantize in its add's body (the kernel's epilogue loads bytes), a
  // bf16/f16 op's widenings and rounding in its own body (one loop, and
  // a kernel epilogue, instead of four).
  pm.addNestedPass<func::FuncOp>(createFuseConversions());
}

void dlas::buildCPUCodegenStrategyStage(OpPassManager &pm,
                                        const CPUPipelineOptions &options) {
  buildCPULayoutStage(pm, options);
  buildCPUKernelDecisionStage(pm, options);
}

void dlas::buildCPULayoutStage(OpPassManager &pm,
                               const CPUPipelineOptions &options) {
  if (options.blockedLayout) {
    BlockedLayoutOptions layoutOptions;
    layoutOptions.maxWidth = options.blockedMaxWidth;
    layoutOptions.convsPerConversion = options.blockedConvsPerConversion;
    layoutOptions.macsPerConvertedElement =
        options.blockedMacsPerConvertedElement;
    layoutOptions.blockedEntry = options.blockedEntry;
    layoutOptions.depthwise = options.blockedDepthwise;
    layoutOptions.int8 = options.blockedInt8;
    layoutOptions.bf16 = options.blockedBF16;
    // A blocked pool is only worth it fused into the kernel before it.
    layoutOptions.pools = options.fusePools && options.microkernels;
    // gspc=never: no GSPC at all, blocked or from NCHW.
    layoutOptions.grouped = options.microkernels && options.gspc != "never";
    layoutOptions.print = options.printConvAlgorithms;
    pm.addPass(createBlockedLayout(layoutOptions));
    pm.addPass(createCanonicalizerPass());
  }
}

SelectConvAlgorithmOptions
dlas::convAlgorithmOptions(const CPUPipelineOptions &options) {
  SelectConvAlgorithmOptions convOptions;
  convOptions.algorithm = options.convAlgorithm;
  convOptions.print = options.printConvAlgorithms;
  convOptions.winograd = options.winograd;
  convOptions.winogradTile = options.winogradTile;
  convOptions.microkernels = options.microkernels;
  convOptions.compactFlatMinWidth = options.compactFlatMinWidth;
  convOptions.transposedGemm = options.transposedGemm;
  convOptions.tuningFile = options.tuningFile;
  return convOptions;
}

void dlas::buildCPUKernelDecisionStage(OpPassManager &pm,
                                       const CPUPipelineOptions &options) {
  // Loop order first: the innermost loop walks contiguous output memory
  // with the reductions outside it, so that LLVM vectorizes it. Tiling,
  // packing and register-blocked microkernels refine this stage.
  // GSPC needs the blocked kernel; without microkernels grouped
  // convolutions keep their loops.
  if (options.microkernels && options.gspc != "never") {
    GroupedConvPackingOptions gspcOptions;
    gspcOptions.policy = options.gspc;
    gspcOptions.tuningFile = options.tuningFile;
    gspcOptions.print = options.printConvAlgorithms;
    pm.addPass(createGroupedConvPacking(gspcOptions));
  }
  pm.addNestedPass<func::FuncOp>(
      createSelectConvAlgorithm(convAlgorithmOptions(options)));
  pm.addPass(createCanonicalizerPass());
  if (options.vectorizableLoopOrder)
    pm.addNestedPass<func::FuncOp>(createVectorizableLoopOrder());
  if (options.microkernels) {
    // Every strategy decision is made here, on tensors; the kernel passes
    // after bufferization only read them.
    CPUSelectLoweringOptions select;
    select.gemmTiles.assign(options.microkernelTiles.begin(),
                            options.microkernelTiles.end());
    select.gemmPackB = options.microkernelPackB;
    select.depthwiseTiles.assign(options.depthwiseTiles.begin(),
                                 options.depthwiseTiles.end());
    select.tuningFile = options.tuningFile;
    select.print = options.printDecisions;
    pm.addPass(createCPUSelectLowering(select));
  }
}

void dlas::buildEntryABIStage(OpPassManager &pm,
                              const CPUPipelineOptions &options) {
  if (options.emitCInterface)
    pm.addPass(createPrepareEntryABI());
}

void dlas::buildBufferizationStage(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  // Contiguous buffers across calls keep the C interface simple for callers.
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A recurrence (nn.lstm/gru/rnn's time loop) yields a state computed
  // from the one it receives: it gets a new buffer each step.
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createMemRefCopyToLinalg());
}

void dlas::buildLoopLoweringStage(OpPassManager &pm,
                                  const CPUPipelineOptions &options) {
  if (options.microkernels) {
    // Contractions become packed vector microkernels; they hand their own
    // parallel loop to OpenMP, so they go before the affine parallelizer.
    // They build the kernels dlas-cpu-select-lowering decided, and only
    // those (decided-only).
    BlockedConvMicrokernelOptions blockedOptions;
    blockedOptions.parallel = options.threading;
    blockedOptions.print = options.printMicrokernels;
    blockedOptions.decidedOnly = true;
    blockedOptions.fusePools = options.fusePools;
    blockedOptions.skipPaddingTaps = options.skipPaddingTaps;
    pm.addPass(createBlockedConvMicrokernel(blockedOptions));
    GemmMicrokernelOptions kernelOptions;
    kernelOptions.parallel = options.threading;
    kernelOptions.print = options.printMicrokernels;
    kernelOptions.decidedOnly = true;
    pm.addPass(createGemmMicrokernel(kernelOptions));
    DepthwiseMicrokernelOptions depthwiseOptions;
    depthwiseOptions.parallel = options.threading;
    depthwiseOptions.print = options.printMicrokernels;
    depthwiseOptions.decidedOnly = true;
    pm.addNestedPass<func::FuncOp>(createDepthwiseMicrokernel(depthwiseOptions));
    // Function-local from here on where a pass allows it: MLIR then runs
    // it on the layer functions in parallel.
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  }
  // Repeated layers share one body once their weights are globals (packed
  // at compile time above): LLVM then compiles each kernel once per shape.
  if (options.outlineLayers && options.dedupeLayers)
    pm.addPass(createDedupeLayers());
  // Weights leave the module after the microkernels packed them.
  if (options.externalWeights)
    pm.addPass(createExternalizeWeights());
  // A padded buffer's interior is copied over: fill only its border.
  pm.addNestedPass<func::FuncOp>(createFillPadBorders());
  VectorizeRowCopiesOptions rowCopyOptions;
  rowCopyOptions.parallel = options.threading;
  rowCopyOptions.minParallelElements = options.minParallelIterations;
  // A lower min-parallel-iterations (tests forcing threads) lowers both.
  rowCopyOptions.minParallelReadElements =
      std::min<int64_t>(rowCopyOptions.minParallelReadElements,
                        options.minParallelIterations);
  // On the module: a small padded copy asks OpenMP for the thread count,
  // declared there (see min-parallel-read-elements).
  pm.addPass(createVectorizeRowCopies(rowCopyOptions));
  VectorizeReductionsOptions reductionOptions;
  reductionOptions.parallel = options.threading;
  pm.addNestedPass<func::FuncOp>(createVectorizeReductions(reductionOptions));
  if (options.winogradTransforms) {
    WinogradTransformsOptions winogradOptions;
    winogradOptions.parallel = options.threading;
    pm.addNestedPass<func::FuncOp>(createWinogradTransforms(winogradOptions));
  }
  // What no kernel took becomes loops that LLVM vectorizes innermost: one
  // loop over a whole contiguous map, not 14 iterations of its rows.
  pm.addNestedPass<func::FuncOp>(createCollapseContiguousLoops());
  // Run-time sizes inside a time loop are no affine dims: scf loops there.
  pm.addNestedPass<func::FuncOp>(createNestedDynamicLinalgToLoops());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToAffineLoopsPass());
  pm.addNestedPass<func::FuncOp>(createLoopInvariantCodeMotionPass());
  if (options.threading) {
    // Unit loops (batch 1) go first, so that the outermost loop that
    // affine analysis proves parallel has real work to share; only that
    // one becomes an OpenMP loop, the inner ones stay sequential for the
    // vectorizer. The thread count is OpenMP's, chosen at run time.
    pm.addNestedPass<func::FuncOp>(affine::createAffineLoopNormalizePass(
        /*promoteSingleIter=*/true));
    // Nests too small to pay for a parallel region's fork and join stay
    // sequential.
    AffineParallelizeLargeOptions parallelize;
    parallelize.maxNested = 1;
    parallelize.minIterations = options.minParallelIterations;
    pm.addNestedPass<func::FuncOp>(createAffineParallelizeLarge(parallelize));
  }
  // Transfers of more than one dimension (from vectorization by the
  // transform dialect or upstream patterns; DLAS's kernels emit 1-D ones)
  // become loops of 1-D transfers, which convert-vector-to-llvm lowers.
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  if (options.threading) {
    pm.addPass(createConvertSCFToOpenMPPass());
    // scf-to-openmp wraps loop bodies in memref.alloca_scope; the
    // canonicalizer inlines the scopes that hold no alloca, before
    // scf-to-cf splits those bodies into blocks.
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  }
  pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
}

void dlas::buildLLVMLoweringStage(OpPassManager &pm, bool approximateMath) {
  // Before the bf16 legalization: bf16/f16 math ops become f32 ones here.
  if (approximateMath)
    pm.addNestedPass<func::FuncOp>(createCPUApproximateMath());
  // bf16 conversions the target cannot do in hardware become bit
  // operations (no compiler-rt call in the generated code).
  pm.addPass(createCPULegalizeBF16());
  // Math ops with an LLVM intrinsic become intrinsics; the rest (erf, ...)
  // become libm calls that the JIT resolves in the host process.
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Expands with several run-time sizes in a group, which
  // expand-strided-metadata cannot expand.
  pm.addNestedPass<func::FuncOp>(createLowerDynamicExpandShapes());
  pm.addNestedPass<func::FuncOp>(memref::createExpandStridedMetadataPass());
  // Expanding a subview at a dynamic offset computes it with affine.apply.
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  // Constant-mask tail stores as unmasked pieces where the target's masked
  // stores are slow (vmaskmovps on AVX2) or scalarized (bytes).
  pm.addNestedPass<func::FuncOp>(createSplitMaskedStores());
  // Before the generic conversion: masks (of the microkernels' column
  // tails) are materialized here, as compares of a step vector.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Again on the LLVM dialect: bf16/f16 masked loads and stores as i16.
  pm.addPass(createCPULegalizeBF16());
  pm.addNestedPass<LLVM::LLVMFuncOp>(createCanonicalizerPass());
  pm.addPass(createTargetToLLVM());
}

void dlas::buildCPUPipeline(OpPassManager &pm,
                            const CPUPipelineOptions &options) {
  // Before any pass reads a weight at compile time.
  pm.addPass(createCheckConstants());
  buildTargetStage(pm, options);
  buildNNToLinalgStage(pm, options);
  buildCPUCodegenStrategyStage(pm, options);
  buildEntryABIStage(pm, options);
  buildBufferizationStage(pm);
  buildLoopLoweringStage(pm, options);
  if (options.lowerToLLVM)
    buildLLVMLoweringStage(pm, options.approximateMath);
}

void dlas::registerDLASPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "dlas-cpu-pipeline",
      "Compile nn (or linalg-on-tensors) IR to the LLVM dialect for a CPU "
      "target (target=host by default)",
      buildCPUPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "dlas-gpu-pipeline",
      "Compile nn (or linalg-on-tensors) IR for a GPU target "
      "(target=cuda:sm_80 by default): kernels to PTX/cubin or AMDGPU code "
      "embedded in host LLVM IR that calls the mgpu* runtime",
      buildGPUPipeline);
}
