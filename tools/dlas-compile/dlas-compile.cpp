//===- dlas-compile.cpp - ahead-of-time compilation to an object ----------===//
//
// dlas-compile model.{mlir,mlirbc,onnx} --target=x86-64-v3 -o model.o
//              [--header model.h] [--prefix model] [-e main] [--time-stages]
// dlas-compile model.onnx --target=cuda:sm_90 -o libmodel.so
//
// A GPU target (cuda:sm_NN, rocm:gfxNNN) compiles through dlas-gpu-pipeline
// and, for an output ending in .so, links the object with DLAS's GPU
// runtime into a self-contained shared library that needs only the GPU
// driver (libcuda.so.1 or libamdhip64.so, opened when it runs), plus the
// header and a JSON manifest of the entry for harnesses
// (examples/aot/run_gpu_model.py).
//
// Compiles the entry through dlas-cpu-pipeline for the named target (any
// x86-64 target, whatever the host: cross-compiling is the point) and
// writes an ELF object with the weights in its read-only data, plus a C
// header with the entry's signature, descriptor types, an init function
// and a run function over dense buffers.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/GPU/GPUTarget.h"
#include "DLAS/Dialect/NN/Transforms/Calibration.h"
#include "DLAS/InitAllPasses.h"
#include "DLAS/Pipelines/Pipelines.h"
#include "DLAS/Runner/Compile.h"
#include "DLAS/Runner/Model.h"
#include "DLAS/Runner/TargetMachine.h"
#include "DLAS/Support/ToolOptions.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
using namespace mlir::dlas;
namespace cl = llvm::cl;

static cl::OptionCategory category("dlas-compile options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<model.mlir|.mlirbc|.onnx>"),
                                          cl::cat(category));
static cl::opt<std::string> outputFilename("o",
                                           cl::desc("Object file to write"),
                                           cl::value_desc("model.o"),
                                           cl::cat(category));
static cl::opt<std::string> headerFilename(
    "header", cl::desc("C header to write (default: the object's path with .h)"),
    cl::cat(category));
static cl::opt<std::string> prefix(
    "prefix",
    cl::desc("C name prefix of the entry and the header's names (default: "
             "the object's file name)"),
    cl::cat(category));
static cl::opt<std::string> entryName("e", cl::desc("Entry function"),
                                      cl::init("main"), cl::cat(category));
static cl::opt<std::string> target(
    "target",
    cl::desc("CPU to compile for: host, x86-64-v3, x86-64-v4 or an LLVM "
             "x86-64 CPU name (znver3, sapphirerapids, ...); need not be "
             "the host. Or a GPU: cuda:sm_80, cuda:sm_90, rocm:gfx90a, "
             "rocm:gfx942 (no GPU needed to compile)"),
    cl::init("host"), cl::cat(category));
