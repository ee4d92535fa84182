//===- NNDialect.td - the DLAS `nn` dialect ----------------*- tablegen -*-===//
#ifndef DLAS_DIALECT_NN_NNDIALECT_TD
#define DLAS_DIALECT_NN_NNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::mlir::dlas::nn";
  let summary = "Dense neural-network operators on ranked tensors";
  let description = [{
    The `nn` dialect holds the dense operators that neural networks are made
    of: convolutions of every kind, matmul/dense, normalization, pooling,
    activations, softmax, broadcasting elementwise arithmetic and the shape
    operators around them. Ops work on ranked tensors, NCHW unless a `layout`
    attribute says otherwise; the batch dimension may be dynamic.

    Every op verifies its operands and infers its result type (through
    `InferTypeOpInterface`), so a wrong shape is rejected with a diagnostic
    naming the operand and the numbers. `convert-nn-to-linalg` lowers every
    op to `linalg` on tensors.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
}

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def NN_Layout : I32EnumAttr<"Layout", "activation data layout", [
    I32EnumAttrCase<"NCHW", 0, "nchw">,
    I32EnumAttrCase<"NHWC", 1, "nhwc">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_LayoutAttr : EnumAttr<NN_Dialect, NN_Layout, "layout">;

def NN_ResizeMode : I32EnumAttr<"ResizeMode", "interpolation mode of nn.resize", [
    I32EnumAttrCase<"Nearest", 0, "nearest">,
    I32EnumAttrCase<"Bilinear", 1, "bilinear">,
    I32EnumAttrCase<"Bicubic", 2, "bicubic">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_ResizeModeAttr : EnumAttr<NN_Dialect, NN_ResizeMode, "resize_mode">;

def NN_ResizeCoordinates : I32EnumAttr<"ResizeCoordinates",
    "how nn.resize maps an output index to a source coordinate", [
    I32EnumAttrCase<"Asymmetric", 0, "asymmetric">,
    I32EnumAttrCase<"HalfPixel", 1, "half_pixel">,
    I32EnumAttrCase<"PytorchHalfPixel", 2, "pytorch_half_pixel">,
    I32EnumAttrCase<"AlignCorners", 3, "align_corners">,
    I32EnumAttrCase<"TfCropAndResize", 4, "tf_crop_and_resize">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_ResizeCoordinatesAttr
    : EnumAttr<NN_Dialect, NN_ResizeCoordinates, "resize_coordinates">;

def NN_NearestRounding : I32EnumAttr<"NearestRounding",
    "how nearest-mode nn.resize rounds a source coordinate", [
    I32EnumAttrCase<"Floor", 0, "floor">,
    I32EnumAttrCase<"Ceil", 1, "ceil">,
    I32EnumAttrCase<"RoundPreferFloor", 2, "round_prefer_floor">,
    I32EnumAttrCase<"RoundPreferCeil", 3, "round_prefer_ceil">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_NearestRoundingAttr
    : EnumAttr<NN_Dialect, NN_NearestRounding, "nearest_rounding">;

def NN_ReduceKind : I32EnumAttr<"ReduceKind", "reduction of nn.reduce", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Min", 3, "min">,
    I32EnumAttrCase<"Prod", 4, "prod">,
    I32EnumAttrCase<"L1", 5, "l1">,
    I32EnumAttrCase<"L2", 6, "l2">,
    I32EnumAttrCase<"SumSquare", 7, "sum_square">,
    I32EnumAttrCase<"LogSum", 8, "log_sum">,
    I32EnumAttrCase<"LogSumExp", 9, "log_sum_exp">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_ReduceKindAttr : EnumAttr<NN_Dialect, NN_ReduceKind, "reduce_kind">;

def NN_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "comparison of nn.compare", [
    I32EnumAttrCase<"Eq", 0, "eq">,
    I32EnumAttrCase<"Ne", 1, "ne">,
    I32EnumAttrCase<"Lt", 2, "lt">,
    I32EnumAttrCase<"Le", 3, "le">,
    I32EnumAttrCase<"Gt", 4, "gt">,
    I32EnumAttrCase<"Ge", 5, "ge">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_ComparePredicateAttr
    : EnumAttr<NN_Dialect, NN_ComparePredicate, "compare_predicate">;

def NN_LogicalKind : I32EnumAttr<"LogicalKind", "operation of nn.logical", [
    I32EnumAttrCase<"And", 0, "and">,
    I32EnumAttrCase<"Or", 1, "or">,
    I32EnumAttrCase<"Xor", 2, "xor">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_LogicalKindAttr : EnumAttr<NN_Dialect, NN_LogicalKind, "logical_kind">;

def NN_PadMode : I32EnumAttr<"PadMode", "what nn.pad fills the border with", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Edge", 1, "edge">,
    I32EnumAttrCase<"Reflect", 2, "reflect">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_PadModeAttr : EnumAttr<NN_Dialect, NN_PadMode, "pad_mode">;

def NN_BatchNormMode : I32EnumAttr<"BatchNormMode", "parameter shape of nn.batch_norm", [
    I32EnumAttrCase<"Spatial", 0, "spatial">,
    I32EnumAttrCase<"PerActivation", 1, "per_activation">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_BatchNormModeAttr : EnumAttr<NN_Dialect, NN_BatchNormMode, "batch_norm_mode">;

def NN_GeluApproximation : I32EnumAttr<"GeluApproximation", "gelu formula", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Tanh", 1, "tanh">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_GeluApproximationAttr : EnumAttr<NN_Dialect, NN_GeluApproximation, "gelu_approximation">;

def NN_RnnDirection : I32EnumAttr<"RnnDirection",
    "time direction of nn.lstm / nn.gru / nn.rnn", [
    I32EnumAttrCase<"Forward", 0, "forward">,
    I32EnumAttrCase<"Reverse", 1, "reverse">,
    I32EnumAttrCase<"Bidirectional", 2, "bidirectional">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_RnnDirectionAttr : EnumAttr<NN_Dialect, NN_RnnDirection, "rnn_direction">;

// ONNX's recurrent activation functions, with their alpha/beta meanings.
def NN_RnnActivation : I32EnumAttr<"RnnActivation",
    "gate activation of nn.lstm / nn.gru / nn.rnn", [
    I32EnumAttrCase<"Sigmoid", 0, "sigmoid">,
    I32EnumAttrCase<"Tanh", 1, "tanh">,
    I32EnumAttrCase<"Relu", 2, "relu">,
    I32EnumAttrCase<"HardSigmoid", 3, "hard_sigmoid">,       // max(0, min(1, a x + b))
    I32EnumAttrCase<"LeakyRelu", 4, "leaky_relu">,           // x < 0 ? a x : x
    I32EnumAttrCase<"ThresholdedRelu", 5, "thresholded_relu">, // x > a ? x : 0
    I32EnumAttrCase<"ScaledTanh", 6, "scaled_tanh">,         // a tanh(b x)
    I32EnumAttrCase<"Affine", 7, "affine">,                  // a x + b
    I32EnumAttrCase<"Elu", 8, "elu">,                        // x < 0 ? a (e^x - 1) : x
    I32EnumAttrCase<"Softsign", 9, "softsign">,
    I32EnumAttrCase<"Softplus", 10, "softplus">]> {
  let cppNamespace = "::mlir::dlas::nn";
  let genSpecializedAttr = 0;
}
def NN_RnnActivationAttr : EnumAttr<NN_Dialect, NN_RnnActivation, "rnn_activation">;
def NN_RnnActivationArrayAttr
    : TypedArrayAttrBase<NN_RnnActivationAttr, "array of recurrent activations">;

#endif // DLAS_DIALECT_NN_NNDIALECT_TD
