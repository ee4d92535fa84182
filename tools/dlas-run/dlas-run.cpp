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
#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Runner/TargetMachine.h"
#include "DLAS/InitAllDialects.h"
#include "DLAS/InitAllPasses.h"
#include "DLAS/Support/Npy.h"
#include "DLAS/Target/ONNX/ONNXImporter.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <limits>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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
static cl::opt<unsigned> seed("seed", cl::desc("Seed of --random-inputs"),
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
static cl::opt<unsigned> warmup("warmup",
                                cl::desc("Untimed runs before timing"),
                                cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> repeat("repeat",
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
             "to run it (dlas-compile cross-compiles)"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("+name/-name changes to the target's features, e.g. "
             "-avx512f"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> convAlgorithm(
    "conv-algorithm",
    cl::desc("Convolution algorithm for the CPU pipeline: auto, direct, gemm "
             "or im2col"),
    cl::init("auto"), cl::cat(runCategory));
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
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(3), cl::Prefix,
                                  cl::cat(runCategory));
static cl::opt<unsigned> numThreads(
    "num-threads",
    cl::desc("OpenMP threads for parallel loops (0: OpenMP's default, all "
             "cores)"),
    cl::init(1), cl::cat(runCategory));
static cl::opt<std::string> ompLibrary(
    "omp-library", cl::desc("OpenMP runtime the JIT code links against"),
    cl::init("/usr/lib/llvm-22/lib/libomp.so"), cl::cat(runCategory));
static cl::opt<bool> profileLayers(
    "profile",
    cl::desc("Print the median time of every layer (nn op) over the timed "
             "runs"),
    cl::cat(runCategory));
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

/// Median of `values` (0 when empty); the caller's order is kept.
double medianOf(ArrayRef<double> values) {
  if (values.empty())
    return 0.0;
  SmallVector<double> sorted(values);
  llvm::sort(sorted);
  size_t mid = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

/// Prints "dlas-run: error: ..." and returns the failure exit code.
int fail(const llvm::Twine &message) {
  llvm::errs() << "dlas-run: error: " << message << "\n";
  return 1;
}

/// A memref descriptor of rank R as the LLVM lowering lays it out:
/// {allocated, aligned, offset, sizes[R], strides[R]}, all 8 bytes.
struct Descriptor {
  explicit Descriptor(int64_t rank) : words(3 + 2 * rank, 0), rank(rank) {}
  void *&allocated() { return reinterpret_cast<void *&>(words[0]); }
  void *&aligned() { return reinterpret_cast<void *&>(words[1]); }
  int64_t &offset() { return words[2]; }
  int64_t &size(int64_t i) { return words[3 + i]; }
  int64_t &stride(int64_t i) { return words[3 + rank + i]; }
  SmallVector<int64_t> words;
  int64_t rank;
};

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::optional<NpyDType> dtypeOf(Type type) {
  if (type.isF32())
    return NpyDType::F32;
  if (type.isF16())
    return NpyDType::F16;
  if (type.isBF16())
    return NpyDType::BF16;
  if (type.isInteger(8))
    return NpyDType::I8;
  if (type.isInteger(32))
    return NpyDType::I32;
  if (type.isInteger(64))
    return NpyDType::I64;
  return std::nullopt;
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + (ShapedType::isDynamic(d) ? "?" : std::to_string(d));
  return s.empty() ? "scalar" : s;
}

/// The entry's argument and result types, which must be ranked tensors or
/// memrefs with a supported element type.
struct EntrySignature {
  SmallVector<ShapedType> inputs, results;
};

FailureOr<EntrySignature> entrySignature(FunctionType type, StringRef entry) {
  EntrySignature sig;
  auto convert = [&](TypeRange types, SmallVectorImpl<ShapedType> &out,
                     StringRef what) -> LogicalResult {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto shaped = dyn_cast<ShapedType>(t);
      if (!shaped || !shaped.hasRank() || !dtypeOf(shaped.getElementType())) {
        fail("entry '" + entry + "' " + what + " #" + llvm::Twine(i) +
             " has unsupported type " + llvm::Twine(typeString(t)) +
             " (need a ranked tensor of f32, f16, bf16, i8, i32 or i64)");
        return failure();
      }
      out.push_back(shaped);
    }
    return success();
  };
  if (failed(convert(type.getInputs(), sig.inputs, "argument")) ||
      failed(convert(type.getResults(), sig.results, "result")))
    return failure();
  return sig;
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

FailureOr<NpyArray> makeInput(unsigned index, ShapedType type,
                              std::mt19937 &rng) {
  NpyDType dtype = *dtypeOf(type.getElementType());
  if (!inputFiles.empty()) {
    StringRef path = inputFiles[index];
    llvm::Expected<NpyArray> array = readNpy(path);
    if (!array) {
      fail("input #" + llvm::Twine(index) + " " +
           llvm::toString(array.takeError()));
      return failure();
    }
    if (array->dtype() != dtype) {
      fail("input #" + llvm::Twine(index) + " '" + path + "' has dtype " +
           npyDTypeName(array->dtype()) + " but the entry expects " +
           npyDTypeName(dtype));
      return failure();
    }
    bool shapeOk = (int64_t)array->shape().size() == type.getRank();
    for (int64_t d = 0; shapeOk && d < type.getRank(); ++d)
      shapeOk = type.isDynamicDim(d) || type.getDimSize(d) == array->shape()[d];
    if (!shapeOk) {
      fail("input #" + llvm::Twine(index) + " '" + path + "' has shape " +
           shapeString(array->shape()) + " but the entry expects " +
           shapeString(type.getShape()));
      return failure();
    }
    return std::move(*array);
  }
  SmallVector<int64_t> shape;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? dynamicDimSize.getValue() : d);
  NpyArray array(dtype, shape);
  bool isFloat = isa<FloatType>(type.getElementType());
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 8);
  for (int64_t i = 0, e = array.numElements(); i < e; ++i)
    array.set(i, isFloat ? real(rng) : integer(rng));
  return std::move(array);
}

/// Compares an output with an expected array; returns true on PASS.
bool compare(unsigned index, const NpyArray &actual, const NpyArray &expected) {
  if (actual.shape() != expected.shape()) {
    llvm::outs() << "output #" << index << ": FAIL shape "
                 << shapeString(actual.shape()) << " but expected "
                 << shapeString(expected.shape()) << "\n";
    return false;
  }
  double maxAbs = 0, maxExpected = 0;
  int64_t mismatches = 0, worst = -1;
  double worstExcess = -1;
  for (int64_t i = 0, e = actual.numElements(); i < e; ++i) {
    double a = actual.at(i), b = expected.at(i);
    double diff = std::fabs(a - b);
    if (std::isnan(a) != std::isnan(b))
      diff = INFINITY;
    else if (std::isnan(a))
      diff = 0;
    maxAbs = std::max(maxAbs, diff);
    maxExpected = std::max(maxExpected, std::fabs(b));
    double excess = diff - (absTolerance + relTolerance * std::fabs(b));
    if (excess > 0) {
      ++mismatches;
      if (excess > worstExcess) {
        worstExcess = excess;
        worst = i;
      }
    }
  }
  double maxRel = maxExpected > 0 ? maxAbs / maxExpected : maxAbs;
  llvm::outs() << "output #" << index << ": max abs err "
               << llvm::format("%.3e", maxAbs) << ", max rel err "
               << llvm::format("%.3e", maxRel)
               << " (to max |expected| " << llvm::format("%.3e", maxExpected)
               << "), ";
  if (maxRelErr >= 0) {
    bool pass = maxAbs <= maxRelErr * maxExpected;
    llvm::outs() << "max-rel-err " << maxRelErr << ": "
                 << (pass ? "PASS" : "FAIL") << "\n";
    return pass;
  }
  llvm::outs() << "rtol " << relTolerance << ", atol " << absTolerance << ": ";
  if (mismatches == 0) {
    llvm::outs() << "PASS\n";
    return true;
  }
  llvm::outs() << "FAIL (" << mismatches << " of " << actual.numElements()
               << " elements; worst at flat index " << worst << ": got "
               << actual.at(worst) << ", expected " << expected.at(worst)
               << ")\n";
  return false;
}

/// Runs the JIT-compiled entry: owns input descriptors and the result
/// buffers each call returns.
class EntryRunner {
public:
  EntryRunner(ExecutionEngine &engine, std::string symbol,
              const EntrySignature &sig, SmallVector<NpyArray> &inputs)
      : engine(engine), symbol(std::move(symbol)), sig(sig) {
    for (NpyArray &input : inputs) {
      Descriptor d(input.shape().size());
      d.allocated() = d.aligned() = input.data();
      int64_t stride = 1;
      for (int64_t i = d.rank - 1; i >= 0; --i) {
        d.size(i) = input.shape()[i];
        d.stride(i) = stride;
        stride *= input.shape()[i];
      }
      inputDescriptors.push_back(std::move(d));
      inputPointers.insert(input.data());
    }
    size_t resultWords = 0;
    for (ShapedType t : sig.results)
      resultWords += 3 + 2 * t.getRank();
    resultStorage.assign(resultWords, 0);
  }
  ~EntryRunner() { releaseResults(); }

  llvm::Error run() {
    releaseResults();
    SmallVector<void *> descriptorPointers, args;
    // With results, the C interface takes a pointer to them first.
    void *resultPointer = resultStorage.data();
    if (!sig.results.empty())
      args.push_back(&resultPointer);
    for (Descriptor &d : inputDescriptors)
      descriptorPointers.push_back(d.words.data());
    for (void *&p : descriptorPointers)
      args.push_back(&p);
    if (llvm::Error err = engine.invokePacked(symbol, args))
      return err;
    hasResults = true;
    return llvm::Error::success();
  }

  /// Copies result `index` into a dense array (results may be strided).
  NpyArray result(unsigned index) {
    int64_t *words = resultWords(index);
    int64_t rank = sig.results[index].getRank();
    SmallVector<int64_t> shape(words + 3, words + 3 + rank);
    NpyDType dtype = *dtypeOf(sig.results[index].getElementType());
    NpyArray array(dtype, shape);
    size_t elementSize = npyElementSize(dtype);
    const char *base = reinterpret_cast<const char *>(words[1]) +
                       words[2] * elementSize;
    char *dst = static_cast<char *>(array.data());
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t flat = 0, e = array.numElements(); flat < e; ++flat) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d)
        offset += idx[d] * words[3 + rank + d];
      std::memcpy(dst + flat * elementSize, base + offset * elementSize,
                  elementSize);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < shape[d])
          break;
        idx[d] = 0;
      }
    }
    return array;
  }

