//===- Npy.h - reading and writing NumPy .npy files -------------*- C++ -*-===//
#ifndef DLAS_SUPPORT_NPY_H
#define DLAS_SUPPORT_NPY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::dlas {

/// Element types dlas-run exchanges through .npy files.
enum class NpyDType { F32, F64, F16, BF16, Bool, I8, U8, I16, I32, I64 };

/// Size in bytes of one element.
size_t npyElementSize(NpyDType dtype);
/// numpy's descr string ("<f4", "|i1", ...).
llvm::StringRef npyDescr(NpyDType dtype);
/// Short name used in messages ("f32", "i8", ...).
llvm::StringRef npyDTypeName(NpyDType dtype);

/// A dense C-order array with 64-byte aligned storage.
/// The bytes an array of `dtype` and `shape` takes; an error naming the
/// shape when a dim is negative or the size does not fit in 63 bits (a
/// shape from a file header or an option must not wrap around).
llvm::Expected<int64_t> npyByteSize(NpyDType dtype,
                                    llvm::ArrayRef<int64_t> shape);

class NpyArray {
public:
  /// A zeroed array; the size must be valid (`npyByteSize`) and
  /// allocatable: use `allocate` for shapes from untrusted input.
  NpyArray(NpyDType dtype, llvm::ArrayRef<int64_t> shape);

  /// A zeroed array of `shape`, or an error when its size overflows or the
  /// memory cannot be allocated.
  static llvm::Expected<NpyArray> allocate(NpyDType dtype,
                                           llvm::ArrayRef<int64_t> shape);

  NpyDType dtype() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return dims; }
  int64_t numElements() const;
  size_t byteSize() const { return numElements() * npyElementSize(type); }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  /// Element `i` converted to double.
  double at(int64_t i) const;
  /// Stores `value` into element `i`, converted to the element type.
  void set(int64_t i, double value);

private:
  struct FreeDeleter {
    void operator()(void *p) const;
  };
  NpyDType type;
  llvm::SmallVector<int64_t> dims;
  std::unique_ptr<void, FreeDeleter> storage;
};

/// Reads a version 1, 2 or 3 .npy file in C order; errors name the file and
/// what is wrong with it.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);
/// `readNpy` of the bytes of a .npy file held in memory; `name` stands for
/// its path in errors.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef bytes, llvm::StringRef name);
/// Writes a version 1.0 .npy file.
llvm::Error writeNpy(llvm::StringRef path, const NpyArray &array);

} // namespace mlir::dlas

#endif // DLAS_SUPPORT_NPY_H
