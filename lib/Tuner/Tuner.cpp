//===- Tuner.cpp - dlas-tune: measured kernel parameters ------------------===//
#include "DLAS/Tuner/Tuner.h"

#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/CPU/ConvAlgorithm.h"
#include "DLAS/Codegen/CPU/GroupedConv.h"
#include "DLAS/Codegen/CPU/Microkernels.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Dialect/DLAS/DLASDialect.h"
#include "DLAS/Transforms/Passes.h"
#include "DLAS/Tuner/LayerBench.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <chrono>
#include <cmath>
#include <set>

using namespace mlir;
using namespace mlir::dlas;

namespace {

/// The tuning-file section of a decision's kernel.
StringRef sectionOf(MicrokernelKind kind) {
  switch (kind) {
  case MicrokernelKind::gemm:
    return "gemm";
  case MicrokernelKind::depthwise:
  case MicrokernelKind::max_pool:
  case MicrokernelKind::sum_pool:
    return "depthwise";
  case MicrokernelKind::blocked_conv:
  case MicrokernelKind::blocked_depthwise:
  case MicrokernelKind::grouped_conv:
    return "blocked_conv";
  }
  llvm_unreachable("unknown kernel kind");
}

/// Dim `d` of operand `operand` of `op` (0 when not shaped).
int64_t dimOf(Operation *op, unsigned operand, unsigned d) {
  auto type = dyn_cast<ShapedType>(op->getOperand(operand).getType());
  return type && type.getRank() > d ? type.getDimSize(d) : 0;
}

/// Records that layer `layer` holds kernel (section, key).
TunableKernel &addKernel(std::vector<TunableKernel> &kernels,
                         StringRef section, StringRef key, StringRef layer) {
  auto it = llvm::find_if(kernels, [&](const TunableKernel &k) {
    return k.section == section && k.key == key;
  });
  if (it == kernels.end()) {
    TunableKernel kernel;
    kernel.section = section.str();
    kernel.key = key.str();
    kernels.push_back(std::move(kernel));
    it = std::prev(kernels.end());
  }
  if (!llvm::is_contained(it->layers, layer.str()))
    it->layers.push_back(layer.str());
  return *it;
}

} // namespace