private:
  int64_t *resultWords(unsigned index) {
    size_t offset = 0;
    for (unsigned i = 0; i < index; ++i)
      offset += 3 + 2 * sig.results[i].getRank();
    return resultStorage.data() + offset;
  }

  /// Frees the buffers the last call allocated for its results; not the
  /// inputs it may have returned, nor constant globals (whose allocated
  /// pointer the lowering sets to 0xdeadbeef).
  void releaseResults() {
    if (!hasResults)
      return;
    llvm::SmallPtrSet<void *, 4> freed;
    for (unsigned i = 0; i < sig.results.size(); ++i) {
      void *allocated = reinterpret_cast<void *>(resultWords(i)[0]);
      if (!allocated || inputPointers.contains(allocated) ||
          allocated == reinterpret_cast<void *>(0xdeadbeef) ||
          !freed.insert(allocated).second)
        continue;
      std::free(allocated);
    }
    hasResults = false;
  }

  ExecutionEngine &engine;
  std::string symbol;
  const EntrySignature &sig;
  SmallVector<Descriptor> inputDescriptors;
  llvm::SmallPtrSet<void *, 4> inputPointers;
  SmallVector<int64_t> resultStorage;
  bool hasResults = false;
};

int runMain() {
  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  dlas::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  registerDLASDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  OwningOpRef<ModuleOp> module;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  if (StringRef(inputFilename).ends_with(".onnx")) {
    // ONNX models are imported on the fly.
    ONNXImportOptions importOptions;
    importOptions.entryName = entryName;
    module = importONNXModel(inputFilename, &context, importOptions);
    if (!module)
      return fail("cannot import ONNX model '" + inputFilename + "'");
  } else {
    std::string errorMessage;
    std::unique_ptr<llvm::MemoryBuffer> file =
        openInputFile(inputFilename, &errorMessage);
    if (!file)
      return fail("cannot open '" + inputFilename + "': " + errorMessage);
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return fail("cannot parse '" + inputFilename + "'");
  }
  if (failed(verify(*module)))
    return fail("'" + inputFilename + "' does not verify");

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
    entryType = func.getFunctionType();
    flops = countFlops(func);
  }
  FailureOr<EntrySignature> sig = entrySignature(entryType, entryName);
  if (failed(sig))
    return 1;

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
    std::mt19937 rng(seed);
    for (auto [i, type] : llvm::enumerate(sig->inputs)) {
      FailureOr<NpyArray> input = makeInput(i, type, rng);
      if (failed(input))
        return 1;
      inputs.push_back(std::move(*input));
    }
    return 0;
  };
  if (!blockedEntry)
    if (int rc = readInputs())
      return rc;

  // Compile.
  auto compileStart = std::chrono::steady_clock::now();
  if (!alreadyLowered) {
    PassManager pm(&context);
    if (!pipeline.empty() && blockedEntry)
      return fail("--blocked-entry configures the built-in pipeline; with "
                  "--pipeline give it as dlas-cpu-pipeline{blocked-entry=1}");
    if (!pipeline.empty() && !tuningFile.empty())
      return fail("--tuning-file configures the built-in pipeline; with "
                  "--pipeline give it as dlas-cpu-pipeline{tuning-file=...}");
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
    } else {
      CPUPipelineOptions pipelineOptions;
      // Weights stay in memory and are bound to the code below.
      pipelineOptions.externalWeights = true;
      pipelineOptions.convAlgorithm = convAlgorithm;
      pipelineOptions.printConvAlgorithms = printConvAlgorithms;
      pipelineOptions.profileLayers = profileLayers;
      pipelineOptions.tuningFile = tuningFile;
      pipelineOptions.blockedEntry = blockedEntry;
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
    if (failed(pm.run(*module)))
      return fail("compilation pipeline failed on '" + inputFilename + "'");
    if (!module->lookupSymbol("_mlir_ciface_" + entryName))
      return fail("the pipeline did not produce '_mlir_ciface_" + entryName +
                  "'; it must lower to the LLVM dialect with C interfaces "
                  "(see dlas-prepare-entry-abi)");
  }
  if (blockedEntry) {
    auto llvmFunc = module->lookupSymbol<LLVM::LLVMFuncOp>(entryName);
    auto sigAttr =
        llvmFunc ? llvmFunc->getAttrOfType<TypeAttr>(kSignatureAttrName)
                 : TypeAttr();
    if (!sigAttr)
      return fail("the compiled entry '" + entryName +
                  "' lacks its dlas.signature attribute");
    sig = entrySignature(cast<FunctionType>(sigAttr.getValue()), entryName);
    if (failed(sig))
      return 1;
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
    llvm::Expected<CPUTargetAttr> host = resolveCPUTargetOrHost(
        &context, target.empty() ? "host" : StringRef(target), overrides);
    if (!host)
      return fail(llvm::toString(host.takeError()));
    codeTarget = {host->getCpu().str(), host->llvmFeatureString()};
  }
  std::string missing = featuresMissingOnHost(codeTarget->second);
  if (!missing.empty())
    return fail("the code is compiled for '" + codeTarget->first +
                "', which needs " + missing +
                ": this host cannot run it (pick a --target it can run, or "
                "build an object with dlas-compile)");
  llvm::CodeGenOptLevel codeGenLevel = codeGenOptLevel(optLevel);
  auto targetMachine =
      createTargetMachine(codeTarget->first, codeTarget->second, codeGenLevel);
  if (!targetMachine)
    return fail("cannot create a target machine: " +
                llvm::toString(targetMachine.takeError()));
  // The options hold a function_ref: keep the std::function alive.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(optLevel, 0, targetMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  // Parallel loops call the OpenMP runtime; it reads the thread count from
  // the environment when it starts.
  SmallVector<StringRef> sharedLibs;
  bool usesOpenMP = false;
  // OpenMP ops become __kmpc_* calls only in the LLVM IR translation.
  module->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "omp")
      usesOpenMP = true;
  });
  if (usesOpenMP) {
    if (!llvm::sys::fs::exists(ompLibrary))
      return fail("the module uses OpenMP but '" + ompLibrary +
                  "' does not exist (install libomp-22-dev or pass "
                  "--omp-library)");
    sharedLibs.push_back(ompLibrary);
  }
  if (numThreads > 0)
    setenv("OMP_NUM_THREADS", std::to_string(numThreads).c_str(), 1);
  engineOptions.sharedLibPaths = sharedLibs;
  engineOptions.jitCodeGenOptLevel = codeGenLevel;
  auto engine = ExecutionEngine::create(*module, engineOptions,
                                        std::move(*targetMachine));
  if (!engine)
    return fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
  // Bind externalized weights to their data, which the context owns.
  if (auto weights = module->getOperation()->getAttrOfType<DictionaryAttr>(
          kExternalWeightsAttrName)) {
    for (NamedAttribute entry : weights) {
      auto value = dyn_cast<DenseResourceElementsAttr>(entry.getValue());
      if (!value || !value.getRawHandle().getBlob())
        return fail("external weight '" + entry.getName().getValue() +
                    "' has no data");
    }
    (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      for (NamedAttribute entry : weights) {
        auto value = cast<DenseResourceElementsAttr>(entry.getValue());
        const char *data = value.getRawHandle().getBlob()->getData().data();
        symbols[interner(entry.getName().getValue())] = {
            llvm::orc::ExecutorAddr::fromPtr(data),
            llvm::JITSymbolFlags::Exported};
      }
      return symbols;
    });
  }
  // Layer timers for --profile.
  ArrayAttr layerNames =
      module->getOperation()->getAttrOfType<ArrayAttr>("dlas.layers");
  if (profileLayers && !layerNames)
    return fail("--profile needs layer functions: compile with the default "
                "pipeline (or one with profile-layers=true)");
  if (layerNames) {
    layerTimers.started.assign(layerNames.size(), {});
    layerTimers.samples.assign(layerNames.size(), {});
    (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      symbols[interner("dlas_layer_begin")] = {
          llvm::orc::ExecutorAddr::fromPtr(&dlasLayerBegin),
          llvm::JITSymbolFlags::Exported};
      symbols[interner("dlas_layer_end")] = {
          llvm::orc::ExecutorAddr::fromPtr(&dlasLayerEnd),
          llvm::JITSymbolFlags::Exported};
      return symbols;
    });
  }
  // ORC materializes (runs LLVM codegen) on first lookup: do it now so that
  // the compile time includes it and the first timed run does not.
  if (auto entryFn = (*engine)->lookupPacked("_mlir_ciface_" + entryName);
      !entryFn)
    return fail("JIT compilation failed: " +
                llvm::toString(entryFn.takeError()));
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();
  llvm::outs() << "compiled '" << entryName << "' in "
               << llvm::format("%.1f", compileMs) << " ms\n";

  // Run.
  EntryRunner runner(**engine, "_mlir_ciface_" + entryName, *sig, inputs);
  for (unsigned i = 0; i < warmup; ++i)
    if (llvm::Error err = runner.run())
      return fail("run failed: " + llvm::toString(std::move(err)));
  // The profile covers the timed runs only.
  for (auto &samples : layerTimers.samples)
    samples.clear();
  SmallVector<double> times;
  unsigned runs = std::max(1u, repeat.getValue());
  for (unsigned i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error err = runner.run())
      return fail("run failed: " + llvm::toString(std::move(err)));
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }

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
    if (!expected.empty() && !compare(i, output, expected[i]))
      allPass = false;
  }
  if (repeat > 0) {
    double median = medianOf(times);
    llvm::outs() << "time: min "
                 << llvm::format("%.3f", *llvm::min_element(times))
                 << " ms, median " << llvm::format("%.3f", median)
                 << " ms, max " << llvm::format("%.3f", *llvm::max_element(times))
                 << " ms (" << times.size() << " runs, " << warmup
                 << " warm-up)";
    if (flops)
      llvm::outs() << ", " << *flops << " FLOP, "
                   << llvm::format("%.2f", *flops / median / 1e6)
                   << " GFLOP/s at the median";
    llvm::outs() << "\n";
  }
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

/// Every layer returns a freshly allocated activation buffer. The JIT code
/// runs on its own thread, whose glibc arena unmaps an emptied heap and
/// serves large blocks with mmap, so each run page-faulted and zeroed every
/// activation anew (about 5000 faults, a third of MobileNetV2's time). One
/// arena that keeps freed memory lets the next run reuse mapped pages, as
/// the main thread (where PyTorch runs) does.
static void keepFreedMemoryMapped() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  // 32 MiB is the largest mmap threshold glibc accepts.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerAllPasses();
  dlas::registerAllPasses();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv, "DLAS JIT runner\n");
  keepFreedMemoryMapped();

  // JIT code may keep large vectors on the stack: run it on a thread with a
  // 512 MiB stack instead of the default 8 MiB.
  int exitCode = 1;
  std::optional<unsigned> stackSize = 512u << 20;
  llvm::thread runner(stackSize, [&] { exitCode = runMain(); });
  runner.join();
  return exitCode;
}
