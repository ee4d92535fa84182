//===- Npy.cpp - reading and writing NumPy .npy files ---------------------===//
//
// Format: "\x93NUMPY", major, minor, header length (u16 for v1, u32 for
// v2/v3), then a Python dict literal with 'descr', 'fortran_order' and
// 'shape', padded so that the data starts 64-byte aligned.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Support/Npy.h"

#include "llvm/Support/MathExtras.h"
#include <limits>

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir::dlas;
using llvm::StringRef;

size_t mlir::dlas::npyElementSize(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::F32:
  case NpyDType::I32:
    return 4;
  case NpyDType::F16:
  case NpyDType::BF16:
    return 2;
  case NpyDType::Bool:
  case NpyDType::I8:
  case NpyDType::U8:
    return 1;
  case NpyDType::I16:
    return 2;
  case NpyDType::F64:
  case NpyDType::I64:
    return 8;
  }
  llvm_unreachable("unknown dtype");
}

StringRef mlir::dlas::npyDescr(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::F32:
    return "<f4";
  case NpyDType::F16:
    return "<f2";
  case NpyDType::BF16:
    return "<V2"; // numpy has no bfloat16: raw 2-byte records
  case NpyDType::F64:
    return "<f8";
  case NpyDType::Bool:
    return "|b1";
  case NpyDType::I8:
    return "|i1";
  case NpyDType::U8:
    return "|u1";
  case NpyDType::I16:
    return "<i2";
  case NpyDType::I32:
    return "<i4";
  case NpyDType::I64:
    return "<i8";
  }
  llvm_unreachable("unknown dtype");
}

StringRef mlir::dlas::npyDTypeName(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::F32:
    return "f32";
  case NpyDType::F16:
    return "f16";
  case NpyDType::BF16:
    return "bf16";
  case NpyDType::F64:
    return "f64";
  case NpyDType::Bool:
    return "bool";
  case NpyDType::I8:
    return "i8";
  case NpyDType::U8:
    return "u8";
  case NpyDType::I16:
    return "i16";
  case NpyDType::I32:
    return "i32";
  case NpyDType::I64:
    return "i64";
  }
  llvm_unreachable("unknown dtype");
}

void NpyArray::FreeDeleter::operator()(void *p) const { std::free(p); }

static std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(d);
  return text + ")";
}

llvm::Expected<int64_t> mlir::dlas::npyByteSize(NpyDType dtype,
                                                llvm::ArrayRef<int64_t> shape) {
  int64_t bytes = static_cast<int64_t>(npyElementSize(dtype));
  for (int64_t d : shape) {
    if (d < 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "shape " + shapeText(shape) +
                                         " has a negative dimension");
    // Rounded up to 64 bytes for the allocation: keep room for that too.
    if (llvm::MulOverflow(bytes, d, bytes) ||
        bytes > std::numeric_limits<int64_t>::max() - 64)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "shape " + shapeText(shape) + " of " + npyDTypeName(dtype) +
              " is too large (its byte size overflows 64 bits)");
  }
  return bytes;
}

NpyArray::NpyArray(NpyDType dtype, llvm::ArrayRef<int64_t> shape)
    : type(dtype), dims(shape) {
  size_t bytes = byteSize();
  // aligned_alloc needs a size that is a multiple of the alignment.
  size_t rounded = ((bytes + 63) / 64) * 64;
  storage.reset(std::aligned_alloc(64, rounded ? rounded : 64));
  if (storage)
    std::memset(storage.get(), 0, rounded ? rounded : 64);
}

llvm::Expected<NpyArray> NpyArray::allocate(NpyDType dtype,
                                            llvm::ArrayRef<int64_t> shape) {
  llvm::Expected<int64_t> bytes = npyByteSize(dtype, shape);
  if (!bytes)
    return bytes.takeError();
  NpyArray array(dtype, shape);
  if (!array.data())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot allocate " + llvm::Twine(*bytes) + " bytes for shape " +
            shapeText(shape) + " of " + npyDTypeName(dtype));
  return std::move(array);
}

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

static float halfToFloat(uint16_t bits) {
  llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  return f.convertToFloat();
}

static uint16_t floatToHalf(double value) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint16_t)f.bitcastToAPInt().getZExtValue();
}

static float bf16ToFloat(uint16_t bits) {
  uint32_t word = (uint32_t)bits << 16;
  float f;
  std::memcpy(&f, &word, 4);
  return f;
}

static uint16_t floatToBF16(double value) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint16_t)f.bitcastToAPInt().getZExtValue();
}

