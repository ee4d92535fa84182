//===- Entry.cpp - calling a compiled entry on .npy arrays ----------------===//
#include "DLAS/Runner/Entry.h"
#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Runner/TargetMachine.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::dlas;

static llvm::Error runnerError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<NpyDType> dlas::npyDTypeOf(Type type) {
  if (type.isF32())
    return NpyDType::F32;
  if (type.isF64())
    return NpyDType::F64;
  if (type.isF16())
    return NpyDType::F16;
  if (type.isBF16())
    return NpyDType::BF16;
  if (type.isInteger(1))
    return NpyDType::Bool;
  // UINT8 tensors at an imported graph's edges (dlas.unsigned).
  if (type.isUnsignedInteger(8))
    return NpyDType::U8;
  if (type.isInteger(8))
    return NpyDType::I8;
  if (type.isInteger(16))
    return NpyDType::I16;
  if (type.isInteger(32))
    return NpyDType::I32;
  if (type.isInteger(64))
    return NpyDType::I64;
  return std::nullopt;
}

std::string dlas::shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + (ShapedType::isDynamic(d) ? "?" : std::to_string(d));
  return s.empty() ? "scalar" : s;
}

llvm::Expected<EntrySignature> dlas::entrySignature(FunctionType type,
                                                    StringRef entry) {
  EntrySignature sig;
  auto convert = [&](TypeRange types, SmallVectorImpl<ShapedType> &out,
                     StringRef what) -> llvm::Error {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto shaped = dyn_cast<ShapedType>(t);
      if (!shaped || !shaped.hasRank() || !npyDTypeOf(shaped.getElementType())) {
        std::string printed;
        llvm::raw_string_ostream os(printed);
        t.print(os);
        return runnerError("entry '" + entry + "' " + what + " #" +
                           llvm::Twine(i) + " has unsupported type " + printed +
                           " (need a ranked tensor of f32, f64, f16, bf16, "
                           "i1, i8, ui8, i16, i32 or i64)");
      }
      out.push_back(shaped);
    }
    return llvm::Error::success();
  };
  if (llvm::Error err = convert(type.getInputs(), sig.inputs, "argument"))
    return std::move(err);
  if (llvm::Error err = convert(type.getResults(), sig.results, "result"))
    return std::move(err);
  return sig;
}

void dlas::fillRandom(NpyArray &array, Type elementType, std::mt19937 &rng) {
  bool isFloat = isa<FloatType>(elementType);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(
      elementType.isUnsignedInteger() ? 0 : -8,
      elementType.isUnsignedInteger() ? 16 : 8);
  for (int64_t i = 0, e = array.numElements(); i < e; ++i)
    array.set(i, isFloat ? real(rng) : integer(rng));
}

