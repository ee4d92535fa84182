//===- NewerOpsets.cpp - ONNX opsets 18-22 in their opset-17 form ---------===//
//
// Debian's libonnx (1.12) knows opsets up to 17: its schemas, checker,
// shape inference and version converter stop there, and current exporters
// write opset 18 and later (PyTorch's dynamo exporter, Hugging Face
// Optimum). The changes from 18 to 22 are few for the ops DLAS imports:
// operands that moved from attributes to inputs, new attributes whose
// defaults keep the old meaning, new element types, and a handful of new
// ops that older ones express. This file rewrites such a model's graph into
// opset 17 before anything of libonnx reads it, and refuses, naming the
// node, what has no opset-17 form (antialiased resizing, 'wrap' padding,
// block quantization, the new ops DLAS does not import).
//
// The rewrites, by op (the opset that changed it):
//  - ReduceL1/L2/LogSum/LogSumExp/Max/Mean/Min/Prod/SumSquare (18): the
//    constant 'axes' input becomes the attribute; noop_with_empty_axes
//    with no axes is Identity.
//  - Pad (18, 19): the constant 'axes' input spreads 'pads' over all dims.
//  - Resize (18, 19): 'axes' spreads scales/sizes/roi over all dims;
//    antialias 0 and keep_aspect_ratio_policy 'stretch' are dropped.
//  - Split (18): num_outputs is dropped (the output count says it), with
//    explicit sizes where the parts are uneven.
//  - AveragePool (19): dilations of 1 are dropped.
//  - Cast, QuantizeLinear (19, 21): saturate (float8 only) is dropped;
//    QuantizeLinear's output_dtype becomes a zero point of that type.
//  - Mish (18) -> Softplus, Tanh, Mul; Gelu (20) -> the Erf or Tanh form
//    (nn canonicalization makes it nn.gelu again); GroupNormalization (18,
//    21) -> Reshape, InstanceNormalization, scale and bias, Reshape.
// Every other op of opsets 18-22 that DLAS imports changed only in the
// element types it allows.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <onnx/defs/attr_proto_util.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/tensor_proto_util.h>
#include <onnx/shape_inference/implementation.h>

#include <cmath>

using namespace mlir;
using namespace mlir::dlas::onnximport;

namespace {

/// Ops of opsets 18-22 (new, or changed in meaning) with no opset-17 form
/// here: refused by name before libonnx, which does not know them.
constexpr const char *kRefusedOps[] = {
    "AffineGrid", "BitwiseAnd",    "BitwiseNot",     "BitwiseOr",
    "BitwiseXor", "CenterCropPad", "Col2Im",         "DeformConv",
    "GridSample", "ImageDecoder",  "RegexFullMatch", "StringConcat",
    "StringSplit"};

constexpr const char *kReduceOps[] = {
    "ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
    "ReduceMean", "ReduceMin", "ReduceProd",   "ReduceSumSquare"};

/// Initializers larger than this lend shape inference only their type and
/// dims (shapeOf).
constexpr size_t kInferenceBytes = 4096;

class Adapter {
public:
  Adapter(onnx::ModelProto &model, int64_t opset)
      : model(model), graph(*model.mutable_graph()), opset(opset) {}

  /// Rewrites the graph; on failure `message` says why.
  LogicalResult run(std::string &message);

private:
  onnx::ModelProto &model;
  onnx::GraphProto &graph;
  int64_t opset;
  /// Why the last rewrite failed.
  std::string why;
  /// Constants by name: initializers and Constant nodes' tensors.
  llvm::StringMap<const onnx::TensorProto *> constants;
  /// Names already used in the graph, for new ones.
  llvm::StringSet<> names;
  /// Ranks and static shapes ONNX's shape inference found (after the
  /// rewrites that need none), for those that do.
  llvm::StringMap<std::vector<int64_t>> shapes;
  bool inferred = false;

  LogicalResult fail(const onnx::NodeProto &node, const Twine &reason) {
    why = ("node '" + nodeName(node) + "' (" + node.op_type() + ", opset " +
           Twine(opset) + ") " + reason)
              .str();
    return failure();
  }
  static std::string nodeName(const onnx::NodeProto &node) {
    return node.name().empty() ? "<unnamed>" : node.name();
  }

