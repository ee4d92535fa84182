//===- dlas-tune.cpp - the DLAS auto-tuner --------------------------------===//
//
// dlas-tune model.onnx --budget 10m -o tuned.json [--db db.json]
//           [--transfer-from other.json]
//
// Measures candidate microkernel and GSPC parameters per distinct kernel of
// the model on the target and writes the best as a tuning file (see
// DLAS/Tuner/Tuner.h and docs/Tuning.md). The work is the Tuner library's;
// this file reads the command line.
//
//===----------------------------------------------------------------------===//
#include "DLAS/InitAllPasses.h"
#include "DLAS/Runner/JIT.h"
#include "DLAS/Runner/Model.h"
#include "DLAS/Support/ToolOptions.h"
#include "DLAS/Tuner/Tuner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/thread.h"

using namespace mlir;
using namespace mlir::dlas;
namespace cl = llvm::cl;

static cl::OptionCategory category("dlas-tune options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<model.mlir|.mlirbc|.onnx>"),
                                          cl::cat(category));
static cl::opt<std::string> outputFilename(
    "o", cl::desc("Tuning file to write (the best parameters that beat the "
                  "cost model's)"),
    cl::value_desc("tuned.json"), cl::cat(category));
static cl::opt<std::string> dbFilename(
    "db",
    cl::desc("Tuning database to read and extend (created when missing): "
             "kernels it has measured are not measured again"),
    cl::value_desc("db.json"), cl::cat(category));
static cl::opt<std::string> transferFrom(
    "transfer-from",
    cl::desc("Transfer-tuning: kernels without results in --db try the best "
             "parameters of the same kernel class's other shapes in this "
             "database instead of the whole space"),
    cl::value_desc("other-db.json"), cl::cat(category));
static cl::opt<std::string> budget(
    "budget",
    cl::desc("Search time after which no new round starts: seconds, or with "
             "s, m or h (10m)"),
    cl::init("10m"), cl::cat(category));
static cl::opt<std::string> target(
    "target",
    cl::desc("CPU to tune for (host, x86-64-v3, x86-64-v4, an LLVM CPU name); "
             "the host must run it"),
    cl::init("host"), cl::cat(category));
static cl::opt<int> repeat("repeat",
                           cl::desc("Timed runs of a layer per measurement"),
                           cl::init(10), cl::cat(category));
static cl::opt<int> warmup("warmup",
                           cl::desc("Untimed runs of a layer per measurement"),
                           cl::init(2), cl::cat(category));
static cl::opt<int> numThreads("num-threads",
                               cl::desc("OpenMP threads the layers run on"),
                               cl::init(1), cl::cat(category));
static cl::opt<int> maxCandidates(
    "max-candidates",
    cl::desc("At most this many candidates per kernel (0: all)"),
    cl::init(0), cl::cat(category));
static cl::opt<int> confirmPairs(
    "confirm",
    cl::desc("Head-to-head timings of each winner's layer (default, then "
             "tuned) that must confirm its gain before it goes into the "
             "tuning file (0: keep what the search found)"),
    cl::init(3), cl::cat(category));
static cl::opt<bool> noVerify(
    "no-verify",
    cl::desc("Skip timing the whole model with and without the tuning file"),
    cl::cat(category));
static cl::opt<bool> listKernels(
    "list-kernels",
    cl::desc("Print the model's tunable kernels (section, shape key, "
             "candidates, layers) and exit"),
    cl::cat(category));
static cl::opt<std::string> dlasRun(
    "dlas-run", cl::desc("dlas-run to measure with (default: beside dlas-tune)"),
    cl::cat(category));
static cl::opt<std::string> entryName("e", cl::desc("Entry function"),
                                      cl::init("main"), cl::cat(category));

static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("ONNX input shapes, in order, as AxBxC (comma separated; an "
             "empty one keeps its input as declared): symbolic sizes (a "
             "dynamic batch) take these, so that kernels are tuned for them"),
    cl::CommaSeparated, cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "dlas-tune: error: " << message << "\n";
  return 1;
}

