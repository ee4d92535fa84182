//===- Tuner.cpp - dlas-tune: measured kernel parameters ------------------===//
#include "DLAS/Tuner/Tuner.h"

#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/CPU/GroupedConv.h"
#include "DLAS/Codegen/Passes.h"
#include "DLAS/Dialect/DLAS/DLASDialect.h"
#include "DLAS/Transforms/Passes.h"

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
    kernels.push_back({section.str(), key.str(), {}});
    it = std::prev(kernels.end());
  }
  if (!llvm::is_contained(it->layers, layer.str()))
    it->layers.push_back(layer.str());
  return *it;
}

} // namespace

FailureOr<std::vector<TunableKernel>>
dlas::findTunableKernels(ModuleOp module, const CPUPipelineOptions &options,
                         std::string &cpu) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  PassManager pm(module.getContext());
  pm.addPass(createCheckConstants());
  buildTargetStage(pm, options);
  buildNNToLinalgStage(pm, options);
  buildCPUCodegenStrategyStage(pm, options);
  if (failed(pm.run(*copy)))
    return failure();
  CPUTargetAttr target = lookupCPUTarget(*copy);
  if (!target)
    return module.emitError() << "the model has no target after the "
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
      }
    });
  });
  return kernels;
}

std::vector<TuningParams> dlas::candidateSpace(const TunableKernel &k) {
  std::vector<TuningParams> space;
  // A register tile must leave room for its operand vectors and a
  // broadcast.
  auto fits = [&](int64_t rows, int64_t vectors) {
    return rows * vectors + vectors + 1 <= k.registers;
  };
  if (k.section == "gemm") {
    for (int64_t m0 : {4, 6, 8, 12})
      for (int64_t vectors : {1, 2, 3, 4})
        if (fits(m0, vectors))
          space.push_back({{"m0", m0}, {"vectors", vectors}});
  } else if (k.section == "blocked_conv") {
    for (int64_t vectors : {2, 1, 4})
      for (int64_t rows : {7, 8, 6, 5, 4, 10, 12, 14})
        if (fits(rows, vectors) && k.outputBlocks > 0 &&
            k.outputBlocks % vectors == 0)
          space.push_back({{"rows", rows}, {"vectors", vectors}});
  } else if (k.section == "depthwise") {
    for (int64_t rows : {4, 6, 8, 12, 14, 2})
      space.push_back({{"rows", rows}});
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

std::vector<TuningParams> dlas::transferCandidates(const TunableKernel &k,
                                                   const TuningDatabase &from,
                                                   StringRef cpu,
                                                   size_t limit) {
  // Other shapes of the section, by their best speedup over the default.
  std::vector<std::pair<double, TuningParams>> ranked;
  for (const KernelRecord &r : from.records()) {
    if (r.target != cpu || r.section != k.section || r.key == k.key)
      continue;
    const KernelRecord::Result *best = r.best();
    if (!best || !r.defaultMs || *r.defaultMs <= 0)
      continue;
    ranked.push_back({best->ms / *r.defaultMs, best->params});
  }
  // By ratio, ties in the database's order (the sort is stable on the
  // index).
  std::vector<size_t> order(ranked.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t a, size_t b) {
    return ranked[a].first < ranked[b].first ||
           (ranked[a].first == ranked[b].first && a < b);
  });
  // Valid for this kernel: what its own space would hold.
  std::vector<TuningParams> space = candidateSpace(k);
  std::vector<TuningParams> picked;
  for (size_t i : order) {
    auto &[ratio, params] = ranked[i];
    if (picked.size() >= limit)
      break;
    if (ratio < 1.0 && llvm::is_contained(space, params) &&
        !llvm::is_contained(picked, params))
      picked.push_back(params);
  }
  return picked;
}

namespace {

/// One dlas-run of the model: each layer function's summed median and the
/// whole model's median.
struct Measurement {
  std::map<std::string, double> layerMs;
  double totalMs = 0;
};

/// A new temporary file's path in `path` (the caller removes it).
llvm::Error temporaryFile(StringRef suffix, SmallVectorImpl<char> &path) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("dlas-tune", suffix, path))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  return llvm::Error::success();
}

