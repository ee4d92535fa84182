//===- ONNXImporter.cpp - ONNX models to the nn dialect -------------------===//
//
// Reads a ModelProto with ONNX's own protobuf classes, runs ONNX shape
// inference (its shapes cross-check the types that nn ops infer), and walks
// the graph in order: initializers and Constant nodes become import-time
// constants (folded through shape arithmetic, materialized as
// dense_resource blobs when an op consumes them), every other node goes
// through the handler table in OpImporters.cpp.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Support/ConstantData.h"
#include "DLAS/Support/EntryAttrs.h"
#include "ImporterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SwapByteOrder.h"

#include <onnx/checker.h>
#include <onnx/version_converter/convert.h>
#include <onnx/defs/schema.h>
#include <iterator>
#include <limits>
#include <onnx/defs/tensor_proto_util.h>
#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <fstream>

using namespace mlir;
using namespace mlir::dlas;
using namespace mlir::dlas::onnximport;

static constexpr int64_t kMinOpset = 11;
static constexpr int64_t kMaxOpset = 17;
/// Newer opsets DLAS rewrites into opset 17 itself (NewerOpsets.cpp).
static constexpr int64_t kMaxAdaptedOpset = 22;

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

HostTensor HostTensor::ofInts(ArrayRef<int64_t> shape,
                              std::vector<int64_t> values) {
  HostTensor t;
  t.dtype = onnx::TensorProto::INT64;
  t.shape.assign(shape.begin(), shape.end());
  t.ints = std::move(values);
  return t;
}

HostTensor HostTensor::ofFloats(ArrayRef<int64_t> shape,
                                std::vector<double> values) {
  HostTensor t;
  t.dtype = onnx::TensorProto::FLOAT;
  t.shape.assign(shape.begin(), shape.end());
  t.floats = std::move(values);
  return t;
}

void HostTensor::decode() {
  if (!rawF32)
    return;
  int64_t n = numElements();
  floats.resize(n);
  const char *bytes = rawF32->data();
  for (int64_t i = 0; i < n; ++i) {
    float value;
    std::memcpy(&value, bytes + i * sizeof(float), sizeof(float));
    floats[i] = value;
  }
  rawF32.reset();
}

/// FLOAT initializers from this many elements on stay as their bytes
/// until read as constants; smaller ones (shapes, scales, the constants
/// that fold) are decoded at once.
static constexpr int64_t kUndecodedFloatElements = 1 << 14;

/// Bytes per element of ONNX data type `type` for raw data; 0 for types
/// whose size this check does not know (others refuse them).
static int64_t rawElementBytes(int32_t type) {
  switch (type) {
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return 1;
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return 2;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  default:
    return 0;
  }
}

/// Why `tensor`'s raw data does not hold exactly its shape's elements
/// (empty when it does, or has none): libonnx's shape inference parses
/// constant inputs (Pad's pads, Reshape's shape) itself and copies all of
/// raw_data into room for the whole elements it holds, so 63 bytes of
/// INT64 wrote past a 56-byte vector (found by dlas-fuzz-onnx).
static std::string rawDataMismatch(const onnx::TensorProto &tensor) {
  int64_t elementBytes = rawElementBytes(tensor.data_type());
  if (!tensor.has_raw_data() || elementBytes == 0 ||
      tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return "";
  uint64_t elements = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0 || (dim > 0 && elements > (UINT64_MAX / 8) / dim))
      return "tensor '" + tensor.name() + "' has an invalid shape";
    elements *= static_cast<uint64_t>(dim);
  }
  uint64_t needed = elements * static_cast<uint64_t>(elementBytes);
  if (tensor.raw_data().size() == needed)
    return "";
  return "tensor '" + tensor.name() + "' has " +
         std::to_string(tensor.raw_data().size()) +
         " bytes of raw data; its shape needs " + std::to_string(needed);
}

FailureOr<HostTensor>
onnximport::takeHostTensorFromProto(onnx::TensorProto &tensor,
                                    std::string &error) {
  if (!llvm::sys::IsLittleEndianHost ||
      tensor.data_type() != onnx::TensorProto::FLOAT ||
      tensor.data_location() == onnx::TensorProto::EXTERNAL ||
      !tensor.has_raw_data())
    return hostTensorFromProto(tensor, error);
  HostTensor t;
  t.dtype = onnx::TensorProto::FLOAT;
  t.shape.assign(tensor.dims().begin(), tensor.dims().end());
  int64_t count = t.numElements();
  // Small or malformed ones take the checked, decoding path.
  if (count < kUndecodedFloatElements ||
      tensor.raw_data().size() != (size_t)count * sizeof(float))
    return hostTensorFromProto(tensor, error);
  auto bytes = std::make_shared<std::string>();
  bytes->swap(*tensor.mutable_raw_data());
  t.rawF32 = std::move(bytes);
  return t;
}

FailureOr<HostTensor>
onnximport::hostTensorFromProto(const onnx::TensorProto &tensor,
                                std::string &error) {
  HostTensor t;
  t.shape.assign(tensor.dims().begin(), tensor.dims().end());
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "tensor '" + tensor.name() +
            "' keeps its data in an external file, which is not supported";
    return failure();
  }
  size_t count = t.numElements();
  // `t` if it holds as many elements as its shape needs.
  auto checked = [&](size_t have) -> FailureOr<HostTensor> {
    if (have == count)
      return t;
    error = "tensor '" + tensor.name() + "' holds " + std::to_string(have) +
            " elements but its shape needs " + std::to_string(count);
    return failure();
  };
  // libonnx's ParseData copies all of raw_data: a partial element wrote
  // past an empty vector (found by dlas-fuzz-onnx).
  if (std::string why = rawDataMismatch(tensor); !why.empty()) {
    error = why;
    return failure();
  }
  try {
    // ONNX's ParseData reads raw_data or the typed field, whichever is set.
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT: {
      t.dtype = onnx::TensorProto::FLOAT;
      std::vector<float> f = onnx::ParseData<float>(&tensor);
      t.floats.assign(f.begin(), f.end());
      return checked(t.floats.size());
    }
    case onnx::TensorProto::DOUBLE: {
      t.dtype = onnx::TensorProto::DOUBLE;
      t.floats = onnx::ParseData<double>(&tensor);
      return checked(t.floats.size());
    }
    case onnx::TensorProto::INT64:
      t.dtype = onnx::TensorProto::INT64;
      t.ints = onnx::ParseData<int64_t>(&tensor);
      return checked(t.ints.size());
    case onnx::TensorProto::INT32: {
      t.dtype = onnx::TensorProto::INT32;
      std::vector<int32_t> v = onnx::ParseData<int32_t>(&tensor);
      t.ints.assign(v.begin(), v.end());
      return checked(t.ints.size());
    }
    default:
      break;
    }
  } catch (const std::exception &e) {
    error = "tensor '" + tensor.name() + "': " + e.what();
    return failure();
  }
  // One- and two-byte types (no ParseData): raw little-endian bytes or
  // the int32 field.
  int32_t type = tensor.data_type();
  int64_t width;
  bool isSigned;
  switch (type) {
  case onnx::TensorProto::INT8:
    width = 1, isSigned = true;
    break;
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    width = 1, isSigned = false;
    break;
  case onnx::TensorProto::INT16:
    width = 2, isSigned = true;
    break;
  case onnx::TensorProto::UINT16:
    width = 2, isSigned = false;
    break;
  default:
    error = "tensor '" + tensor.name() + "' has ONNX data type " +
            std::to_string(type) +
            ", which is not supported (FLOAT, DOUBLE, BOOL and integer types "
            "are)";
    return failure();
  }
  t.dtype = type;
  const std::string &raw = tensor.raw_data();
  if (raw.size() % width != 0) {
    error = "tensor '" + tensor.name() + "' has " + std::to_string(raw.size()) +
            " bytes of raw data, not a whole number of " +
            std::to_string(width) + "-byte elements";
    return failure();
  }
  if (raw.empty()) {
    t.ints.assign(tensor.int32_data().begin(), tensor.int32_data().end());
  } else {
    for (size_t i = 0; i < raw.size(); i += width) {
      uint64_t bits = (uint8_t)raw[i];
      if (width == 2)
        bits |= (uint64_t)(uint8_t)raw[i + 1] << 8;
      int64_t value = (int64_t)bits;
      if (isSigned && (bits >> (8 * width - 1)))
        value -= (int64_t)1 << (8 * width);
      t.ints.push_back(type == onnx::TensorProto::BOOL ? value != 0 : value);
    }
  }
  return checked(t.ints.size());
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