double NpyArray::at(int64_t i) const {
  const char *base = static_cast<const char *>(data());
  switch (type) {
  case NpyDType::F32:
    return reinterpret_cast<const float *>(base)[i];
  case NpyDType::F16:
    return halfToFloat(reinterpret_cast<const uint16_t *>(base)[i]);
  case NpyDType::BF16:
    return bf16ToFloat(reinterpret_cast<const uint16_t *>(base)[i]);
  case NpyDType::F64:
    return reinterpret_cast<const double *>(base)[i];
  case NpyDType::Bool:
    return reinterpret_cast<const uint8_t *>(base)[i] != 0;
  case NpyDType::I8:
    return reinterpret_cast<const int8_t *>(base)[i];
  case NpyDType::U8:
    return reinterpret_cast<const uint8_t *>(base)[i];
  case NpyDType::I16:
    return reinterpret_cast<const int16_t *>(base)[i];
  case NpyDType::I32:
    return reinterpret_cast<const int32_t *>(base)[i];
  case NpyDType::I64:
    return (double)reinterpret_cast<const int64_t *>(base)[i];
  }
  llvm_unreachable("unknown dtype");
}

void NpyArray::set(int64_t i, double value) {
  char *base = static_cast<char *>(data());
  switch (type) {
  case NpyDType::F32:
    reinterpret_cast<float *>(base)[i] = (float)value;
    return;
  case NpyDType::F16:
    reinterpret_cast<uint16_t *>(base)[i] = floatToHalf(value);
    return;
  case NpyDType::BF16:
    reinterpret_cast<uint16_t *>(base)[i] = floatToBF16(value);
    return;
  case NpyDType::F64:
    reinterpret_cast<double *>(base)[i] = value;
    return;
  case NpyDType::Bool:
    reinterpret_cast<uint8_t *>(base)[i] = value != 0;
    return;
  case NpyDType::I8:
    reinterpret_cast<int8_t *>(base)[i] = (int8_t)value;
    return;
  case NpyDType::U8:
    reinterpret_cast<uint8_t *>(base)[i] = (uint8_t)value;
    return;
  case NpyDType::I16:
    reinterpret_cast<int16_t *>(base)[i] = (int16_t)value;
    return;
  case NpyDType::I32:
    reinterpret_cast<int32_t *>(base)[i] = (int32_t)value;
    return;
  case NpyDType::I64:
    reinterpret_cast<int64_t *>(base)[i] = (int64_t)value;
    return;
  }
}

static llvm::Error npyError(StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + path + "': " + message);
}

/// Value of `key` in the header dict: the text after "'key':" up to the
/// next top-level comma or closing brace.
static std::optional<StringRef> headerValue(StringRef header, StringRef key) {
  std::string quoted = ("'" + key + "'").str();
  size_t pos = header.find(quoted);
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(pos + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == StringRef::npos)
      return std::nullopt;
    return rest.take_front(close + 1);
  }
  size_t end = rest.find_first_of(",}");
  return rest.take_front(end).trim();
}

/// The header's 'shape' value as written, up to the next key, for messages.
static std::string headerShapeText(StringRef header) {
  size_t pos = header.find("'shape'");
  if (pos == StringRef::npos)
    return "";
  StringRef rest = header.drop_front(pos + 7).ltrim().drop_front().ltrim();
  // Up to the next key or the dict's end.
  rest = rest.take_front(rest.find_first_of("'}"));
  return rest.rtrim().rtrim(",").rtrim().str();
}

/// Copies a column-major (Fortran-order) array into row-major order.
static void fortranToRowMajor(const char *src, char *dst,
                              llvm::ArrayRef<int64_t> shape,
                              int64_t elementBytes) {
  int64_t rank = shape.size(), count = 1;
  for (int64_t d : shape)
    count *= d;
  // Column-major strides, in elements: the first dimension varies fastest.
  llvm::SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = 1; d < rank; ++d)
    strides[d] = strides[d - 1] * shape[d - 1];
  llvm::SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += index[d] * strides[d];
    std::memcpy(dst + i * elementBytes, src + from * elementBytes, elementBytes);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
}

llvm::Expected<NpyArray> mlir::dlas::readNpy(StringRef path) {
  auto bufferOr = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!bufferOr)
    return npyError(path, "cannot open: " + bufferOr.getError().message());
  return parseNpy((*bufferOr)->getBuffer(), path);
}