  std::string freshName(const Twine &base) {
    std::string name = base.str();
    for (int i = 0; names.contains(name); ++i)
      name = (base + "_" + Twine(i)).str();
    names.insert(name);
    return name;
  }

  const onnx::AttributeProto *attribute(const onnx::NodeProto &node,
                                        StringRef name) {
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  int64_t intAttr(const onnx::NodeProto &node, StringRef name,
                  int64_t otherwise) {
    const onnx::AttributeProto *a = attribute(node, name);
    return a ? a->i() : otherwise;
  }
  std::string stringAttr(const onnx::NodeProto &node, StringRef name,
                         StringRef otherwise) {
    const onnx::AttributeProto *a = attribute(node, name);
    return a ? a->s() : otherwise.str();
  }
  static void dropAttribute(onnx::NodeProto &node, StringRef name) {
    auto *attrs = node.mutable_attribute();
    for (int i = attrs->size() - 1; i >= 0; --i)
      if (attrs->Get(i).name() == name)
        attrs->DeleteSubrange(i, 1);
  }
  static void setInts(onnx::NodeProto &node, StringRef name,
                      ArrayRef<int64_t> values) {
    dropAttribute(node, name);
    onnx::AttributeProto *a = node.add_attribute();
    a->set_name(name.str());
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values)
      a->add_ints(v);
  }
  static bool hasInput(const onnx::NodeProto &node, int i) {
    return node.input_size() > i && !node.input(i).empty();
  }
  /// Drops trailing inputs from `count` on.
  static void keepInputs(onnx::NodeProto &node, int count) {
    while (node.input_size() > count)
      node.mutable_input()->RemoveLast();
  }

  /// The integer values of constant input `i` of `node`.
  FailureOr<std::vector<int64_t>> constantInts(const onnx::NodeProto &node,
                                               int i, StringRef what) {
    auto it = constants.find(node.input(i));
    if (it == constants.end())
      return fail(node, "reads its " + what + " from '" + node.input(i) +
                            "', which is not a constant");
    const onnx::TensorProto &t = *it->second;
    try {
      if (t.data_type() == onnx::TensorProto::INT64)
        return onnx::ParseData<int64_t>(&t);
      if (t.data_type() == onnx::TensorProto::INT32) {
        std::vector<int32_t> v = onnx::ParseData<int32_t>(&t);
        return std::vector<int64_t>(v.begin(), v.end());
      }
    } catch (const std::exception &e) {
      return fail(node, "has a malformed " + what + " tensor: " + e.what());
    }
    return fail(node, "has " + what + " of a type other than INT64");
  }
  FailureOr<std::vector<float>> constantFloats(const onnx::NodeProto &node,
                                               int i, StringRef what) {
    auto it = constants.find(node.input(i));
    if (it == constants.end())
      return fail(node, "reads its " + what + " from '" + node.input(i) +
                            "', which is not a constant");
    const onnx::TensorProto &t = *it->second;
    if (t.data_type() != onnx::TensorProto::FLOAT)
      return fail(node, "has " + what + " of a type other than FLOAT");
    try {
      return onnx::ParseData<float>(&t);
    } catch (const std::exception &e) {
      return fail(node, "has a malformed " + what + " tensor: " + e.what());
    }
  }

  /// A new initializer `values` (1-D, or a scalar with `scalar`).
  template <typename T>
  std::string addInitializer(const Twine &base, int32_t type,
                             ArrayRef<T> values, bool scalar = false) {
    onnx::TensorProto *t = graph.add_initializer();
    std::string name = freshName(base);
    t->set_name(name);
    t->set_data_type(type);
    if (!scalar)
      t->add_dims(values.size());
    for (T v : values) {
      if constexpr (std::is_same_v<T, float>)
        t->add_float_data(v);
      else if constexpr (std::is_same_v<T, int64_t>)
        t->add_int64_data(v);
      else
        t->add_int32_data(v);
    }
    constants[name] = t;
    return name;
  }
  std::string scalar(const Twine &base, float value) {
    return addInitializer<float>(base, onnx::TensorProto::FLOAT, {value},
                                 /*scalar=*/true);
  }