namespace mlir::dlas::onnximport {

/// A value is read if a node or the graph's outputs name it.
static bool isRead(const onnx::GraphProto &graph, const std::string &name) {
  if (llvm::any_of(graph.output(),
                   [&](const auto &o) { return o.name() == name; }))
    return true;
  for (const auto &node : graph.node())
    if (llvm::is_contained(node.input(), name))
      return true;
  return false;
}

class GraphImporter {
public:
  GraphImporter(MLIRContext *context, onnx::ModelProto &model, StringRef path,
                const ONNXImportOptions &options)
      : context(context), model(model), path(path.str()), options(options),
        builder(context) {}

  OwningOpRef<ModuleOp> run();
  LogicalResult convertOpset(Location loc);

  struct Entry {
    Value value;
    std::optional<HostTensor> constant;
    std::optional<SymbolicInts> symbolic;
    /// A UINT8 tensor held as i8 less 128 (QuantizedOps.cpp).
    bool offsetU8 = false;
  };

  Entry *lookup(StringRef name) {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
  void define(StringRef name, Entry entry) { values[name] = std::move(entry); }
  Value materialize(StringRef name, Entry &entry);
  /// The bytes of a UINT8 tensor as its i8-less-128 form, or back: both
  /// are a wrapping add of -128 (an xor of the top bit).
  Value flipU8Offset(Value value, Location loc);
  Location fileLoc() { return FileLineColLoc::get(context, path, 0, 0); }

  LogicalResult error(Location loc, const Twine &message) {
    emitError(loc) << message;
    return failure();
  }

  MLIRContext *context;
  onnx::ModelProto &model;
  std::string path;
  const ONNXImportOptions &options;
  OpBuilder builder;
  int64_t opset = 0;
  /// The model's own opset where DLAS adapted a newer one to `opset`.
  int64_t adaptedFrom = 0;
  /// The opset diagnostics name: the model's.
  int64_t shownOpset() const { return adaptedFrom ? adaptedFrom : opset; }
  llvm::StringMap<Entry> values;
  /// ONNX's inferred type for every value it could infer.
  llvm::StringMap<const onnx::TypeProto *> onnxTypes;

private:
  FailureOr<Type> tensorTypeFromProto(const onnx::TypeProto &type,
                                      StringRef valueName);
  FailureOr<Type> withInputShape(const onnx::TypeProto &proto,
                                 RankedTensorType type, StringRef name,
                                 ArrayRef<int64_t> shape);
  LogicalResult importNode(const onnx::NodeProto &node);
  LogicalResult checkOffsetU8Inputs(const onnx::NodeProto &node, Location loc,
                                    StringRef nodeName, bool &anyOffsetU8);
  LogicalResult checkAgainstONNX(const onnx::NodeProto &node, Location loc);
  LogicalResult checkSchema(const onnx::NodeProto &node, Location loc,
                            StringRef nodeName);
  Location nodeLoc(StringRef nodeName);
  FailureOr<const OpSupport *> supportFor(const onnx::NodeProto &node);
  LogicalResult checkOpsSupported();
  LogicalResult checkWindowNodes(Location loc);
  LogicalResult checkEinsumEquations(Location loc);
};

} // namespace mlir::dlas::onnximport

Type onnximport::elementTypeFromONNX(MLIRContext *ctx, int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  case onnx::TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  default:
    return {};
  }
}

std::string onnximport::onnxTypeName(int32_t dtype) {
  if (onnx::TensorProto::DataType_IsValid(dtype))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dtype));
  return std::to_string(dtype);
}

int32_t onnximport::onnxTypeOf(Type type) {
  if (type.isF64())
    return onnx::TensorProto::DOUBLE;
  if (type.isF16())
    return onnx::TensorProto::FLOAT16;
  if (type.isBF16())
    return onnx::TensorProto::BFLOAT16;
  if (type.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (type.isInteger(8))
    return onnx::TensorProto::INT8;
  if (type.isInteger(16))
    return onnx::TensorProto::INT16;
  if (type.isInteger(32))
    return onnx::TensorProto::INT32;
  if (type.isInteger(64))
    return onnx::TensorProto::INT64;
  return onnx::TensorProto::FLOAT;
}

FailureOr<Type> GraphImporter::tensorTypeFromProto(const onnx::TypeProto &type,
                                                   StringRef valueName) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) {
    (void)error(fileLoc(), "graph value '" + valueName +
                         "' is not a tensor with a known rank");
    return failure();
  }
  Type element = elementTypeFromONNX(context, type.tensor_type().elem_type());
  if (!element) {
    int32_t dtype = type.tensor_type().elem_type();
    (void)error(fileLoc(), "graph value '" + valueName +
                               "' has ONNX element type " +
                               onnxTypeName(dtype) +
                               ", which is not supported (FLOAT, DOUBLE, "
                               "FLOAT16, BFLOAT16, BOOL, INT8, INT16, INT32 "
                               "and INT64 are)");
    return failure();
  }
  SmallVector<int64_t> shape;
  for (const auto &dim : type.tensor_type().shape().dim()) {
    if (dim.has_dim_value())
      shape.push_back(dim.dim_value());
    else
      shape.push_back(options.symbolicDimSize > 0 ? options.symbolicDimSize
                                                   : ShapedType::kDynamic);
  }
  return Type(RankedTensorType::get(shape, element));
}

/// `type` of graph input `name` (declared as `proto`) with its symbolic
/// dimensions taken from `shape`; an error where the rank or a fixed size
/// differs.
FailureOr<Type> GraphImporter::withInputShape(const onnx::TypeProto &proto,
                                              RankedTensorType type,
                                              StringRef name,
                                              ArrayRef<int64_t> shape) {
  auto shapeText = [](ArrayRef<int64_t> dims) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(dims, os, "x");
    return text;
  };
  // Why `shape` does not fit the declared dims ("" if it does).
  const auto &dims = proto.tensor_type().shape().dim();
  std::string misfit;
  if (dims.size() != static_cast<int>(shape.size()))
    misfit = "graph input '" + name.str() + "' has rank " +
             std::to_string(dims.size()) + ", but the shape given for it, " +
             shapeText(shape) + ", has rank " + std::to_string(shape.size());
  for (int i = 0; misfit.empty() && i < dims.size(); ++i) {
    if (shape[i] < 0)
      misfit = "the shape given for graph input '" + name.str() +
               "' has a negative size: " + shapeText(shape);
    else if (dims[i].has_dim_value() && dims[i].dim_value() != shape[i])
      misfit = "graph input '" + name.str() + "' has size " +
               std::to_string(dims[i].dim_value()) + " in dimension " +
               std::to_string(i) + ", but the shape given for it is " +
               shapeText(shape);
  }
  if (!misfit.empty()) {
    if (!options.inputShapesMustFit)
      return Type(type);
    (void)error(fileLoc(), misfit);
    return failure();
  }
  return Type(RankedTensorType::get(shape, type.getElementType()));
}