namespace {

/// A key's fields: tag letters and the numbers after them ("o28x28" is
/// ("o", {28, 28}), "max" is ("max", {})).
struct KeyField {
  std::string tag;
  SmallVector<int64_t> numbers;
};

SmallVector<KeyField> keyFields(StringRef key) {
  SmallVector<KeyField> fields;
  SmallVector<StringRef> parts;
  key.split(parts, '_');
  for (StringRef part : parts) {
    KeyField field;
    StringRef rest = part.drop_while([](char c) { return llvm::isAlpha(c); });
    field.tag = part.take_front(part.size() - rest.size()).str();
    SmallVector<StringRef> numbers;
    rest.split(numbers, 'x', -1, /*KeepEmpty=*/false);
    for (StringRef n : numbers) {
      int64_t value = 0;
      if (!n.getAsInteger(10, value))
        field.numbers.push_back(value);
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

/// The numbers of `key`'s field tagged `tag` ("k" in "m64_n224_k288":
/// {288}; "o" in "c64_f64_o56x56_...": {56, 56}); empty when none.
SmallVector<int64_t> keyNumbers(StringRef key, StringRef tag) {
  for (KeyField &field : keyFields(key))
    if (field.tag == tag)
      return std::move(field.numbers);
  return {};
}

} // namespace

/// The parameters of decision `d` in its tuning-file section's names.
static TuningParams decidedParams(MicrokernelAttr d) {
  StringRef section = sectionOf(d.getKind());
  if (section == "gemm")
    return {{"m0", d.getRows()}, {"vectors", d.getVectors()}, {"kc", d.getKc()}};
  if (section == "depthwise")
    return {{"rows", d.getRows()}, {"vectors", d.getVectors()}};
  return {{"rows", d.getRows()},
          {"vectors", d.getVectors()},
          {"lines", d.getLines()}};
}

bool dlas::isDefaultCandidate(const TunableKernel &k,
                              const TuningParams &candidate) {
  if (k.defaults.empty())
    return false;
  return llvm::all_of(candidate, [&](const auto &entry) {
    auto it = k.defaults.find(entry.first);
    return it != k.defaults.end() && it->second == entry.second;
  });
}

/// Grouped convolutions that the cost model leaves to the flat GEMM: a
/// `gspc` entry packs them, so GSPC is their other algorithm, and its
/// tiles are their candidates (measured against the flat GEMM, their
/// default).
static void addGSPCAlternatives(ModuleOp laidOut, int64_t lanes,
                                int64_t registers,
                                std::vector<TunableKernel> &kernels) {
  std::set<std::string> packed;
  for (const TunableKernel &k : kernels)
    if (k.section == "gspc")
      packed.insert(k.key);
  laidOut->walk([&](func::FuncOp layer) {
    layer.walk([&](linalg::Conv2DNgchwGfchwOp conv) {
      std::optional<gspc::GroupedShape> shape = gspc::GroupedShape::of(conv);
      bool f32 = llvm::all_of(conv->getOperandTypes(), [](Type t) {
        return getElementTypeOrSelf(t).isF32();
      });
      if (!shape || !f32 || !conv.hasPureTensorSemantics() ||
          packed.count(shape->key()))
        return;
      TunableKernel &k =
          addKernel(kernels, "gspc", shape->key(), layer.getSymName());
      k.groupInputs = shape->cpg;
      k.groupOutputs = shape->kpg;
      k.lanes = lanes;
      k.registers = registers;
      k.otherAlgorithm = true;
    });
  });
}

/// Dense f32 convolutions with a choice of algorithms: `conv_algorithm`
/// kernels whose default is what dlas-select-conv-algorithm chooses with
/// `options`.
static void addConvAlgorithms(ModuleOp laidOut,
                              const CPUPipelineOptions &options,
                              std::vector<TunableKernel> &kernels) {
  // The cost model's choice, without a tuning file (none is passed).
  SelectConvAlgorithmOptions chooser = convAlgorithmOptions(options);
  laidOut->walk([&](func::FuncOp layer) {
    layer.walk([&](linalg::Conv2DNchwFchwOp conv) {
      bool f32 = llvm::all_of(conv->getOperandTypes(), [](Type t) {
        return getElementTypeOrSelf(t).isF32();
      });
      // An op's own dlas.conv_algorithm is the user's choice, not tuned.
      if (!f32 || conv->hasAttr(kConvAlgorithmAttrName))
        return;
      SmallVector<ConvAlgorithm> algorithms = tunableConvAlgorithms(conv);
      if (algorithms.empty())
        return;
      std::string why;
      FailureOr<ConvAlgorithm> chosen =
          chooseConvAlgorithm(conv, chooser, /*tuning=*/nullptr, why);
      if (failed(chosen))
        return;
      TunableKernel &k = addKernel(kernels, kConvAlgorithmSection,
                                   *convAlgorithmKey(conv), layer.getSymName());
      if (!k.defaults.empty())
        return; // the same shape in another layer
      for (ConvAlgorithm a : algorithms)
        k.choices.push_back(convAlgorithmName(a).str());
      k.defaults = {{"algorithm", convAlgorithmName(*chosen).str()}};
      if (*chosen == ConvAlgorithm::Winograd) {
        FailureOr<int64_t> tile =
            chooseWinogradTile(conv, chooser, /*tuning=*/nullptr);
        if (succeeded(tile))
          k.defaults[kWinogradTileKey.str()] = *tile;
      }
    });
  });
}

FailureOr<std::vector<TunableKernel>>
dlas::findTunableKernels(ModuleOp laidOut, const CPUPipelineOptions &options,
                         std::string &cpu) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(laidOut->clone()));
  PassManager pm(laidOut.getContext());
  buildCPUKernelDecisionStage(pm, options);
  if (failed(pm.run(*copy)))
    return failure();
  CPUTargetAttr target = lookupCPUTarget(*copy);
  if (!target)
    return laidOut.emitError() << "the model has no target after the "
                                  "pipeline's target stage";
  cpu = target.getCpu().str();
  int64_t lanes = target.lanes(32), registers = target.getVectorRegisters();
  std::vector<TunableKernel> kernels;
  copy->walk([&](func::FuncOp layer) {
    layer.walk([&](Operation *op) {
      if (MicrokernelAttr d = lookupLowering(op)) {
        TunableKernel &k =
            addKernel(kernels, sectionOf(d.getKind()), d.getKey(),
                      layer.getSymName());
        // The output's channel blocks: y[n, F, ..] or y[n, g, F, ..].
        if (d.getKind() == MicrokernelKind::blocked_conv ||
            d.getKind() == MicrokernelKind::grouped_conv) {
          unsigned y = op->getNumOperands() - 1;
          k.outputBlocks = dimOf(op, y, d.getKind() ==
                                            MicrokernelKind::grouped_conv
                                        ? 2
                                        : 1);
        }
        k.lanes = lanes;
        k.registers = registers;
        k.defaults = decidedParams(d);
        if (d.getKind() == MicrokernelKind::gemm) {
          SmallVector<int64_t> m = keyNumbers(d.getKey(), "m");
          SmallVector<int64_t> n = keyNumbers(d.getKey(), "n");
          if (m.size() == 1 && n.size() == 1)
            k.threadSplit =
                stringifyThreadSplit(
                    gemmThreadSplit(d.getSplit(), m[0], n[0], d.getRows(),
                                    d.getVectors() * d.getLanes(),
                                    d.getPackB()))
                    .str();
        }
      }
      // GSPC packings record their tuning key on the packed convolution:
      // x[n, g, C, H, W, ti] and y[n, g, F, OH, OW, to].
      if (auto key = op->getAttrOfType<StringAttr>("dlas.gspc")) {
        TunableKernel &k =
            addKernel(kernels, "gspc", key.getValue(), layer.getSymName());
        k.groupInputs = dimOf(op, 0, 2) * dimOf(op, 0, 5);
        k.groupOutputs = dimOf(op, 2, 2) * dimOf(op, 2, 5);
        k.lanes = lanes;
        k.registers = registers;
        k.defaults = {{"ti", dimOf(op, 0, 5)}, {"to", dimOf(op, 2, 5)}};
      }
    });
  });
  addGSPCAlternatives(laidOut, lanes, registers, kernels);
  addConvAlgorithms(laidOut, options, kernels);
  return kernels;
}

void dlas::setTuningThreads(std::vector<TunableKernel> &kernels,
                            int64_t threads) {
  for (TunableKernel &k : kernels) {
    k.threads = threads;
    if (threads > 1 && !k.threadSplit.empty())
      k.defaults["split"] = k.threadSplit;
  }
}

std::vector<TuningParams> dlas::candidateSpace(const TunableKernel &k) {
  std::vector<TuningParams> space;
  // A register tile must leave room for its operand vectors and a
  // broadcast.
  auto fits = [&](int64_t rows, int64_t vectors) {
    return rows * vectors + vectors + 1 <= k.registers;
  };
  if (k.section == "gemm") {
    // With threads, the other way of sharing the work first (the cost
    // model's tile).
    if (k.threads > 1 && !k.threadSplit.empty())
      space.push_back(
          {{"split", std::string(k.threadSplit == "rows" ? "tiles" : "rows")}});
    // Register tiles with the cost model's k block (an L1 share), then each
    // tile with explicit k blocks shorter than K.
    std::vector<std::pair<int64_t, int64_t>> tiles;
    for (int64_t m0 : {4, 6, 8, 12})
      for (int64_t vectors : {1, 2, 3, 4})
        if (fits(m0, vectors))
          tiles.push_back({m0, vectors});
    for (auto [m0, vectors] : tiles)
      space.push_back({{"m0", m0}, {"vectors", vectors}});
    SmallVector<int64_t> contraction = keyNumbers(k.key, "k");
    int64_t sizeK = contraction.empty() ? 0 : contraction.front();
    for (int64_t kc : {64, 128, 256, 512})
      for (auto [m0, vectors] : tiles)
        if (kc < sizeK)
          space.push_back({{"m0", m0}, {"vectors", vectors}, {"kc", kc}});
  } else if (k.section == "blocked_conv") {
    // Columns x channel blocks; where the columns leave a tail, the tails of
    // 2-4 rows may share one tile (the cost model's count otherwise).
    SmallVector<int64_t> output = keyNumbers(k.key, "o");
    int64_t width = output.size() == 2 ? output[1] : 0;
    std::vector<TuningParams> shared;
    for (int64_t vectors : {2, 1, 4})
      for (int64_t rows : {7, 8, 6, 5, 4, 10, 12, 14}) {
        if (!fits(rows, vectors) || k.outputBlocks <= 0 ||
            k.outputBlocks % vectors != 0 || (width && rows > width))
          continue;
        space.push_back({{"rows", rows}, {"vectors", vectors}});
        int64_t tail = width ? width % rows : 0;
        for (int64_t lines : {2, 3, 4})
          if (tail && tail * lines * vectors + vectors + 1 <= k.registers)
            shared.push_back(
                {{"rows", rows}, {"vectors", vectors}, {"lines", lines}});
      }
    llvm::append_range(space, shared);
  } else if (k.section == "depthwise") {
    // Output rows x column vectors per tile.
    for (int64_t vectors : {1, 2})
      for (int64_t rows : {4, 6, 8, 12, 14, 2})
        if (rows * vectors <= 12)
          space.push_back({{"rows", rows}, {"vectors", vectors}});
  } else if (k.section == kConvAlgorithmSection) {
    // Winograd with each of its output tiles (F(2x2) and F(4x4)).
    for (const std::string &algorithm : k.choices) {
      if (algorithm != convAlgorithmName(ConvAlgorithm::Winograd)) {
        space.push_back({{"algorithm", algorithm}});
        continue;
      }
      for (int64_t tile : {2, 4})
        space.push_back(
            {{"algorithm", algorithm}, {kWinogradTileKey.str(), tile}});
    }
  } else if (k.section == "gspc") {
    // Input tiles: the largest divisors of CPG up to two vectors; output
    // tiles: vectors down to 4 lanes that pad at most half the channels.
    std::vector<int64_t> tis;
    for (int64_t d = std::min(k.groupInputs, 2 * k.lanes); d >= 1 && tis.size() < 3;
         --d)
      if (k.groupInputs % d == 0)
        tis.push_back(d);
    for (int64_t to = k.lanes; to >= gspc::kMinOutputTile; to /= 2) {
      int64_t padded = llvm::alignTo(k.groupOutputs, to);
      if (2 * (padded - k.groupOutputs) > padded)
        continue;
      for (int64_t ti : tis)
        space.push_back({{"ti", ti}, {"to", to}});
    }
  }
  return space;
}

std::optional<double> dlas::kernelClassDistance(StringRef section, StringRef a,
                                                StringRef b) {
  SmallVector<KeyField> fa = keyFields(a), fb = keyFields(b);
  if (fa.size() != fb.size())
    return std::nullopt;
  double distance = 0;
  for (auto [x, y] : llvm::zip(fa, fb)) {
    if (x.tag != y.tag || x.numbers.size() != y.numbers.size())
      return std::nullopt;
    // The window, stride and dilation make the kernel's loop structure.
    if (section != "gemm" && llvm::is_contained({"k", "s", "d"}, x.tag)) {
      if (x.numbers != y.numbers)
        return std::nullopt;
      continue;
    }
    for (auto [p, q] : llvm::zip(x.numbers, y.numbers))
      if (p > 0 && q > 0)
        distance += std::fabs(std::log(double(p) / double(q)));
  }
  return distance;
}

std::vector<TuningParams>
dlas::transferCandidates(const TunableKernel &k, const TuningDatabase &from,
                         StringRef cpu, int64_t threads, size_t limit,
                         double minGain) {
  // Kernels of the class whose best beat their default, by distance.
  struct Source {
    double distance, ratio;
    size_t index;
    TuningParams params;
  };
  std::vector<Source> sources;
  for (const KernelRecord &r : from.records()) {
    // The same shape tuned in another model is the nearest source of all.
    if (r.target != cpu || r.section != k.section || r.threads != threads)
      continue;
    const KernelRecord::Result *best = r.best();
    if (!best || !r.defaultMs || *r.defaultMs <= 0)
      continue;
    double ratio = best->ms / *r.defaultMs;
    std::optional<double> distance =
        kernelClassDistance(k.section, k.key, r.key);
    if (distance && ratio < 1.0 - minGain)
      sources.push_back({*distance, ratio, sources.size(), best->params});
  }
  llvm::sort(sources, [](const Source &x, const Source &y) {
    return std::tie(x.distance, x.ratio, x.index) <
           std::tie(y.distance, y.ratio, y.index);
  });
  // Valid for this kernel: what its own space would hold.
  std::vector<TuningParams> space = candidateSpace(k);
  std::vector<TuningParams> picked;
  for (const Source &source : sources) {
    if (picked.size() >= limit)
      break;
    if (llvm::is_contained(space, source.params) &&
        !llvm::is_contained(picked, source.params))
      picked.push_back(source.params);
  }
  return picked;
}

namespace {

/// Tuning-file entries: section -> "<cpu>/<key>" -> parameters.
using TuningEntries =
    std::map<std::string, std::map<std::string, TuningParams>>;

/// A new temporary file's path in `path` (the caller removes it).
llvm::Error temporaryFile(StringRef suffix, SmallVectorImpl<char> &path) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("dlas-tune", suffix, path))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  return llvm::Error::success();
}

