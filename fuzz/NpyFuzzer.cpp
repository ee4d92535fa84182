//===- NpyFuzzer.cpp - libFuzzer harness for the .npy reader --------------===//
//
// Any bytes: parseNpy must return an array or an error, never crash or
// allocate what the header claims before checking it against the data.
//
//===----------------------------------------------------------------------===//
#include "AsanOptions.h"
#include "DLAS/Support/Npy.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<mlir::dlas::NpyArray> array = mlir::dlas::parseNpy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.npy");
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  // Touch every element as the tools do when comparing.
  double sum = 0;
  for (int64_t i = 0, e = array->numElements(); i < e; ++i)
    sum += array->at(i);
  (void)sum;
  return 0;
}