/// Blob names must be valid MLIR identifiers for the printed form.
static std::string blobName(StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "w_" + out;
  return out;
}

/// Element `i` of `t` as an APFloat of `type`'s semantics.
static APFloat apFloatAt(const HostTensor &t, int64_t i, FloatType type) {
  APFloat value(t.at(i));
  bool lost;
  value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return value;
}

/// `t` as an attribute of `type`: dense elements when small (readable in
/// the IR) or boolean, a resource blob otherwise.
static Attribute constantAttr(const HostTensor &t, RankedTensorType type,
                              StringRef blobName) {
  Type element = type.getElementType();
  int64_t n = t.numElements();
  // i1 stays dense: its dense form is bit-packed, a blob's would not be.
  if (element.isInteger(1)) {
    SmallVector<bool> bits;
    for (int64_t i = 0; i < n; ++i)
      bits.push_back(t.at(i) != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  if (n <= 16) {
    if (auto floatType = dyn_cast<FloatType>(element)) {
      SmallVector<APFloat> values;
      for (int64_t i = 0; i < n; ++i)
        values.push_back(apFloatAt(t, i, floatType));
      return DenseElementsAttr::get(type, values);
    }
    SmallVector<APInt> values;
    unsigned width = element.getIntOrFloatBitWidth();
    for (int64_t i = 0; i < n; ++i)
      values.push_back(APInt(width, (uint64_t)t.ints[i], /*isSigned=*/true,
                             /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, values);
  }
  // Undecoded f32 bytes become the blob as they are: the blob keeps them
  // alive (no copy of the largest part of a model).
  if (t.rawF32 && element.isF32() &&
      reinterpret_cast<uintptr_t>(t.rawF32->data()) % alignof(float) == 0) {
    std::shared_ptr<const std::string> raw = t.rawF32;
    AsmResourceBlob blob(
        ArrayRef<char>(raw->data(), raw->size()), alignof(float),
        [raw](void *, size_t, size_t) {}, /*dataIsMutable=*/false);
    return DenseResourceElementsAttr::get(type, blobName, std::move(blob));
  }
  // Written straight into the blob in the element type (weights are most
  // of a model's bytes: no per-element APFloat for f32 and f64, no copy).
  unsigned bytes = element.getIntOrFloatBitWidth() / 8;
  AsmResourceBlob blob = allocateConstantBlob(n * bytes, bytes);
  char *data = blob.getMutableData().data();
  if (element.isF32()) {
    float *out = reinterpret_cast<float *>(data);
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(t.at(i));
  } else if (element.isF64() && !t.rawF32) {
    std::memcpy(data, t.floats.data(), n * sizeof(double));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      uint64_t bits =
          isa<FloatType>(element)
              ? apFloatAt(t, i, cast<FloatType>(element))
                    .bitcastToAPInt()
                    .getZExtValue()
              : (uint64_t)t.ints[i];
      std::memcpy(data + i * bytes, &bits, bytes);
    }
  }
  return DenseResourceElementsAttr::get(type, blobName, std::move(blob));
}

Value GraphImporter::flipU8Offset(Value value, Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  // A one-element constant of the same rank: nn.add broadcasts it.
  auto splatType = RankedTensorType::get(
      SmallVector<int64_t>(type.getRank(), 1), builder.getI8Type());
  Value offset = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(splatType, builder.getI8IntegerAttr(-128)));
  return nn::AddOp::create(builder, loc, type, value, offset).getResult();
}

Value GraphImporter::materialize(StringRef name, Entry &entry) {
  if (entry.value)
    return entry.value;
  if (entry.symbolic) {
    // Where it is first read as a tensor: its run-time elements are
    // defined by then.
    const SymbolicInts &s = *entry.symbolic;
    Location loc = NameLoc::get(builder.getStringAttr(name), fileLoc());
    Type element = elementTypeFromONNX(context, s.dtype);
    SmallVector<Value> elements;
    for (OpFoldResult e : s.elements) {
      if (auto attr = dyn_cast<Attribute>(e)) {
        elements.push_back(arith::ConstantOp::create(
            builder, loc,
            builder.getIntegerAttr(element,
                                   cast<IntegerAttr>(attr).getInt())));
        continue;
      }
      elements.push_back(arith::IndexCastOp::create(builder, loc, element,
                                                    cast<Value>(e)));
    }
    entry.value = tensor::FromElementsOp::create(
        builder, loc, RankedTensorType::get(s.shape, element), elements);
    return entry.value;
  }
  const HostTensor &t = *entry.constant;
  OpBuilder::InsertionGuard guard(builder);
  // Constants go at the top of the entry block so that every use sees them.
  Block *block = builder.getInsertionBlock();
  builder.setInsertionPointToStart(block);
  Location loc = NameLoc::get(builder.getStringAttr(name), fileLoc());
  // The constant keeps its ONNX element type; those DLAS does not compute
  // in (unsigned integers) are held as i64 (they only feed import-time
  // folds and casts).
  Type element = elementTypeFromONNX(context, t.dtype);
  if (!element)
    element = t.isFloat() ? Type(builder.getF32Type())
                          : Type(builder.getI64Type());
  auto type = RankedTensorType::get(t.shape, element);
  Attribute value = constantAttr(t, type, blobName(name));
  entry.value =
      arith::ConstantOp::create(builder, loc, cast<TypedAttr>(value)).getResult();
  return entry.value;
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// Compares the type an nn op inferred with the one ONNX shape inference
/// found; a disagreement means one of the two misreads the node.
/// The ranks the graph states for its inputs, initializers and value
/// infos, by name.
static llvm::StringMap<int> statedRanks(const onnx::GraphProto &graph) {
  llvm::StringMap<int> ranks;
  auto addInfo = [&](const onnx::ValueInfoProto &info) {
    if (info.type().has_tensor_type() &&
        info.type().tensor_type().has_shape())
      ranks[info.name()] = info.type().tensor_type().shape().dim_size();
  };
  for (const auto &info : graph.input())
    addInfo(info);
  for (const auto &info : graph.value_info())
    addInfo(info);
  for (const auto &tensor : graph.initializer())
    ranks[tensor.name()] = tensor.dims_size();
  return ranks;
}

/// libonnx's Einsum shape inference counts the letters of an equation
/// without '->' in a 26-entry stack array indexed by letter - 'a': any
/// other character wrote outside it (an upper-case letter; found by
/// dlas-fuzz-onnx). Such equations are refused before it runs.
LogicalResult GraphImporter::checkEinsumEquations(Location loc) {
  for (const onnx::NodeProto &node : model.graph().node()) {
    if (node.op_type() != "Einsum")
      continue;
    for (const onnx::AttributeProto &attribute : node.attribute()) {
      if (attribute.name() != "equation")
        continue;
      StringRef equation = attribute.s();
      if (equation.contains("->"))
        continue;
      for (char c : equation)
        if (c != ',' && c != '.' && c != ' ' && (c < 'a' || c > 'z'))
          return error(loc, "Einsum node '" + node.name() +
                                "': an equation without '->' may only use "
                                "letters a-z (libonnx's shape inference "
                                "cannot take '" +
                                Twine(c) + "'); write the output explicitly");
    }
  }
  return success();
}

/// The largest stride, dilation, kernel size, pad or output size that a
/// windowed node may state.
static constexpr int64_t kMaxWindowAttr = int64_t(1) << 30;

/// The index of the weight input of a convolution-like op, or -1 for
/// pooling and the other ops.
static int windowWeightIndex(StringRef op) {
  if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger")
    return 1;
  if (op == "QLinearConv")
    return 3;
  return -1;
}

/// libonnx's shape inference trusts what it reads of windowed ops: it
/// indexes the weight and kernel by the input's rank (a 3-D input with a
/// 4-D weight crashed it), divides by the strides (a zero stride stopped
/// it with SIGFPE) and by DepthToSpace's squared block size (which
/// overflowed to zero); all found by dlas-fuzz-onnx. These are checked
/// before it runs: ranks where the graph states them, and the attributes.
LogicalResult GraphImporter::checkWindowNodes(Location loc) {
  llvm::StringMap<int> ranks = statedRanks(model.graph());
  auto rankOf = [&](const onnx::NodeProto &node, int i) -> std::optional<int> {
    if (i < 0 || i >= node.input_size())
      return std::nullopt;
    auto it = ranks.find(node.input(i));
    return it == ranks.end() ? std::nullopt : std::optional<int>(it->second);
  };
  for (const onnx::NodeProto &node : model.graph().node()) {
    StringRef op = node.op_type();
    std::string name = node.name().empty() ? "<unnamed>" : node.name();
    auto where = [&] { return "node '" + name + "' (" + op.str() + ")"; };
    if (op == "DepthToSpace" || op == "SpaceToDepth") {
      for (const onnx::AttributeProto &a : node.attribute())
        if (a.name() == "blocksize" && (a.i() < 1 || a.i() > (1 << 20)))
          return error(loc, where() + " has blocksize " + Twine(a.i()) +
                                "; it must be 1 to 2^20");
      continue;
    }
    int weight = windowWeightIndex(op);
    bool pool = op == "MaxPool" || op == "AveragePool" ||
                op == "GlobalAveragePool" || op == "GlobalMaxPool";
    if (weight < 0 && !pool)
      continue;
    // The bounds keep the importer's size arithmetic (output sizes, SAME
    // pads) far from int64 overflow; real models stay orders below them.
    for (const onnx::AttributeProto &a : node.attribute()) {
      bool positive = a.name() == "strides" || a.name() == "dilations" ||
                      a.name() == "kernel_shape";
      bool nonNegative = a.name() == "pads" || a.name() == "output_padding" ||
                         a.name() == "output_shape";
      if (!positive && !nonNegative)
        continue;
      for (int64_t v : a.ints())
        if (v < (positive ? 1 : 0) || v > kMaxWindowAttr)
          return error(loc, where() + " has " + a.name() + " " + Twine(v) +
                                "; they must be " + (positive ? "1" : "0") +
                                " to 2^30");
    }
    std::optional<int> x = rankOf(node, 0);
    if (x && *x < 3)
      return error(loc, where() + " has an input of rank " + Twine(*x) +
                            "; it needs N, C and spatial dims");
    std::optional<int> w = rankOf(node, weight);
    if (x && w && *x != *w)
      return error(loc, where() + ": input rank " + Twine(*x) +
                            " and weight rank " + Twine(*w) + " differ");
  }
  return success();
}

/// The ONNX attribute type's name, for diagnostics.
static StringRef attributeTypeName(onnx::AttributeProto::AttributeType type) {
  return onnx::AttributeProto::AttributeType_Name(type);
}

/// Checks `node` against ONNX's own schema for its op at the model's opset
/// before any handler reads it: the input and output counts, and every
/// attribute's name and type. A handler then reads attributes knowing their
/// type (an int `axis` given as a string would read as 0 otherwise).
LogicalResult GraphImporter::checkSchema(const onnx::NodeProto &node,
                                         Location loc, StringRef nodeName) {
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), opset, node.domain());
  auto where = [&]() {
    return "node '" + nodeName.str() + "' (" + node.op_type() + ", opset " +
           std::to_string(shownOpset()) + ")";
  };
  if (!schema)
    return error(loc, where() + ": ONNX has no schema for this op at this "
                                "opset");
  int inputs = node.input_size(), outputs = node.output_size();
  if (inputs < schema->min_input() || inputs > schema->max_input())
    return error(loc, where() + " has " + Twine(inputs) +
                          " inputs; ONNX allows " +
                          Twine(schema->min_input()) + " to " +
                          Twine(schema->max_input()));
  if (outputs < schema->min_output() || outputs > schema->max_output())
    return error(loc, where() + " has " + Twine(outputs) +
                          " outputs; ONNX allows " +
                          Twine(schema->min_output()) + " to " +
                          Twine(schema->max_output()));
  const auto &allowed = schema->attributes();
  for (const onnx::AttributeProto &attribute : node.attribute()) {
    auto it = allowed.find(attribute.name());
    if (it == allowed.end())
      return error(loc, where() + " has attribute '" + attribute.name() +
                            "', which ONNX does not define for this op");
    // A model may leave the type unset (old exporters): then the field
    // that holds the value decides, as ONNX's checker does.
    if (attribute.has_type() && attribute.type() != it->second.type)
      return error(loc, where() + ": attribute '" + attribute.name() +
                            "' is " + attributeTypeName(attribute.type()) +
                            ", ONNX expects " +
                            attributeTypeName(it->second.type));
  }
  return success();
}