/// The whole model's median time through dlas-run, with `tuningFile` when
/// not empty: the check, after the search, that the layers' gains add up.
llvm::Expected<double> modelMs(const TunerOptions &options,
                               StringRef tuningFile) {
  SmallVector<std::string> args = {options.dlasRun,
                                   options.model,
                                   "--random-inputs",
                                   "--warmup",
                                   std::to_string(options.warmup),
                                   "--repeat",
                                   std::to_string(options.repeat),
                                   "--num-threads",
                                   std::to_string(options.threads),
                                   "--target",
                                   options.target};
  if (!tuningFile.empty()) {
    args.push_back("--tuning-file");
    args.push_back(tuningFile.str());
  }
  SmallString<128> out;
  if (llvm::Error e = temporaryFile("log", out))
    return std::move(e);
  llvm::FileRemover remover(out);
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out),
                                          StringRef(out)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(options.dlasRun, argRefs, std::nullopt,
                                     redirects, /*SecondsToWait=*/1800, 0,
                                     &error);
  auto buffer = llvm::MemoryBuffer::getFile(out);
  StringRef text = buffer ? (*buffer)->getBuffer() : StringRef();
  if (rc != 0)
    return llvm::createStringError(
        "dlas-run failed (" +
        (error.empty() ? "exit " + std::to_string(rc) : error) +
        "): " + text.take_back(600).str());
  llvm::Regex total("time: .* median ([0-9.]+) ms");
  SmallVector<StringRef> match;
  if (!total.match(text, &match))
    return llvm::createStringError("no time in dlas-run's output: " +
                                   text.take_back(600).str());
  return std::stod(match[1].str());
}