  /// A new node (named after `from`) reading `inputs`, writing `output`
  /// (fresh when empty); returns the output.
  std::string emit(std::vector<onnx::NodeProto> &out,
                   const onnx::NodeProto &from, StringRef op,
                   ArrayRef<std::string> inputs, std::string output = {}) {
    onnx::NodeProto node;
    node.set_op_type(op.str());
    node.set_name(freshName(nodeName(from) + "/" + op));
    for (const std::string &in : inputs)
      node.add_input(in);
    if (output.empty())
      output = freshName(nodeName(from) + "/" + op + "_output");
    node.add_output(output);
    out.push_back(node);
    return output;
  }

  /// The shape of `name` as shape inference found it (-1: dynamic), or
  /// nullopt; runs inference once, on the graph as rewritten so far.
  std::optional<std::vector<int64_t>> shapeOf(const std::string &name);

  LogicalResult adaptReduce(onnx::NodeProto &node);
  LogicalResult adaptPad(onnx::NodeProto &node);
  LogicalResult adaptResize(onnx::NodeProto &node);
  LogicalResult adaptSplit(onnx::NodeProto &node);
  LogicalResult adaptQuantize(onnx::NodeProto &node);
  LogicalResult expandMish(const onnx::NodeProto &node,
                           std::vector<onnx::NodeProto> &out);
  LogicalResult expandGelu(const onnx::NodeProto &node,
                           std::vector<onnx::NodeProto> &out);
  LogicalResult expandGroupNorm(const onnx::NodeProto &node,
                                std::vector<onnx::NodeProto> &out);
  /// Rewrites that need no shapes (first pass) or need them (second).
  LogicalResult adaptNode(onnx::NodeProto &node,
                          std::vector<onnx::NodeProto> &out, bool withShapes);
};

std::optional<std::vector<int64_t>> Adapter::shapeOf(const std::string &name) {
  if (!inferred) {
    inferred = true;
    // Inference reads initializers' types and dims, and the data of small
    // ones (shapes, axes): the bytes of the weights stay out of the copy,
    // which would otherwise double the model's memory.
    std::vector<std::pair<onnx::TensorProto *, std::string>> heldBytes;
    for (onnx::TensorProto &t : *graph.mutable_initializer())
      if (t.raw_data().size() > kInferenceBytes) {
        heldBytes.emplace_back(&t, std::string());
        t.mutable_raw_data()->swap(heldBytes.back().second);
      }
    onnx::ModelProto copy = model;
    for (auto &[tensor, bytes] : heldBytes)
      tensor->mutable_raw_data()->swap(bytes);
    for (auto &import : *copy.mutable_opset_import())
      if (import.domain().empty() || import.domain() == "ai.onnx")
        import.set_version(17);
    try {
      onnx::ShapeInferenceOptions options{/*check_type=*/false,
                                          /*error_mode=*/0};
      onnx::shape_inference::InferShapes(
          copy, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception &) {
      // What it found before the error still helps.
    }
    auto record = [&](const onnx::ValueInfoProto &info) {
      if (!info.type().has_tensor_type() ||
          !info.type().tensor_type().has_shape())
        return;
      std::vector<int64_t> dims;
      for (const auto &d : info.type().tensor_type().shape().dim())
        dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
      shapes[info.name()] = dims;
    };
    for (const auto &info : copy.graph().input())
      record(info);
    for (const auto &info : copy.graph().value_info())
      record(info);
    for (const auto &t : copy.graph().initializer())
      shapes[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
  }
  auto it = shapes.find(name);
  if (it == shapes.end())
    return std::nullopt;
  return it->second;
}

/// Normalizes `axes` against `rank`; fails on out-of-range or repeated ones.
LogicalResult normalizeAxes(std::vector<int64_t> &axes, int64_t rank) {
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return failure();
    if (a < 0)
      a += rank;
  }
  std::vector<int64_t> sorted = axes;
  llvm::sort(sorted);
  return success(std::adjacent_find(sorted.begin(), sorted.end()) ==
                 sorted.end());
}

/// `full` (one run of `rank` values per run of `values`) with the runs of
/// `values` (pads' begins and ends, roi's starts and ends, or one run of
/// scales or sizes) written at the positions of `axes`.
template <typename T>
std::vector<T> spreadOverAxes(ArrayRef<T> values, ArrayRef<int64_t> axes,
                              std::vector<T> full, int64_t rank) {
  int64_t runs = values.size() / axes.size();
  for (int64_t run = 0; run < runs; ++run)
    for (auto [i, a] : llvm::enumerate(axes))
      full[run * rank + a] = values[run * axes.size() + i];
  return full;
}

LogicalResult Adapter::adaptReduce(onnx::NodeProto &node) {
  bool noop = intAttr(node, "noop_with_empty_axes", 0) != 0;
  dropAttribute(node, "noop_with_empty_axes");
  if (!hasInput(node, 1)) {
    keepInputs(node, 1);
    if (noop) {
      node.set_op_type("Identity");
      node.clear_attribute();
    }
    return success();
  }
  FailureOr<std::vector<int64_t>> axes = constantInts(node, 1, "axes");
  if (failed(axes))
    return failure();
  keepInputs(node, 1);
  if (axes->empty()) {
    if (noop) {
      node.set_op_type("Identity");
      node.clear_attribute();
    }
    return success();
  }
  setInts(node, "axes", *axes);
  return success();
}

LogicalResult Adapter::adaptPad(onnx::NodeProto &node) {
  if (stringAttr(node, "mode", "constant") == "wrap")
    return fail(node, "pads in mode 'wrap', which DLAS does not support");
  if (!hasInput(node, 3)) {
    keepInputs(node, 3);
    return success();
  }
  FailureOr<std::vector<int64_t>> axes = constantInts(node, 3, "axes");
  if (failed(axes))
    return failure();
  if (!hasInput(node, 1))
    return fail(node, "has axes but no pads");
  FailureOr<std::vector<int64_t>> pads = constantInts(node, 1, "pads");
  if (failed(pads))
    return failure();
  std::optional<std::vector<int64_t>> shape = shapeOf(node.input(0));
  if (!shape)
    return fail(node, "pads the axes of an input whose rank is unknown");
  int64_t rank = shape->size();
  if (pads->size() != 2 * axes->size() || failed(normalizeAxes(*axes, rank)))
    return fail(node, "has " + Twine(pads->size()) + " pads for " +
                          Twine(axes->size()) +
                          " axes (or axes out of range or repeated) of a "
                          "rank-" +
                          Twine(rank) + " input");
  std::vector<int64_t> full = spreadOverAxes<int64_t>(
      *pads, *axes, std::vector<int64_t>(2 * rank, 0), rank);
  node.set_input(1, addInitializer<int64_t>(nodeName(node) + "/pads",
                                            onnx::TensorProto::INT64, full));
  keepInputs(node, 3);
  return success();
}

LogicalResult Adapter::adaptResize(onnx::NodeProto &node) {
  if (intAttr(node, "antialias", 0) != 0)
    return fail(node, "resizes with antialias, which DLAS does not support");
  std::string policy = stringAttr(node, "keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch")
    return fail(node, "keeps the aspect ratio ('" + policy +
                          "'), which DLAS does not support");
  if (stringAttr(node, "coordinate_transformation_mode", "half_pixel") ==
      "half_pixel_symmetric")
    return fail(node, "uses coordinate_transformation_mode "
                      "'half_pixel_symmetric', which DLAS does not support");
  dropAttribute(node, "antialias");
  dropAttribute(node, "keep_aspect_ratio_policy");
  const onnx::AttributeProto *axesAttr = attribute(node, "axes");
  if (!axesAttr)
    return success();
  std::vector<int64_t> axes(axesAttr->ints().begin(), axesAttr->ints().end());
  dropAttribute(node, "axes");
  std::optional<std::vector<int64_t>> shape = shapeOf(node.input(0));
  if (!shape)
    return fail(node, "resizes the axes of an input whose rank is unknown");
  int64_t rank = shape->size();
  if (failed(normalizeAxes(axes, rank)))
    return fail(node, "has axes out of range or repeated for a rank-" +
                          Twine(rank) + " input");
  size_t n = axes.size();
  // roi (input 1): [starts..., ends...] over the axes; 0 and 1 elsewhere.
  if (hasInput(node, 1)) {
    FailureOr<std::vector<float>> roi = constantFloats(node, 1, "roi");
    if (failed(roi))
      return failure();
    if (!roi->empty()) {
      if (roi->size() != 2 * n)
        return fail(node, "has " + Twine(roi->size()) + " roi values for " +
                              Twine(n) + " axes");
      std::vector<float> whole(2 * rank, 0.0f);
      std::fill(whole.begin() + rank, whole.end(), 1.0f);
      std::vector<float> full =
          spreadOverAxes<float>(*roi, axes, std::move(whole), rank);
      node.set_input(1, addInitializer<float>(nodeName(node) + "/roi",
                                              onnx::TensorProto::FLOAT, full));
    }
  }
  if (hasInput(node, 2)) {
    FailureOr<std::vector<float>> scales = constantFloats(node, 2, "scales");
    if (failed(scales))
      return failure();
    if (!scales->empty()) {
      if (scales->size() != n)
        return fail(node, "has " + Twine(scales->size()) + " scales for " +
                              Twine(n) + " axes");
      std::vector<float> full = spreadOverAxes<float>(
          *scales, axes, std::vector<float>(rank, 1.0f), rank);
      node.set_input(2, addInitializer<float>(nodeName(node) + "/scales",
                                              onnx::TensorProto::FLOAT, full));
    }
  }
  if (hasInput(node, 3)) {
    FailureOr<std::vector<int64_t>> sizes = constantInts(node, 3, "sizes");
    if (failed(sizes))
      return failure();
    if (sizes->size() != n)
      return fail(node, "has " + Twine(sizes->size()) + " sizes for " +
                            Twine(n) + " axes");
    std::vector<int64_t> full =
        spreadOverAxes<int64_t>(*sizes, axes, *shape, rank);
    if (llvm::is_contained(full, -1))
      return fail(node, "keeps a dynamic dimension its sizes do not list");
    node.set_input(3, addInitializer<int64_t>(nodeName(node) + "/sizes",
                                              onnx::TensorProto::INT64, full));
  }
  return success();
}

LogicalResult Adapter::adaptSplit(onnx::NodeProto &node) {
  if (!attribute(node, "num_outputs"))
    return success();
  int64_t parts = intAttr(node, "num_outputs", 0);
  dropAttribute(node, "num_outputs");
  if (parts != node.output_size())
    return fail(node, "has num_outputs " + Twine(parts) + " but " +
                          Twine(node.output_size()) + " outputs");
  if (hasInput(node, 1))
    return success();
  // Opset 18 allows a smaller last part; opset 17 needs the sizes then.
  std::optional<std::vector<int64_t>> shape = shapeOf(node.input(0));
  if (!shape)
    return success();
  int64_t rank = shape->size();
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < -rank || axis >= rank)
    return fail(node, "splits axis " + Twine(axis) + " of a rank-" +
                          Twine(rank) + " input");
  int64_t extent = (*shape)[axis < 0 ? axis + rank : axis];
  if (extent < 0 || extent % parts == 0)
    return success();
  int64_t piece = (extent + parts - 1) / parts;
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < parts; ++i)
    sizes.push_back(std::max<int64_t>(0, std::min(piece, extent - i * piece)));
  while (node.input_size() < 2)
    node.add_input("");
  node.set_input(1, addInitializer<int64_t>(nodeName(node) + "/split",
                                            onnx::TensorProto::INT64, sizes));
  return success();
}

