//===- NNOps.td - operations of the nn dialect -------------*- tablegen -*-===//
#ifndef DLAS_DIALECT_NN_NNOPS_TD
#define DLAS_DIALECT_NN_NNOPS_TD

include "DLAS/Dialect/NN/NNDialect.td"
include "DLAS/Dialect/NN/NNInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NN_ElementType : AnyTypeOf<[F32, F16, BF16, I8, I32]>;
def NN_Tensor : RankedTensorOf<[F32, F16, BF16, I8, I32]>;
def NN_FloatTensor : RankedTensorOf<[F64, F32, F16, BF16]>;
// Numbers of the types ONNX graphs compute in at run time (arithmetic,
// comparisons) and any of those or booleans (data movement, casts).
def NN_NumericTensor : RankedTensorOf<[F64, F32, F16, BF16, I8, I16, I32, I64]>;
def NN_BoolTensor : RankedTensorOf<[I1]>;
def NN_AnyTensor : RankedTensorOf<[F64, F32, F16, BF16, I1, I8, I16, I32, I64]>;
def NN_Tensor4D : 4DTensorOf<[F32, F16, BF16, I8, I32]>;
def NN_FloatTensor4D : 4DTensorOf<[F32, F16, BF16]>;
def NN_FloatTensor5D : TensorRankOf<[F32, F16, BF16], [5]>;

class NN_I64ArrayOfSize<int n, string defaultValue>
    : DefaultValuedAttr<ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<n>]>,
                        defaultValue>;

// Common traits: no side effects, result type inferred from operands and
// attributes (the verifier compares the written result type with it).
class NN_PureOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)>;

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

