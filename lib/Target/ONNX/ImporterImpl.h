//===- ImporterImpl.h - internals of the ONNX importer ----------*- C++ -*-===//
#ifndef DLAS_LIB_TARGET_ONNX_IMPORTERIMPL_H
#define DLAS_LIB_TARGET_ONNX_IMPORTERIMPL_H

#include "DLAS/Dialect/NN/NNDialect.h"
#include "DLAS/Target/ONNX/ONNXImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::dlas::onnximport {

/// a * b for sizes from untrusted models: saturated at INT64_MAX instead of
/// overflowing (found to matter by dlas-fuzz-onnx on shape attributes and
/// on tensor dims).
inline int64_t mulSat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max()
                                          : r;
}

/// The product of `sizes`, saturated at INT64_MAX.
inline int64_t product(ArrayRef<int64_t> sizes) {
  int64_t r = 1;
  for (int64_t s : sizes)
    r = mulSat(r, s);
  return r;
}

/// A constant known at import time: initializers, Constant nodes and the
/// results of folded shape arithmetic. Float data stays f32; integer data of
/// any width is held as int64.
struct HostTensor {
  /// The ONNX element type it stands for; floating types keep their
  /// values in `floats`, integer and boolean ones in `ints`.
  int32_t dtype = onnx::TensorProto::FLOAT;
  SmallVector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  /// The FLOAT data of a large initializer as the file's little-endian
  /// bytes, until a handler reads it as a constant (NodeContext::constant
  /// decodes it into `floats`). Weights that are only ever materialized go
  /// from these bytes into their blob without a copy: decoding every
  /// weight into doubles cost 3x the model's size in memory and most of
  /// the import time of a large model.
  std::shared_ptr<const std::string> rawF32;

  bool isFloat() const { return isFloatDType(dtype); }
  /// Fills `floats` from `rawF32` and drops the bytes.
  void decode();
  static bool isFloatDType(int32_t dtype) {
    return dtype == onnx::TensorProto::FLOAT ||
           dtype == onnx::TensorProto::DOUBLE ||
           dtype == onnx::TensorProto::FLOAT16 ||
           dtype == onnx::TensorProto::BFLOAT16;
  }
  /// The shape's product, saturated at INT64_MAX (a shape from an
  /// untrusted model may overflow; no data matches such a count).
  int64_t numElements() const { return product(shape); }
  /// Appends a floating value rounded to f32 when that is the type, so
  /// that folds compute as the run-time f32 ops would.
  void pushFloat(double v) {
    floats.push_back(dtype == onnx::TensorProto::FLOAT ? (double)(float)v : v);
  }
  double at(int64_t i) const {
    if (rawF32) {
      float value;
      std::memcpy(&value, rawF32->data() + i * sizeof(float), sizeof(float));
      return value;
    }
    return isFloat() ? floats[i] : (double)ints[i];
  }
  static HostTensor ofInts(ArrayRef<int64_t> shape, std::vector<int64_t> values);
  static HostTensor ofFloats(ArrayRef<int64_t> shape, std::vector<double> values);
};

/// A rank-0 or rank-1 integer tensor of shape arithmetic in which some
/// elements are known only at run time: ONNX Shape of a dynamic dimension
/// (a dynamic batch) and what Gather, Concat, Mul, ... compute from it.
/// Known elements are IntegerAttrs; run-time ones are `index` values in the
/// function being built. Keeping them apart lets Reshape and Expand keep
/// every size that is known static and take only the rest at run time.
struct SymbolicInts {
  int32_t dtype = onnx::TensorProto::INT64;
  SmallVector<int64_t> shape; // [] or [n]
  SmallVector<OpFoldResult> elements;

  bool isKnown() const {
    return llvm::all_of(elements,
                        [](OpFoldResult e) { return isa<Attribute>(e); });
  }
};

/// The MLIR element type of an ONNX one, or null for those DLAS does not
/// compute in (unsigned integers, strings, complex numbers, ...).
Type elementTypeFromONNX(MLIRContext *ctx, int32_t dtype);
/// The name of an ONNX element type ("UINT8"), or its number.
std::string onnxTypeName(int32_t dtype);
/// The ONNX element type of an MLIR one (FLOAT for a type it cannot name).
int32_t onnxTypeOf(Type type);