LogicalResult GraphImporter::checkAgainstONNX(const onnx::NodeProto &node,
                                              Location loc) {
  for (const std::string &output : node.output()) {
    Entry *entry = lookup(output);
    auto it = onnxTypes.find(output);
    if (!entry || !entry->value || it == onnxTypes.end())
      continue;
    const onnx::TypeProto &expected = *it->second;
    if (!expected.has_tensor_type() || !expected.tensor_type().has_shape())
      continue;
    auto actual = cast<RankedTensorType>(entry->value.getType());
    const auto &dims = expected.tensor_type().shape().dim();
    bool same = dims.size() == actual.getRank();
    for (int i = 0; same && i < dims.size(); ++i)
      if (dims[i].has_dim_value() && !actual.isDynamicDim(i) &&
          dims[i].dim_value() != actual.getDimSize(i))
        same = false;
    if (!same) {
      std::string onnxShape;
      for (const auto &d : dims)
        onnxShape += (onnxShape.empty() ? "" : "x") +
                     (d.has_dim_value() ? std::to_string(d.dim_value()) : "?");
      return error(loc, "node '" + node.name() + "' (" + node.op_type() +
                            "): output '" + output + "' has shape " +
                            onnxShape + " by ONNX shape inference but the nn "
                            "op infers " + typeString(actual));
    }
  }
  return success();
}

/// ONNX ops that read and write UINT8 tensors by their zero points.
static bool isQuantizationOp(StringRef opType) {
  return llvm::is_contained({"QuantizeLinear", "DequantizeLinear",
                             "QLinearConv", "QLinearMatMul", "ConvInteger",
                             "MatMulInteger"},
                            opType);
}

/// A Cast to UINT8.
static bool isCastToU8(const onnx::NodeProto &node) {
  if (node.op_type() != "Cast")
    return false;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "to")
      return a.i() == onnx::TensorProto::UINT8;
  return false;
}

/// Ops that move or select elements without arithmetic: a UINT8 tensor
/// held as i8 less 128 passes through them as it is (max pooling too: the
/// offset keeps order, and its padding never wins).
static bool movesElementsUnchanged(StringRef opType) {
  return llvm::is_contained({"Identity", "Reshape", "Flatten", "Transpose",
                             "Squeeze", "Unsqueeze", "MaxPool", "Concat",
                             "Slice"},
                            opType);
}

/// The name diagnostics give `node`: its own, or its op and first output.
static std::string diagnosticNodeName(const onnx::NodeProto &node) {
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "(" + (node.output_size() ? node.output(0) : "") +
         ")";
}

Location GraphImporter::nodeLoc(StringRef nodeName) {
  return NameLoc::get(builder.getStringAttr(nodeName), fileLoc());
}

