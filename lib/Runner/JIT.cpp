//===- JIT.cpp - the JIT that runs lowered DLAS modules -------------------===//
#include "DLAS/Runner/JIT.h"
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Runner/ParallelCodegen.h"
#include "DLAS/Runner/TargetMachine.h"
#include "DLAS/Support/ConstantData.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
#include <limits>
#include <string>
#ifdef __GLIBC__
#include <malloc.h>
#if defined(__linux__) && defined(__x86_64__)
#include <cerrno>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif

using namespace mlir;
using namespace mlir::dlas;

/// Unpinned, this 2-vCPU VM's scheduler kept both threads of a 2-thread
/// run on one CPU in about a third of the processes (a 0.008 ms depthwise
/// layer took 0.07 ms in them; pinned, 14 of 14 runs took 0.008-0.009 ms).
/// Runs with one thread, or OpenMP's default, are left as they were:
/// concurrent 1-thread runs (lit's workers) would all land on the first CPU.
void dlas::configureOpenMPThreads(int threads) {
  if (threads > 0)
    ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  for (const char *name : {"OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY"})
    if (std::getenv(name))
      return;
  const char *count = std::getenv("OMP_NUM_THREADS");
  if (!count || std::atoi(count) <= 1)
    return;
  ::setenv("OMP_PROC_BIND", "close", /*overwrite=*/0);
  ::setenv("OMP_PLACES", "threads", /*overwrite=*/0);
}

/// Every layer returns a freshly allocated activation buffer. JIT code on
/// a thread of its own gets a glibc arena that unmaps an emptied heap and
/// serves large blocks with mmap, so each run page-faulted and zeroed every
/// activation anew (about 5000 faults, a third of MobileNetV2's time). One
/// arena that keeps freed memory lets the next run reuse mapped pages, as
/// the main thread (where PyTorch runs) does.
void dlas::keepFreedMemoryMapped() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  // 32 MiB is the largest mmap threshold glibc accepts.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

static llvm::Error jitError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// True when the module holds OpenMP ops (which become __kmpc_* calls only
/// in the LLVM IR translation, so the runtime must be loaded).
static bool usesOpenMP(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "omp") {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

#if defined(__clang__) && defined(__x86_64__)
/// f32 -> bf16, rounded to nearest even (NaNs kept, quieted), as
/// compiler-rt's __truncsfbf2: LLVM's x86 backend calls it where it
/// legalizes bf16 vector operations (selects, shuffles) through f32 on
/// CPUs without AVX512-BF16, and Debian 12's libgcc (GCC 12) has none.
/// The result is returned as __bf16 (in xmm0, the libcall's ABI).
static __bf16 truncateF32ToBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t rounded;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    rounded = static_cast<uint16_t>((bits >> 16) | 0x40);
  else
    rounded =
        static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 result;
  std::memcpy(&result, &rounded, sizeof(result));
  return result;
}
#endif

/// The symbols the code needs from outside: the externalized weights, bound
/// to their data in memory, the caller's `symbols` and the compiler
/// runtime's functions the process may lack. A weight whose data is not
/// kConstantAlignment-aligned (a blob parsed from text or bytecode, which
/// gets only the alignment it declares) is bound to an aligned copy, kept
/// in `alignedCopies`:
/// the kernels' vector loads of it must not split cache lines (the AOT
/// object aligns its weights the same way).
static llvm::Expected<llvm::orc::SymbolMap>
externalSymbols(ModuleOp module, const llvm::StringMap<void *> &symbols,
                llvm::orc::MangleAndInterner &mangle,
                AlignedWeightCopies &alignedCopies) {
  llvm::orc::SymbolMap map;
  auto bind = [&](StringRef name, const void *address) {
    map[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                         llvm::JITSymbolFlags::Exported};
  };
  if (auto weights = module->getAttrOfType<DictionaryAttr>(
          kExternalWeightsAttrName)) {
    for (NamedAttribute entry : weights) {
      auto value = dyn_cast<DenseResourceElementsAttr>(entry.getValue());
      AsmResourceBlob *blob =
          value ? value.getRawHandle().getBlob() : nullptr;
      if (!blob)
        return jitError("external weight '" + entry.getName().getValue() +
                        "' has no data");
      ArrayRef<char> data = blob->getData();
      if (reinterpret_cast<uintptr_t>(data.data()) % kConstantAlignment) {
        alignedCopies.push_back(llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
            data.size(), entry.getName().getValue(),
            llvm::Align(kConstantAlignment)));
        llvm::copy(data, alignedCopies.back()->getBufferStart());
        data = alignedCopies.back()->getBuffer();
      }
      bind(entry.getName().getValue(), data.data());
    }
  }
  for (const auto &entry : symbols)
    bind(entry.getKey(), entry.getValue());