/// Converts a TensorProto; fails with a message for external or unsupported
/// data.
FailureOr<HostTensor> hostTensorFromProto(const onnx::TensorProto &tensor,
                                          std::string &error);
/// The same for an initializer the caller owns: a large FLOAT tensor's raw
/// bytes move out of `tensor` into the result's `rawF32`, undecoded.
FailureOr<HostTensor> takeHostTensorFromProto(onnx::TensorProto &tensor,
                                              std::string &error);

class GraphImporter;

/// What an op handler sees of one node.
class NodeContext {
public:
  NodeContext(GraphImporter &graph, const onnx::NodeProto &node, OpBuilder &b,
              Location loc, int64_t opset)
      : graph(graph), node(node), b(b), loc(loc), opset(opset) {}

  GraphImporter &graph;
  const onnx::NodeProto &node;
  OpBuilder &b;
  Location loc;
  int64_t opset;

  /// Input i is given (present and not the empty name of a skipped optional).
  bool hasInput(unsigned i) const;
  /// Input i as an SSA value (constants are materialized).
  FailureOr<Value> input(unsigned i);
  /// Input i if it is known at import time, else null.
  const HostTensor *constant(unsigned i) const;
  /// Input i, which the handler needs as an import-time constant.
  FailureOr<const HostTensor *> requireConstant(unsigned i, StringRef what);
  /// Input i as shape arithmetic: a symbolic value, or an integer constant
  /// of rank 0 or 1; nullopt for anything else.
  std::optional<SymbolicInts> symbolic(unsigned i) const;
  /// Input i holds elements known only at run time (see SymbolicInts).
  bool isSymbolic(unsigned i) const;
  /// Static type of input i (from the value or the constant).
  FailureOr<RankedTensorType> inputType(unsigned i);

  /// What a handler sees instead of the node's own: an input replaced by
  /// a value, an ints attribute by other values, and a function applied to
  /// the value set as output 0. A wrapper uses them to run a handler on a
  /// rewritten node (1-D convolutions and pools as 2-D ones).
  llvm::DenseMap<unsigned, Value> inputOverrides;
  llvm::StringMap<SmallVector<int64_t>> intsOverrides;
  std::function<FailureOr<Value>(Value)> outputTransform;

  int64_t intAttr(StringRef name, int64_t defaultValue) const;
  float floatAttr(StringRef name, float defaultValue) const;
  std::string stringAttr(StringRef name, StringRef defaultValue) const;
  std::optional<SmallVector<int64_t>> intsAttr(StringRef name) const;
  const onnx::AttributeProto *attr(StringRef name) const;

  /// Reports that this node cannot be imported, naming it.
  LogicalResult fail(const Twine &message) const;
  /// Fails when an output beyond the first `count` is used (reporting it
  /// unless `quiet`).
  LogicalResult requireOutputsUnused(unsigned count, bool quiet = false) const;

  void setOutput(unsigned i, Value value);
  /// Input i is a UINT8 tensor, held as i8 less 128 (QuantizedOps.cpp): a
  /// value so marked, or a UINT8 constant.
  bool isOffsetU8(unsigned i) const;
  /// Marks output i (set) as a UINT8 tensor held as i8 less 128.
  void markOutputOffsetU8(unsigned i);
  void setOutputConstant(unsigned i, HostTensor value);
  /// Sets output i to shape arithmetic; a constant when every element is
  /// known.
  void setOutputSymbolic(unsigned i, SymbolicInts value);

  /// Creates an nn op with its result type inferred by the op itself;
  /// reports (and returns failure) when the op rejects its operands.
  template <typename OpTy>
  FailureOr<Value> create(ValueRange operands,
                          ArrayRef<NamedAttribute> attributes = {}) {
    return createInferred(OpTy::getOperationName(), operands, attributes);
  }
  FailureOr<Value> createInferred(StringRef opName, ValueRange operands,
                                  ArrayRef<NamedAttribute> attributes);
  /// The same for an op of `numResults` results.
  FailureOr<Operation *> createInferredOp(StringRef opName, ValueRange operands,
                                          ArrayRef<NamedAttribute> attributes,
                                          unsigned numResults);