double dlas::medianOf(ArrayRef<double> values) {
  if (values.empty())
    return 0.0;
  SmallVector<double> sorted(values);
  llvm::sort(sorted);
  size_t mid = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[mid]
                           : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

EntryRunner::EntryRunner(JIT &engine, std::string symbol,
                         const EntrySignature &sig,
                         SmallVectorImpl<NpyArray> &inputs)
    : engine(engine), symbol(std::move(symbol)), sig(sig) {
  for (NpyArray &input : inputs) {
    int64_t rank = input.shape().size();
    // {allocated, aligned, offset, sizes[rank], strides[rank]}: dense.
    SmallVector<int64_t> words(3 + 2 * rank, 0);
    words[0] = words[1] = reinterpret_cast<int64_t>(input.data());
    int64_t stride = 1;
    for (int64_t i = rank - 1; i >= 0; --i) {
      words[3 + i] = input.shape()[i];
      words[3 + rank + i] = stride;
      stride *= input.shape()[i];
    }
    inputDescriptors.push_back(std::move(words));
    inputPointers.insert(input.data());
  }
  size_t resultWords = 0;
  for (ShapedType t : sig.results)
    resultWords += 3 + 2 * t.getRank();
  resultStorage.assign(resultWords, 0);
}

EntryRunner::~EntryRunner() { releaseResults(); }

llvm::Error EntryRunner::run() {
  releaseResults();
  if (!function) {
    auto found = engine.lookupPacked(symbol);
    if (!found)
      return found.takeError();
    function = *found;
  }
  SmallVector<void *> descriptorPointers, args;
  // With results, the C interface takes a pointer to them first.
  void *resultPointer = resultStorage.data();
  if (!sig.results.empty())
    args.push_back(&resultPointer);
  for (SmallVector<int64_t> &d : inputDescriptors)
    descriptorPointers.push_back(d.data());
  for (void *&p : descriptorPointers)
    args.push_back(&p);
  function(args.data());
  hasResults = true;
  return llvm::Error::success();
}

NpyArray EntryRunner::result(unsigned index) {
  int64_t rank = sig.results[index].getRank();
  // Upstream's view of a descriptor of run-time rank.
  ::UnrankedMemRefType<char> unranked{rank, resultWords(index)};
  ::DynamicMemRefType<char> view(unranked);
  SmallVector<int64_t> shape(view.sizes, view.sizes + rank);
  NpyDType dtype = *npyDTypeOf(sig.results[index].getElementType());
  NpyArray array(dtype, shape);
  size_t elementSize = npyElementSize(dtype);
  const char *base = view.data + view.offset * elementSize;
  char *dst = static_cast<char *>(array.data());
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t flat = 0, e = array.numElements(); flat < e; ++flat) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += idx[d] * view.strides[d];
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

int64_t *EntryRunner::resultWords(unsigned index) {
  size_t offset = 0;
  for (unsigned i = 0; i < index; ++i)
    offset += 3 + 2 * sig.results[i].getRank();
  return resultStorage.data() + offset;
}

/// Frees the buffers the last call allocated for its results; not the
/// inputs it may have returned, nor constant globals (whose allocated
/// pointer the lowering sets to 0xdeadbeef).
void EntryRunner::releaseResults() {
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

bool dlas::compareOutput(unsigned index, const NpyArray &actual,
                         const NpyArray &expected, const Tolerance &tolerance,
                         llvm::raw_ostream &os) {
  if (actual.shape() != expected.shape()) {
    os << "output #" << index << ": FAIL shape " << shapeString(actual.shape())
       << " but expected " << shapeString(expected.shape()) << "\n";
    return false;
  }
  double maxAbs = 0, maxExpected = 0;
  int64_t mismatches = 0, worst = -1;
  double worstExcess = -1;
  for (int64_t i = 0, e = actual.numElements(); i < e; ++i) {
    double a = actual.at(i), b = expected.at(i);
    // A non-finite value matches only itself (NaN matches NaN): an
    // infinite error, not one that inf - inf or a NaN tolerance hides.
    double diff;
    if (std::isfinite(a) && std::isfinite(b))
      diff = std::fabs(a - b);
    else if ((std::isnan(a) && std::isnan(b)) || a == b)
      diff = 0;
    else
      diff = INFINITY;
    maxAbs = std::max(maxAbs, diff);
    if (std::isfinite(b))
      maxExpected = std::max(maxExpected, std::fabs(b));
    double excess =
        diff == 0        ? -1.0
        : std::isinf(diff) ? INFINITY
                           : diff - (tolerance.atol + tolerance.rtol * std::fabs(b));
    if (excess > 0) {
      ++mismatches;
      if (excess > worstExcess) {
        worstExcess = excess;
        worst = i;
      }
    }
  }
  double maxRel = maxExpected > 0 ? maxAbs / maxExpected : maxAbs;
  os << "output #" << index << ": max abs err " << llvm::format("%.3e", maxAbs)
     << ", max rel err " << llvm::format("%.3e", maxRel)
     << " (to max |expected| " << llvm::format("%.3e", maxExpected) << "), ";
  if (tolerance.maxRelErr >= 0) {
    bool pass = maxAbs <= tolerance.maxRelErr * maxExpected;
    os << "max-rel-err " << tolerance.maxRelErr << ": "
       << (pass ? "PASS" : "FAIL") << "\n";
    return pass;
  }
  os << "rtol " << tolerance.rtol << ", atol " << tolerance.atol << ": ";
  if (mismatches == 0) {
    os << "PASS\n";
    return true;
  }
  os << "FAIL (" << mismatches << " of " << actual.numElements()
     << " elements; worst at flat index " << worst << ": got "
     << actual.at(worst) << ", expected " << expected.at(worst) << ")\n";
  return false;
}