llvm::Expected<Measurement> measure(const TunerOptions &options,
                                    StringRef tuningFile, bool profile) {
  SmallVector<std::string> args = {
      options.dlasRun,         options.model,
      "--random-inputs",       "--warmup",
      std::to_string(options.warmup), "--repeat",
      std::to_string(options.repeat), "--num-threads",
      std::to_string(options.threads), "--target",
      options.target};
  if (profile)
    args.push_back("--profile");
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
        "dlas-run failed (" + (error.empty() ? "exit " + std::to_string(rc) : error) +
        "): " + text.take_back(600).str());
  Measurement m;
  llvm::Regex total("time: .* median ([0-9.]+) ms");
  llvm::Regex layer("^ *#[0-9]+ +([0-9.]+) ms +[0-9.]+% +(.*)$");
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> match;
    if (total.match(line, &match))
      m.totalMs = std::stod(match[1].str());
    else if (layer.match(line, &match)) {
      // "<node name>: <function>", or the function alone.
      StringRef name = match[2].trim();
      size_t colon = name.rfind(": ");
      if (colon != StringRef::npos)
        name = name.drop_front(colon + 2);
      m.layerMs[name.str()] += std::stod(match[1].str());
    }
  }
  if (m.totalMs <= 0)
    return llvm::createStringError("no time in dlas-run's output: " +
                                   text.take_back(600).str());
  return m;
}

/// The time of `k` in `m`: its layers' medians summed; nullopt when the
/// profile has none of them.
std::optional<double> kernelMs(const TunableKernel &k, const Measurement &m) {
  double sum = 0;
  bool any = false;
  for (const std::string &layer : k.layers)
    if (auto it = m.layerMs.find(layer); it != m.layerMs.end()) {
      sum += it->second;
      any = true;
    }
  return any ? std::optional<double>(sum) : std::nullopt;
}

/// Writes a tuning file with `entries` (section -> "<cpu>/<key>" -> params).
llvm::Error writeTuningFile(
    StringRef path,
    const std::map<std::string, std::map<std::string, TuningParams>> &entries) {
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
              json.attribute(name, value);
          });
      });
  });
  os << "\n";
  return llvm::Error::success();
}

/// Runs the model alternately without and with the winners (`tuned`),
/// options.confirmPairs times, and returns the "<section>/<cpu>/<key>" of
/// the winners whose median gain over the pairs reaches minGain.
llvm::Expected<std::set<std::string>> confirmWinners(
    const TunerOptions &options, ArrayRef<TunableKernel> kernels,
    StringRef cpu,
    const std::map<std::string, std::map<std::string, TuningParams>> &tuned,
    StringRef file, llvm::raw_ostream &os) {
  if (llvm::Error e = writeTuningFile(file, tuned))
    return std::move(e);
  std::map<std::string, std::vector<double>> ratios;
  for (int64_t pair = 0; pair < options.confirmPairs; ++pair) {
    llvm::Expected<Measurement> before = measure(options, "", true);
    if (!before)
      return before.takeError();
    llvm::Expected<Measurement> after = measure(options, file, true);
    if (!after)
      return after.takeError();
    for (const TunableKernel &k : kernels) {
      std::string id = k.section + "/" + cpu.str() + "/" + k.key;
      auto section = tuned.find(k.section);
      if (section == tuned.end() ||
          !section->second.count(cpu.str() + "/" + k.key))
        continue;
      std::optional<double> a = kernelMs(k, *before), b = kernelMs(k, *after);
      if (a && b && *a > 0)
        ratios[id].push_back(*b / *a);
    }
  }
  std::set<std::string> kept;
  for (auto &[id, r] : ratios) {
    llvm::sort(r);
    double median = r[r.size() / 2];
    bool keep = median < 1.0 - options.minGain;
    if (keep)
      kept.insert(id);
    os << llvm::formatv("confirm {0}: tuned/default {1:f3} over {2} pair(s): "
                        "{3}\n",
                        id, median, r.size(), keep ? "kept" : "dropped");
  }
  return kept;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

} // namespace