LogicalResult Adapter::adaptQuantize(onnx::NodeProto &node) {
  if (intAttr(node, "block_size", 0) != 0)
    return fail(node, "quantizes in blocks, which DLAS does not support");
  dropAttribute(node, "block_size");
  dropAttribute(node, "saturate");
  if (node.op_type() != "QuantizeLinear" || !attribute(node, "output_dtype"))
    return success();
  int64_t type = intAttr(node, "output_dtype", 0);
  dropAttribute(node, "output_dtype");
  if (type == 0 || hasInput(node, 2))
    return success();
  if (type != onnx::TensorProto::INT8 && type != onnx::TensorProto::UINT8)
    return fail(node, "quantizes to " +
                          onnx::TensorProto::DataType_Name(
                              static_cast<onnx::TensorProto::DataType>(type)) +
                          "; DLAS supports INT8 and UINT8");
  while (node.input_size() < 3)
    node.add_input("");
  node.set_input(2, addInitializer<int32_t>(nodeName(node) + "/zero_point",
                                            static_cast<int32_t>(type), {0},
                                            /*scalar=*/true));
  return success();
}

/// mish(x) = x * tanh(softplus(x)).
LogicalResult Adapter::expandMish(const onnx::NodeProto &node,
                                  std::vector<onnx::NodeProto> &out) {
  std::string x = node.input(0);
  std::string s = emit(out, node, "Softplus", {x});
  std::string t = emit(out, node, "Tanh", {s});
  emit(out, node, "Mul", {x, t}, node.output(0));
  return success();
}