static cl::opt<std::string> targetFeatures(
    "target-features", cl::desc("+name/-name changes to the target's features"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("Run layers in lower precision (dlas-mixed-precision): f32, "
             "bf16, fp16, int8 (with --calibration) or auto; the entry keeps "
             "its types"),
    cl::init("f32"), cl::cat(category));
static cl::opt<bool> allowTF32(
    "allow-tf32",
    cl::desc("GPU targets: f32 convolutions and matmuls on NVIDIA tensor "
             "cores, their operands rounded to tf32 (10-bit mantissas)"),
    cl::cat(category));
static cl::opt<std::string> calibration(
    "calibration",
    cl::desc("--precision=int8: the calibration file (dlas-run --calibrate)"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    keepF32("keep-f32",
            cl::desc("Layer kinds --precision keeps in f32: a comma list of "
                     "first-conv, classifier, softmax, depthwise, or none "
                     "(default: the first three, and depthwise for int8)"),
            cl::cat(category));
static cl::opt<std::string> gpuFormat(
    "gpu-format",
    cl::desc("GPU targets: device code as bin (cubin, needs the CUDA "
             "toolkit's ptxas; hsaco), isa (PTX the driver compiles when it "
             "loads the library) or fatbin; default: bin where it can be "
             "made, else isa"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string> gpuOptions(
    "gpu-options",
    cl::desc("GPU targets: more dlas-gpu-pipeline options, as in its textual "
             "form (e.g. \"tensor-cores=always staged=never\"); they apply "
             "after the ones the flags above set"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string> gpuRuntime(
    "gpu-runtime",
    cl::desc("GPU targets: the static GPU runtime library linked into a .so "
             "(default: the one built with dlas-compile)"),
    cl::init(DLAS_GPU_RUNTIME_LIBRARY), cl::cat(category));
static cl::opt<std::string> manifestFilename(
    "manifest",
    cl::desc("GPU targets: JSON description of the entry (symbol, shapes, "
             "dtypes) to write (default: the output's path with .json)"),
    cl::cat(category));
static cl::opt<int> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(3), cl::Prefix, cl::cat(category));
static cl::opt<bool> timeStages(
    "time-stages",
    cl::desc("Print the time of each stage (import, passes, LLVM)"),
    cl::cat(category));

static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc(
        "ONNX input shapes, in order, as AxBxC (comma separated; an "
        "empty one keeps its input as declared): symbolic sizes (a "
        "dynamic batch) take these, so that kernels are compiled for them"),
    cl::CommaSeparated, cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "dlas-compile: error: " << message << "\n";
  return 1;
}

/// The numpy dtype name of a tensor element type, or "" when none.
static std::string numpyDType(Type type) {
  if (type.isF32())
    return "float32";
  if (type.isF64())
    return "float64";
  if (type.isF16())
    return "float16";
  if (type.isInteger(1))
    return "bool";
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.isUnsigned() ? "uint" : "int") +
           std::to_string(integer.getWidth());
  return "";
}

/// The manifest a harness reads: the C-interface entry and its tensors.
static llvm::Error writeManifest(StringRef path, StringRef entrySymbol,
                                 FunctionType signature, StringRef target) {
  auto tensors = [](TypeRange types) {
    llvm::json::Array list;
    for (Type type : types) {
      auto shaped = cast<ShapedType>(type);
      llvm::json::Array shape;
      // A dynamic size (a batch the caller picks) is null.
      for (int64_t size : shaped.getShape())
        shape.push_back(ShapedType::isDynamic(size) ? llvm::json::Value(nullptr)
                                                    : llvm::json::Value(size));
      list.push_back(
          llvm::json::Object{{"shape", std::move(shape)},
                             {"dtype", numpyDType(shaped.getElementType())}});
    }
    return list;
  };
  llvm::json::Object manifest{{"entry", ("_mlir_ciface_" + entrySymbol).str()},
                              {"target", target},
                              {"inputs", tensors(signature.getInputs())},
                              {"results", tensors(signature.getResults())}};
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write '%s'", path.str().c_str());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return llvm::Error::success();
}

/// Links `object` and the GPU runtime into the shared library `output` with
/// the system's C++ compiler driver (the runtime uses the C++ library).
static llvm::Error linkSharedLibrary(StringRef object, StringRef output) {
  std::string driver;
  for (const char *name : {"clang++-22", "clang++", "c++", "g++"})
    if (auto found = llvm::sys::findProgramByName(name)) {
      driver = *found;
      break;
    }
  if (driver.empty())
    return llvm::createStringError(
        "linking a .so needs a C++ compiler driver (clang++-22, c++ or g++)");
  if (!llvm::sys::fs::exists(gpuRuntime))
    return llvm::createStringError("the GPU runtime library '%s' does not "
                                   "exist (--gpu-runtime)",
                                   gpuRuntime.c_str());
  SmallVector<StringRef> args{driver, "-shared",   "-o",
                              output, object,      gpuRuntime,
                              "-ldl", "-lpthread", "-Wl,-z,noexecstack"};
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(driver, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return llvm::createStringError("linking '%s' failed (%s exit %d) %s",
                                   output.str().c_str(), driver.c_str(), rc,
                                   message.c_str());
  return llvm::Error::success();
}

/// A C identifier from `name` (non-alphanumerics become '_').
static std::string cIdentifier(StringRef name) {
  std::string id;
  for (char c : name)
    id += llvm::isAlnum(c) ? c : '_';
  if (id.empty() || llvm::isDigit(id[0]))
    id = "m_" + id;
  return id;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::dlas::registerAllPasses();
  // MLIR's own --mlir-timing, --mlir-print-ir-*, --mlir-disable-threading
  // (hidden: --help-hidden lists them).
  mlir::registerPassManagerCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions(category);
  if (!mlir::dlas::parseToolOptions(argc, argv, "DLAS ahead-of-time compiler\n"))
    return 1;
  if (outputFilename.empty())
    return fail("give the object file to write with -o");
  if (optLevel < 0 || optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3, got " + llvm::Twine(optLevel.getValue()));

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point from) {
    return std::chrono::duration<double, std::milli>(Clock::now() - from)
        .count();
  };

  ONNXImportOptions onnxOptions;
  auto shapes = parseInputShapes(inputShapes);
  if (!shapes)
    return fail(llvm::toString(shapes.takeError()));
  onnxOptions.inputShapes = std::move(*shapes);

  // Import or parse.
  auto start = Clock::now();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  llvm::Expected<OwningOpRef<ModuleOp>> loaded =
      loadModel(&context, inputFilename, entryName, sourceMgr, onnxOptions);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  OwningOpRef<ModuleOp> module = std::move(*loaded);
  double importMs = ms(start);

  auto entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (!entry || entry.isExternal())
    return fail("no function '" + entryName + "' with a body in '" +
                inputFilename + "'");
  // The entry gets the prefix, so that neither it (`main`!) nor its layer
  // functions collide with the program the object is linked into.
  std::string cPrefix = cIdentifier(
      prefix.empty() ? llvm::sys::path::stem(outputFilename) : StringRef(prefix));
  std::string entrySymbol = cPrefix + "_" + cIdentifier(entryName);
  if (failed(SymbolTable::replaceAllSymbolUses(
          entry, StringAttr::get(&context, entrySymbol), *module)))
    return fail("cannot rename the entry '" + entryName + "'");
  SymbolTable::setSymbolName(entry, entrySymbol);
  // The name the model gave it: int8 calibration files key layers by it.
  entry->setAttr(nn::kSourceNameAttrName, StringAttr::get(&context, entryName));
  // Other public functions stay callable but are not described.
  for (auto func : module->getOps<func::FuncOp>())
    if (func != entry && func.isPublic() && !func.isExternal())
      func.setPrivate();

  // Passes: the CPU or GPU pipeline for the named target, refused before
  // any work when the name or a feature is wrong.
  bool gpu = isGPUTargetName(target);
  bool sharedLibrary = StringRef(outputFilename).ends_with(".so");
  if (gpu) {
    if (!lookupGPUTargetName(target))
      return fail("unknown GPU target '" + target +
                  "' (known: " + knownGPUTargetNames() + ")");
    if (!targetFeatures.empty())
      return fail("--target-features is for CPU targets; a GPU target "
                  "names its chip");
    if (precision == "int8")
      return fail("--precision=int8 is not supported with a GPU target yet "
                  "(f32, bf16, fp16 or auto)");
  } else {
    if (sharedLibrary)
      return fail("a CPU target writes an object (-o model.o); .so output "
                  "is for GPU targets");
    if (allowTF32)
      return fail("--allow-tf32 is for GPU targets (NVIDIA tensor cores)");
    if (!gpuOptions.empty())
      return fail("--gpu-options is for GPU targets");
    CPUTargetOverrides overrides;
    overrides.features = targetFeatures;
    llvm::Expected<CPUTargetAttr> resolved =
        resolveCPUTargetOrHost(&context, target, overrides);
    if (!resolved)
      return fail(llvm::toString(resolved.takeError()));
  }
  start = Clock::now();
  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return fail("bad --mlir-* pass manager options");
  applyDefaultTimingPassManagerCLOptions(pm);
  if (gpu) {
    GPUPipelineOptions options;
    options.target = target;
    std::string format = gpuFormat;
    // A cubin loads fastest and needs ptxas here; PTX needs nothing here
    // and is compiled by the driver when the library loads.
    if (format.empty())
      format =
          StringRef(target).starts_with("cuda") && findCUDAToolkit().empty()
              ? "isa"
              : "bin";
    options.format = format;
    options.externalWeights = true;
    options.precision = precision;
    options.keepF32 = keepF32;
    options.allowTF32 = allowTF32;
    std::string optionErrors;
    llvm::raw_string_ostream errorStream(optionErrors);
    if (failed(options.parseFromString(gpuOptions, errorStream)))
      return fail("bad --gpu-options '" + gpuOptions +
                  "': " + StringRef(optionErrors).trim().str());
    buildGPUPipeline(pm, options);
  } else {
    CPUPipelineOptions options;
    // The pipeline resolves the name as dlas-run's does (host: the host's
    // features and caches).
    options.target = target;
    options.targetFeatures = targetFeatures;
    options.precision = precision;
    options.calibration = calibration;
    options.keepF32 = keepF32;
    // Weights leave the MLIR module and enter the object as raw bytes
    // (emitObjectFile), not as one LLVM constant per element.
    options.externalWeights = true;
    buildCPUPipeline(pm, options);
  }
  if (failed(pm.run(*module)))
    return fail("compilation pipeline failed on '" + inputFilename + "'");
  double passesMs = ms(start);
  // Only the entry and its C wrapper leave the object: helpers such as
  // the layer functions or dealloc_helper would collide between two models
  // linked into one program.
  module->walk([&](LLVM::LLVMFuncOp func) {
    if (!func.isExternal() && func.getName() != entrySymbol &&
        func.getName() != "_mlir_ciface_" + entrySymbol)
      func.setLinkage(LLVM::Linkage::Internal);
  });

  auto compiled = module->lookupSymbol<LLVM::LLVMFuncOp>(entrySymbol);
  auto signature =
      compiled ? compiled->getAttrOfType<TypeAttr>(kSignatureAttrName)
               : TypeAttr();
  if (!signature)
    return fail("the compiled entry '" + entrySymbol +
                "' lacks its dlas.signature attribute");

  // LLVM: object code for the target on the functions.
  start = Clock::now();
  std::optional<std::pair<std::string, std::string>> codeTarget =
      loweredTarget(*module);
  // GPU code: the host side runs on any x86-64.
  if (gpu)
    codeTarget = {"x86-64", ""};
  if (!codeTarget)
    return fail("the pipeline left no target on the functions");
  auto targetMachine = createTargetMachine(
      codeTarget->first, codeTarget->second, codeGenOptLevel(optLevel));
  if (!targetMachine)
    return fail("cannot create a target machine: " +
                llvm::toString(targetMachine.takeError()));
  std::string error;
  // A shared library is linked from an object next to it.
  std::string objectPath =
      sharedLibrary ? outputFilename + ".o" : std::string(outputFilename);
  auto object = openOutputFile(objectPath, &error);
  if (!object)
    return fail(error);
  if (llvm::Error err = emitObjectFile(*module, **targetMachine, optLevel,
                                       object->os()))
    return fail(llvm::toString(std::move(err)));
  double llvmMs = ms(start);

  object->keep();
  object.reset();
  if (sharedLibrary) {
    if (llvm::Error err = linkSharedLibrary(objectPath, outputFilename))
      return fail(llvm::toString(std::move(err)));
    llvm::sys::fs::remove(objectPath);
  }

  std::string headerPath = headerFilename;
  if (headerPath.empty()) {
    SmallString<256> path(outputFilename);
    llvm::sys::path::replace_extension(path, "h");
    headerPath = path.str().str();
  }
  auto header = openOutputFile(headerPath, &error);
  if (!header)
    return fail(error);
  CHeaderInfo info{cPrefix,
                   entrySymbol,
                   cast<FunctionType>(signature.getValue()),
                   codeTarget->first,
                   codeTarget->second,
                   llvm::sys::path::filename(inputFilename).str(),
                   gpu};
  if (gpu)
    info.target = target;
  if (llvm::Error err = writeCHeader(info, header->os()))
    return fail(llvm::toString(std::move(err)));
  header->keep();
  if (gpu) {
    std::string manifestPath = manifestFilename;
    if (manifestPath.empty()) {
      SmallString<256> path(outputFilename);
      llvm::sys::path::replace_extension(path, "json");
      manifestPath = path.str().str();
    }
    if (llvm::Error err =
            writeManifest(manifestPath, entrySymbol,
                          cast<FunctionType>(signature.getValue()), target))
      return fail(llvm::toString(std::move(err)));
  }
  llvm::outs() << "wrote " << outputFilename << " and " << headerPath
               << " (entry _mlir_ciface_" << entrySymbol << ", target "
               << (gpu ? std::string(target) : codeTarget->first) << ")\n";
  if (timeStages)
    llvm::outs() << llvm::format(
        "stages: import %.1f ms, passes %.1f ms, LLVM %.1f ms, total %.1f "
        "ms\n",
        importMs, passesMs, llvmMs, importMs + passesMs + llvmMs);
  return 0;
}