/// `node`'s entry in supportedOps(), or null.
static const OpSupport *findSupport(const onnx::NodeProto &node) {
  ArrayRef<OpSupport> table = supportedOps();
  const OpSupport *support = llvm::find_if(
      table, [&](const OpSupport &s) { return node.op_type() == s.opType; });
  return support == table.end() ? nullptr : support;
}

/// `node`'s entry in supportedOps(); a diagnostic naming the node when it
/// has none.
FailureOr<const OpSupport *>
GraphImporter::supportFor(const onnx::NodeProto &node) {
  std::string nodeName = diagnosticNodeName(node);
  Location loc = nodeLoc(nodeName);
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return error(loc, "unsupported ONNX op '" + node.domain() + "." +
                          node.op_type() + "' (node '" + nodeName +
                          "', opset " + Twine(shownOpset()) +
                          "): only the default domain is supported");
  const OpSupport *support = findSupport(node);
  if (!support)
    return error(loc, "unsupported ONNX op '" + node.op_type() + "' (node '" +
                          nodeName + "', opset " + Twine(shownOpset()) +
                          "); dlas-import --list-supported-ops lists the "
                          "supported ones");
  return support;
}

/// Unsupported ops are refused before libonnx infers shapes: its inference
/// runs for every node, and that of ops DLAS never reads is code DLAS does
/// not check the inputs of (the ops the newer-opset adapter rewrites or
/// refuses by name go on to it).
LogicalResult GraphImporter::checkOpsSupported() {
  for (const onnx::NodeProto &node : model.graph().node()) {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    if (defaultDomain && opset > kMaxOpset &&
        isNewerOpsetOnlyOp(node.op_type()))
      continue;
    if (failed(supportFor(node)))
      return failure();
  }
  return success();
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node) {
  std::string nodeName = diagnosticNodeName(node);
  Location loc = nodeLoc(nodeName);
  FailureOr<const OpSupport *> support = supportFor(node);
  if (failed(support))
    return failure();
  for (int i = 0; i < node.input_size(); ++i)
    if (!node.input(i).empty() && !lookup(node.input(i)))
      return error(loc, "node '" + nodeName + "' (" + node.op_type() +
                            ") reads '" + node.input(i) +
                            "', which is neither a graph input, an "
                            "initializer nor an earlier node's output");
  // (checkSchema ran on every node before shape inference.)
  bool readsOffsetU8 = false;
  if (failed(checkOffsetU8Inputs(node, loc, nodeName, readsOffsetU8)))
    return failure();
  NodeContext ctx(*this, node, builder, loc, opset);
  if (readsOffsetU8 && isCastToU8(node)) {
    // UINT8 to UINT8 (PyTorch's export writes one after every
    // QuantizeLinear): the value as it is.
    Entry *input = lookup(node.input(0));
    define(node.output(0), *input);
    return success();
  }
  FailureOr<bool> symbolic = importShapeArithmetic(ctx);
  if (failed(symbolic))
    return failure();
  if (!*symbolic && failed((*support)->handler(ctx)))
    return failure();
  // Outputs nothing reads (a Dropout's mask) may stay undefined.
  for (const std::string &output : node.output())
    if (!output.empty() && !lookup(output) && isRead(model.graph(), output))
      return error(loc, "internal error: node '" + nodeName +
                            "' left output '" + output + "' undefined");
  // Data movement keeps a UINT8 tensor's representation.
  if (readsOffsetU8 && !isQuantizationOp(node.op_type()))
    for (const std::string &output : node.output())
      if (Entry *entry = output.empty() ? nullptr : lookup(output))
        entry->offsetU8 = true;
  return checkAgainstONNX(node, loc);
}

LogicalResult GraphImporter::checkOffsetU8Inputs(const onnx::NodeProto &node,
                                                 Location loc,
                                                 StringRef nodeName,
                                                 bool &anyOffsetU8) {
  SmallVector<std::string> offset, plain;
  for (const std::string &input : node.input()) {
    Entry *entry = input.empty() ? nullptr : lookup(input);
    if (!entry || !entry->value)
      continue;
    (entry->offsetU8 ? offset : plain).push_back(input);
  }
  anyOffsetU8 = !offset.empty();
  if (offset.empty() || isQuantizationOp(node.op_type()) || isCastToU8(node))
    return success();
  if (!movesElementsUnchanged(node.op_type()))
    return error(loc, "node '" + nodeName + "' (" + node.op_type() +
                          ") reads '" + offset.front() +
                          "', a UINT8 tensor: DLAS imports UINT8 values "
                          "into the quantization ops (QuantizeLinear, "
                          "DequantizeLinear, QLinearConv, QLinearMatMul, "
                          "ConvInteger, MatMulInteger) and the ops that "
                          "move them unchanged (Identity, Reshape, Flatten, "
                          "Transpose, Squeeze, Unsqueeze, MaxPool, Concat, "
                          "Slice, a Cast to UINT8) only");
  if (node.op_type() == "Concat" && !plain.empty())
    return error(loc, "node '" + nodeName + "' (Concat) joins UINT8 '" +
                          offset.front() + "' with '" + plain.front() +
                          "' of another type");
  return success();
}

/// Models of other opsets go through ONNX's own version converter to the
/// nearest supported opset, once their tensors passed the checker.
LogicalResult GraphImporter::convertOpset(Location loc) {
  int64_t target = opset < kMinOpset ? kMinOpset : kMaxOpset;
  // libonnx's converter builds its own IR from the graph and dereferences
  // the producer of every name a node reads: an undefined name crashed it
  // (found by dlas-fuzz-onnx). Names are checked first, and subgraphs
  // (control flow, which DLAS does not import) are refused.
  llvm::StringSet<> defined;
  for (const auto &input : model.graph().input())
    defined.insert(input.name());
  for (const auto &initializer : model.graph().initializer())
    defined.insert(initializer.name());
  for (const onnx::NodeProto &node : model.graph().node()) {
    for (const std::string &input : node.input())
      if (!input.empty() && !defined.contains(input))
        return error(loc, "model '" + path + "' (opset " + Twine(opset) +
                              "): node '" + node.name() + "' (" +
                              node.op_type() + ") reads '" + input +
                              "', which no graph input, initializer or "
                              "earlier node defines");
    for (const onnx::AttributeProto &attribute : node.attribute())
      if (attribute.has_g() || attribute.graphs_size() > 0)
        return error(loc, "model '" + path + "' (opset " + Twine(opset) +
                              "): node '" + node.name() + "' (" +
                              node.op_type() +
                              ") has a subgraph; control flow is not "
                              "supported");
    for (const std::string &output : node.output())
      defined.insert(output);
  }
  for (const auto &output : model.graph().output())
    if (!defined.contains(output.name()))
      return error(loc, "model '" + path + "' (opset " + Twine(opset) +
                            "): graph output '" + output.name() +
                            "' is not defined by any node, input or "
                            "initializer");
  // The converter's adapters trust every node to match its schema (a Slice
  // whose 'axes' was typed FLOAT crashed Slice_9_10; dlas-fuzz-onnx): ONNX's
  // whole-model checker runs first on a model to be converted.
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    std::string message = e.what();
    llvm::replace(message, '\n', ' ');
    return error(loc, "model '" + path + "' uses ONNX opset " + Twine(opset) +
                          ", and ONNX's checker rejects it, so it cannot be "
                          "converted: " +
                          StringRef(message).trim());
  }
  try {
    model = onnx::version_conversion::ConvertVersion(model,
                                                     static_cast<int>(target));
  } catch (const std::exception &e) {
    std::string message = e.what();
    llvm::replace(message, '\n', ' ');
    return error(loc,
                 "model '" + path + "' uses ONNX opset " + Twine(opset) +
                     "; supported opsets are " + Twine(kMinOpset) + " to " +
                     Twine(kMaxAdaptedOpset) +
                     ", and ONNX's version converter cannot convert it to " +
                     Twine(target) + ": " + StringRef(message).trim());
  }
  opset = target;
  return success();
}