#if defined(__clang__) && defined(__x86_64__)
  bind("__truncsfbf2", reinterpret_cast<const void *>(&truncateF32ToBF16));
#endif
  return map;
}

SmallVector<std::string> dlas::takeStructors(llvm::Module &module,
                                             StringRef listName) {
  SmallVector<std::pair<uint64_t, std::string>> entries;
  llvm::GlobalVariable *list = module.getGlobalVariable(listName);
  if (!list)
    return {};
  if (auto *array =
          llvm::dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer())) {
    for (llvm::Value *operand : array->operands()) {
      auto *entry = llvm::cast<llvm::ConstantStruct>(operand);
      auto *priority = llvm::cast<llvm::ConstantInt>(entry->getOperand(0));
      auto *function = llvm::dyn_cast<llvm::Function>(entry->getOperand(1));
      if (!function)
        continue;
      function->setLinkage(llvm::GlobalValue::ExternalLinkage);
      function->setVisibility(llvm::GlobalValue::DefaultVisibility);
      entries.emplace_back(priority->getZExtValue(), function->getName().str());
    }
  }
  list->eraseFromParent();
  llvm::stable_sort(entries, llvm::less_first());
  SmallVector<std::string> names;
  for (auto &entry : entries)
    names.push_back(entry.second);
  if (listName == "llvm.global_dtors")
    std::reverse(names.begin(), names.end());
  return names;
}

/// Whether the lowered module calls AMX tile intrinsics (an AMX target's
/// f32 code does not, and must run where the system refuses the tiles).
static bool usesAMXTiles(ModuleOp module) {
  bool found = false;
  module.walk([&](LLVM::CallIntrinsicOp call) {
    StringRef name = call.getIntrin();
    if (name.starts_with("llvm.x86.tile") || name.starts_with("llvm.x86.tdp")) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Linux hands a process the AMX tile state only when it asks for it
/// (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA, once, for all its
/// threads); the first tile instruction faults otherwise.
static llvm::Error requestAMXTiles() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXFeatureXTileData = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXFeatureXTileData) == 0)
    return llvm::Error::success();
  return jitError(llvm::Twine("the code uses AMX tiles, but the operating "
                              "system refused them (arch_prctl "
                              "ARCH_REQ_XCOMP_PERM: ") +
                  std::strerror(errno) +
                  "); compile with --target-features=-amx-tile");
#else
  return jitError("the code uses AMX tiles, which DLAS enables on Linux "
                  "only; compile with --target-features=-amx-tile");
#endif
}

JIT::~JIT() {
  for (void (*destructor)() : destructors)
    destructor();
}