/// The Erf form, (x * (1 + erf(x / sqrt 2))) * 0.5, or the tanh form,
/// (x * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))) * 0.5: both as nn
/// canonicalization recognizes them.
LogicalResult Adapter::expandGelu(const onnx::NodeProto &node,
                                  std::vector<onnx::NodeProto> &out) {
  std::string approximate = stringAttr(node, "approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return fail(node, "has approximate '" + approximate +
                          "' (expected 'none' or 'tanh')");
  std::string base = nodeName(node);
  std::string x = node.input(0);
  std::string core;
  if (approximate == "none") {
    std::string scaled =
        emit(out, node, "Div", {x, scalar(base + "/sqrt2", M_SQRT2)});
    core = emit(out, node, "Erf", {scaled});
  } else {
    std::string square = emit(out, node, "Mul", {x, x});
    std::string cube = emit(out, node, "Mul", {x, square});
    std::string term =
        emit(out, node, "Mul", {cube, scalar(base + "/c", 0.044715f)});
    std::string inner = emit(out, node, "Add", {x, term});
    std::string scaled = emit(
        out, node, "Mul", {inner, scalar(base + "/k", std::sqrt(2.0 / M_PI))});
    core = emit(out, node, "Tanh", {scaled});
  }
  std::string onePlus =
      emit(out, node, "Add", {core, scalar(base + "/one", 1.0f)});
  std::string product = emit(out, node, "Mul", {x, onePlus});
  emit(out, node, "Mul", {product, scalar(base + "/half", 0.5f)},
       node.output(0));
  return success();
}