/// Writes a tuning file with `entries`.
llvm::Error writeTuningFile(StringRef path, const TuningEntries &entries) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + path.str() +
                                   "': " + ec.message());
  llvm::json::OStream json(os, 1);
  json.object([&] {
    json.attribute("dlas_tuning", 1);
    for (const auto &section : entries)
      json.attributeObject(section.first, [&] {
        for (const auto &entry : section.second)
          json.attributeObject(entry.first, [&] {
            for (const auto &[name, value] : entry.second)
              json.attribute(name, toJSONValue(value));
          });
      });
  });
  os << "\n";
  return llvm::Error::success();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// Compiles a kernel's layer with one set of parameters for it. A kernel
/// is measured on the first layer that holds it: layers with the same
/// shape key run the same kernel.
class KernelMeter {
public:
  KernelMeter(LayerBench &bench, const TunerOptions &options, StringRef cpu,
              StringRef file)
      : bench(bench), options(options), cpu(cpu), file(file) {}

  /// Entries every layer compiles with (the algorithms chosen before its
  /// kernels are tuned).
  void setBase(TuningEntries entries) { base = std::move(entries); }

  /// `k`'s layer with `params` for `k` (null: the cost model's).
  llvm::Expected<std::unique_ptr<CompiledLayer>>
  compile(const TunableKernel &k, const TuningParams *params) {
    TuningEntries entries = base;
    if (params)
      entries[k.section][cpu + "/" + k.key] = *params;
    if (entries.empty())
      return bench.compile(k.layers.front(), "");
    if (llvm::Error e = writeTuningFile(file, entries))
      return std::move(e);
    return bench.compile(k.layers.front(), file);
  }

