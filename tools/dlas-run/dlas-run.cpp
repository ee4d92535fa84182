//===- dlas-run.cpp - JIT-compile and run a DLAS module -------------------===//
//
// dlas-run model.mlir [-e entry] [--input x.npy ...] [--random-inputs --seed N]
//          [--output-dir DIR] [--expect y.npy ... --rtol R --atol A]
//          [--warmup W --repeat N] [--pipeline=... | --target=NAME]
//
// Compiles the module through the CPU pipeline (or takes LLVM-dialect IR as
// it is), JITs it at -O3 for the target (default: the host), runs the entry
// on .npy or seeded random inputs, prints every output's shape and checksum,
// compares with expected outputs and times repeated runs.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/InitAllPasses.h"
#include "DLAS/Runner/Calibrate.h"
#include "DLAS/Runner/Entry.h"
#include "DLAS/Runner/Model.h"
#include "DLAS/Runner/TargetMachine.h"
#include "DLAS/Runtime/GPURuntime.h"
#include "DLAS/Support/Npy.h"
#include "DLAS/Support/ToolOptions.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace mlir;
using namespace mlir::dlas;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("dlas-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<module.mlir>"),
                                          cl::init("-"), cl::cat(runCategory));
static cl::opt<std::string> entryName("e", cl::desc("Entry function"),
                                      cl::init("main"), cl::cat(runCategory));
static cl::alias entryAlias("entry", cl::aliasopt(entryName),
                            cl::desc("Alias for -e"));
static cl::list<std::string> inputFiles("input",
                                        cl::desc("Input .npy, one per argument "
                                                 "in order"),
                                        cl::cat(runCategory));
static cl::opt<bool> randomInputs("random-inputs",
                                  cl::desc("Generate seeded random inputs"),
                                  cl::cat(runCategory));
static cl::opt<int64_t> seed("seed", cl::desc("Seed of --random-inputs"),
                              cl::init(0), cl::cat(runCategory));
static cl::opt<int64_t> dynamicDimSize(
    "dynamic-dim-size",
    cl::desc("Size given to dynamic dimensions of random inputs"),
    cl::init(1), cl::cat(runCategory));
static cl::opt<std::string> outputDir("output-dir",
                                      cl::desc("Write outputs as "
                                               "DIR/<entry>_output<i>.npy"),
                                      cl::cat(runCategory));
static cl::list<std::string> expectFiles("expect",
                                         cl::desc("Expected output .npy, one "
                                                  "per result in order"),
                                         cl::cat(runCategory));
static cl::opt<double> relTolerance("rtol", cl::desc("Relative tolerance"),
                            cl::init(1e-5), cl::cat(runCategory));
static cl::opt<double> absTolerance("atol", cl::desc("Absolute tolerance"),
                            cl::init(1e-5), cl::cat(runCategory));
static cl::opt<double> maxRelErr(
    "max-rel-err",
    cl::desc("Pass when max |actual - expected| <= R * max |expected| "
             "(replaces the elementwise --rtol/--atol test)"),
    cl::init(-1.0), cl::cat(runCategory));
static cl::opt<int> warmup("warmup",
                                cl::desc("Untimed runs before timing"),
                                cl::init(0), cl::cat(runCategory));
