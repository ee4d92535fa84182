//===- CPUTarget.cpp - named CPU targets ----------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/X86TargetParser.h"

using namespace mlir;
using namespace mlir::dlas;

namespace {
/// Per-core data caches (L3: the whole cache) of the CPUs users name most;
/// other CPU names take their ISA level's row.
struct CacheRow {
  StringRef cpu;
  int64_t l1, l2, l3;
  int64_t fmaPerCycle;
};
constexpr int64_t KiB = 1024, MiB = 1024 * 1024;
// The two levels stand for the machines DLAS is run on most: x86-64-v3 a
// Zen 2/3 class server or laptop, x86-64-v4 an Ice Lake / Zen 5 class one.
const CacheRow cacheTable[] = {
    {"x86-64-v3", 32 * KiB, 512 * KiB, 32 * MiB, 2},
    {"x86-64-v4", 48 * KiB, 1 * MiB, 32 * MiB, 2},
    {"haswell", 32 * KiB, 256 * KiB, 8 * MiB, 2},
    {"broadwell", 32 * KiB, 256 * KiB, 8 * MiB, 2},
    {"skylake", 32 * KiB, 256 * KiB, 8 * MiB, 2},
    {"skylake-avx512", 32 * KiB, 1 * MiB, 32 * MiB, 2},
    {"cascadelake", 32 * KiB, 1 * MiB, 32 * MiB, 2},
    {"cooperlake", 32 * KiB, 1 * MiB, 32 * MiB, 2},
    {"icelake-server", 48 * KiB, 1280 * KiB, 48 * MiB, 2},
    {"alderlake", 48 * KiB, 1280 * KiB, 30 * MiB, 2},
    {"sapphirerapids", 48 * KiB, 2 * MiB, 105 * MiB, 2},
    {"emeraldrapids", 48 * KiB, 2 * MiB, 160 * MiB, 2},
    {"graniterapids", 48 * KiB, 2 * MiB, 128 * MiB, 2},
    {"znver2", 32 * KiB, 512 * KiB, 16 * MiB, 2},
    {"znver3", 32 * KiB, 512 * KiB, 32 * MiB, 2},
    // Zen 4 runs a 512-bit FMA as two 256-bit halves.
    {"znver4", 32 * KiB, 1 * MiB, 32 * MiB, 1},
    {"znver5", 48 * KiB, 1 * MiB, 32 * MiB, 2},
};

const CacheRow &cacheRowFor(StringRef cpu, bool avx512) {
  for (const CacheRow &row : cacheTable)
    if (row.cpu == cpu)
      return row;
  return cacheTable[avx512 ? 1 : 0];
}

/// Applies `+name`/`-name` entries of `changes` to `features`, with what
/// they imply (+avx512bw turns avx512f on, -avx512f turns avx512bw off).
llvm::Error applyFeatureChanges(llvm::StringMap<bool> &features,
                                StringRef changes) {
  SmallVector<StringRef> entries;
  changes.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    entry = entry.trim();
    bool enable = entry.consume_front("+");
    if (!enable && !entry.consume_front("-"))
      return llvm::createStringError(
          "feature '%s' must start with '+' or '-'", entry.str().c_str());
    if (!llvm::is_contained(codegenFeatureNames(), entry))
      return llvm::createStringError(
          "unknown feature '%s' (known: %s)", entry.str().c_str(),
          llvm::join(codegenFeatureNames(), ", ").c_str());
    features[entry] = enable;
    llvm::X86::updateImpliedFeatures(entry, enable, features);
  }
  return llvm::Error::success();
}
} // namespace

ArrayRef<StringRef> dlas::documentedCPUTargetNames() {
  static SmallVector<StringRef> names = [] {
    SmallVector<StringRef> all;
    for (const CacheRow &row : cacheTable)
      all.push_back(row.cpu);
    return all;
  }();
  return names;
}