/// `text` ("90", "90s", "10m", "1h") in seconds; nullopt when malformed.
static std::optional<double> parseDuration(StringRef text) {
  double scale = 1;
  if (text.consume_back("s"))
    scale = 1;
  else if (text.consume_back("m"))
    scale = 60;
  else if (text.consume_back("h"))
    scale = 3600;
  double value;
  if (text.empty() || text.getAsDouble(value) || !(value > 0))
    return std::nullopt;
  return value * scale;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::dlas::registerAllPasses();
  cl::HideUnrelatedOptions(category);
  if (!parseToolOptions(argc, argv, "DLAS auto-tuner\n"))
    return 1;
  if (outputFilename.empty() && dbFilename.empty() && !listKernels)
    return fail("give the tuning file to write with -o, or a database with "
                "--db");
  std::optional<double> seconds = parseDuration(budget);
  if (!seconds)
    return fail("--budget must be a positive duration (90, 90s, 10m, 1h), "
                "got '" + budget + "'");
  if (repeat < 1 || warmup < 0 || numThreads < 1 || maxCandidates < 0 ||
      confirmPairs < 0)
    return fail("--repeat and --num-threads must be positive, --warmup, "
                "--max-candidates and --confirm not negative");
  if (!llvm::sys::fs::exists(inputFilename))
    return fail("no such model: '" + inputFilename + "'");
  if (!transferFrom.empty() && !llvm::sys::fs::exists(transferFrom))
    return fail("no such transfer database: '" + transferFrom + "'");

  TunerOptions options;
  options.model = inputFilename;
  options.output = outputFilename;
  options.dbPath = dbFilename;
  options.transferFrom = transferFrom;
  options.budgetSeconds = *seconds;
  options.target = target;
  options.repeat = repeat;
  options.warmup = warmup;
  options.threads = numThreads;
  options.maxCandidates = maxCandidates;
  options.confirmPairs = confirmPairs;
  options.verify = !noVerify && !outputFilename.empty();
  options.listOnly = listKernels;
  options.dlasRun = dlasRun;
  if (options.dlasRun.empty()) {
    std::string self = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&fail));
    SmallString<256> beside(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(beside, "dlas-run");
    options.dlasRun = std::string(beside);
  }
  if (!llvm::sys::fs::can_execute(options.dlasRun))
    return fail("cannot run dlas-run at '" + options.dlasRun +
                "' (give --dlas-run)");

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ONNXImportOptions onnxOptions;
  auto shapes = parseInputShapes(inputShapes);
  if (!shapes)
    return fail(llvm::toString(shapes.takeError()));
  onnxOptions.inputShapes = std::move(*shapes);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  llvm::Expected<OwningOpRef<ModuleOp>> loaded =
      loadModel(&context, inputFilename, entryName, sourceMgr, onnxOptions);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  // Kernels are tuned per static shape: a dynamic input size would leave
  // its layers out without a word.
  if (auto entry = (*loaded)->lookupSymbol<func::FuncOp>(entryName))
    for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes()))
      if (auto shaped = dyn_cast<ShapedType>(type);
          shaped && shaped.hasRank() && !shaped.hasStaticShape())
        llvm::errs() << "dlas-tune: warning: input #" << i << " of '"
                     << entryName << "' has dynamic sizes (" << type
                     << "): layers with dynamic shapes are not tuned; give "
                        "--input-shapes\n";
  // The measured code may keep large vectors on the stack (as dlas-run
  // does, a thread with a 512 MiB stack runs it) and allocates its
  // activations on every run.
  keepFreedMemoryMapped();
  llvm::Error result = llvm::Error::success();
  std::optional<unsigned> stackSize = 512u << 20;
  llvm::thread runner(stackSize, [&] {
    llvm::consumeError(std::move(result));
    result = tuneModel(**loaded, options, llvm::outs());
  });
  runner.join();
  if (result)
    return fail(llvm::toString(std::move(result)));
  return 0;
}