  /// The median time of `k`'s layer with `params` (null: the default);
  /// the compiled layer is kept in `layer` for a later head-to-head.
  llvm::Expected<double> measure(const TunableKernel &k,
                                 const TuningParams *params,
                                 std::unique_ptr<CompiledLayer> &layer) {
    llvm::Expected<std::unique_ptr<CompiledLayer>> compiled =
        compile(k, params);
    if (!compiled)
      return compiled.takeError();
    layer = std::move(*compiled);
    return layer->time(options.warmup, options.repeat);
  }

private:
  LayerBench &bench;
  const TunerOptions &options;
  std::string cpu, file;
  TuningEntries base;
};

/// Times `k`'s layer alternately with the cost model's parameters and with
/// `best`, options.confirmPairs times: the median of the tuned/default
/// ratios. The layers compiled during the search are reused; a kernel whose
/// best came from the database is compiled here.
llvm::Expected<double> confirmRatio(KernelMeter &meter, const TunableKernel &k,
                                    const TuningParams &best,
                                    std::unique_ptr<CompiledLayer> &byDefault,
                                    std::unique_ptr<CompiledLayer> &tuned,
                                    const TunerOptions &options) {
  for (auto [layer, params] :
       {std::pair{&byDefault, (const TuningParams *)nullptr},
        std::pair{&tuned, &best}}) {
    if (*layer)
      continue;
    llvm::Expected<std::unique_ptr<CompiledLayer>> compiled =
        meter.compile(k, params);
    if (!compiled)
      return compiled.takeError();
    *layer = std::move(*compiled);
  }
  SmallVector<double> ratios;
  for (int64_t pair = 0; pair < options.confirmPairs; ++pair) {
    llvm::Expected<double> a = byDefault->time(options.warmup, options.repeat);
    if (!a)
      return a.takeError();
    llvm::Expected<double> b = tuned->time(options.warmup, options.repeat);
    if (!b)
      return b.takeError();
    ratios.push_back(*a > 0 ? *b / *a : 1.0);
  }
  llvm::sort(ratios);
  return ratios[ratios.size() / 2];
}

std::string firstLine(llvm::Error error) {
  std::string text = llvm::toString(std::move(error));
  return text.substr(0, std::min<size_t>(text.find('\n'), 300));
}

} // namespace

namespace {

/// One search over a model's kernels: what to measure per kernel, the
/// database the results go to, and the layers kept for the head-to-head
/// confirmation.
class Search {
public:
  /// `start`: when the run began (the search's time includes compiling
  /// the model up to its decisions).
  Search(const TunerOptions &options, llvm::raw_ostream &os,
         ArrayRef<TunableKernel> kernels, StringRef cpu, TuningDatabase &db,
         KernelMeter &meter, std::chrono::steady_clock::time_point start)
      : options(options), os(os), kernels(kernels), cpu(cpu), db(db),
        meter(meter), start(start), queues(kernels.size()),
        defaultLayers(kernels.size()), bestLayers(kernels.size()) {}