llvm::Expected<NpyArray> mlir::dlas::parseNpy(StringRef bytes,
                                              StringRef path) {
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return npyError(path, "not a .npy file (bad magic)");
  unsigned major = (unsigned char)bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError(path, "truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= (size_t)(unsigned char)bytes[8 + i] << (8 * i);
    headerStart = 12;
  } else {
    return npyError(path, "unsupported .npy version " + llvm::Twine(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return npyError(path, "truncated header");
  StringRef header = bytes.substr(headerStart, headerLen);

  std::optional<StringRef> descr = headerValue(header, "descr");
  std::optional<StringRef> fortran = headerValue(header, "fortran_order");
  std::optional<StringRef> shapeText = headerValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return npyError(path, "malformed header '" + header.trim() + "'");
  StringRef order = fortran->trim();
  if (order != "False" && order != "True")
    return npyError(path, "malformed fortran_order '" + order + "'");
  bool fortranOrder = order == "True";
  if (!shapeText->starts_with("(") || !shapeText->ends_with(")"))
    return npyError(path, "the header's shape must be a tuple such as "
                          "(2, 3), got '" +
                              headerShapeText(header) + "'");
  StringRef descrValue = descr->trim().trim("'\"");
  NpyDType dtype;
  if (descrValue == "<f4")
    dtype = NpyDType::F32;
  else if (descrValue == "<f2")
    dtype = NpyDType::F16;
  else if (descrValue == "<f8")
    dtype = NpyDType::F64;
  else if (descrValue == "|b1")
    dtype = NpyDType::Bool;
  else if (descrValue == "|i1" || descrValue == "<i1")
    dtype = NpyDType::I8;
  else if (descrValue == "|u1" || descrValue == "<u1")
    dtype = NpyDType::U8;
  else if (descrValue == "<i2")
    dtype = NpyDType::I16;
  else if (descrValue == "<i4")
    dtype = NpyDType::I32;
  else if (descrValue == "<i8")
    dtype = NpyDType::I64;
  else if (descrValue == "<V2" || descrValue == "|V2")
    dtype = NpyDType::BF16;
  else
    return npyError(
        path, "unsupported dtype '" + descrValue +
                  "' (supported: <f4, <f8, <f2, |b1, |i1, |u1, <i2, <i4, <i8)");

  llvm::SmallVector<int64_t> shape;
  StringRef dimsText = shapeText->trim().drop_front().drop_back();
  llvm::SmallVector<StringRef> pieces;
  dimsText.split(pieces, ',', -1, /*KeepEmpty=*/false);
  for (StringRef piece : pieces) {
    piece = piece.trim();
    if (piece.empty())
      continue;
    int64_t dim;
    if (piece.getAsInteger(10, dim) || dim < 0)
      return npyError(path, "malformed shape '" + *shapeText + "'");
    shape.push_back(dim);
  }
  // The size is checked against the data before anything is allocated.
  llvm::Expected<int64_t> needed = npyByteSize(dtype, shape);
  if (!needed)
    return npyError(path, llvm::toString(needed.takeError()));
  size_t dataStart = headerStart + headerLen;
  if (bytes.size() - dataStart != static_cast<uint64_t>(*needed))
    return npyError(path, "holds " + llvm::Twine(bytes.size() - dataStart) +
                              " data bytes but shape " + *shapeText + " of " +
                              npyDTypeName(dtype) + " needs " +
                              llvm::Twine(*needed));
  llvm::Expected<NpyArray> array = NpyArray::allocate(dtype, shape);
  if (!array)
    return npyError(path, llvm::toString(array.takeError()));
  if (fortranOrder)
    fortranToRowMajor(bytes.data() + dataStart,
                      static_cast<char *>(array->data()), shape,
                      *needed / std::max<int64_t>(array->numElements(), 1));
  else
    std::memcpy(array->data(), bytes.data() + dataStart, *needed);
  return std::move(*array);
}

llvm::Error mlir::dlas::writeNpy(StringRef path, const NpyArray &array) {
  std::string shape = "(";
  for (int64_t d : array.shape())
    shape += std::to_string(d) + ", ";
  if (array.shape().size() > 1)
    shape.resize(shape.size() - 2);
  else if (array.shape().size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + npyDescr(array.dtype()).str() +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that magic + length + header + '\n' is 64-aligned.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError(path, "cannot write: " + ec.message());
  os << "\x93NUMPY" << char(1) << char(0);
  os << char(header.size() & 0xff) << char((header.size() >> 8) & 0xff);
  os << header;
  os.write(static_cast<const char *>(array.data()), array.byteSize());
  return llvm::Error::success();
}
