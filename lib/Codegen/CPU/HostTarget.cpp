//===- HostTarget.cpp - what the host is, asked at the tools' edge --------===//
//
// The one place that asks the machine DLAS runs on what it is. Passes never
// call it: the tools (dlas-run, dlas-compile) and the pipeline builder
// resolve `host` once and put the result in the IR.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/CPU/CPUTarget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::dlas;

namespace {
/// The text of a sysfs file, trimmed ("" when it cannot be read).
std::string readSysfs(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(path);
  return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
}

/// Bytes of a sysfs cache size such as "48K" or "32768K" (0 if unreadable).
int64_t parseCacheSize(StringRef text) {
  int64_t scale = 1;
  if (text.consume_back("K"))
    scale = 1024;
  else if (text.consume_back("M"))
    scale = 1024 * 1024;
  int64_t value = 0;
  return text.getAsInteger(10, value) ? 0 : value * scale;
}

/// The data caches of CPU 0 as Linux reports them; zeros where it does not.
void readHostCaches(CPUTargetOverrides &caches) {
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        ("/sys/devices/system/cpu/cpu0/cache/index" + llvm::Twine(index)).str();
    std::string type = readSysfs(dir + "/type");
    if (type.empty())
      break;
    if (type == "Instruction")
      continue;
    int64_t level = 0;
    if (StringRef(readSysfs(dir + "/level")).getAsInteger(10, level))
      continue;
    int64_t size = parseCacheSize(readSysfs(dir + "/size"));
    (level == 1 ? caches.l1 : level == 2 ? caches.l2 : caches.l3) = size;
  }
}
} // namespace

std::pair<std::string, CPUTargetOverrides> dlas::resolveHostCPUTarget() {
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  std::string name = llvm::sys::getHostCPUName().str();
  // A CPU LLVM does not know by name is described by its ISA level.
  if (name.empty() || name == "generic")
    name = hostFeatures.lookup("avx512f") ? "x86-64-v4" : "x86-64-v3";
  CPUTargetOverrides host;
  // Every codegen feature explicitly on or off: a hypervisor may hide what
  // the CPU name implies.
  SmallVector<std::string> entries;
  for (StringRef feature : codegenFeatureNames())
    entries.push_back((hostFeatures.lookup(feature) ? "+" : "-") +
                      feature.str());
  host.features = llvm::join(entries, ",");
  readHostCaches(host);
  return {name, host};
}

std::string dlas::featuresMissingOnHost(StringRef features) {
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  SmallVector<StringRef> entries, missing;
  features.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : entries)
    if (entry.consume_front("+") &&
        llvm::is_contained(codegenFeatureNames(), entry) &&
        !hostFeatures.lookup(entry))
      missing.push_back(entry);
  return llvm::join(missing, ", ");
}