/// Erases the size queries (tensor.dim) and index arithmetic that no op
/// ended up reading: node importers compute sizes for the reshapes they
/// might need and then infer or skip some. Backwards, so that a product
/// goes before the queries it reads.
static void eraseDeadSizeArithmetic(Block &body) {
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(body.getOperations())))
    if (isa<tensor::DimOp>(op) ||
        (isa<arith::ArithDialect>(op.getDialect()) &&
         llvm::all_of(op.getResultTypes(), [](Type t) { return t.isIndex(); })))
      if (isOpTriviallyDead(&op))
        op.erase();
}

/// The first raw-data mismatch of the initializers and node attribute
/// tensors of `graph` and its subgraphs.
static std::string firstRawDataMismatch(const onnx::GraphProto &graph) {
  for (const onnx::TensorProto &tensor : graph.initializer())
    if (std::string why = rawDataMismatch(tensor); !why.empty())
      return why;
  for (const onnx::NodeProto &node : graph.node())
    for (const onnx::AttributeProto &attribute : node.attribute()) {
      if (attribute.has_t())
        if (std::string why = rawDataMismatch(attribute.t()); !why.empty())
          return why;
      for (const onnx::TensorProto &tensor : attribute.tensors())
        if (std::string why = rawDataMismatch(tensor); !why.empty())
          return why;
      if (attribute.has_g())
        if (std::string why = firstRawDataMismatch(attribute.g()); !why.empty())
          return why;
      for (const onnx::GraphProto &subgraph : attribute.graphs())
        if (std::string why = firstRawDataMismatch(subgraph); !why.empty())
          return why;
    }
  return "";
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  Location loc = fileLoc();
  if (std::string why = firstRawDataMismatch(model.graph()); !why.empty()) {
    (void)error(loc, "cannot import '" + path + "': " + why);
    return nullptr;
  }
  for (const auto &import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      opset = import.version();
  // ONNX's checker on every tensor first: shape inference trusts them (an
  // initializer without a data type made it dereference null; found by
  // dlas-fuzz-onnx). The whole-model checker is stricter than exporters
  // (outputs without shapes), so only tensors are checked here.
  try {
    onnx::checker::CheckerContext checker;
    checker.set_ir_version(static_cast<int>(model.ir_version()));
    std::unordered_map<std::string, int> opsets;
    for (const auto &import : model.opset_import())
      opsets[import.domain()] = static_cast<int>(import.version());
    checker.set_opset_imports(opsets);
    // External data is refused later, with its own message.
    for (const onnx::TensorProto &tensor : model.graph().initializer())
      if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
        onnx::checker::check_tensor(tensor, checker);
    for (const onnx::NodeProto &node : model.graph().node())
      for (const onnx::AttributeProto &attribute : node.attribute())
        if (attribute.has_t() &&
            attribute.t().data_location() != onnx::TensorProto::EXTERNAL)
          onnx::checker::check_tensor(attribute.t(), checker);
  } catch (const std::exception &e) {
    // One line: the checker's messages span several.
    std::string message = e.what();
    llvm::replace(message, '\n', ' ');
    (void)error(loc, "ONNX's checker rejects a tensor of '" + path + "': " +
                         StringRef(message).trim());
    return nullptr;
  }
  // What libonnx's shape inference would crash on is refused before it
  // runs (checkWindowNodes, checkEinsumEquations).
  if (failed(checkWindowNodes(loc)) || failed(checkEinsumEquations(loc)))
    return nullptr;
  if (opset > kMaxAdaptedOpset) {
    (void)error(loc, "model '" + path + "' uses ONNX opset " + Twine(opset) +
                         "; supported opsets are " + Twine(kMinOpset) + " to " +
                         Twine(kMaxAdaptedOpset));
    return nullptr;
  }
  // Old opsets are converted first: their ops may have other names.
  if (opset < kMinOpset && failed(convertOpset(loc)))
    return nullptr;
  if (failed(checkOpsSupported()))
    return nullptr;
  if (opset > kMaxOpset) {
    std::string message;
    if (failed(adaptNewerOpset(model, opset, message))) {
      (void)error(loc, "cannot import '" + path + "': " + message);
      return nullptr;
    }
    adaptedFrom = opset;
    opset = kMaxOpset;
  }
  // Every node's counts and attributes against its schema first: shape
  // inference trusts them (a Split with no outputs divided by zero in it;
  // found by dlas-fuzz-onnx).
  for (const onnx::NodeProto &node : model.graph().node()) {
    std::string nodeName = diagnosticNodeName(node);
    if (failed(checkSchema(node, nodeLoc(nodeName), nodeName)))
      return nullptr;
  }
  // ONNX's shape inference: its result cross-checks every node's type.
  try {
    onnx::ShapeInferenceOptions inferenceOptions{/*check_type=*/true,
                                                 /*error_mode=*/1};
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       inferenceOptions);
  } catch (const std::exception &e) {
    (void)error(loc, "ONNX shape inference rejects '" + path + "': " + e.what());
    return nullptr;
  }
  const onnx::GraphProto &graph = model.graph();
  for (const auto &info : graph.value_info())
    onnxTypes[info.name()] = &info.type();
  for (const auto &info : graph.output())
    onnxTypes[info.name()] = &info.type();

  // Initializers (large FLOAT ones keep their bytes, moved out of the
  // model, until read as constants).
  llvm::StringSet<> initializerNames;
  for (auto &tensor : *model.mutable_graph()->mutable_initializer()) {
    std::string message;
    FailureOr<HostTensor> host = takeHostTensorFromProto(tensor, message);
    if (failed(host)) {
      (void)error(loc, "initializer: " + message);
      return nullptr;
    }
    define(tensor.name(), Entry{Value(), std::move(*host), std::nullopt});
    initializerNames.insert(tensor.name());
  }
  // Graph inputs (those that are not initializers) become arguments.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<bool> argIsU8;
  for (const auto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue;
    // A UINT8 input arrives as its bytes in an i8 tensor (dlas.unsigned),
    // which the function turns into the i8-less-128 form it computes on.
    bool isU8 =
        input.type().tensor_type().elem_type() == onnx::TensorProto::UINT8;
    onnx::TypeProto proto = input.type();
    if (isU8)
      proto.mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT8);
    FailureOr<Type> type = tensorTypeFromProto(proto, input.name());
    if (failed(type))
      return nullptr;
    if (argTypes.size() < options.inputShapes.size() &&
        !options.inputShapes[argTypes.size()].empty()) {
      type = withInputShape(proto, cast<RankedTensorType>(*type), input.name(),
                            options.inputShapes[argTypes.size()]);
      if (failed(type))
        return nullptr;
    }
    argTypes.push_back(*type);
    argNames.push_back(input.name());
    argIsU8.push_back(isU8);
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  // Result types are known only after the body; start with none.
  auto func = func::FuncOp::create(builder, loc, options.entryName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "dlas.name", builder.getStringAttr(name));
    body->getArgument(i).setLoc(NameLoc::get(builder.getStringAttr(name), loc));
    Entry entry{body->getArgument(i), std::nullopt, std::nullopt};
    if (argIsU8[i]) {
      func.setArgAttr(i, kUnsignedAttrName, builder.getUnitAttr());
      entry.value = flipU8Offset(entry.value, body->getArgument(i).getLoc());
      entry.offsetU8 = true;
    }
    define(name, entry);
  }
  for (const auto &node : graph.node())
    if (failed(importNode(node)))
      return nullptr;

  SmallVector<Value> results;
  for (const auto &output : graph.output()) {
    Entry *entry = lookup(output.name());
    if (!entry) {
      (void)error(loc, "graph output '" + output.name() + "' is never produced");
      return nullptr;
    }
    Value result = materialize(output.name(), *entry);
    // A UINT8 output leaves as its bytes (dlas.unsigned).
    if (entry->offsetU8 && result)
      result = flipU8Offset(result, loc);
    results.push_back(result);
  }
  builder.setInsertionPointToEnd(body);
  func::ReturnOp::create(builder, loc, results);
  eraseDeadSizeArithmetic(*body);
  func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "dlas.name", builder.getStringAttr(output.name()));
    if (Entry *entry = lookup(output.name()); entry && entry->offsetU8)
      func.setResultAttr(i, kUnsignedAttrName, builder.getUnitAttr());
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