llvm::Expected<std::unique_ptr<JIT>>
JIT::create(ModuleOp module, const JITOptions &options,
            const llvm::StringMap<void *> &symbols) {
  std::string missing = featuresMissingOnHost(options.features);
  if (!missing.empty())
    return jitError("the code is compiled for '" + options.cpu +
                    "', which needs " + missing +
                    ": this host cannot run it (pick a --target it can "
                    "run, or build an object with dlas-compile)");
  if (StringRef(options.features).contains("+amx-tile") && usesAMXTiles(module))
    if (llvm::Error error = requestAMXTiles())
      return std::move(error);
  bool openMP = usesOpenMP(module);
  if (openMP && !llvm::sys::fs::exists(options.ompLibrary))
    return jitError("the module uses OpenMP but '" + options.ompLibrary +
                    "' does not exist (install libomp-22-dev or pass "
                    "--omp-library)");

  // LLVM IR, with the packed wrappers the runner calls.
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, *context);
  if (!llvmModule)
    return jitError("cannot translate the module to LLVM IR");
  addPackedWrappers(*llvmModule, "_mlir_ciface_");
  // ORC runs no constructors of objects added as objects: they are called
  // below, once the code is linked.
  SmallVector<std::string> constructors =
      takeStructors(*llvmModule, "llvm.global_ctors");
  SmallVector<std::string> destructorNames =
      takeStructors(*llvmModule, "llvm.global_dtors");

  CodegenOptions codegen;
  codegen.cpu = options.cpu;
  codegen.features = options.features;
  codegen.optLevel = options.optLevel;
  codegen.threads = options.compileThreads;
  auto objects = compileToObjects(std::move(llvmModule), codegen);
  if (!objects)
    return jitError("JIT compilation failed: " +
                    llvm::toString(objects.takeError()));

  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(kCPUTriple)};
  machine.setCPU(options.cpu);
  machine.addFeatures(llvm::SubtargetFeatures(options.features).getFeatures());
  auto lljit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(machine).create();
  if (!lljit)
    return jitError("cannot start the JIT: " +
                    llvm::toString(lljit.takeError()));
  llvm::orc::JITDylib &dylib = (*lljit)->getMainJITDylib();
  char prefix = (*lljit)->getDataLayout().getGlobalPrefix();
  // The C library (malloc, free, libm) and, when the code has OpenMP
  // loops, the OpenMP runtime.
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return jitError(llvm::toString(process.takeError()));
  dylib.addGenerator(std::move(*process));
  if (openMP) {
    auto omp = llvm::orc::DynamicLibrarySearchGenerator::Load(
        options.ompLibrary.c_str(), prefix);
    if (!omp)
      return jitError("cannot load '" + options.ompLibrary +
                      "': " + llvm::toString(omp.takeError()));
    dylib.addGenerator(std::move(*omp));
  }
  llvm::orc::MangleAndInterner mangle((*lljit)->getExecutionSession(),
                                      (*lljit)->getDataLayout());
  AlignedWeightCopies alignedCopies;
  auto external = externalSymbols(module, symbols, mangle, alignedCopies);
  if (!external)
    return external.takeError();
  if (llvm::Error error =
          dylib.define(llvm::orc::absoluteSymbols(std::move(*external))))
    return std::move(error);
  for (auto &object : *objects)
    if (llvm::Error error = (*lljit)->addObjectFile(std::move(object)))
      return jitError("cannot add the compiled code to the JIT: " +
                      llvm::toString(std::move(error)));
  std::unique_ptr<JIT> result(new JIT(std::move(*lljit)));
  result->alignedWeights = std::move(alignedCopies);
  for (const std::string &name : constructors) {
    auto address = result->jit->lookup(name);
    if (!address)
      return jitError("cannot link the constructor '" + name +
                      "': " + llvm::toString(address.takeError()));
    address->toPtr<void (*)()>()();
  }
  for (const std::string &name : destructorNames) {
    auto address = result->jit->lookup(name);
    if (!address)
      return jitError("cannot link the destructor '" + name +
                      "': " + llvm::toString(address.takeError()));
    result->destructors.push_back(address->toPtr<void (*)()>());
  }
  return result;
}

llvm::Expected<void (*)(void **)> JIT::lookupPacked(StringRef name) {
  auto address = jit->lookup(("_mlir_" + name).str());
  if (!address)
    return address.takeError();
  return address->toPtr<void (*)(void **)>();
}