/// GroupNormalization: the input as [N, G, -1] normalized per (n, g) by
/// InstanceNormalization, then scale and bias, per group (opset 18:
/// [G], applied on [N, G, -1]) or per channel (21: [C], applied on
/// [N, C, -1]), and the input's shape again.
LogicalResult Adapter::expandGroupNorm(const onnx::NodeProto &node,
                                       std::vector<onnx::NodeProto> &out) {
  const onnx::AttributeProto *groupsAttr = attribute(node, "num_groups");
  if (!groupsAttr || groupsAttr->i() <= 0)
    return fail(node, "needs a positive num_groups");
  int64_t groups = groupsAttr->i();
  const onnx::AttributeProto *epsAttr = attribute(node, "epsilon");
  float epsilon = epsAttr ? epsAttr->f() : 1e-5f;
  std::string base = nodeName(node);
  std::string x = node.input(0);
  std::string shape = emit(out, node, "Shape", {x});
  std::string grouped = emit(
      out, node, "Reshape",
      {x, addInitializer<int64_t>(base + "/grouped_shape",
                                  onnx::TensorProto::INT64, {0, groups, -1})});
  std::vector<float> ones(groups, 1.0f), zeros(groups, 0.0f);
  std::string normalized = emit(
      out, node, "InstanceNormalization",
      {grouped,
       addInitializer<float>(base + "/ones", onnx::TensorProto::FLOAT, ones),
       addInitializer<float>(base + "/zeros", onnx::TensorProto::FLOAT,
                             zeros)});
  out.back().add_attribute()->CopyFrom(onnx::MakeAttribute("epsilon", epsilon));
  // scale and bias as [K, 1] against [N, K, -1].
  std::string axisOne =
      addInitializer<int64_t>(base + "/axis1", onnx::TensorProto::INT64, {1});
  auto affine = [&](const std::string &value) {
    std::string scale = emit(out, node, "Unsqueeze", {node.input(1), axisOne});
    std::string bias = emit(out, node, "Unsqueeze", {node.input(2), axisOne});
    std::string scaled = emit(out, node, "Mul", {value, scale});
    return emit(out, node, "Add", {scaled, bias});
  };
  if (opset < 21) {
    emit(out, node, "Reshape", {affine(normalized), shape}, node.output(0));
    return success();
  }
  std::string restored = emit(out, node, "Reshape", {normalized, shape});
  std::string channels =
      emit(out, node, "Reshape",
           {restored,
            addInitializer<int64_t>(base + "/channel_shape",
                                    onnx::TensorProto::INT64, {0, 0, -1})});
  emit(out, node, "Reshape", {affine(channels), shape}, node.output(0));
  return success();
}