def NN_Conv2DOp : NN_PureOp<"conv2d",
    [DeclareOpInterfaceMethods<NN_FlopCountOpInterface>]> {
  let summary = "2-D convolution (strided, padded, dilated, grouped, depthwise)";
  let description = [{
    Cross-correlation of a 4-D `input` with a 4-D `filter`, plus an optional
    per-output-channel `bias`. With the default `nchw` layout the input is
    `N x C_in x H x W`, the filter `C_out x C_in/groups x K_h x K_w` (PyTorch's
    OIHW) and the result `N x C_out x H_out x W_out`, where
    `H_out = (H + pad_top + pad_bottom - dilation_h * (K_h - 1) - 1) / stride_h + 1`.
    `padding` is `[top, left, bottom, right]`. `groups` splits the channels;
    `groups == C_in == C_out` is a depthwise convolution. With layout `nhwc`
    input and result are `N x H x W x C` (the filter stays OIHW).

    Example:
    ```mlir
    %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 2>,
                               padding = array<i64: 1, 1, 1, 1>, groups = 32 : i64}
        : (tensor<1x32x56x56xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>)
        -> tensor<1x32x28x28xf32>
    ```
  }];
  let arguments = (ins NN_Tensor4D:$input, NN_Tensor4D:$filter,
                       Optional<1DTensorOf<[F32, F16, BF16, I8, I32]>>:$bias,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$strides,
                       NN_I64ArrayOfSize<4, "{0, 0, 0, 0}">:$padding,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<NN_LayoutAttr, "::mlir::dlas::nn::Layout::NCHW">:$layout);
  let results = (outs NN_Tensor4D:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def NN_ConvTranspose2DOp : NN_PureOp<"conv_transpose2d",
    [DeclareOpInterfaceMethods<NN_FlopCountOpInterface>]> {
  let summary = "2-D transposed convolution (fractionally strided)";
  let description = [{
    The gradient of `nn.conv2d` with respect to its input, as PyTorch's
    `ConvTranspose2d`: input `N x C_in x H x W`, filter
    `C_in x C_out/groups x K_h x K_w`, result `N x C_out x H_out x W_out` with
    `H_out = (H - 1) * stride_h - pad_top - pad_bottom + dilation_h * (K_h - 1)
    + output_padding_h + 1`. `padding` is `[top, left, bottom, right]`;
    `output_padding` (`[h, w]`) must be smaller than the stride or the dilation.

    Example:
    ```mlir
    %y = nn.conv_transpose2d %x, %w {strides = array<i64: 2, 2>,
            padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>}
        : (tensor<1x8x7x7xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x14x14xf32>
    ```
  }];
  let arguments = (ins NN_Tensor4D:$input, NN_Tensor4D:$filter,
                       Optional<1DTensorOf<[F32, F16, BF16, I8, I32]>>:$bias,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$strides,
                       NN_I64ArrayOfSize<4, "{0, 0, 0, 0}">:$padding,
                       NN_I64ArrayOfSize<2, "{0, 0}">:$output_padding,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NN_Tensor4D:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def NN_Conv3DOp : NN_PureOp<"conv3d",
    [DeclareOpInterfaceMethods<NN_FlopCountOpInterface>]> {
  let summary = "3-D convolution (strided, padded, dilated, grouped, depthwise)";
  let description = [{
    Cross-correlation of a 5-D `input` (`N x C_in x D x H x W`) with a 5-D
    `filter` (`C_out x C_in/groups x K_d x K_h x K_w`, PyTorch's Conv3d
    weight), plus an optional per-output-channel `bias`; the result is
    `N x C_out x D_out x H_out x W_out` with each output size as
    `nn.conv2d`'s. `padding` is `[front, top, left, back, bottom, right]`
    (the three leading pads, then the three trailing ones).

    Video networks (R3D, MC3, R(2+1)D) are made of these. The lowering
    (convert-nn-to-linalg) computes one `nn.conv2d` per kernel depth over
    the output depths folded into the batch, so the 2-D kernels, their
    algorithm choice and their compile-time filter packing serve it; the
    partial results are summed.

    Example:
    ```mlir
    %y = nn.conv3d %x, %w, %b {strides = array<i64: 1, 2, 2>,
                               padding = array<i64: 1, 3, 3, 1, 3, 3>}
        : (tensor<1x3x8x112x112xf32>, tensor<64x3x3x7x7xf32>, tensor<64xf32>)
        -> tensor<1x64x8x56x56xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor5D:$input,
                       NN_FloatTensor5D:$filter,
                       Optional<1DTensorOf<[F32, F16, BF16]>>:$bias,
                       NN_I64ArrayOfSize<3, "{1, 1, 1}">:$strides,
                       NN_I64ArrayOfSize<6, "{0, 0, 0, 0, 0, 0}">:$padding,
                       NN_I64ArrayOfSize<3, "{1, 1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NN_FloatTensor5D:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

def NN_MatmulOp : NN_PureOp<"matmul",
    [DeclareOpInterfaceMethods<NN_FlopCountOpInterface>]> {
  let summary = "matrix product of two 2-D tensors";
  let description = [{
    `M x K` times `K x N` gives `M x N`.

    ```mlir
    %c = nn.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F64, F32, F16, BF16, I8, I32]>:$lhs,
                       2DTensorOf<[F64, F32, F16, BF16, I8, I32]>:$rhs);
  let results = (outs 2DTensorOf<[F64, F32, F16, BF16, I8, I32]>:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def NN_BatchMatmulOp : NN_PureOp<"batch_matmul",
    [DeclareOpInterfaceMethods<NN_FlopCountOpInterface>]> {
  let summary = "batched matrix product of two 3-D tensors";
  let description = [{
    `B x M x K` times `B x K x N` gives `B x M x N`.

    ```mlir
    %c = nn.batch_matmul %a, %b
        : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins 3DTensorOf<[F64, F32, F16, BF16, I8, I32]>:$lhs,
                       3DTensorOf<[F64, F32, F16, BF16, I8, I32]>:$rhs);
  let results = (outs 3DTensorOf<[F64, F32, F16, BF16, I8, I32]>:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def NN_LinearOp : NN_PureOp<"linear",
    [DeclareOpInterfaceMethods<NN_FlopCountOpInterface>]> {
  let summary = "dense (fully connected) layer: input x weight^T + bias";
  let description = [{
    As PyTorch's `Linear`: input `N x K`, weight `O x K`, optional bias `O`,
    result `N x O`.

    ```mlir
    %y = nn.linear %x, %w, %b
        : (tensor<?x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32, F16, BF16, I8, I32]>:$input,
                       2DTensorOf<[F32, F16, BF16, I8, I32]>:$weight,
                       Optional<1DTensorOf<[F32, F16, BF16, I8, I32]>>:$bias);
  let results = (outs 2DTensorOf<[F32, F16, BF16, I8, I32]>:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def NN_BatchNormOp : NN_PureOp<"batch_norm"> {
  let summary = "batch normalization in inference form";
  let description = [{
    `(input - mean) / sqrt(variance + epsilon) * scale + bias` with running
    statistics. In `spatial` mode (the default) the four parameters have shape
    `C`; in `per_activation` mode they have the shape of one sample,
    `C x H x W`. The input is NCHW.

    ```mlir
    %y = nn.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f64}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
           tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor4D:$input, NN_FloatTensor:$scale,
                       NN_FloatTensor:$bias, NN_FloatTensor:$mean,
                       NN_FloatTensor:$variance,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       DefaultValuedAttr<NN_BatchNormModeAttr,
                           "::mlir::dlas::nn::BatchNormMode::Spatial">:$mode);
  let results = (outs NN_FloatTensor4D:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
}

def NN_LayerNormOp : NN_PureOp<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "normalization over the trailing dimensions (LayerNorm)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, with the mean and the
    (biased) variance over dimensions `[axis, rank)` of each element of the
    leading ones, as ONNX's LayerNormalization and PyTorch's `LayerNorm`.
    `scale` and `bias` are optional and have the normalized dimensions'
    shape (`input` shape from `axis` on); `axis` may count from the end.
    InstanceNormalization is the case `axis = 2` without them.

    Canonicalization folds the forms exporters spell it in into this op
    (mean, subtraction, square, mean, `+ epsilon`, square root, division,
    then a multiply and an add by tensors of the normalized shape), so that
    it lowers to two row reductions and one elementwise pass instead of
    five passes over the activations.

    ```mlir
    %y = nn.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-06 : f64}
        : (tensor<1x197x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x197x768xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, Optional<NN_FloatTensor>:$scale,
                       Optional<NN_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// `axis` counted from the front.
    int64_t getNormalizedAxis() {
      int64_t axis = getAxis();
      return axis < 0 ? axis + getInput().getType().getRank() : axis;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def NN_MaxPool2DOp : NN_PureOp<"max_pool2d"> {
  let summary = "2-D max pooling";
  let description = [{
    Maximum over `kernel` windows. `padding` is `[top, left, bottom, right]`
    (padded elements never win); with `ceil_mode` the output size rounds up,
    as in PyTorch, and a window must start inside the input or left padding.

    ```mlir
    %y = nn.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                           padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins NN_Tensor4D:$input,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>:$kernel,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$strides,
                       NN_I64ArrayOfSize<4, "{0, 0, 0, 0}">:$padding,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<NN_LayoutAttr, "::mlir::dlas::nn::Layout::NCHW">:$layout);
  let results = (outs NN_Tensor4D:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def NN_MaxPool2DWithIndicesOp : NN_PureOp<"max_pool2d_with_indices"> {
  let summary = "2-D max pooling that also returns where each maximum is";
  let description = [{
    `nn.max_pool2d` (NCHW) with a second result: the i64 position of each
    maximum in the input, flattened as ONNX MaxPool's `Indices`: the
    plane `n * C + c` times `H * W`, plus `h * W + w`, or `h + w * H` with
    `column_major` (ONNX's storage_order 1). Of equal maxima the first in
    row-major window order wins.

    ```mlir
    %y, %i = nn.max_pool2d_with_indices %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x1x5x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    ```
  }];
  let arguments = (ins NN_FloatTensor4D:$input,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>:$kernel,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$strides,
                       NN_I64ArrayOfSize<4, "{0, 0, 0, 0}">:$padding,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$column_major);
  let results = (outs NN_FloatTensor4D:$output, 4DTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def NN_AvgPool2DOp : NN_PureOp<"avg_pool2d"> {
  let summary = "2-D average pooling";
  let description = [{
    Mean over `kernel` windows, as PyTorch's `AvgPool2d`: with
    `count_include_pad` (the default) the divisor counts padded elements inside
    the padded input, otherwise only real ones; with `ceil_mode` the output size
    rounds up and windows are clipped at the padded edge.

    ```mlir
    %y = nn.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor4D:$input,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>:$kernel,
                       NN_I64ArrayOfSize<2, "{1, 1}">:$strides,
                       NN_I64ArrayOfSize<4, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       DefaultValuedAttr<NN_LayoutAttr, "::mlir::dlas::nn::Layout::NCHW">:$layout);
  let results = (outs NN_FloatTensor4D:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def NN_GlobalAvgPool2DOp : NN_PureOp<"global_avg_pool2d"> {
  let summary = "mean over the spatial dimensions, keeping them as 1 x 1";
  let description = [{
    ```mlir
    %y = nn.global_avg_pool2d %x : (tensor<?x512x7x7xf32>) -> tensor<?x512x1x1xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor4D:$input,
                       DefaultValuedAttr<NN_LayoutAttr, "::mlir::dlas::nn::Layout::NCHW">:$layout);
  let results = (outs NN_FloatTensor4D:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Activations (elementwise, same type in and out)
//===----------------------------------------------------------------------===//

// Ops whose result type is their operand's: ODS infers it from the trait.
class NN_SameTypeOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType], traits)>;

// Ops whose result element i depends on operand element i alone, whatever
// the shape (MLIR's Elementwise trait): shape-only rewrites such as
// dlas-sink-reshapes move them across reshapes.
class NN_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : NN_SameTypeOp<mnemonic, !listconcat([Elementwise], traits)>;

class NN_UnaryOp<string mnemonic, string formula, Type tensorType = NN_FloatTensor,
                 list<Trait> traits = []>
    : NN_ElementwiseOp<mnemonic, traits> {
  let summary = "elementwise " # mnemonic # ": " # formula;
  let description = [{
    Applies `}] # formula # [{` to every element.

    ```mlir
    %y = nn.}] # mnemonic # [{ %x : tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_ReluOp : NN_UnaryOp<"relu", "max(x, 0)", NN_Tensor>;
def NN_Relu6Op : NN_UnaryOp<"relu6", "min(max(x, 0), 6)"> {
  let hasCanonicalizer = 1;
}
def NN_SigmoidOp : NN_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def NN_TanhOp : NN_UnaryOp<"tanh", "tanh(x)">;
def NN_SiluOp : NN_UnaryOp<"silu", "x * sigmoid(x)">;
def NN_ExpOp : NN_UnaryOp<"exp", "exp(x)">;
def NN_LogOp : NN_UnaryOp<"log", "log(x)">;
def NN_SqrtOp : NN_UnaryOp<"sqrt", "sqrt(x)">;
def NN_AbsOp : NN_UnaryOp<"abs", "|x|">;
def NN_NegOp : NN_UnaryOp<"neg", "-x">;
def NN_ErfOp : NN_UnaryOp<"erf", "erf(x)">;
def NN_ReciprocalOp : NN_UnaryOp<"reciprocal", "1 / x">;
def NN_FloorOp : NN_UnaryOp<"floor", "floor(x)">;
def NN_CeilOp : NN_UnaryOp<"ceil", "ceil(x)">;
def NN_RoundOp : NN_UnaryOp<"round", "x rounded to the nearest integer, halves to even">;
def NN_SinOp : NN_UnaryOp<"sin", "sin(x)">;
def NN_CosOp : NN_UnaryOp<"cos", "cos(x)">;
def NN_TanOp : NN_UnaryOp<"tan", "tan(x)">;
def NN_AsinOp : NN_UnaryOp<"asin", "asin(x)">;
def NN_AcosOp : NN_UnaryOp<"acos", "acos(x)">;
def NN_AtanOp : NN_UnaryOp<"atan", "atan(x)">;
def NN_SinhOp : NN_UnaryOp<"sinh", "sinh(x)">;
def NN_CoshOp : NN_UnaryOp<"cosh", "cosh(x)">;
def NN_AsinhOp : NN_UnaryOp<"asinh", "asinh(x)">;
def NN_AcoshOp : NN_UnaryOp<"acosh", "acosh(x)">;
def NN_AtanhOp : NN_UnaryOp<"atanh", "atanh(x)">;
def NN_SignOp : NN_UnaryOp<"sign",
    "1 if x > 0, -1 if x < 0, else x (zeros keep their sign, NaN stays NaN; integers too)",
    NN_NumericTensor>;
def NN_SoftplusOp : NN_UnaryOp<"softplus", "log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|))">;
def NN_SoftsignOp : NN_UnaryOp<"softsign", "x / (1 + |x|)">;
def NN_HardSwishOp : NN_UnaryOp<"hard_swish", "x * min(max(x / 6 + 1/2, 0), 1)">;
def NN_MishOp : NN_UnaryOp<"mish", "x * tanh(softplus(x))">;

def NN_HardSigmoidOp : NN_ElementwiseOp<"hard_sigmoid"> {
  let summary = "elementwise min(max(alpha * x + beta, 0), 1)";
  let description = [{
    ```mlir
    %y = nn.hard_sigmoid %x {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$alpha, F64Attr:$beta);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_EluOp : NN_ElementwiseOp<"elu"> {
  let summary = "elementwise x if x > 0 else alpha * (exp(x) - 1)";
  let description = [{
    ```mlir
    %y = nn.elu %x {alpha = 1.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$alpha);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_SeluOp : NN_ElementwiseOp<"selu"> {
  let summary = "elementwise gamma * (x if x > 0 else alpha * (exp(x) - 1))";
  let description = [{
    ```mlir
    %y = nn.selu %x {alpha = 1.6732632 : f64, gamma = 1.0507010 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$alpha, F64Attr:$gamma);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_ClipOp : NN_ElementwiseOp<"clip"> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    ```mlir
    %y = nn.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def NN_LeakyReluOp : NN_ElementwiseOp<"leaky_relu"> {
  let summary = "elementwise x if x >= 0 else alpha * x";
  let description = [{
    ```mlir
    %y = nn.leaky_relu %x {alpha = 0.01 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_GeluOp : NN_ElementwiseOp<"gelu"> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Phi(x)` with the exact erf form (default) or, with
    `approximate = tanh`, `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.

    ```mlir
    %y = nn.gelu %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<NN_GeluApproximationAttr,
                           "::mlir::dlas::nn::GeluApproximation::None">:$approximate);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class NN_SoftmaxLikeOp<string mnemonic, string formula>
    : NN_SameTypeOp<mnemonic> {
  let summary = mnemonic # " along one axis";
  let hasVerifier = 1;
  let description = [{
    `}] # formula # [{` along `axis` (negative counts from the end), computed
    stably by subtracting the maximum first.

    ```mlir
    %y = nn.}] # mnemonic # [{ %x {axis = 1 : i64} : tensor<2x10xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}
def NN_SoftmaxOp : NN_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def NN_LogSoftmaxOp : NN_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

//===----------------------------------------------------------------------===//
// Broadcasting binary arithmetic
//===----------------------------------------------------------------------===//

class NN_BinaryOp<string mnemonic, string formula>
    : NN_PureOp<mnemonic, [SameOperandsElementType]> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = [{
    Shapes broadcast as in numpy: aligned from the last dimension, each pair
    of sizes equal or one of them 1.

    ```mlir
    %z = nn.}] # mnemonic # [{ %x, %y : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs);
  let results = (outs NN_NumericTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}
def NN_AddOp : NN_BinaryOp<"add", "lhs + rhs"> {
  // A bias of the normalized shape after nn.layer_norm is its bias.
  let hasCanonicalizer = 1;
}
def NN_SubOp : NN_BinaryOp<"sub", "lhs - rhs">;
def NN_MulOp : NN_BinaryOp<"mul", "lhs * rhs"> {
  // x * 0.5 * (1 + erf(x / sqrt(2))), as exporters spell GELU, is nn.gelu;
  // x * sigmoid(x) is nn.silu.
  let hasCanonicalizer = 1;
}
def NN_DivOp : NN_BinaryOp<"div", "lhs / rhs"> {
  // (x - mean) / sqrt(var + eps) over trailing dims is nn.layer_norm.
  let hasCanonicalizer = 1;
}
def NN_MaxOp : NN_BinaryOp<"max", "max(lhs, rhs)">;
def NN_MinOp : NN_BinaryOp<"min", "min(lhs, rhs)">;
def NN_PowOp : NN_BinaryOp<"pow", "lhs ^ rhs (floats)"> {
  let hasVerifier = 1;
}

def NN_ModOp : NN_BinaryOp<"mod", "lhs mod rhs"> {
  let description = [{
    The remainder of `lhs / rhs` with numpy broadcasting (ONNX Mod). With
    `fmod` it takes the sign of `lhs` (C's `fmod`, truncated division);
    without it the sign of `rhs` (Python's `%`, floored division), which
    only integers may use. An integer `rhs` of 0 gives 0 (ONNX leaves it
    undefined; the generated code must not trap).

    ```mlir
    %r = nn.mod %x, %y {fmod = true} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Comparisons, logic, selection and casts
//===----------------------------------------------------------------------===//

def NN_CompareOp : NN_PureOp<"compare", [SameOperandsElementType]> {
  let summary = "elementwise comparison with numpy broadcasting, giving booleans";
  let description = [{
    `lhs predicate rhs` per element (ONNX Equal, Less, LessOrEqual,
    Greater, GreaterOrEqual). Integers compare signed. Floats compare
    ordered: a comparison with a NaN is false, except `ne`, which is true.

    ```mlir
    %m = nn.compare %x, %y {predicate = #nn<compare_predicate lt>}
        : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs,
                       NN_ComparePredicateAttr:$predicate);
  let results = (outs NN_BoolTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def NN_LogicalOp : NN_PureOp<"logical"> {
  let summary = "elementwise and / or / xor of booleans with numpy broadcasting";
  let description = [{
    ```mlir
    %m = nn.logical %a, %b {kind = #nn<logical_kind and>}
        : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
    ```
  }];
  let arguments = (ins NN_BoolTensor:$lhs, NN_BoolTensor:$rhs,
                       NN_LogicalKindAttr:$kind);
  let results = (outs NN_BoolTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def NN_NotOp : NN_UnaryOp<"not", "!x (booleans)", NN_BoolTensor>;

def NN_SelectOp : NN_PureOp<"select"> {
  let summary = "elementwise choice between two tensors by a boolean mask (ONNX Where)";
  let description = [{
    `condition ? true_value : false_value` per element; the three operands
    broadcast together by numpy rules, and both values have one element
    type.

    ```mlir
    %z = nn.select %m, %x, %y
        : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins NN_BoolTensor:$condition, NN_AnyTensor:$true_value,
                       NN_AnyTensor:$false_value);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    functional-type(operands, results)
  }];
}

def NN_CastOp : NN_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "elementwise conversion to another element type (ONNX Cast)";
  let description = [{
    Floats convert with rounding to nearest even; floats to integers
    truncate toward zero (a value outside the integer's range has no
    defined result, as in ONNX); integers widen with their sign and narrow
    by dropping high bits; to `i1`, any non-zero value is true; from
    `i1`, true is 1.

    ```mlir
    %y = nn.cast %x : tensor<2x3xf32> to tensor<2x3xi64>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($output)";
  let hasFolder = 1;
}

class NN_QuantizationOp<string mnemonic>
    : NN_Op<mnemonic, [Pure, SameOperandsAndResultShape]> {
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($output)";
  let hasVerifier = 1;
}

def NN_QuantizeOp : NN_QuantizationOp<"quantize"> {
  let summary = "f32 to i8 by a scale and a zero point (ONNX QuantizeLinear)";
  let description = [{
    `saturate(round_half_even(x / scale) + zero_point)` into [-128, 127].
    Folds away an `nn.dequantize` of i8 with the same scales, zero points
    and axis (the QDQ pairs of imported ONNX models).
    `scales` and `zero_points` hold one value (per tensor) or one per
    element of dimension `axis` (per channel; negative counts from the
    end), which must then be static. Scales are positive and finite.

    ```mlir
    %q = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: -128>}
        : tensor<1x64x56x56xf32> to tensor<1x64x56x56xi8>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input,
                       DenseF32ArrayAttr:$scales,
                       DenseI64ArrayAttr:$zero_points,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs RankedTensorOf<[I8]>:$output);
  // quantize(dequantize(q)) with the same parameters is q: (q - zp) * s / s
  // is within an ulp of the integer q - zp, which rounding restores.
  let hasFolder = 1;
}

def NN_DequantizeOp : NN_QuantizationOp<"dequantize"> {
  let summary = "i8 or i32 to f32: (x - zero_point) * scale (ONNX DequantizeLinear)";
  let description = [{
    `(x - zero_point) * scale`, the difference taken in the integer type
    and converted to f32 once. `scales` and `zero_points` are per tensor
    (one value) or per element of dimension `axis`, as for `nn.quantize`.
    On an i32 accumulator this is the epilogue of a quantized convolution
    or matmul: the scale is `input_scale * weight_scale[channel]`, and the
    zero point carries the input's zero point times the channel's weight
    sum, less the bias in accumulator units, so that one subtraction and
    one multiply give the f32 result with its bias.

    ```mlir
    %y = nn.dequantize %acc {scales = array<f32: 1.0e-3, 2.0e-3>,
                             zero_points = array<i64: 40, -12>, axis = 1 : i64}
        : tensor<1x2x8x8xi32> to tensor<1x2x8x8xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I8, I32]>:$input,
                       DenseF32ArrayAttr:$scales,
                       DenseI64ArrayAttr:$zero_points,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs RankedTensorOf<[F32]>:$output);
}

def NN_TopKOp : NN_PureOp<"top_k"> {
  let summary = "the k largest (or smallest) elements along one axis and their indices";
  let description = [{
    ONNX TopK with a constant `k`: along `axis` (negative counts from the
    end), the `k` largest elements (`largest`, or the smallest) in order,
    best first, and their i64 indices. Of equal elements the one with the
    lower index comes first. The result is always sorted (ONNX leaves the
    order open when `sorted` is false). NaNs are not ordered: an input
    with NaNs has no defined result.

    ```mlir
    %v, %i = nn.top_k %x {k = 3 : i64, axis = 1 : i64}
        : (tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
    ```
  }];
  let arguments = (ins NN_NumericTensor:$input, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs NN_NumericTensor:$values, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def NN_CumSumOp : NN_SameTypeOp<"cumsum"> {
  let summary = "cumulative sum along one axis";
  let description = [{
    ONNX CumSum: element `i` along `axis` (negative counts from the end) is
    the sum of the elements up to and including `i`; `exclusive` leaves
    element `i` itself out (the first sum is 0), `reverse` sums from the
    end instead. Floats add in order, as a sequential scan would.

    ```mlir
    %y = nn.cumsum %x {axis = 1 : i64, exclusive = true} : tensor<2x10xf32>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs NN_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def NN_ConcatOp : NN_PureOp<"concat", [SameOperandsAndResultElementType]> {
  let summary = "concatenation along one axis";
  let description = [{
    ```mlir
    %y = nn.concat %a, %b {axis = 1 : i64}
        : (tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32>
    ```
  }];
  let arguments = (ins Variadic<NN_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def NN_BroadcastToOp : NN_PureOp<"broadcast_to"> {
  let summary = "broadcast to a shape by numpy rules (ONNX Expand)";
  let description = [{
    Aligns the input with `shape` from the last dimension; each input size
    must equal the target size or be 1 (then it is repeated). `shape` may
    have more dimensions than the input, never fewer, and a target size of
    1 keeps the input's size (ONNX Expand's two-way broadcast), so the
    result shape is the numpy broadcast of both.

    Target sizes known only at run time (a dynamic batch read by ONNX
    Shape) are `-1` entries of `shape`, one `sizes` operand each, in order;
    such an entry must not meet a dynamic input dimension, whose broadcast
    could not be decided when compiling.

    ```mlir
    %y = nn.broadcast_to %x {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %z = nn.broadcast_to %c sizes(%n) {shape = array<i64: -1, 1, 1>} : (tensor<1x1x32xf32>, index) -> tensor<?x1x32xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = [{
    $input (`sizes` `(` $sizes^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def NN_ReshapeOp : NN_PureOp<"reshape"> {
  let summary = "reshape to a new shape with the same number of elements";
  let description = [{
    `shape` gives the new sizes. Without `sizes` operands at most one may
    be `-1`, inferred from the element count. With them, every `-1` entry
    takes the next `sizes` operand: sizes known only at run time, such as
    those ONNX shape arithmetic computes from a dynamic batch. The element
    count must then agree at run time.

    ```mlir
    %y = nn.reshape %x {shape = array<i64: 1, -1>} : (tensor<1x8x2x2xf32>) -> tensor<1x32xf32>
    %z = nn.reshape %h sizes(%n4) {shape = array<i64: 17, -1, 8>} : (tensor<17x?x32xf32>, index) -> tensor<17x?x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = [{
    $input (`sizes` `(` $sizes^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def NN_FlattenOp : NN_PureOp<"flatten", [SameOperandsAndResultElementType]> {
  let summary = "collapse dimensions [axis, rank) into one (PyTorch flatten(x, axis))";
  let description = [{
    ```mlir
    %y = nn.flatten %x {axis = 1 : i64} : (tensor<?x512x1x1xf32>) -> tensor<?x512xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def NN_TransposeOp : NN_PureOp<"transpose", [SameOperandsAndResultElementType]> {
  let summary = "permute dimensions: result dim i is input dim perm[i]";
  let description = [{
    ```mlir
    %y = nn.transpose %x {perm = array<i64: 0, 2, 3, 1>}
        : (tensor<1x8x4x5xf32>) -> tensor<1x4x5x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def NN_PadOp : NN_PureOp<"pad", [SameOperandsAndResultElementType]> {
  let summary = "pad with a constant value, the edge value or a reflection";
  let description = [{
    `pads` holds, for every dimension, the elements added before it, then
    for every dimension the elements added after it (ONNX order: `b_0 ... b_(r-1), e_0 ... e_(r-1)`). Pads must not be negative.

    `mode` (ONNX Pad's): `constant` fills with `value`; `edge` repeats the
    nearest edge element (a padded dimension must not be empty);
    `reflect` mirrors the input about its edge elements, which are not
    repeated, so a pad must be smaller than the dimension's size.

    ```mlir
    %y = nn.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 2>, value = 0.0 : f64}
        : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x8xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<F64Attr, "0.0">:$value,
                       DefaultValuedAttr<NN_PadModeAttr,
                           "::mlir::dlas::nn::PadMode::Constant">:$mode);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def NN_SliceOp : NN_PureOp<"slice"> {
  let summary = "strided slice, steps of either sign";
  let description = [{
    Element `i` of the result along dimension `d` is element
    `offsets[d] + i * steps[d]` of the input; the result has `sizes[d]`
    elements there. Steps may be negative (walking backwards) but not zero;
    every index read must be inside the input. A size of `-1` takes the
    whole dimension (offset 0, step 1), which may be dynamic. With
    `sizes(...)` operands, each `-1` takes the next operand instead: that
    many elements from its offset with step 1, a size known at run time
    only (checked at run time to stay inside the input). ONNX's Slice,
    with its clamping of starts and ends, imports to this (its run-time
    `ends` to such operands).

    ```mlir
    %y = nn.slice %x {offsets = array<i64: 0, 7>, sizes = array<i64: 2, 4>, steps = array<i64: 1, -2>}
        : (tensor<2x8xf32>) -> tensor<2x4xf32>
    %m = nn.slice %mask sizes(%t, %t) {offsets = array<i64: 0, 0>, sizes = array<i64: -1, -1>, steps = array<i64: 1, 1>}
        : (tensor<64x64xf32>, index, index) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, Variadic<Index>:$dynamic_sizes,
                       DenseI64ArrayAttr:$offsets, DenseI64ArrayAttr:$sizes,
                       DenseI64ArrayAttr:$steps);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = [{
    $input (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

def NN_ReduceOp : NN_PureOp<"reduce", [SameOperandsAndResultElementType]> {
  let summary = "reduction over any set of axes";
  let description = [{
    Reduces `axes` (distinct, negative counting from the end) with `kind`:
    `sum`, `mean`, `max`, `min`, `prod`, `l1` (sum of |x|), `l2`
    (sqrt of the sum of squares), `sum_square`, `log_sum` and
    `log_sum_exp` (computed as m + log(sum(exp(x - m))) with m the
    maximum). With `keepdims` the reduced axes stay as size 1, else they
    are dropped. Floating-point inputs; `mean` needs static reduced
    dimensions.

    ```mlir
    %y = nn.reduce %x {kind = #nn<reduce_kind mean>, axes = array<i64: 1>, keepdims = true}
        : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_ReduceKindAttr:$kind,
                       DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs NN_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

class NN_ArgReduceOp<string mnemonic, string extremum>
    : NN_PureOp<mnemonic> {
  let summary = "index of the " # extremum # " along one axis";
  let description = [{
    The index (i64) of the }] # extremum # [{ element along `axis`; the first
    one on ties, or the last with `select_last_index`. With `keepdims` the
    axis stays as size 1. Floating-point inputs; a NaN is never selected
    (unlike numpy, which returns the first NaN).

    ```mlir
    %i = nn.}] # mnemonic # [{ %x {axis = 1 : i64, keepdims = false}
        : (tensor<2x10xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs TensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def NN_ArgMaxOp : NN_ArgReduceOp<"arg_max", "largest">;
def NN_ArgMinOp : NN_ArgReduceOp<"arg_min", "smallest">;

def NN_ResizeOp : NN_PureOp<"resize"> {
  let summary = "spatial up/down-sampling (nearest, bilinear, bicubic) of NCHW tensors";
  let description = [{
    Resizes H and W of an NCHW tensor with ONNX Resize's semantics. Give
    exactly one of `scales` (`[s_h, s_w]`, output size `floor(size * s)`)
    or `sizes` (`[H_out, W_out]`, scale `out / in`). A `sizes` entry of -1
    takes the next `sizes(...)` operand: an output size known only at run
    time (`F.interpolate(x, size=y.shape[-2:])` on images of any size).

    `coordinates` maps output index `x` to source coordinate `x'`, with
    `L = size * scale` (unrounded when `scales` is given):
    `asymmetric` `x / s`; `half_pixel` `(x + 0.5) / s - 0.5`;
    `pytorch_half_pixel` the same, or `-0.5` where `L` is 1;
    `align_corners` `x * (in - 1) / (L - 1)`, or 0 where `L` is 1;
    `tf_crop_and_resize` samples the box `roi` (`[h_start, w_start, h_end,
    w_end]`, fractions of the input) at `start * (in - 1) + x * (end -
    start) * (in - 1) / (L - 1)`, or at the box's middle where `L` is 1,
    and writes `extrapolation_value` where that falls outside
    `[0, in - 1]`.
    Without it: `asymmetric` for `nearest` and `half_pixel` otherwise,
    PyTorch `interpolate`'s conventions.

    `nearest` reads the source at `x'` rounded by `nearest_mode`;
    `bilinear` blends the 2 and `bicubic` the 4 neighbours of `floor(x')`
    per axis (cubic convolution with `cubic_coeff_a`; with
    `exclude_outside` the weights of neighbours outside the input are
    dropped and the rest renormalized). Neighbour indices clamp to the
    edge. Coordinates are computed in f64, blends in f32.

    ```mlir
    %y = nn.resize %x {mode = #nn<resize_mode bilinear>, scales = array<f64: 2.0, 2.0>}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
    %z = nn.resize %x sizes(%h, %w) {mode = #nn<resize_mode bilinear>, sizes = array<i64: -1, -1>}
        : (tensor<1x3x?x?xf32>, index, index) -> tensor<1x3x?x?xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor4D:$input, Variadic<Index>:$dynamic_sizes,
                       DefaultValuedAttr<NN_ResizeModeAttr,
                           "::mlir::dlas::nn::ResizeMode::Nearest">:$mode,
                       OptionalAttr<DenseF64ArrayAttr>:$scales,
                       OptionalAttr<DenseI64ArrayAttr>:$sizes,
                       OptionalAttr<NN_ResizeCoordinatesAttr>:$coordinates,
                       DefaultValuedAttr<NN_NearestRoundingAttr,
                           "::mlir::dlas::nn::NearestRounding::Floor">:$nearest_mode,
                       DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       OptionalAttr<DenseF64ArrayAttr>:$roi,
                       DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value);
  let results = (outs NN_FloatTensor4D:$output);
  let assemblyFormat = [{
    $input (`sizes` `(` $dynamic_sizes^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// `coordinates`, or the mode's default when it is absent.
    ::mlir::dlas::nn::ResizeCoordinates getEffectiveCoordinates() {
      if (std::optional<::mlir::dlas::nn::ResizeCoordinates> c = getCoordinates())
        return *c;
      return getMode() == ::mlir::dlas::nn::ResizeMode::Nearest
                 ? ::mlir::dlas::nn::ResizeCoordinates::Asymmetric
                 : ::mlir::dlas::nn::ResizeCoordinates::HalfPixel;
    }
  }];
}

def NN_GatherOp : NN_PureOp<"gather"> {
  let summary = "elements picked along one axis by run-time indices (ONNX Gather)";
  let description = [{
    `output[i..., j..., k...] = data[i..., indices[j...], k...]` with the
    `i` dimensions before `axis` and the `k` dimensions after it; the result
    has shape `data[:axis] + indices.shape + data[axis+1:]`. A negative
    index counts from the end (ONNX). An index outside `[-n, n)` is clamped
    to the nearest end: the generated code never reads out of bounds, but
    such an input has no defined result (ONNX calls it an error). Constant
    indices are better imported as slices (the importer does).

    ```mlir
    %y = nn.gather %table, %ids {axis = 0 : i64}
        : (tensor<1000x64xf32>, tensor<2x5xi64>) -> tensor<2x5x64xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$data,
                       RankedTensorOf<[I32, I64]>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def NN_GatherElementsOp : NN_PureOp<"gather_elements"> {
  let summary = "elements picked per position along one axis (ONNX GatherElements)";
  let description = [{
    `output[p] = data[p with p[axis] replaced by indices[p]]`: the result
    has the shape of `indices`, which has the rank of `data` and no larger
    size than `data` outside `axis`. Negative indices count from the end;
    indices outside `[-n, n)` are clamped as in `nn.gather`.

    ```mlir
    %y = nn.gather_elements %x, %i {axis = 1 : i64}
        : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$data,
                       RankedTensorOf<[I32, I64]>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs NN_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Recurrent layers
//===----------------------------------------------------------------------===//

// The attributes nn.lstm, nn.gru and nn.rnn share.
defvar NN_RecurrentAttrs = (ins
    DefaultValuedAttr<NN_RnnDirectionAttr,
        "::mlir::dlas::nn::RnnDirection::Forward">:$direction,
    OptionalAttr<NN_RnnActivationArrayAttr>:$activations,
    OptionalAttr<DenseF64ArrayAttr>:$activation_alpha,
    OptionalAttr<DenseF64ArrayAttr>:$activation_beta,
    OptionalAttr<F64Attr>:$clip);

class NN_RecurrentOp<string mnemonic, int gates, list<string> defaults,
                     list<Trait> traits = []>
    : NN_PureOp<mnemonic, traits> {
  // Gate blocks in the weights (LSTM i,o,f,c; GRU z,r,h; RNN one).
  int numGates = gates;
  let extraClassDeclaration = [{
    static constexpr int64_t kNumGates = }] # gates # [{;
    /// Activation functions per direction, in ONNX's order.
    static constexpr int64_t kActivationsPerDirection = }] # !size(defaults) # [{;
    int64_t getNumDirections() {
      return getDirection() == ::mlir::dlas::nn::RnnDirection::Bidirectional ? 2 : 1;
    }
    int64_t getHiddenSize() {
      return ::llvm::cast<::mlir::RankedTensorType>(getRecurrence().getType())
          .getDimSize(2);
    }
    /// Activation `i` of direction `d` (the defaults without `activations`),
    /// with its alpha and beta (ONNX's defaults where not given).
    ::mlir::dlas::nn::RnnActivation getActivation(int64_t d, int64_t i) {
      if (::mlir::ArrayAttr list = getActivationsAttr())
        return ::llvm::cast<::mlir::dlas::nn::RnnActivationAttr>(
            list[d * kActivationsPerDirection + i]).getValue();
      static const ::mlir::dlas::nn::RnnActivation defaults[] = {}] #
        !interleave(!foreach(a, defaults, "::mlir::dlas::nn::RnnActivation::" # a), ", ") # [{};
      return defaults[i];
    }
    double getAlpha(int64_t d, int64_t i) {
      if (auto alpha = getActivationAlpha())
        return (*alpha)[d * kActivationsPerDirection + i];
      return ::mlir::dlas::nn::defaultRnnActivationAlpha(getActivation(d, i));
    }
    double getBeta(int64_t d, int64_t i) {
      if (auto beta = getActivationBeta())
        return (*beta)[d * kActivationsPerDirection + i];
      return ::mlir::dlas::nn::defaultRnnActivationBeta(getActivation(d, i));
    }
  }];
}

defvar NN_RecurrentCommonDoc = [{
    Operands follow ONNX (layout 0): `input` is `[seq, batch, input_size]`,
    `weights` `[D, G*H, input_size]` and `recurrence` `[D, G*H, H]` with the
    G gate blocks in ONNX's order, `bias` `[D, 2*G*H]` (the input biases,
    then the recurrent ones), `initial_h` `[D, batch, H]`; D is 2 when
    `direction` is `bidirectional` (the forward direction first), else 1.
    Results: `output` `[seq, D, batch, H]`, every step's hidden state, and
    `final_h` `[D, batch, H]`.

    `sequence_lens` (i32, `[batch]`) gives each sequence's length: a
    direction runs over the first `len` steps only (reverse from `len - 1`),
    `output` is zero after them and `final_h` is the state after the last
    of them. `activations` lists the functions per direction (forward's,
    then reverse's), `activation_alpha`/`activation_beta` one value per
    entry of `activations` (ignored by functions without one). `clip`
    bounds the gate pre-activations to `[-clip, clip]`.
}];

def NN_LstmOp : NN_RecurrentOp<"lstm", 4, ["Sigmoid", "Tanh", "Tanh"],
                               [AttrSizedOperandSegments]> {
  let summary = "long short-term memory layer (ONNX LSTM)";
  let description = [{
    With gates i, o, f, c (in that order in the weights) and activations
    `f, g, h` (default sigmoid, tanh, tanh):
    `i = f(Xi + Hi + Pi . C)`, `f = f(Xf + Hf + Pf . C)` (`1 - i` with
    `input_forget`), `c = g(Xc + Hc)`, `C' = f . C + i . c`,
    `o = f(Xo + Ho + Po . C')`, `H' = o . h(C')`, where `X*` are the input
    projections plus both biases, `H*` the recurrent ones, and `P` the
    optional `peepholes` `[D, 3*H]` (i, o, f).
  }] # NN_RecurrentCommonDoc # [{
    A third result `final_c` is the cell state after the last step;
    `initial_c` has the shape of `initial_h`.

    ```mlir
    %y, %h, %c = nn.lstm %x, %w, %r, %b, %h0, %c0
        : (tensor<5x1x8xf32>, tensor<1x64x8xf32>, tensor<1x64x16xf32>,
           tensor<1x128xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
        -> (tensor<5x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
    ```
  }];
  let arguments = !con((ins NN_FloatTensor:$input, NN_FloatTensor:$weights,
                            NN_FloatTensor:$recurrence, NN_FloatTensor:$bias,
                            NN_FloatTensor:$initial_h, NN_FloatTensor:$initial_c,
                            Optional<TensorOf<[I32]>>:$sequence_lens,
                            Optional<NN_FloatTensor>:$peepholes),
                       NN_RecurrentAttrs,
                       (ins DefaultValuedAttr<BoolAttr, "false">:$input_forget));
  let results = (outs NN_FloatTensor:$output, NN_FloatTensor:$final_h,
                      NN_FloatTensor:$final_c);
  let assemblyFormat = [{
    $input `,` $weights `,` $recurrence `,` $bias `,` $initial_h `,` $initial_c
    (`lengths` $sequence_lens^)? (`peepholes` $peepholes^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def NN_GruOp : NN_RecurrentOp<"gru", 3, ["Sigmoid", "Tanh"]> {
  let summary = "gated recurrent unit layer (ONNX GRU)";
  let description = [{
    With gates z, r, h (in that order in the weights) and activations
    `f, g` (default sigmoid, tanh): `z = f(Xz + Hz)`, `r = f(Xr + Hr)`,
    `h = g(Xh + (r . H) Rh^T + Rbh)`, or with `linear_before_reset`
    (PyTorch's form) `h = g(Xh + r . (H Rh^T + Rbh))`;
    `H' = (1 - z) . h + z . H`.
  }] # NN_RecurrentCommonDoc # [{

    ```mlir
    %y, %h = nn.gru %x, %w, %r, %b, %h0 {linear_before_reset = true}
        : (tensor<5x1x8xf32>, tensor<1x48x8xf32>, tensor<1x48x16xf32>,
           tensor<1x96xf32>, tensor<1x1x16xf32>)
        -> (tensor<5x1x1x16xf32>, tensor<1x1x16xf32>)
    ```
  }];
  let arguments = !con((ins NN_FloatTensor:$input, NN_FloatTensor:$weights,
                            NN_FloatTensor:$recurrence, NN_FloatTensor:$bias,
                            NN_FloatTensor:$initial_h,
                            Optional<TensorOf<[I32]>>:$sequence_lens),
                       NN_RecurrentAttrs,
                       (ins DefaultValuedAttr<BoolAttr, "false">:$linear_before_reset));
  let results = (outs NN_FloatTensor:$output, NN_FloatTensor:$final_h);
  let assemblyFormat = [{
    $input `,` $weights `,` $recurrence `,` $bias `,` $initial_h
    (`lengths` $sequence_lens^)? attr-dict `:` functional-type(operands, results)
  }];
}

def NN_RnnOp : NN_RecurrentOp<"rnn", 1, ["Tanh"]> {
  let summary = "simple (Elman) recurrent layer (ONNX RNN)";
  let description = [{
    `H' = f(X Wi^T + H Ri^T + Wbi + Rbi)` with activation `f` (default tanh).
  }] # NN_RecurrentCommonDoc # [{

    ```mlir
    %y, %h = nn.rnn %x, %w, %r, %b, %h0
        : (tensor<5x1x8xf32>, tensor<1x16x8xf32>, tensor<1x16x16xf32>,
           tensor<1x32xf32>, tensor<1x1x16xf32>)
        -> (tensor<5x1x1x16xf32>, tensor<1x1x16xf32>)
    ```
  }];
  let arguments = !con((ins NN_FloatTensor:$input, NN_FloatTensor:$weights,
                            NN_FloatTensor:$recurrence, NN_FloatTensor:$bias,
                            NN_FloatTensor:$initial_h,
                            Optional<TensorOf<[I32]>>:$sequence_lens),
                       NN_RecurrentAttrs);
  let results = (outs NN_FloatTensor:$output, NN_FloatTensor:$final_h);
  let assemblyFormat = [{
    $input `,` $weights `,` $recurrence `,` $bias `,` $initial_h
    (`lengths` $sequence_lens^)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // DLAS_DIALECT_NN_NNOPS_TD