  /// Constant tensor of shape [1] (broadcasts against anything) of
  /// `elementType`, f32 without one.
  Value scalar(float value, Type elementType = {});
  /// The same holding an integer exactly, of integer (or boolean)
  /// `elementType`, i64 without one.
  Value intScalar(int64_t value, Type elementType = {});
};

using OpHandler = LogicalResult (*)(NodeContext &);

/// A Conv node's window attributes (strides, pads in ONNX order,
/// dilations, group) for an input of `inputType` and a weight of shape
/// `weightShape` (OIHW).
struct ConvAttributes {
  SmallVector<int64_t> strides, pads, dilations;
  int64_t groups = 1;
};
FailureOr<ConvAttributes> convAttributes(NodeContext &ctx,
                                         RankedTensorType inputType,
                                         ArrayRef<int64_t> weightShape);
/// nn.conv2d of `x` and `w` (and `bias` when given) with `attrs`.
FailureOr<Value> createConv(NodeContext &ctx, Value x, Value w, Value bias,
                            const ConvAttributes &attrs);

/// ONNX MatMul's handler (numpy ranks), for the quantized matmuls.
LogicalResult importMatMulNode(NodeContext &ctx);

/// The quantization ops (QuantizedOps.cpp).
LogicalResult importQuantizeLinear(NodeContext &ctx);
LogicalResult importDequantizeLinear(NodeContext &ctx);
LogicalResult importQLinearConv(NodeContext &ctx);
LogicalResult importQLinearMatMul(NodeContext &ctx);
LogicalResult importConvInteger(NodeContext &ctx);
LogicalResult importMatMulInteger(NodeContext &ctx);

/// Normalizes a possibly negative axis; fails (naming it) outside
/// [-rank, rank).
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank);

/// `shape` with its dynamic sizes written as -1; fails when more than one
/// is dynamic (nn.reshape infers one size only).
FailureOr<SmallVector<int64_t>> reshapeSizes(NodeContext &ctx,
                                             ArrayRef<int64_t> shape);

/// (x - mean) / sqrt(var + epsilon) over `axes` (kept as size 1).
FailureOr<Value> normalize(NodeContext &ctx, Value x, ArrayRef<int64_t> axes,
                           float epsilon);

/// ONNX ops composed from several nn ops (CompositeOps.cpp).
LogicalResult importCelu(NodeContext &ctx);
LogicalResult importThresholdedRelu(NodeContext &ctx);
LogicalResult importShrink(NodeContext &ctx);
LogicalResult importIsNaN(NodeContext &ctx);
LogicalResult importIsInf(NodeContext &ctx);
LogicalResult importGlobalMaxPool(NodeContext &ctx);
LogicalResult importLRN(NodeContext &ctx);
LogicalResult importMeanVarianceNormalization(NodeContext &ctx);
LogicalResult importTrilu(NodeContext &ctx);
LogicalResult importHardmax(NodeContext &ctx);
LogicalResult importOneHot(NodeContext &ctx);
LogicalResult importEyeLike(NodeContext &ctx);
LogicalResult importGatherND(NodeContext &ctx);

/// Imports the node as shape arithmetic when an input is symbolic and the
/// op is one of those computed on symbolic values (Gather, Concat,
/// Unsqueeze, Add, Mul, Equal, Where, ...); false when it is not, and the
/// node's handler then sees the symbolic inputs as run-time tensors.
FailureOr<bool> importShapeArithmetic(NodeContext &ctx);

struct OpSupport {
  const char *opType;
  OpHandler handler;
  const char *mapsTo;
  const char *notes;
};

/// The table of supported ops, sorted by name.
ArrayRef<OpSupport> supportedOps();

/// Rewrites `model`, whose default-domain opset `opset` is 18 to 22
/// (newer than Debian's libonnx knows), into its opset-17 form
/// (NewerOpsets.cpp); on failure `message` names the node that has none.
LogicalResult adaptNewerOpset(onnx::ModelProto &model, int64_t opset,
                              std::string &message);

/// Whether `opType` is an op of opsets 18-22 that adaptNewerOpset expands
/// or refuses by name (it is not in supportedOps()).
bool isNewerOpsetOnlyOp(StringRef opType);

} // namespace mlir::dlas::onnximport

#endif // DLAS_LIB_TARGET_ONNX_IMPORTERIMPL_H