LogicalResult Adapter::adaptNode(onnx::NodeProto &node,
                                 std::vector<onnx::NodeProto> &out,
                                 bool withShapes) {
  StringRef op = node.op_type();
  auto keep = [&] {
    out.push_back(node);
    return success();
  };
  // The rewrites read the first input and write the first output.
  bool rewritten = llvm::is_contained(kReduceOps, op) ||
                   llvm::is_contained(
                       ArrayRef<StringRef>{"Mish", "Gelu", "GroupNormalization",
                                           "Pad", "Resize", "Split"},
                       op);
  if (rewritten && (node.input_size() < 1 || node.input(0).empty() ||
                    node.output_size() < 1))
    return fail(node, "needs an input and an output");
  if (!withShapes) {
    if (llvm::is_contained(kRefusedOps, op))
      return fail(node, "is an op DLAS does not import");
    if (llvm::is_contained(kReduceOps, op) && failed(adaptReduce(node)))
      return failure();
    if ((op == "Cast" || op == "CastLike") && attribute(node, "saturate"))
      dropAttribute(node, "saturate");
    if ((op == "QuantizeLinear" || op == "DequantizeLinear") &&
        failed(adaptQuantize(node)))
      return failure();
    if (op == "AveragePool") {
      if (const onnx::AttributeProto *d = attribute(node, "dilations")) {
        if (llvm::any_of(d->ints(), [](int64_t v) { return v != 1; }))
          return fail(node, "has dilations other than 1, which DLAS does not "
                            "support for average pooling");
        dropAttribute(node, "dilations");
      }
    }
    if (op == "Mish")
      return expandMish(node, out);
    if (op == "Gelu")
      return expandGelu(node, out);
    if (op == "GroupNormalization") {
      if (node.input_size() != 3)
        return fail(node, "has " + Twine(node.input_size()) +
                              " inputs; it needs X, scale and bias");
      return expandGroupNorm(node, out);
    }
    return keep();
  }
  if (op == "Pad" && failed(adaptPad(node)))
    return failure();
  if (op == "Resize" && failed(adaptResize(node)))
    return failure();
  if (op == "Split" && failed(adaptSplit(node)))
    return failure();
  return keep();
}

LogicalResult Adapter::run(std::string &message) {
  for (const onnx::TensorProto &t : graph.initializer()) {
    constants[t.name()] = &t;
    names.insert(t.name());
  }
  for (const auto &info : graph.input())
    names.insert(info.name());
  for (const onnx::NodeProto &node : graph.node()) {
    names.insert(node.name());
    for (const std::string &output : node.output())
      names.insert(output);
  }
  auto collectConstants = [&] {
    for (const onnx::NodeProto &node : graph.node())
      if (node.op_type() == "Constant" && node.output_size() == 1)
        for (const onnx::AttributeProto &a : node.attribute())
          if (a.name() == "value" && a.has_t())
            constants[node.output(0)] = &a.t();
  };
  // Two passes: the rewrites that need no shapes, then (with shape
  // inference over the result) those that do. The node list is rebuilt
  // each time, so the constants are found again.
  for (bool withShapes : {false, true}) {
    collectConstants();
    std::vector<onnx::NodeProto> nodes;
    for (const onnx::NodeProto &node : graph.node()) {
      onnx::NodeProto copy = node;
      if (failed(adaptNode(copy, nodes, withShapes))) {
        message = why;
        return failure();
      }
    }
    graph.clear_node();
    for (onnx::NodeProto &node : nodes)
      *graph.add_node() = std::move(node);
    constants.clear();
    for (const onnx::TensorProto &t : graph.initializer())
      constants[t.name()] = &t;
  }
  for (auto &import : *model.mutable_opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      import.set_version(17);
  return success();
}

} // namespace

bool mlir::dlas::onnximport::isNewerOpsetOnlyOp(StringRef opType) {
  return llvm::is_contained(kRefusedOps, opType) ||
         llvm::is_contained({"Mish", "Gelu", "GroupNormalization"}, opType);
}

LogicalResult mlir::dlas::onnximport::adaptNewerOpset(onnx::ModelProto &model,
                                                      int64_t opset,
                                                      std::string &message) {
  return Adapter(model, opset).run(message);
}