bool NodeContext::hasInput(unsigned i) const {
  return (int)i < node.input_size() && !node.input(i).empty();
}

FailureOr<Value> NodeContext::input(unsigned i) {
  if (auto it = inputOverrides.find(i); it != inputOverrides.end())
    return it->second;
  if (!hasInput(i)) {
    (void)fail("needs input #" + Twine(i));
    return failure();
  }
  GraphImporter::Entry *entry = graph.lookup(node.input(i));
  return graph.materialize(node.input(i), *entry);
}

/// Input i's import-time value as it is held (perhaps undecoded).
static HostTensor *heldConstant(const NodeContext &ctx, unsigned i) {
  if (!ctx.hasInput(i) || ctx.inputOverrides.count(i))
    return nullptr;
  GraphImporter::Entry *entry = ctx.graph.lookup(ctx.node.input(i));
  return entry && entry->constant ? &*entry->constant : nullptr;
}

const HostTensor *NodeContext::constant(unsigned i) const {
  HostTensor *t = heldConstant(*this, i);
  if (t)
    t->decode();
  return t;
}

FailureOr<const HostTensor *> NodeContext::requireConstant(unsigned i,
                                                           StringRef what) {
  if (const HostTensor *t = constant(i))
    return t;
  (void)fail("input '" + what + "' ('" +
             (hasInput(i) ? node.input(i) : std::string("missing")) +
             "') must be a constant known at import time");
  return failure();
}

bool NodeContext::isSymbolic(unsigned i) const {
  if (!hasInput(i) || inputOverrides.count(i))
    return false;
  GraphImporter::Entry *entry = graph.lookup(node.input(i));
  return entry && entry->symbolic;
}

std::optional<SymbolicInts> NodeContext::symbolic(unsigned i) const {
  if (!hasInput(i) || inputOverrides.count(i))
    return std::nullopt;
  GraphImporter::Entry *entry = graph.lookup(node.input(i));
  if (!entry)
    return std::nullopt;
  if (entry->symbolic)
    return entry->symbolic;
  const HostTensor *t = entry->constant ? &*entry->constant : nullptr;
  if (!t || t->isFloat() || t->shape.size() > 1 || t->numElements() > 64)
    return std::nullopt;
  SymbolicInts s;
  s.dtype = t->dtype;
  s.shape = t->shape;
  for (int64_t v : t->ints)
    s.elements.push_back(b.getI64IntegerAttr(v));
  return s;
}

void NodeContext::setOutputSymbolic(unsigned i, SymbolicInts value) {
  if (!value.isKnown()) {
    graph.define(node.output(i),
                 GraphImporter::Entry{Value(), std::nullopt, std::move(value)});
    return;
  }
  std::vector<int64_t> ints;
  for (OpFoldResult e : value.elements)
    ints.push_back(cast<IntegerAttr>(cast<Attribute>(e)).getInt());
  HostTensor t = HostTensor::ofInts(value.shape, std::move(ints));
  t.dtype = value.dtype;
  setOutputConstant(i, std::move(t));
}

FailureOr<RankedTensorType> NodeContext::inputType(unsigned i) {
  // The type alone: an undecoded weight stays so.
  if (const HostTensor *t = heldConstant(*this, i)) {
    Type element = elementTypeFromONNX(b.getContext(), t->dtype);
    if (!element) // as materialize holds it
      element = t->isFloat() ? Type(b.getF32Type()) : Type(b.getI64Type());
    return RankedTensorType::get(t->shape, element);
  }
  FailureOr<Value> v = input(i);
  if (failed(v))
    return failure();
  return cast<RankedTensorType>(v->getType());
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::intAttr(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : defaultValue;
}

float NodeContext::floatAttr(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : defaultValue;
}

std::string NodeContext::stringAttr(StringRef name,
                                    StringRef defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : defaultValue.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::intsAttr(StringRef name) const {
  if (auto it = intsOverrides.find(name); it != intsOverrides.end())
    return it->second;
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

LogicalResult NodeContext::fail(const Twine &message) const {
  std::string name = node.name().empty() ? "<unnamed>" : node.name();
  return graph.error(loc, "cannot import node '" + name + "' (" +
                              node.op_type() + ", opset " +
                              Twine(graph.shownOpset()) + "): " + message);
}

LogicalResult NodeContext::requireOutputsUnused(unsigned count,
                                                bool quiet) const {
  for (int i = count; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    const std::string &name = node.output(i);
    if (isRead(graph.model.graph(), name))
      return quiet ? failure()
                   : fail("output #" + Twine(i) + " ('" + name +
                          "') is not supported");
  }
  return success();
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (i == 0 && outputTransform) {
    FailureOr<Value> transformed = outputTransform(value);
    if (failed(transformed))
      return; // reported; the node's output stays undefined
    value = *transformed;
  }
  graph.define(node.output(i), GraphImporter::Entry{value, std::nullopt, std::nullopt});
}

bool NodeContext::isOffsetU8(unsigned i) const {
  if (!hasInput(i) || inputOverrides.count(i))
    return false;
  GraphImporter::Entry *entry = graph.lookup(node.input(i));
  if (!entry)
    return false;
  if (entry->constant && !entry->value)
    return entry->constant->dtype == onnx::TensorProto::UINT8;
  return entry->offsetU8;
}

void NodeContext::markOutputOffsetU8(unsigned i) {
  if (GraphImporter::Entry *entry = graph.lookup(node.output(i)))
    entry->offsetU8 = true;
}

void NodeContext::setOutputConstant(unsigned i, HostTensor value) {
  graph.define(node.output(i), GraphImporter::Entry{Value(), std::move(value), std::nullopt});
}

FailureOr<Value>
NodeContext::createInferred(StringRef opName, ValueRange operands,
                            ArrayRef<NamedAttribute> attributes) {
  FailureOr<Operation *> op =
      createInferredOp(opName, operands, attributes, /*numResults=*/1);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

FailureOr<Operation *>
NodeContext::createInferredOp(StringRef opName, ValueRange operands,
                              ArrayRef<NamedAttribute> attributes,
                              unsigned numResults) {
  // Build with placeholder result types, then let the op infer them: a bad
  // combination is reported by the op's own checks instead of aborting.
  OperationState state(loc, opName);
  state.addOperands(operands);
  state.addAttributes(attributes);
  state.addTypes(SmallVector<Type>(numResults, b.getNoneType()));
  Operation *op = b.create(state);
  SmallVector<Type> types;
  auto infer = cast<InferTypeOpInterface>(op);
  if (failed(infer.inferReturnTypes(b.getContext(), loc, op->getOperands(),
                                    op->getRawDictionaryAttrs(),
                                    op->getPropertiesStorage(),
                                    op->getRegions(), types)) ||
      types.size() != numResults) {
    op->erase();
    (void)fail("the " + opName + " it maps to rejects these operands "
               "(see the error above)");
    return failure();
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  return op;
}

Value NodeContext::scalar(float value, Type elementType) {
  if (!elementType)
    elementType = b.getF32Type();
  auto type = RankedTensorType::get({1}, elementType);
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat v(value);
    bool lost;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    attr = DenseElementsAttr::get(type, v);
  } else {
    // Through int64: a negative float converts to unsigned undefined.
    attr = DenseElementsAttr::get(
        type,
        APInt(elementType.getIntOrFloatBitWidth(), (uint64_t)(int64_t)value,
              /*isSigned=*/true, /*implicitTrunc=*/true));
  }
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
}

Value NodeContext::intScalar(int64_t value, Type elementType) {
  if (!elementType)
    elementType = b.getI64Type();
  unsigned width = elementType.getIntOrFloatBitWidth();
  APInt bits(width, (uint64_t)value, /*isSigned=*/width > 1,
             /*implicitTrunc=*/true);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({1}, elementType), bits));
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

/// Reads a tensor's external data (ONNX's format for models over protobuf's
/// 2 GB: 'location' relative to the model's directory, optional 'offset'
/// and 'length') into its raw_data, so that the rest of the importer sees
/// an ordinary tensor. Locations must stay inside the model's directory.
static LogicalResult loadExternalTensor(onnx::TensorProto &tensor,
                                        StringRef modelDir, Location loc) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      int64_t value;
      if (StringRef(entry.value()).getAsInteger(10, value) || value < 0)
        return emitError(loc) << "tensor '" << tensor.name()
                              << "': external data " << key << " '"
                              << entry.value() << "' is not a size";
      (key == "offset" ? offset : length) = value;
    }
  }
  StringRef rel(location);
  if (rel.empty() || llvm::sys::path::is_absolute(rel) ||
      llvm::any_of(llvm::make_range(llvm::sys::path::begin(rel),
                                    llvm::sys::path::end(rel)),
                   [](StringRef part) { return part == ".."; }))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': external data location '" << location
                          << "' must be a relative path inside the model's "
                             "directory";
  SmallString<256> file(modelDir);
  llvm::sys::path::append(file, rel);
  uint64_t size;
  if (std::error_code ec = llvm::sys::fs::file_size(file, size))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': cannot read external data file '" << file
                          << "': " << ec.message();
  if ((uint64_t)offset > size ||
      (length >= 0 && (uint64_t)length > size - offset))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': external data [" << offset << ", +"
                          << length << ") is outside '" << file << "' ("
                          << size << " bytes)";
  uint64_t count = length >= 0 ? (uint64_t)length : size - offset;
  if (count > (uint64_t)std::numeric_limits<int>::max())
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': external data of " << count
                          << " bytes is over 2 GB";
  // Read straight into raw_data (one copy of the largest part of a model).
  auto cannotRead = [&](const Twine &why) {
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': cannot read external data file '" << file
                          << "': " << why;
  };
  llvm::Expected<llvm::sys::fs::file_t> fd =
      llvm::sys::fs::openNativeFileForRead(file);
  if (!fd)
    return cannotRead(llvm::toString(fd.takeError()));
  std::string *raw = tensor.mutable_raw_data();
  raw->resize(count);
  for (uint64_t done = 0; done < count;) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFileSlice(
        *fd, MutableArrayRef<char>(raw->data() + done, count - done),
        offset + done);
    if (!read || *read == 0) {
      llvm::sys::fs::closeFile(*fd);
      return cannotRead(read ? std::string("the file ended early")
                             : llvm::toString(read.takeError()));
    }
    done += *read;
  }
  llvm::sys::fs::closeFile(*fd);
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return success();
}