  /// plan, measureDefaults and runRounds.
  llvm::Error run(const TuningDatabase *transfer) {
    plan(transfer);
    if (llvm::Error e = measureDefaults())
      return e;
    return runRounds();
  }
  /// Queues each kernel's candidates: the untried part of its space, or,
  /// for a kernel `db` has no results for, what `transfer` offers; less
  /// the cost model's own choice. Prints the plan.
  void plan(const TuningDatabase *transfer);
  /// Measures the default of every kernel with candidates.
  llvm::Error measureDefaults();
  /// Rounds of one candidate per kernel until the queues or the budget run
  /// out.
  llvm::Error runRounds();
  /// Each kernel's best result that beats its default by minGain and (with
  /// confirmPairs) holds head to head; prints the summary.
  TuningEntries chooseWinners();

  double elapsed() const { return secondsSince(start); }

private:
  KernelRecord &recordOf(const TunableKernel &k) {
    return db.getOrCreate(cpu, k.section, k.key, options.threads);
  }
  bool outOfBudget() const { return elapsed() > options.budgetSeconds; }
  llvm::Error saveDb() {
    return options.dbPath.empty() ? llvm::Error::success()
                                  : db.save(options.dbPath);
  }
  /// The order of a round: the kernels that take most of the model's time
  /// (default time times layers) first, so that a budget that runs out
  /// mid-round has been spent on them.
  std::vector<size_t> roundOrder();
  /// Measures the next candidate of kernel `i`; false when it failed.
  bool measureNext(size_t i, size_t &improved);
  /// Drops the winners whose gain does not hold head to head.
  void confirm(TuningEntries &tuned);

  const TunerOptions &options;
  llvm::raw_ostream &os;
  ArrayRef<TunableKernel> kernels;
  std::string cpu;
  TuningDatabase &db;
  KernelMeter &meter;
  std::chrono::steady_clock::time_point start;
  std::vector<std::vector<TuningParams>> queues;
  /// The layers compiled with each kernel's default and with its best
  /// candidate so far.
  std::vector<std::unique_ptr<CompiledLayer>> defaultLayers, bestLayers;
};

void Search::plan(const TuningDatabase *transfer) {
  size_t transferred = 0, pending = 0;
  std::string transferLines;
  llvm::raw_string_ostream transferLog(transferLines);
  for (auto [k, queue] : llvm::zip(kernels, queues)) {
    KernelRecord &record = recordOf(k);
    bool fresh = record.results.empty();
    std::vector<TuningParams> space =
        transfer && fresh
            ? transferCandidates(k, *transfer, cpu, options.threads,
                                 options.maxCandidates ? options.maxCandidates
                                                       : kTransferCandidates,
                                 options.minGain)
            : candidateSpace(k);
    if (transfer && fresh) {
      ++transferred;
      transferLog << "transfer " << k.section << "/" << k.key << ": ";
      if (space.empty())
        transferLog << "nothing of its class gained";
      for (auto [i, p] : llvm::enumerate(space))
        transferLog << (i ? "; " : "") << formatParams(p)
                    << (isDefaultCandidate(k, p) ? " (its default)" : "");
      transferLog << "\n";
    }
    // The first max-candidates of the space, less what was measured: a
    // second run with the same limit measures nothing.
    if (options.maxCandidates && space.size() > options.maxCandidates)
      space.resize(options.maxCandidates);
    for (TuningParams &p : space)
      if (!record.tried(p) && !isDefaultCandidate(k, p))
        queue.push_back(std::move(p));
    pending += queue.size();
  }
  os << "dlas-tune: " << kernels.size() << " tunable kernel(s) on " << cpu
     << ", " << pending << " candidate(s) to measure";
  if (transfer)
    os << " (" << transferred << " kernel(s) from the transfer database)";
  os << "\n" << transferLines;
  os.flush();
}

llvm::Error Search::measureDefaults() {
  size_t defaults = 0;
  for (auto [i, k, queue] : llvm::enumerate(kernels, queues)) {
    KernelRecord &record = recordOf(k);
    if (record.defaultMs || queue.empty())
      continue;
    if (outOfBudget())
      break;
    llvm::Expected<double> ms = meter.measure(k, nullptr, defaultLayers[i]);
    if (!ms) {
      os << "kernel " << k.section << "/" << k.key
         << " not tuned: its default does not run: "
         << firstLine(ms.takeError()) << "\n";
      queue.clear();
      continue;
    }
    record.defaultMs = *ms;
    ++defaults;
  }
  if (!defaults)
    return llvm::Error::success();
  os << llvm::formatv("[{0,6:f1} s] defaults measured: {1} kernel(s)\n",
                      elapsed(), defaults);
  os.flush();
  return saveDb();
}

std::vector<size_t> Search::roundOrder() {
  std::vector<double> weight;
  for (const TunableKernel &k : kernels)
    weight.push_back(recordOf(k).defaultMs.value_or(0) * k.layers.size());
  std::vector<size_t> order(kernels.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t a, size_t b) {
    return weight[a] > weight[b] || (weight[a] == weight[b] && a < b);
  });
  return order;
}

