//===- Entry.h - calling a compiled entry on .npy arrays --------*- C++ -*-===//
//
// The entry's tensor signature, the C interface that dlas-prepare-entry-abi
// gives it (memref descriptors in, a descriptor per result out), the JIT
// engine that runs it with its weights bound, and comparing its outputs
// with expected ones.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNNER_ENTRY_H
#define DLAS_RUNNER_ENTRY_H

#include "DLAS/Support/Npy.h"

#include "DLAS/Runner/JIT.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <random>

namespace mlir::dlas {

/// The .npy dtype of an element type the tools exchange (f32, f16, bf16,
/// i8, i32, i64), or nullopt.
std::optional<NpyDType> npyDTypeOf(Type type);

/// "1x3x224x224", "?" for dynamic dims, "scalar" for rank 0.
std::string shapeString(ArrayRef<int64_t> shape);

/// The entry's argument and result types: ranked tensors or memrefs with
/// an element type `npyDTypeOf` knows.
struct EntrySignature {
  SmallVector<ShapedType> inputs, results;
};

/// The signature of `entry` of type `type`; an error naming the first
/// argument or result of another type.
llvm::Expected<EntrySignature> entrySignature(FunctionType type,
                                              StringRef entry);

/// Fills `array` with seeded values: uniform in [-1, 1] for a float element
/// type, integers in [-8, 8] otherwise ([0, 16] unsigned; dlas-run's
/// --random-inputs, and what dlas-tune runs layers on).
void fillRandom(NpyArray &array, Type elementType, std::mt19937 &rng);

/// Median of `values` (0 when empty).
double medianOf(ArrayRef<double> values);

/// Calls a JIT-compiled entry's C interface on dense arrays: owns the
/// input descriptors and frees the result buffers each call returns.
class EntryRunner {
public:
  EntryRunner(JIT &engine, std::string symbol,
              const EntrySignature &sig, SmallVectorImpl<NpyArray> &inputs);
  ~EntryRunner();

  llvm::Error run();

  /// Result `index` of the last run as a dense array (results may be
  /// strided views).
  NpyArray result(unsigned index);

private:
  int64_t *resultWords(unsigned index);
  void releaseResults();

  JIT &engine;
  std::string symbol;
  /// The packed entry, looked up on the first run: an ORC lookup per call
  /// cost about 2 us (a 2.4 us depthwise layer timed as 4.8 us).
  void (*function)(void **) = nullptr;
  const EntrySignature &sig;
  /// Per input, its descriptor's words: allocated, aligned, offset,
  /// sizes, strides (the layout of StridedMemRefType).
  SmallVector<SmallVector<int64_t>> inputDescriptors;
  llvm::SmallPtrSet<void *, 4> inputPointers;
  SmallVector<int64_t> resultStorage;
  bool hasResults = false;
};

/// How close an output must be to the expected one: every element within
/// atol + rtol * |expected|, or, when maxRelErr >= 0, max |error| within
/// maxRelErr * max |expected|.
struct Tolerance {
  double rtol = 1e-4, atol = 1e-5, maxRelErr = -1;
};

/// Compares output `index` with its expected array and reports the errors
/// on `os` ("output #i: max abs err ..., PASS|FAIL ..."); true on PASS.
/// A NaN or infinite value matches only the same value (NaN matches NaN),
/// and max |expected| is over the finite expected values.
bool compareOutput(unsigned index, const NpyArray &actual,
                   const NpyArray &expected, const Tolerance &tolerance,
                   llvm::raw_ostream &os);

} // namespace mlir::dlas

#endif // DLAS_RUNNER_ENTRY_H