static cl::opt<int> repeat("repeat",
                                cl::desc("Timed runs (0: run once, untimed)"),
                                cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    pipeline("pipeline",
             cl::desc("Textual pass pipeline replacing the target's, e.g. "
                      "'builtin.module(dlas-cpu-pipeline)'"),
             cl::cat(runCategory));
static cl::opt<std::string> target(
    "target",
    cl::desc("CPU to compile for: host (or cpu), x86-64-v3, x86-64-v4 or an "
             "LLVM x86-64 CPU name (znver3, sapphirerapids, ...); default: "
             "the module's dlas.target, else host. The host must be able "
             "to run it (dlas-compile cross-compiles). Or a GPU: cuda (the "
             "first device's chip), cuda:sm_80, cuda:sm_90, rocm:gfx90a, "
             "rocm:gfx942 (dlas-gpu-pipeline; needs the driver and a "
             "device)"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("+name/-name changes to the target's features, e.g. "
             "-avx512f"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> convAlgorithm(
    "conv-algorithm",
    cl::desc("Convolution algorithm for the CPU pipeline: auto, direct, gemm, "
             "im2col, flat or winograd"),
    cl::init("auto"), cl::cat(runCategory));
static cl::opt<std::string> gspcPolicy(
    "gspc",
    cl::desc("Grouped convolutions as Grouped Spatial Pack Convolutions "
             "(dlas-grouped-conv-packing): auto, always or never"),
    cl::init("auto"), cl::cat(runCategory));
static cl::opt<bool> fusePools(
    "fuse-pools",
    cl::desc("Fuse a max pool into the blocked or sparse convolution kernel "
             "before it (=false: the pool runs on its own)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<bool> printConvAlgorithms(
    "print-conv-algorithms",
    cl::desc("Report the algorithm chosen for each convolution"),
    cl::cat(runCategory));
static cl::opt<std::string> tuningFile(
    "tuning-file",
    cl::desc("JSON file of microkernel parameters per shape key for the CPU "
             "pipeline (docs/Tuning.md)"),
    cl::cat(runCategory));
static cl::opt<bool> blockedEntry(
    "blocked-entry",
    cl::desc("The entry takes and returns activations in the blocked layout "
             "[N, C/16, H, W, 16] where dlas-blocked-layout would convert "
             "them (inputs and expected outputs given in that layout)"),
    cl::cat(runCategory));
static cl::opt<int> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(3), cl::Prefix,
                                  cl::cat(runCategory));
static cl::opt<int> numThreads(
    "num-threads",
    cl::desc("OpenMP threads for parallel loops (0: OpenMP's default, all "
             "cores); more than 1 are pinned one per hardware thread unless "
             "OMP_PROC_BIND, OMP_PLACES or KMP_AFFINITY is set"),
    cl::init(1), cl::cat(runCategory));
static cl::opt<int> compileThreads(
    "compile-threads",
    cl::desc("Threads for LLVM's optimization and code generation, which "
             "compile the layer functions in parallel (0: all cores)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    ompLibrary("omp-library",
               cl::desc("OpenMP runtime the JIT code links against"),
               cl::init(kDefaultOpenMPLibrary.str()), cl::cat(runCategory));
static cl::opt<bool> profileLayers(
    "profile",
    cl::desc("Print the median time of every layer (nn op) over the timed "
             "runs"),
    cl::cat(runCategory));
static cl::opt<double> pruneSparsity(
    "prune",
    cl::desc("Magnitude-prune every conv/linear constant weight to this "
             "fraction of zeros before compiling (dlas-prune; 0: off)"),
    cl::init(0.0), cl::cat(runCategory));
static cl::opt<std::string> pruneStructure(
    "prune-structure",
    cl::desc("How --prune prunes: unstructured, block-RxC or N:M"),
    cl::init("unstructured"), cl::cat(runCategory));
static cl::opt<std::string> sparsifyPolicy(
    "sparsify",
    cl::desc("Sparse kernels for layers with sparse constant weights: auto "
             "(where the calibrated cost model says they win), always, never"),
    cl::init("auto"), cl::cat(runCategory));
static cl::opt<bool> printSparsify(
    "print-sparsify",
    cl::desc("Print --prune's sparsity and the sparse-or-dense decision of "
             "every layer"),
    cl::cat(runCategory));
static cl::opt<std::string> precisionPolicy(
    "precision",
    cl::desc("Run layers in lower precision (dlas-mixed-precision): f32, "
             "bf16, fp16, int8 (with --calibration) or auto (what the target "
             "computes natively); the "
             "entry keeps its types, so the f32 inputs and expected outputs "
             "still apply"),
    cl::init("f32"), cl::cat(runCategory));
static cl::opt<bool> allowTF32(
    "allow-tf32",
    cl::desc("GPU targets: f32 convolutions and matmuls on NVIDIA tensor "
             "cores, their operands rounded to tf32 (10-bit mantissas)"),
    cl::cat(runCategory));
static cl::opt<bool> printPrecision(
    "print-precision",
    cl::desc("Print every layer's precision and the reason"),
    cl::cat(runCategory));
static cl::opt<std::string>
    keepF32("keep-f32",
            cl::desc("Layer kinds --precision keeps in f32: a comma list of "
                     "first-conv, classifier, softmax, depthwise, or none "
                     "(default: the first three, and depthwise for int8)"),
            cl::cat(runCategory));
static cl::opt<std::string> calibrateDir(
    "calibrate",
    cl::desc("Run the f32 model on the samples in DIR (a .npy file per "
             "sample, or for several inputs a subdirectory per sample with "
             "one .npy per input) and write every quantizable layer's "
             "input range to --calibration, for --precision=int8"),
    cl::value_desc("DIR"), cl::cat(runCategory));
static cl::opt<std::string> calibrationFile(
    "calibration",
    cl::desc("Calibration file: written by --calibrate, read by "
             "--precision=int8"),
    cl::value_desc("FILE"), cl::cat(runCategory));
static cl::opt<std::string> calibrationMethod(
    "calibration-method",
    cl::desc("How --calibrate turns a layer's inputs into a range: minmax "
             "(extremes over all samples) or percentile (per sample, the "
             "values at --calibration-percentile and its complement, "
             "averaged)"),
    cl::init("minmax"), cl::cat(runCategory));
static cl::opt<double> calibrationPercentile(
    "calibration-percentile",
    cl::desc("Percentile of --calibration-method=percentile, in (50, 100]"),
    cl::init(99.99), cl::cat(runCategory));
static cl::opt<bool> timeStages(
    "time-stages",
    cl::desc("Print the time of each compile stage (import, passes, LLVM)"),
    cl::cat(runCategory));
enum class DynamicShapes { Specialize, Keep };
static cl::opt<DynamicShapes> dynamicShapes(
    "dynamic-shapes",
    cl::desc("Symbolic sizes of an ONNX model's inputs (a dynamic batch)"),
    cl::values(clEnumValN(DynamicShapes::Specialize, "specialize",
                          "compile for the --input files' shapes (with "
                          "--random-inputs: --dynamic-dim-size), as a "
                          "static model (default)"),
               clEnumValN(DynamicShapes::Keep, "keep",
                          "compile the dynamic sizes as such (the code "
                          "dlas-compile makes for them)")),
    cl::init(DynamicShapes::Specialize), cl::cat(runCategory));
static cl::opt<bool> dumpLLVMDialect("print-lowered",
                                     cl::desc("Print the LLVM-dialect module "
                                              "that is JIT-compiled"),
                                     cl::cat(runCategory));

/// Per-layer timers that the instrumented code calls around each layer
/// (dlas-instrument-layers); only the calling thread runs between them.
namespace {
struct LayerTimers {
  std::vector<std::chrono::steady_clock::time_point> started;
  std::vector<std::vector<double>> samples; // per layer, one per call
};
LayerTimers layerTimers;
} // namespace

extern "C" void dlasLayerBegin(int64_t id) {
  if (id >= 0 && (size_t)id < layerTimers.started.size())
    layerTimers.started[id] = std::chrono::steady_clock::now();
}

extern "C" void dlasLayerEnd(int64_t id) {
  if (id < 0 || (size_t)id >= layerTimers.samples.size())
    return;
  layerTimers.samples[id].push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                layerTimers.started[id])
          .count());
}

namespace {

/// Prints "dlas-run: error: ..." and returns the failure exit code.
int fail(const llvm::Twine &message) {
  llvm::errs() << "dlas-run: error: " << message << "\n";
  return 1;
}

/// Sum of the FLOP counts of the nn ops in `func`, when all are known.
std::optional<int64_t> countFlops(Operation *func) {
  int64_t total = 0;
  bool known = true;
  func->walk([&](nn::FlopCountOpInterface op) {
    std::optional<int64_t> flops = op.getFlopCount();
    if (flops)
      total += *flops;
    else
      known = false;
  });
  if (!known || total == 0)
    return std::nullopt;
  return total;
}

/// A module whose entry is already an llvm.func (lowered by
/// dlas-cpu-pipeline, possibly with OpenMP ops beside) runs as it is.
bool isLoweredModule(ModuleOp module, StringRef entry) {
  return module.lookupSymbol<LLVM::LLVMFuncOp>(entry) &&
         !module.lookupSymbol<func::FuncOp>(entry);
}

/// Input `index` read from `path`, checked against its `type`.
/// Input #`index` read from `path`, or an error naming both.
llvm::Expected<NpyArray> readInputArray(unsigned index, StringRef path) {
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "input #" + llvm::Twine(index) + " " +
                                       llvm::toString(array.takeError()));
  return array;
}

/// `array` (input #`index`, from `path`) if its dtype and shape fit the
/// entry's `type`.
FailureOr<NpyArray> checkInputArray(unsigned index, StringRef path,
                                    NpyArray array, ShapedType type) {
  NpyDType dtype = *npyDTypeOf(type.getElementType());
  if (array.dtype() != dtype) {
    fail("input #" + llvm::Twine(index) + " '" + path + "' has dtype " +
         npyDTypeName(array.dtype()) + " but the entry expects " +
         npyDTypeName(dtype));
    return failure();
  }
  bool shapeOk = (int64_t)array.shape().size() == type.getRank();
  for (int64_t d = 0; shapeOk && d < type.getRank(); ++d)
    shapeOk = type.isDynamicDim(d) || type.getDimSize(d) == array.shape()[d];
  if (!shapeOk) {
    fail("input #" + llvm::Twine(index) + " '" + path + "' has shape " +
         shapeString(array.shape()) + " but the entry expects " +
         shapeString(type.getShape()));
    return failure();
  }
  return std::move(array);
}

FailureOr<NpyArray> readInputFile(unsigned index, StringRef path,
                                  ShapedType type) {
  llvm::Expected<NpyArray> array = readInputArray(index, path);
  if (!array) {
    fail(llvm::toString(array.takeError()));
    return failure();
  }
  return checkInputArray(index, path, std::move(*array), type);
}

/// Input #`index` of `type`: its --input file (`preread` holds the files
/// read before import, if any), or seeded random values.
FailureOr<NpyArray> makeInput(unsigned index, ShapedType type,
                              std::mt19937 &rng,
                              MutableArrayRef<NpyArray> preread) {
  NpyDType dtype = *npyDTypeOf(type.getElementType());
  if (!inputFiles.empty())
    return index < preread.size()
               ? checkInputArray(index, inputFiles[index],
                                 std::move(preread[index]), type)
               : readInputFile(index, inputFiles[index], type);
  SmallVector<int64_t> shape;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? dynamicDimSize.getValue() : d);
  llvm::Expected<NpyArray> allocated = NpyArray::allocate(dtype, shape);
  if (!allocated) {
    fail("random input #" + llvm::Twine(index) + ": " +
         llvm::toString(allocated.takeError()));
    return failure();
  }
  NpyArray array = std::move(*allocated);
  fillRandom(array, type.getElementType(), rng);
  return std::move(array);
}

/// Refuses option values that would make a check meaningless or a size
/// wrap around: tolerances must be finite and non-negative, a dynamic
/// dimension's size non-negative.
int checkOptions() {
  auto badTolerance = [](double v) { return !std::isfinite(v) || v < 0; };
  if (badTolerance(relTolerance))
    return fail("--rtol must be a finite, non-negative number, got " +
                llvm::formatv("{0}", relTolerance.getValue()).str());
  if (badTolerance(absTolerance))
    return fail("--atol must be a finite, non-negative number, got " +
                llvm::formatv("{0}", absTolerance.getValue()).str());
  if (maxRelErr.getNumOccurrences() && badTolerance(maxRelErr))
    return fail("--max-rel-err must be a finite, non-negative number, got " +
                llvm::formatv("{0}", maxRelErr.getValue()).str());
  if (!llvm::is_contained(ArrayRef<StringRef>{"auto", "direct", "gemm",
                                              "im2col", "flat", "winograd"},
                          StringRef(convAlgorithm)))
    return fail("--conv-algorithm must be auto, direct, gemm, im2col, flat "
                "or winograd, got '" +
                convAlgorithm + "'");
  if (!llvm::is_contained(ArrayRef<StringRef>{"auto", "always", "never"},
                          StringRef(gspcPolicy)))
    return fail("--gspc must be auto, always or never, got '" + gspcPolicy +
                "'");
  // Counts are signed options so that a negative one gets this message,
  // not llvm::cl's.
  for (auto [name, value] :
       {std::pair<StringRef, int64_t>{"--seed", seed},
        {"--warmup", warmup},
        {"--repeat", repeat},
        {"--num-threads", numThreads},
        {"--compile-threads", compileThreads}})
    if (value < 0)
      return fail(name + " must not be negative, got " + Twine(value));
  if (optLevel < 0 || optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3, got " + Twine(optLevel.getValue()));
  if (dynamicDimSize < 0)
    return fail("--dynamic-dim-size must not be negative, got " +
                llvm::Twine(dynamicDimSize.getValue()));
  return 0;
}

/// --calibrate: runs the compiled entry, which returns its probes after
/// its own results, on every sample and writes the ranges.
int runCalibration(JIT &engine, ModuleOp module, StringRef entryName) {
  llvm::Expected<std::vector<CalibrationProbe>> probes =
      calibrationProbes(module, entryName);
  if (!probes)
    return fail("--calibrate: " + llvm::toString(probes.takeError()));
  auto llvmFunc = module.lookupSymbol<LLVM::LLVMFuncOp>(entryName);
  auto sigAttr = llvmFunc
                     ? llvmFunc->getAttrOfType<TypeAttr>(kSignatureAttrName)
                     : TypeAttr();
  if (!sigAttr)
    return fail("the compiled entry '" + entryName +
                "' lacks its dlas.signature attribute");
  llvm::Expected<EntrySignature> sig =
      entrySignature(cast<FunctionType>(sigAttr.getValue()), entryName);
  if (!sig)
    return fail(llvm::toString(sig.takeError()));
  llvm::Expected<std::vector<std::vector<std::string>>> samples =
      calibrationSamples(calibrateDir, sig->inputs.size());
  if (!samples)
    return fail("--calibrate: " + llvm::toString(samples.takeError()));
  CalibrationRecorder recorder(*probes, calibrationMethod,
                               calibrationPercentile);
  for (const std::vector<std::string> &sample : *samples) {
    SmallVector<NpyArray> inputs;
    for (auto [i, path] : llvm::enumerate(sample)) {
      FailureOr<NpyArray> input = readInputFile(i, path, sig->inputs[i]);
      if (failed(input))
        return 1;
      inputs.push_back(std::move(*input));
    }
    EntryRunner runner(engine, "_mlir_ciface_" + entryName.str(), *sig,
                       inputs);
    if (llvm::Error err = runner.run())
      return fail("run failed on calibration sample '" + sample.front() +
                  "': " + llvm::toString(std::move(err)));
    SmallVector<NpyArray> values;
    for (const CalibrationProbe &probe : *probes)
      values.push_back(runner.result(probe.result));
    if (llvm::Error err = recorder.record(values))
      return fail("--calibrate: sample '" + sample.front() +
                  "': " + llvm::toString(std::move(err)));
  }
  if (llvm::Error err = nn::writeCalibration(calibrationFile, recorder.table()))
    return fail(llvm::toString(std::move(err)));
  llvm::outs() << "calibrated " << probes->size() << " layer(s) over "
               << recorder.samples() << " sample(s) ("
               << calibrationMethod << ") -> " << calibrationFile << "\n";
  return 0;
}

/// The calibration options that do not fit together, or "".
std::string calibrationOptionError() {
  bool calibrating = !calibrateDir.empty();
  if (calibrating && calibrationFile.empty())
    return "--calibrate needs --calibration=FILE to write the ranges to";
  if (calibrating && precisionPolicy != "f32")
    return "--calibrate runs the f32 model; drop --precision";
  if (calibrating && (!inputFiles.empty() || randomInputs ||
                      !expectFiles.empty() || repeat > 0))
    return "--calibrate takes its inputs from DIR; it does not run with "
           "--input, --random-inputs, --expect or --repeat";
  if (!calibrating && !calibrationFile.empty() && precisionPolicy != "int8")
    return "--calibration is read by --precision=int8 (or written by "
           "--calibrate)";
  if (!keepF32.empty() && !pipeline.empty())
    return "--keep-f32 configures the built-in pipeline; with --pipeline "
           "give it as dlas-cpu-pipeline{keep-f32=...}";
  if (!keepF32.empty() && precisionPolicy == "f32")
    return "--keep-f32 guards the layers of --precision; give one";
  if (calibrationMethod != "minmax" && calibrationMethod != "percentile")
    return "unknown --calibration-method '" + calibrationMethod +
           "' (minmax or percentile)";
  if (!(calibrationPercentile > 50.0 && calibrationPercentile <= 100.0))
    return "--calibration-percentile must be in (50, 100]";
  return "";
}

/// The GPU runtime's entry points, bound into the JIT for code from
/// dlas-gpu-pipeline (unused by CPU code).
static void addGPURuntimeSymbols(llvm::StringMap<void *> &symbols) {
  auto bind = [&](StringRef name, auto *function) {
    symbols[name] = reinterpret_cast<void *>(function);
  };
  bind("mgpuModuleLoad", &mgpuModuleLoad);
  bind("mgpuModuleLoadJIT", &mgpuModuleLoadJIT);
  bind("mgpuModuleUnload", &mgpuModuleUnload);
  bind("mgpuModuleGetFunction", &mgpuModuleGetFunction);
  bind("mgpuLaunchKernel", &mgpuLaunchKernel);
  bind("mgpuStreamCreate", &mgpuStreamCreate);
  bind("mgpuStreamDestroy", &mgpuStreamDestroy);
  bind("mgpuStreamSynchronize", &mgpuStreamSynchronize);
  bind("mgpuStreamWaitEvent", &mgpuStreamWaitEvent);
  bind("mgpuEventCreate", &mgpuEventCreate);
  bind("mgpuEventDestroy", &mgpuEventDestroy);
  bind("mgpuEventSynchronize", &mgpuEventSynchronize);
  bind("mgpuEventRecord", &mgpuEventRecord);
  bind("mgpuMemAlloc", &mgpuMemAlloc);
  bind("mgpuMemFree", &mgpuMemFree);
  bind("mgpuMemcpy", &mgpuMemcpy);
  bind("mgpuMemset32", &mgpuMemset32);
  bind("mgpuMemset16", &mgpuMemset16);
  bind("mgpuSetDefaultDevice", &mgpuSetDefaultDevice);
  for (const char *type :
       {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1"})
    bind((llvm::Twine("dlas_gpu_constant_") + type).str(), &dlasGpuConstant);
}

/// The runtime's per-kernel device times: each kernel's median over the
/// timed runs, in first-launch order, and their sum.
static void printGPUProfile(int runs) {
  int kernels = dlasGpuProfileKernels();
  SmallVector<double> medians;
  double total = 0;
  for (int k = 0; k < kernels; ++k) {
    SmallVector<double> samples;
    for (int i = 0, e = dlasGpuProfileSamples(k); i < e; ++i)
      samples.push_back(dlasGpuProfileSample(k, i));
    llvm::sort(samples);
    medians.push_back(samples.empty() ? 0 : samples[samples.size() / 2]);
    total += medians.back();
  }
  llvm::outs() << "profile: " << kernels << " kernels, median of " << runs
               << " run(s), device time (events), sum of kernel medians "
               << llvm::format("%.3f", total) << " ms\n";
  for (int k = 0; k < kernels; ++k)
    llvm::outs() << llvm::format("  %10.3f ms %5.1f%%  ", medians[k],
                                 total > 0 ? 100 * medians[k] / total : 0.0)
                 << dlasGpuProfileLabel(k) << "\n";
}

/// For a GPU --target: opens the driver and its first device (the one place
/// dlas-run asks the GPU what it is) and returns the concrete target name
/// (`cuda` alone becomes the device's `cuda:sm_NN`), or an error.
static llvm::Expected<std::string> resolveGPUTargetOnDevice(StringRef name) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (name.contains(':') && !lookupGPUTargetName(name))
    return error("unknown GPU target '" + name +
                 "' (known: " + knownGPUTargetNames() + ")");
  StringRef api = name.starts_with("cuda") ? "cuda" : "rocm";
  if (dlasGpuSetPlatform(api.str().c_str()) != 0 || dlasGpuInit() != 0)
    return error("--target=" + name + ": " + dlasGpuLastError());
  std::string concrete = name.str();
  if (name == "cuda")
    concrete = "cuda:" + std::string(dlasGpuDeviceArch());
  else if (name == "rocm")
    return error("--target=rocm needs the chip: rocm:gfx90a or rocm:gfx942");
  if (!lookupGPUTargetName(concrete))
    return error(
        "--target=" + concrete + " (device '" + dlasGpuDeviceName() +
        "') is not a known GPU target; known: " + knownGPUTargetNames());
  return concrete;
}

/// The shapes an ONNX model's symbolic input sizes are compiled for: the
/// --input files' (read here, into `preread`, once), or --dynamic-dim-size
/// with --random-inputs; none with --dynamic-shapes=keep, for MLIR input
/// (its types are the user's), or when calibrating (the samples may differ
/// in size). Resolved here, at the tool's edge, as the host target is: the
/// compiler sees a static model.
static llvm::Expected<ONNXImportOptions>
importShapes(SmallVectorImpl<NpyArray> &preread) {
  ONNXImportOptions options;
  // A file that does not fit its input leaves it as declared: the input
  // check then names the file and both shapes.
  options.inputShapesMustFit = false;
  if (dynamicShapes == DynamicShapes::Keep ||
      !StringRef(inputFilename).ends_with(".onnx") || !calibrateDir.empty())
    return options;
  if (randomInputs) {
    options.symbolicDimSize = dynamicDimSize;
    return options;
  }
  for (auto [index, path] : llvm::enumerate(inputFiles)) {
    llvm::Expected<NpyArray> array = readInputArray(index, path);
    if (!array)
      return array.takeError();
    options.inputShapes.emplace_back(array->shape().begin(),
                                     array->shape().end());
    preread.push_back(std::move(*array));
  }
  return options;
}

int runMain() {
  if (int rc = checkOptions())
    return rc;
  if (std::string error = calibrationOptionError(); !error.empty())
    return fail(error);
  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  using Clock = std::chrono::steady_clock;
  auto msSince = [](Clock::time_point from) {
    return std::chrono::duration<double, std::milli>(Clock::now() - from)
        .count();
  };
  SmallVector<NpyArray> preread;
  llvm::Expected<ONNXImportOptions> onnxOptions = importShapes(preread);
  if (!onnxOptions)
    return fail(llvm::toString(onnxOptions.takeError()));
  auto importStart = Clock::now();
  llvm::Expected<OwningOpRef<ModuleOp>> loaded =
      loadModel(&context, inputFilename, entryName, sourceMgr, *onnxOptions);
  double importMs = msSince(importStart);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  OwningOpRef<ModuleOp> module = std::move(*loaded);

  // The entry's tensor signature: from func.func, or from the
  // dlas.signature attribute that dlas-cpu-pipeline leaves on LLVM funcs.
  FunctionType entryType;
  std::optional<int64_t> flops;
  bool alreadyLowered = isLoweredModule(*module, entryName);
  if (alreadyLowered) {
    auto llvmFunc = module->lookupSymbol<LLVM::LLVMFuncOp>(entryName);
    if (!llvmFunc)
      return fail("entry function '" + entryName + "' not found");
    auto sigAttr = llvmFunc->getAttrOfType<TypeAttr>(kSignatureAttrName);
    if (!sigAttr || !module->lookupSymbol("_mlir_ciface_" + entryName))
      return fail("LLVM-dialect entry '" + entryName +
                  "' lacks the dlas.signature attribute or its "
                  "_mlir_ciface_ wrapper; lower it with dlas-cpu-pipeline");
    entryType = cast<FunctionType>(sigAttr.getValue());
  } else {
    auto func = module->lookupSymbol<func::FuncOp>(entryName);
    if (!func || func.isExternal())
      return fail("entry function '" + entryName + "' not found in '" +
                  inputFilename + "'");
    entryType = entrySignatureOf(func);
    flops = countFlops(func);
  }
  llvm::Expected<EntrySignature> sig = entrySignature(entryType, entryName);
  if (!sig)
    return fail(llvm::toString(sig.takeError()));

  // Inputs, checked against the entry's signature: before compiling, so
  // that a wrong input fails fast, except with --blocked-entry, where the
  // pipeline changes the signature and the compiled one is checked.
  SmallVector<NpyArray> expected;
  SmallVector<NpyArray> inputs;
  auto readInputs = [&]() -> int {
    if (!inputFiles.empty() && randomInputs)
      return fail("give either --input files or --random-inputs, not both");
    if (inputFiles.empty() && !randomInputs && !sig->inputs.empty())
      return fail("entry '" + entryName + "' takes " +
                  llvm::Twine(sig->inputs.size()) +
                  " argument(s): give --input files or --random-inputs");
    if (!inputFiles.empty() && inputFiles.size() != sig->inputs.size())
      return fail("entry '" + entryName + "' takes " +
                  llvm::Twine(sig->inputs.size()) + " argument(s) but " +
                  llvm::Twine(inputFiles.size()) + " --input file(s) were given");
    if (!expectFiles.empty() && expectFiles.size() != sig->results.size())
      return fail("entry '" + entryName + "' returns " +
                  llvm::Twine(sig->results.size()) + " result(s) but " +
                  llvm::Twine(expectFiles.size()) +
                  " --expect file(s) were given");
    for (StringRef path : expectFiles) {
      llvm::Expected<NpyArray> array = readNpy(path);
      if (!array)
        return fail("expected output " + llvm::toString(array.takeError()));
      expected.push_back(std::move(*array));
    }
    std::mt19937 rng(static_cast<uint32_t>(seed));
    for (auto [i, type] : llvm::enumerate(sig->inputs)) {
      FailureOr<NpyArray> input = makeInput(i, type, rng, preread);
      if (failed(input))
        return 1;
      inputs.push_back(std::move(*input));
    }
    return 0;
  };
  bool calibrating = !calibrateDir.empty();
  // A --pipeline may change the entry's signature (blocked-entry=1): its
  // inputs are read against the compiled one.
  bool inputsAfterCompiling = blockedEntry || !pipeline.empty();
  if (!inputsAfterCompiling && !calibrating)
    if (int rc = readInputs())
      return rc;

  // Compile.
  auto compileStart = std::chrono::steady_clock::now();
  double passesMs = 0;
  if (!alreadyLowered) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return fail("bad --mlir-* pass manager options");
    applyDefaultTimingPassManagerCLOptions(pm);
    if (!pipeline.empty() && blockedEntry)
      return fail("--blocked-entry configures the built-in pipeline; with "
                  "--pipeline give it as dlas-cpu-pipeline{blocked-entry=1}");
    if (!pipeline.empty() && !tuningFile.empty())
      return fail("--tuning-file configures the built-in pipeline; with "
                  "--pipeline give it as dlas-cpu-pipeline{tuning-file=...}");
    if (!pipeline.empty() && sparsifyPolicy.getNumOccurrences())
      return fail("--sparsify configures the built-in pipeline; with "
                  "--pipeline give it as dlas-cpu-pipeline{sparsify=...}");
    if (!pipeline.empty() && precisionPolicy.getNumOccurrences())
      return fail("--precision configures the built-in pipeline; with "
                  "--pipeline give it as dlas-cpu-pipeline{precision=...}");
    // Pruning changes the model, whatever pipeline compiles it.
    if (pruneSparsity > 0.0) {
      PassManager prunePm(&context);
      sparse::PruneOptions prune;
      prune.sparsity = pruneSparsity;
      prune.structure = pruneStructure;
      prune.report = printSparsify;
      // Weights computed from constants (reshapes, transposes) fold first.
      prunePm.addPass(createCanonicalizerPass());
      prunePm.addPass(sparse::createPrune(prune));
      if (failed(prunePm.run(*module)))
        return fail("--prune failed on '" + inputFilename + "'");
    }
    if (!pipeline.empty()) {
      // A full, anchored pipeline: builtin.module(...).
      FailureOr<OpPassManager> parsed =
          parsePassPipeline(pipeline, llvm::errs());
      if (failed(parsed))
        return fail("cannot parse --pipeline '" + pipeline + "'");
      if (parsed->getOpAnchorName() != ModuleOp::getOperationName())
        return fail("--pipeline must be anchored on builtin.module, got '" +
                    parsed->getOpAnchorName() + "'");
      static_cast<OpPassManager &>(pm) = std::move(*parsed);
      if (!target.empty() || !targetFeatures.empty())
        return fail("--target configures the built-in pipeline; with "
                    "--pipeline give it as dlas-cpu-pipeline{target=...}");
      if (allowTF32)
        return fail("--allow-tf32 configures the built-in GPU pipeline; "
                    "with --pipeline give it as "
                    "dlas-gpu-pipeline{allow-tf32}");
    } else if (isGPUTargetName(target)) {
      for (auto [given, name] :
           {std::pair{!tuningFile.empty(), "--tuning-file"},
            std::pair{bool(blockedEntry), "--blocked-entry"},
            std::pair{calibrating, "--calibrate"},
            std::pair{sparsifyPolicy.getNumOccurrences() > 0, "--sparsify"},
            std::pair{precisionPolicy == "int8", "--precision=int8"}})
        if (given)
          return fail(llvm::Twine(name) +
                      " is not supported with a GPU --target yet");
      llvm::Expected<std::string> concrete = resolveGPUTargetOnDevice(target);
      if (!concrete)
        return fail(llvm::toString(concrete.takeError()));
      GPUPipelineOptions gpuOptions;
      gpuOptions.target = *concrete;
      gpuOptions.precision = precisionPolicy;
      gpuOptions.keepF32 = keepF32;
      gpuOptions.printPrecision = printPrecision;
      gpuOptions.allowTF32 = allowTF32;
      buildGPUPipeline(pm, gpuOptions);
    } else {
      if (allowTF32)
        return fail("--allow-tf32 is for GPU targets (NVIDIA tensor cores)");
      CPUPipelineOptions pipelineOptions;
      // Weights stay in memory and are bound to the code below.
      pipelineOptions.externalWeights = true;
      pipelineOptions.convAlgorithm = convAlgorithm;
      pipelineOptions.gspc = gspcPolicy;
      pipelineOptions.fusePools = fusePools;
      pipelineOptions.printConvAlgorithms = printConvAlgorithms;
      pipelineOptions.profileLayers = profileLayers;
      pipelineOptions.tuningFile = tuningFile;
      pipelineOptions.blockedEntry = blockedEntry;
      pipelineOptions.sparsify = sparsifyPolicy;
      pipelineOptions.printSparsify = printSparsify;
      pipelineOptions.precision = precisionPolicy;
      pipelineOptions.printPrecision = printPrecision;
      pipelineOptions.calibration = calibrationFile;
      pipelineOptions.keepF32 = keepF32;
      pipelineOptions.calibrate = calibrating;
      pipelineOptions.target = target;
      pipelineOptions.targetFeatures = targetFeatures;
      // Refuse a bad name before compiling (the pipeline would too, later).
      if (!target.empty()) {
        CPUTargetOverrides overrides;
        overrides.features = targetFeatures;
        llvm::Expected<CPUTargetAttr> named =
            resolveCPUTargetOrHost(&context, target, overrides);
        if (!named)
          return fail(llvm::toString(named.takeError()));
      }
      buildCPUPipeline(pm, pipelineOptions);
    }
    auto passesStart = Clock::now();
    if (failed(pm.run(*module)))
      return fail("compilation pipeline failed on '" + inputFilename + "'");
    passesMs = msSince(passesStart);
    if (!module->lookupSymbol("_mlir_ciface_" + entryName))
      return fail("the pipeline did not produce '_mlir_ciface_" + entryName +
                  "'; it must lower to the LLVM dialect with C interfaces "
                  "(see dlas-prepare-entry-abi)");
  }
  // The compiled entry's signature: --blocked-entry changes it, and so
  // does a --pipeline with dlas-cpu-pipeline{blocked-entry=1}.
  if (inputsAfterCompiling && !calibrating) {
    auto llvmFunc = module->lookupSymbol<LLVM::LLVMFuncOp>(entryName);
    auto sigAttr =
        llvmFunc ? llvmFunc->getAttrOfType<TypeAttr>(kSignatureAttrName)
                 : TypeAttr();
    if (!sigAttr && blockedEntry)
      return fail("the compiled entry '" + entryName +
                  "' lacks its dlas.signature attribute");
    if (sigAttr) {
      sig = entrySignature(cast<FunctionType>(sigAttr.getValue()), entryName);
      if (!sig)
        return fail(llvm::toString(sig.takeError()));
    }
    if (int rc = readInputs())
      return rc;
  }
  if (dumpLLVMDialect)
    module->print(llvm::outs());

  // The code is generated for the target the pipeline put on its functions
  // (already-lowered IR without one: --target, else the host), which this
  // host must be able to run.
  std::optional<std::pair<std::string, std::string>> codeTarget =
      loweredTarget(*module);
  if (!codeTarget) {
    CPUTargetOverrides overrides;
    overrides.features = targetFeatures;
    // A GPU target's host code runs on this host.
    StringRef hostTarget =
        target.empty() || isGPUTargetName(target) ? "host" : StringRef(target);
    llvm::Expected<CPUTargetAttr> host =
        resolveCPUTargetOrHost(&context, hostTarget, overrides);
    if (!host)
      return fail(llvm::toString(host.takeError()));
    codeTarget = {host->getCpu().str(), host->llvmFeatureString()};
  }
  // Parallel loops call the OpenMP runtime; it reads the thread count from
  // the environment when it starts.
  configureOpenMPThreads(numThreads);
  JITOptions jitOptions;
  jitOptions.cpu = codeTarget->first;
  jitOptions.features = codeTarget->second;
  jitOptions.optLevel = optLevel;
  jitOptions.ompLibrary = ompLibrary;
  jitOptions.compileThreads = compileThreads;
  // Layer timers for --profile.
  ArrayAttr layerNames =
      module->getOperation()->getAttrOfType<ArrayAttr>("dlas.layers");
  // GPU code is profiled per kernel, by the runtime's events.
  bool gpuProfile = profileLayers && isGPUTargetName(target);
  if (profileLayers && !layerNames && !gpuProfile)
    return fail("--profile needs layer functions: compile with the default "
                "pipeline (or one with profile-layers=true)");
  llvm::StringMap<void *> hooks;
  if (layerNames) {
    layerTimers.started.assign(layerNames.size(), {});
    layerTimers.samples.assign(layerNames.size(), {});
    hooks["dlas_layer_begin"] = reinterpret_cast<void *>(&dlasLayerBegin);
    hooks["dlas_layer_end"] = reinterpret_cast<void *>(&dlasLayerEnd);
  }
  addGPURuntimeSymbols(hooks);
  llvm::Expected<std::unique_ptr<JIT>> engine =
      JIT::create(*module, jitOptions, hooks);
  // Kernel modules load in the code's constructors, when it is linked.
  if (engine && dlasGpuLastError())
    return fail(std::string("GPU: ") + dlasGpuLastError());
  if (!engine)
    return fail(llvm::toString(engine.takeError()));
  // ORC links the objects on first lookup: do it now so that the compile
  // time includes it and the first timed run does not.
  if (auto entryFn = (*engine)->lookupPacked("_mlir_ciface_" + entryName);
      !entryFn)
    return fail("JIT compilation failed: " +
                llvm::toString(entryFn.takeError()));
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();
  llvm::outs() << "compiled '" << entryName << "' in "
               << llvm::format("%.1f", compileMs) << " ms\n";
  if (timeStages)
    llvm::outs() << llvm::format(
        "stages: import %.1f ms, passes %.1f ms, LLVM %.1f ms, total %.1f "
        "ms\n",
        importMs, passesMs, compileMs - passesMs, importMs + compileMs);

  if (calibrating)
    return runCalibration(**engine, *module, entryName);

  // Run.
  EntryRunner runner(**engine, "_mlir_ciface_" + entryName, *sig, inputs);
  for (int i = 0; i < warmup; ++i)
    if (llvm::Error err = runner.run())
      return fail("run failed: " + llvm::toString(std::move(err)));
  if (const char *gpuError = dlasGpuLastError())
    return fail(std::string("run failed on the GPU: ") + gpuError);
  // The profile covers the timed runs only.
  for (auto &samples : layerTimers.samples)
    samples.clear();
  dlasGpuProfile(gpuProfile);
  SmallVector<double> times;
  int runs = std::max(1, repeat.getValue());
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error err = runner.run())
      return fail("run failed: " + llvm::toString(std::move(err)));
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
    // The events of a profiled run are read outside its timed span.
    if (gpuProfile)
      dlasGpuProfileFlush();
    if (const char *gpuError = dlasGpuLastError())
      return fail(std::string("run failed on the GPU: ") + gpuError);
  }
  dlasGpuProfile(false);

  bool allPass = true;
  for (unsigned i = 0; i < sig->results.size(); ++i) {
    NpyArray output = runner.result(i);
    double sum = 0, sumAbs = 0;
    for (int64_t k = 0, e = output.numElements(); k < e; ++k) {
      sum += output.at(k);
      sumAbs += std::fabs(output.at(k));
    }
    llvm::outs() << "output #" << i << ": shape " << shapeString(output.shape())
                 << " " << npyDTypeName(output.dtype()) << ", checksum sum "
                 << llvm::format("%.6e", sum) << ", sum|x| "
                 << llvm::format("%.6e", sumAbs) << "\n";
    if (!outputDir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
        return fail("cannot create '" + outputDir + "': " + ec.message());
      SmallString<256> path(outputDir);
      llvm::sys::path::append(path, entryName + "_output" + llvm::Twine(i) +
                                        ".npy");
      if (llvm::Error err = writeNpy(path, output))
        return fail(llvm::toString(std::move(err)));
    }
    Tolerance tolerance{relTolerance, absTolerance, maxRelErr};
    if (!expected.empty() &&
        !compareOutput(i, output, expected[i], tolerance, llvm::outs()))
      allPass = false;
  }
  if (repeat > 0) {
    double median = medianOf(times);
    // Four decimals: a layer of a few microseconds is timed to 0.1 us, as
    // bench/peers prints its libraries' times.
    llvm::outs() << "time: min "
                 << llvm::format("%.4f", *llvm::min_element(times))
                 << " ms, median " << llvm::format("%.4f", median)
                 << " ms, max " << llvm::format("%.4f", *llvm::max_element(times))
                 << " ms (" << times.size() << " runs, " << warmup
                 << " warm-up)";
    if (flops)
      llvm::outs() << ", " << *flops << " FLOP, "
                   << llvm::format("%.2f", *flops / median / 1e6)
                   << " GFLOP/s at the median";
    llvm::outs() << "\n";
  }
  if (gpuProfile)
    printGPUProfile(runs);
  if (profileLayers && layerNames) {
    double total = 0;
    size_t called = 0;
    SmallVector<double> medians;
    for (auto &samples : layerTimers.samples) {
      medians.push_back(medianOf(samples));
      total += medians.back();
      called += !samples.empty();
    }
    llvm::outs() << "profile: " << called << " layers, median of "
                 << runs << " run(s), sum of layer medians "
                 << llvm::format("%.3f", total) << " ms\n";
    for (auto [id, name] : llvm::enumerate(layerNames))
      if (!layerTimers.samples[id].empty()) // layers of the entry only
        llvm::outs() << llvm::format("  #%-4zu %10.3f ms %5.1f%%  ", id,
                                   medians[id],
                                   total > 0 ? 100 * medians[id] / total : 0.0)
                   << cast<StringAttr>(name).getValue() << "\n";
  }
  if (!expected.empty())
    llvm::outs() << (allPass ? "PASS" : "FAIL") << "\n";
  return allPass ? 0 : 2;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // A run-time check in compiled code (cf.assert: sizes that must agree)
  // prints its message with puts and aborts: line buffering gets the
  // message out before the abort.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  llvm::setBugReportMsg("dlas-run stopped abnormally: if a run-time check "
                        "failed, its message is above; otherwise please "
                        "report it with the model and this backtrace.\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerAllPasses();
  dlas::registerAllPasses();
  // MLIR's own --mlir-timing, --mlir-print-ir-*, --mlir-disable-threading
  // (hidden: --help-hidden lists them).
  mlir::registerPassManagerCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions(runCategory);
  if (!mlir::dlas::parseToolOptions(argc, argv, "DLAS JIT runner\n"))
    return 1;
  keepFreedMemoryMapped();

  // JIT code may keep large vectors on the stack: run it on a thread with a
  // 512 MiB stack instead of the default 8 MiB.
  int exitCode = 1;
  std::optional<unsigned> stackSize = 512u << 20;
  llvm::thread runner(stackSize, [&] { exitCode = runMain(); });
  runner.join();
  return exitCode;
}
