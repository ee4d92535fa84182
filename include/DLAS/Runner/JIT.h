//===- JIT.h - the JIT that runs lowered DLAS modules ----------*- C++ -*-===//
//
// An ORC LLJIT fed with objects that compileToObjects builds on all cores
// (mlir::ExecutionEngine compiles a module on one thread). It keeps
// ExecutionEngine's calling convention: lookupPacked on `_mlir_<name>`
// wrappers taking an array of argument pointers (look them up once: a
// lookup costs about 2 us).
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_JIT_H
#define DLAS_RUNNER_JIT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace mlir::dlas {

/// Aligned copies of externalized weights that the JIT binds (see JIT).
using AlignedWeightCopies =
    SmallVector<std::unique_ptr<llvm::WritableMemoryBuffer>>;

/// The OpenMP runtime JIT code links against unless told otherwise.
inline constexpr llvm::StringLiteral kDefaultOpenMPLibrary =
    "/usr/lib/llvm-22/lib/libomp.so";

/// Sets the thread count of the JIT code's OpenMP loops (OMP_NUM_THREADS;
/// `threads` <= 0 keeps the environment's) and pins the threads one per
/// hardware thread when there are several and the environment does not
/// place them. Call it before the first JIT with OpenMP code starts: libomp
/// reads the environment once.
void configureOpenMPThreads(int threads);

/// glibc malloc settings that keep freed memory mapped, so that timed runs
/// do not page-fault every activation buffer anew.
void keepFreedMemoryMapped();

/// How to build and start the JIT for a lowered module.
struct JITOptions {
  /// The CPU and LLVM feature string to generate code for (the module's
  /// lowered target, or the caller's choice for a module without one).
  std::string cpu, features;
  unsigned optLevel = 3;
  /// Threads for LLVM's optimization and code generation; 0: all cores.
  unsigned compileThreads = 0;
  /// The OpenMP runtime loaded when the module has OpenMP ops.
  std::string ompLibrary = kDefaultOpenMPLibrary.str();
};

/// Removes `module`'s `llvm.global_ctors` (or `_dtors`) list and returns its
/// functions in the order to call them, made external so that a caller can
/// find them once the code is linked (the GPU pipeline loads its kernel
/// modules in constructors; the JIT calls them itself).
SmallVector<std::string> takeStructors(llvm::Module &module,
                                       StringRef listName);

class JIT {
public:
  /// Compiles the lowered `module` (LLVM dialect) and links it with its
  /// externalized weights (`dlas.external_weights`, data owned by the
  /// module's context) bound to their symbols, and with `symbols` (hooks the
  /// code calls). Fails with a message for a target the host cannot run, a
  /// missing OpenMP runtime or weights without data.
  static llvm::Expected<std::unique_ptr<JIT>>
  create(ModuleOp module, const JITOptions &options,
         const llvm::StringMap<void *> &symbols = {});

  /// The packed wrapper of the external function `name` (see
  /// addPackedWrappers); links the code on first use.
  llvm::Expected<void (*)(void **)> lookupPacked(StringRef name);

  /// Calls the module's destructors (those of its global_dtors list).
  ~JIT();

private:
  explicit JIT(std::unique_ptr<llvm::orc::LLJIT> jit) : jit(std::move(jit)) {}
  std::unique_ptr<llvm::orc::LLJIT> jit;
  SmallVector<void (*)()> destructors;
  /// Aligned copies of the weights whose blobs were not (see create).
  AlignedWeightCopies alignedWeights;
};

} // namespace mlir::dlas

#endif // DLAS_RUNNER_JIT_H