bool Search::measureNext(size_t i, size_t &improved) {
  TuningParams params = queues[i].front();
  queues[i].erase(queues[i].begin());
  const TunableKernel &k = kernels[i];
  KernelRecord &record = recordOf(k);
  const KernelRecord::Result *best = record.best();
  double bestMs = best ? best->ms : INFINITY;
  std::unique_ptr<CompiledLayer> layer;
  llvm::Expected<double> ms = meter.measure(k, &params, layer);
  if (!ms) {
    // A candidate that does not build or run is recorded as failed, so
    // that it is not tried again.
    os << "candidate " << formatParams(params) << " of " << k.section << "/"
       << k.key << " failed: " << firstLine(ms.takeError()) << "\n";
    record.results.push_back({params, INFINITY});
    return false;
  }
  record.results.push_back({params, *ms});
  if (*ms < bestMs)
    bestLayers[i] = std::move(layer);
  improved += record.defaultMs && *ms < *record.defaultMs;
  return true;
}

llvm::Error Search::runRounds() {
  std::vector<size_t> order = roundOrder();
  bool budgetSpent = false;
  for (size_t round = 1; !budgetSpent; ++round) {
    size_t measured = 0, improved = 0, tried = 0;
    for (size_t i : order) {
      if (queues[i].empty())
        continue;
      if ((budgetSpent = outOfBudget()))
        break;
      ++tried;
      measured += measureNext(i, improved);
    }
    if (tried == 0)
      break;
    if (measured)
      os << llvm::formatv("[{0,6:f1} s] round {1}: {2} kernel(s) measured, "
                          "{3} faster than the default\n",
                          elapsed(), round, measured, improved);
    os.flush();
    if (llvm::Error e = saveDb())
      return e;
  }
  if (budgetSpent)
    os << llvm::formatv("budget of {0} s spent; candidates left unmeasured\n",
                        options.budgetSeconds);
  return llvm::Error::success();
}

TuningEntries Search::chooseWinners() {
  TuningEntries tuned;
  os << "kernel                                     default ms    best ms  "
        "gain  parameters\n";
  for (const TunableKernel &k : kernels) {
    KernelRecord &record = recordOf(k);
    const KernelRecord::Result *best = record.best();
    if (!record.defaultMs || !best)
      continue;
    bool keep = best->ms < *record.defaultMs * (1.0 - options.minGain);
    if (keep)
      tuned[k.section][cpu + "/" + k.key] = best->params;
    os << llvm::formatv("{0,-42} {1,10:f3} {2,10:f3} {3,5:f2}x {4}{5}\n",
                        k.section + "/" + k.key, *record.defaultMs, best->ms,
                        best->ms > 0 ? *record.defaultMs / best->ms : 1.0,
                        formatParams(best->params), keep ? "" : " (not kept)");
  }
  if (options.confirmPairs > 0)
    confirm(tuned);
  return tuned;
}

void Search::confirm(TuningEntries &tuned) {
  for (auto [i, k] : llvm::enumerate(kernels)) {
    auto section = tuned.find(k.section);
    std::string entry = cpu + "/" + k.key;
    if (section == tuned.end() || !section->second.count(entry))
      continue;
    llvm::Expected<double> ratio =
        confirmRatio(meter, k, section->second[entry], defaultLayers[i],
                     bestLayers[i], options);
    bool keep = ratio && *ratio < 1.0 - options.minGain;
    if (!ratio)
      os << "confirm " << k.section << "/" << entry
         << ": failed, dropped: " << firstLine(ratio.takeError()) << "\n";
    else
      os << llvm::formatv("confirm {0}/{1}: tuned/default {2:f3} over {3} "
                          "pair(s): {4}\n",
                          k.section, entry, *ratio, options.confirmPairs,
                          keep ? "kept" : "dropped");
    if (!keep)
      section->second.erase(entry);
  }
  for (auto it = tuned.begin(); it != tuned.end();)
    it = it->second.empty() ? tuned.erase(it) : std::next(it);
}

/// Prints the whole model's time with and without the tuning file. A
/// tuning file that makes the model slower by more than the minimum gain
/// is emptied: each kernel won on its layer alone, whose weights stay in
/// cache between repeats, and such wins can lose in the model (a
/// transferred GEMM tile made mobilenet_v2 5% slower on x86-64-v4). The
/// database keeps the measurements.
llvm::Error verifyModel(const TunerOptions &options, llvm::raw_ostream &os) {
  llvm::Expected<double> before = modelMs(options, "");
  if (!before)
    return before.takeError();
  llvm::Expected<double> after = modelMs(options, options.output);
  if (!after)
    return after.takeError();
  os << llvm::formatv("model: {0:f3} ms with the cost model, {1:f3} ms "
                      "tuned ({2:f3}x)\n",
                      *before, *after, *before / *after);
  if (*after <= *before * (1.0 + options.minGain))
    return llvm::Error::success();
  os << "model: the tuned model is slower than the cost model's; "
     << options.output
     << " keeps no entries (the database keeps the measurements)\n";
  return writeTuningFile(options.output, {});
}