/// Loads the external data of every initializer and Constant tensor.
static LogicalResult loadExternalData(onnx::ModelProto &model,
                                      StringRef modelPath, Location loc) {
  StringRef dir = llvm::sys::path::parent_path(modelPath);
  auto *graph = model.mutable_graph();
  for (onnx::TensorProto &tensor : *graph->mutable_initializer())
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL &&
        failed(loadExternalTensor(tensor, dir, loc)))
      return failure();
  for (onnx::NodeProto &node : *graph->mutable_node())
    for (onnx::AttributeProto &attribute : *node.mutable_attribute())
      if (attribute.has_t() &&
          attribute.t().data_location() == onnx::TensorProto::EXTERNAL &&
          failed(loadExternalTensor(*attribute.mutable_t(), dir, loc)))
        return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp>
mlir::dlas::importONNXModelFromBytes(StringRef bytes, StringRef name,
                                     MLIRContext *context,
                                     const ONNXImportOptions &options) {
  context->loadDialect<nn::NNDialect, func::FuncDialect, arith::ArithDialect,
                       tensor::TensorDialect>();
  Location loc = FileLineColLoc::get(context, name, 0, 0);
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    emitError(loc) << "'" << name << "' is not a valid ONNX model (protobuf "
                   << "parsing failed)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(loc) << "'" << name << "' has no graph";
    return nullptr;
  }
  if (failed(loadExternalData(model, name, loc)))
    return nullptr;
  GraphImporter importer(context, model, name, options);
  return importer.run();
}

llvm::Expected<std::vector<std::vector<int64_t>>>
mlir::dlas::parseInputShapes(ArrayRef<std::string> texts) {
  std::vector<std::vector<int64_t>> shapes;
  for (StringRef text : texts) {
    std::vector<int64_t> shape;
    SmallVector<StringRef> sizes;
    if (!text.empty())
      text.split(sizes, 'x');
    for (StringRef size : sizes) {
      int64_t value;
      if (size.getAsInteger(10, value) || value < 0)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "--input-shapes: '" + text +
                "' is not a shape (sizes >= 0 joined by 'x')");
      shape.push_back(value);
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

OwningOpRef<ModuleOp> mlir::dlas::importONNXModel(StringRef path,
                                                  MLIRContext *context,
                                                  const ONNXImportOptions &options) {
  // Mapped, not read through a stream: a model's bytes are parsed once.
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot open ONNX model '" << path
        << "': " << file.getError().message();
    return nullptr;
  }
  return importONNXModelFromBytes((*file)->getBuffer(), path, context, options);
}

void mlir::dlas::printSupportedONNXOps(raw_ostream &os) {
  os << "# ONNX operators supported by dlas-import\n\n"
     << "Generated by `dlas-import --list-supported-ops`. Opsets " << kMinOpset
     << " to " << kMaxAdaptedOpset << " (default domain). Models of opsets "
     << kMaxOpset + 1 << " to " << kMaxAdaptedOpset
     << ", newer than Debian's libonnx knows, are rewritten into opset "
     << kMaxOpset
     << " by DLAS first (lib/Target/ONNX/NewerOpsets.cpp): the reductions' "
        "and Pad's axes inputs, Resize's axes, Split's num_outputs, "
        "QuantizeLinear's output_dtype; Mish (18), Gelu (20, both forms: "
        "nn.gelu after canonicalization) and GroupNormalization (18 and 21) "
        "expanded; antialiased or aspect-keeping Resize, 'wrap' Pad, block "
        "quantization and the new bitwise, string and image ops refused. "
        "Models of older opsets are converted to "
     << kMinOpset
     << " by ONNX's own version converter first (opsets 1 to 10 are tested "
        "by ONNX's conformance cases, docs/ONNXConformance.md). Anything "
        "else is rejected with an error naming the op type, the node and "
        "the opset.\n\n"
     << "| ONNX op | imported as | notes |\n|---|---|---|\n";
  for (const OpSupport &s : supportedOps())
    os << "| " << s.opType << " | " << s.mapsTo << " | " << s.notes << " |\n";
}