llvm::Expected<CPUTargetAttr>
dlas::resolveCPUTarget(MLIRContext *context, StringRef name,
                       const CPUTargetOverrides &overrides) {
  if (name == "host" || name == "cpu")
    return llvm::createStringError(
        "target 'host' is resolved by the tools (dlas-run, dlas-compile, "
        "the dlas-cpu-pipeline builder), not here: name a CPU");
  if (llvm::X86::parseArchX86(name, /*Only64Bit=*/true) ==
      llvm::X86::CK_None)
    return llvm::createStringError(
        "unknown target '%s': expected host, an x86-64 level (x86-64-v3, "
        "x86-64-v4) or an LLVM x86-64 CPU name (%s, ...)",
        name.str().c_str(),
        llvm::join(documentedCPUTargetNames(), ", ").c_str());
  // The CPU's own features, narrowed to those codegen distinguishes.
  SmallVector<StringRef> implied;
  llvm::X86::getFeaturesForCPU(name, implied, /*NeedPlus=*/false);
  llvm::StringMap<bool> features;
  for (StringRef feature : implied) {
    features[feature] = true;
    llvm::X86::updateImpliedFeatures(feature, true, features);
  }
  if (llvm::Error error = applyFeatureChanges(features, overrides.features))
    return std::move(error);
  SmallVector<std::string> listed;
  for (StringRef feature : codegenFeatureNames())
    if (features.lookup(feature))
      listed.push_back(("+" + feature).str());

  bool avx512 = features.lookup("avx512f");
  const CacheRow &row = cacheRowFor(name, avx512);
  int64_t vectorBits = overrides.vectorBits ? overrides.vectorBits
                       : avx512            ? 512
                       : features.lookup("avx") ? 256
                                                  : 128;
  auto pick = [](int64_t given, int64_t table) { return given ? given : table; };

  std::string message;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto target = getCheckedCPUTarget(
      [&] { return mlir::emitError(UnknownLoc::get(context)); }, context,
      name, llvm::join(listed, ","), vectorBits, avx512 ? 32 : 16,
      pick(overrides.l1, row.l1), pick(overrides.l2, row.l2),
      pick(overrides.l3, row.l3), row.fmaPerCycle);
  if (!target)
    return llvm::createStringError("target '%s': %s", name.str().c_str(),
                                   message.c_str());
  return target;
}

llvm::Expected<CPUTargetAttr>
dlas::resolveCPUTargetOrHost(MLIRContext *context, StringRef name,
                             const CPUTargetOverrides &overrides) {
  auto [concrete, concreteOverrides] = concreteCPUTarget(name, overrides);
  return resolveCPUTarget(context, concrete, concreteOverrides);
}

std::pair<std::string, CPUTargetOverrides>
dlas::concreteCPUTarget(StringRef name, const CPUTargetOverrides &overrides) {
  if (name != "host" && name != "cpu")
    return {name.str(), overrides};
  auto [hostName, host] = resolveHostCPUTarget();
  // The user's overrides go on top of the host's.
  if (!overrides.features.empty())
    host.features += "," + overrides.features;
  if (overrides.vectorBits)
    host.vectorBits = overrides.vectorBits;
  if (overrides.l1)
    host.l1 = overrides.l1;
  if (overrides.l2)
    host.l2 = overrides.l2;
  if (overrides.l3)
    host.l3 = overrides.l3;
  return {hostName, host};
}

FailureOr<TargetShape> dlas::targetShapeFor(Operation *op, int64_t vectorWidth,
                                            int64_t vectorRegisters) {
  TargetShape shape{0, 0, 48 * KiB, 1 * MiB};
  if (CPUTargetAttr target = lookupCPUTarget(op)) {
    shape = {target.lanes(32), target.getVectorRegisters(), target.getL1(),
             target.getL2()};
  } else if (vectorWidth <= 0 || vectorRegisters <= 0) {
    return op->emitError()
           << "no target: set the module's '" << DLASDialect::kTargetAttrName
           << "' (dlas-attach-target, dlas-cpu-pipeline{target=...}) or "
              "give vector-width and vector-registers";
  }
  if (vectorWidth > 0)
    shape.vectorWidth = vectorWidth;
  if (vectorRegisters > 0)
    shape.vectorRegisters = vectorRegisters;
  return shape;
}