/// Reads the database at `path` when the file exists (an empty one
/// otherwise).
llvm::Expected<TuningDatabase> loadIfPresent(StringRef path) {
  if (path.empty() || !llvm::sys::fs::exists(path))
    return TuningDatabase();
  return TuningDatabase::load(path);
}

} // namespace

llvm::Error dlas::tuneModel(ModuleOp module, const TunerOptions &options,
                            llvm::raw_ostream &os) {
  auto start = std::chrono::steady_clock::now();
  CPUPipelineOptions pipeline;
  pipeline.target = options.target;
  FailureOr<OwningOpRef<ModuleOp>> laidOut = layOutModel(module, pipeline);
  std::string cpu;
  FailureOr<std::vector<TunableKernel>> found =
      succeeded(laidOut) ? findTunableKernels(**laidOut, pipeline, cpu)
                         : FailureOr<std::vector<TunableKernel>>(failure());
  if (failed(found))
    return llvm::createStringError("the model does not compile up to its "
                                   "lowering decisions (see above)");
  std::vector<TunableKernel> &kernels = *found;
  setTuningThreads(kernels, options.threads);
  if (options.listOnly) {
    for (const TunableKernel &k : kernels)
      os << k.section << " " << k.key << ": " << candidateSpace(k).size()
         << " candidate(s), layer(s) " << llvm::join(k.layers, ", ")
         << (k.otherAlgorithm ? " (the cost model's flat GEMM against GSPC)"
                              : "; cost model: " + formatParams(k.defaults))
         << "\n";
    return llvm::Error::success();
  }
  llvm::Expected<TuningDatabase> db = loadIfPresent(options.dbPath);
  if (!db)
    return db.takeError();
  std::optional<TuningDatabase> transfer;
  if (!options.transferFrom.empty()) {
    llvm::Expected<TuningDatabase> loaded =
        TuningDatabase::load(options.transferFrom);
    if (!loaded)
      return loaded.takeError();
    transfer = std::move(*loaded);
  }

  SmallString<128> candidateFile;
  if (llvm::Error e = temporaryFile("json", candidateFile))
    return e;
  llvm::FileRemover removeCandidateFile(candidateFile);
  // The measured code runs here, on OpenMP threads when threads > 1.
  configureOpenMPThreads(options.threads);
  LayerBench bench(**laidOut, pipeline);
  KernelMeter meter(bench, options, cpu, candidateFile);
  const TuningDatabase *transferDb = transfer ? &*transfer : nullptr;

  // The convolutions' algorithms first: they decide which microkernels
  // (and shape keys) the model has.
  auto isAlgorithm = [](const TunableKernel &k) {
    return k.section == kConvAlgorithmSection;
  };
  std::vector<TunableKernel> algorithms;
  llvm::copy_if(kernels, std::back_inserter(algorithms), isAlgorithm);
  llvm::erase_if(kernels, isAlgorithm);
  TuningEntries tuned;
  SmallString<128> algorithmFile;
  std::optional<llvm::FileRemover> removeAlgorithmFile;
  if (!algorithms.empty()) {
    os << "dlas-tune: convolution algorithms\n";
    Search search(options, os, algorithms, cpu, *db, meter, start);
    if (llvm::Error e = search.run(transferDb))
      return e;
    tuned = search.chooseWinners();
  }
  if (!tuned.empty()) {
    if (llvm::Error e = temporaryFile("json", algorithmFile))
      return e;
    removeAlgorithmFile.emplace(algorithmFile);
    if (llvm::Error e = writeTuningFile(algorithmFile, tuned))
      return e;
    CPUPipelineOptions withAlgorithms;
    withAlgorithms.copyOptionValuesFrom(pipeline);
    withAlgorithms.tuningFile = algorithmFile.str().str();
    FailureOr<std::vector<TunableKernel>> ofAlgorithms =
        findTunableKernels(**laidOut, withAlgorithms, cpu);
    if (failed(ofAlgorithms))
      return llvm::createStringError("the model does not compile with the "
                                     "chosen convolution algorithms");
    kernels = std::move(*ofAlgorithms);
    setTuningThreads(kernels, options.threads);
    llvm::erase_if(kernels, isAlgorithm);
    meter.setBase(tuned);
    os << "dlas-tune: the kernels of the chosen algorithms\n";
  }
  Search search(options, os, kernels, cpu, *db, meter, start);
  if (llvm::Error e = search.run(transferDb))
    return e;
  for (auto &[section, entries] : search.chooseWinners())
    tuned[section].insert(entries.begin(), entries.end());
  if (!options.output.empty())
    if (llvm::Error e = writeTuningFile(options.output, tuned))
      return e;
  os << llvm::formatv("search: {0:f1} s; tuning file {1} ({2} section(s))\n",
                      search.elapsed(), options.output, tuned.size());
  if (options.verify && !options.output.empty())
    return verifyModel(options, os);
  return llvm::Error::success();
}