llvm::Error dlas::tuneModel(ModuleOp module, const TunerOptions &options,
                            llvm::raw_ostream &os) {
  auto start = std::chrono::steady_clock::now();
  CPUPipelineOptions pipeline;
  pipeline.target = options.target;
  std::string cpu;
  FailureOr<std::vector<TunableKernel>> found =
      findTunableKernels(module, pipeline, cpu);
  if (failed(found))
    return llvm::createStringError("the model does not compile up to its "
                                   "lowering decisions (see above)");
  std::vector<TunableKernel> &kernels = *found;
  if (options.listOnly) {
    for (const TunableKernel &k : kernels)
      os << k.section << " " << k.key << ": " << candidateSpace(k).size()
         << " candidate(s), layer(s) " << llvm::join(k.layers, ", ") << "\n";
    return llvm::Error::success();
  }
  TuningDatabase db;
  if (!options.dbPath.empty() && llvm::sys::fs::exists(options.dbPath)) {
    llvm::Expected<TuningDatabase> loaded = TuningDatabase::load(options.dbPath);
    if (!loaded)
      return loaded.takeError();
    db = std::move(*loaded);
  }
  std::optional<TuningDatabase> transfer;
  if (!options.transferFrom.empty()) {
    llvm::Expected<TuningDatabase> loaded =
        TuningDatabase::load(options.transferFrom);
    if (!loaded)
      return loaded.takeError();
    transfer = std::move(*loaded);
  }

  // What to measure per kernel: the untried part of its space (or, for a
  // kernel the database has no results for, the transferred candidates).
  std::vector<std::vector<TuningParams>> queues(kernels.size());
  bool needDefault = false;
  size_t transferred = 0;
  for (auto [k, queue] : llvm::zip(kernels, queues)) {
    KernelRecord &record = db.getOrCreate(cpu, k.section, k.key);
    bool fresh = record.results.empty();
    std::vector<TuningParams> space =
        transfer && fresh ? transferCandidates(k, *transfer, cpu,
                                               options.maxCandidates
                                                   ? options.maxCandidates
                                                   : 4)
                          : candidateSpace(k);
    if (transfer && fresh)
      ++transferred;
    // The first max-candidates of the space, less what was measured: a
    // second run with the same limit measures nothing.
    if (options.maxCandidates && space.size() > options.maxCandidates)
      space.resize(options.maxCandidates);
    for (TuningParams &p : space)
      if (!record.tried(p))
        queue.push_back(std::move(p));
    needDefault |= !record.defaultMs;
  }
  size_t pending = 0;
  for (auto &q : queues)
    pending += q.size();
  os << "dlas-tune: " << kernels.size() << " tunable kernel(s) on " << cpu
     << ", " << pending << " candidate(s) to measure"
     << (transfer ? llvm::formatv(" ({0} kernel(s) from the transfer "
                                  "database)",
                                  transferred)
                        .str()
                  : std::string())
     << "\n";
  os.flush();

  SmallString<128> roundFile;
  if (llvm::Error e = temporaryFile("json", roundFile))
    return e;
  llvm::FileRemover removeRoundFile(roundFile);
  auto saveDb = [&]() -> llvm::Error {
    return options.dbPath.empty() ? llvm::Error::success()
                                  : db.save(options.dbPath);
  };

  if (needDefault) {
    llvm::Expected<Measurement> m = measure(options, "", /*profile=*/true);
    if (!m)
      return m.takeError();
    for (const TunableKernel &k : kernels)
      if (std::optional<double> ms = kernelMs(k, *m))
        db.getOrCreate(cpu, k.section, k.key).defaultMs = *ms;
    os << llvm::formatv("[{0,6:f1} s] defaults measured: model {1:f3} ms\n",
                        secondsSince(start), m->totalMs);
    os.flush();
    if (llvm::Error e = saveDb())
      return e;
  }

  for (size_t round = 1;; ++round) {
    std::map<std::string, std::map<std::string, TuningParams>> entries;
    std::vector<std::pair<size_t, TuningParams>> trying;
    // A layer's time is charged to the kernels it holds: one candidate per
    // layer and round keeps the charge clean (a GSPC packing and the
    // blocked kernel that runs it share their layer).
    std::set<std::string> layersUsed;
    for (auto [i, queue] : llvm::enumerate(queues)) {
      if (queue.empty() ||
          llvm::any_of(kernels[i].layers, [&](const std::string &layer) {
            return layersUsed.count(layer);
          }))
        continue;
      layersUsed.insert(kernels[i].layers.begin(), kernels[i].layers.end());
      TuningParams params = queue.front();
      queue.erase(queue.begin());
      entries[kernels[i].section][cpu + "/" + kernels[i].key] = params;
      trying.push_back({i, params});
    }
    if (trying.empty())
      break;
    if (secondsSince(start) > options.budgetSeconds) {
      os << llvm::formatv("budget of {0} s spent; candidates left "
                          "unmeasured\n",
                          options.budgetSeconds);
      break;
    }
    if (llvm::Error e = writeTuningFile(roundFile, entries))
      return e;
    llvm::Expected<Measurement> m = measure(options, roundFile, true);
    if (!m) {
      // A candidate set that does not build or run is recorded as failed,
      // so that it is not tried again.
      os << "round " << round << " failed, its candidates are dropped: "
         << llvm::toString(m.takeError()) << "\n";
      for (auto &[i, params] : trying)
        db.getOrCreate(cpu, kernels[i].section, kernels[i].key)
            .results.push_back({params, INFINITY});
    } else {
      size_t improved = 0;
      for (auto &[i, params] : trying) {
        std::optional<double> ms = kernelMs(kernels[i], *m);
        if (!ms)
          continue;
        KernelRecord &record =
            db.getOrCreate(cpu, kernels[i].section, kernels[i].key);
        record.results.push_back({params, *ms});
        improved += record.defaultMs && *ms < *record.defaultMs;
      }
      os << llvm::formatv("[{0,6:f1} s] round {1}: {2} kernel(s) measured, "
                          "{3} faster than the default; model {4:f3} ms\n",
                          secondsSince(start), round, trying.size(), improved,
                          m->totalMs);
    }
    os.flush();
    if (llvm::Error e = saveDb())
      return e;
  }

  // The tuning file: each kernel's best result that beats its default.
  std::map<std::string, std::map<std::string, TuningParams>> tuned;
  os << "kernel                                     default ms    best ms  "
        "gain  parameters\n";
  for (const TunableKernel &k : kernels) {
    KernelRecord &record = db.getOrCreate(cpu, k.section, k.key);
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
  if (options.confirmPairs > 0 && !tuned.empty()) {
    llvm::Expected<std::set<std::string>> confirmed =
        confirmWinners(options, kernels, cpu, tuned, roundFile, os);
    if (!confirmed)
      return confirmed.takeError();
    for (auto &[section, entries] : tuned)
      for (auto it = entries.begin(); it != entries.end();)
        it = confirmed->count(section + "/" + it->first) ? std::next(it)
                                                         : entries.erase(it);
    for (auto it = tuned.begin(); it != tuned.end();)
      it = it->second.empty() ? tuned.erase(it) : std::next(it);
  }
  if (!options.output.empty())
    if (llvm::Error e = writeTuningFile(options.output, tuned))
      return e;
  double searchSeconds = secondsSince(start);
  os << llvm::formatv("search: {0:f1} s; tuning file {1} ({2} section(s))\n",
                      searchSeconds, options.output, tuned.size());
  if (options.verify && !options.output.empty()) {
    llvm::Expected<Measurement> before = measure(options, "", false);
    if (!before)
      return before.takeError();
    llvm::Expected<Measurement> after = measure(options, options.output, false);
    if (!after)
      return after.takeError();
    os << llvm::formatv("model: {0:f3} ms with the cost model, {1:f3} ms "
                        "tuned ({2:f3}x)\n",
                        before->totalMs, after->totalMs,
                        before->totalMs / after->totalMs);
  }
  return llvm::Error::success();
}
