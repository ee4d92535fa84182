//===- SparseOps.td - the DLAS `sparse` dialect ------------*- tablegen -*-===//
#ifndef DLAS_DIALECT_SPARSE_SPARSEOPS_TD
#define DLAS_DIALECT_SPARSE_SPARSEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Sparse_Dialect : Dialect {
  let name = "sparse";
  let cppNamespace = "::mlir::dlas::sparse";
  let summary = "Layers whose constant weights are sparse (CSR, block-CSR)";
  let description = [{
    The `sparse` dialect holds convolution and linear layers whose weight is
    a compile-time constant in a compressed form, and the ops that build
    such a weight. Activations stay dense.

    **Weight types.** A sparse weight is a 2-D `tensor` with an upstream
    `#sparse_tensor.encoding`, so that its format is spelled as every MLIR
    user already reads it. Two formats are accepted:

    * CSR: `map = (d0, d1) -> (d0 : dense, d1 : compressed)`;
    * block-CSR with `r x c` blocks (BSR): `map = (d0, d1) -> (d0 floordiv r
      : dense, d1 floordiv c : compressed, d0 mod r : dense, d1 mod c :
      dense)`. A block side of 1 has neither its `floordiv` nor its `mod`
      level (upstream folds `d floordiv 1` away): `r x 1` blocks, the ones
      `dlas-sparsify` picks, are `(d0 floordiv r : dense, d1 : compressed,
      d0 mod r : dense)`.

    A convolution's filter `C_out x C_in/groups x K_h x K_w` is the matrix
    `C_out x (C_in/groups * K_h * K_w)`: one compressed row per output
    channel, its columns the `(c, kh, kw)` taps in row-major order. That is
    where the upstream encodings stop fitting: a dimension-to-level map
    cannot fold three dimensions into one compressed level, so the 4-D
    filter is reshaped to 2-D (the op carries `kernel_size`) rather than
    given a 4-D encoding.

    **Data.** `sparse.constant` holds the compressed arrays (positions and
    coordinates as i32, values in the weight's element type), checked for
    consistency by its verifier; `sparse.pack` compresses a dense constant
    and canonicalizes to `sparse.constant`. `dlas-sparsify` creates these
    from `nn.conv2d`/`nn.linear`; `convert-sparse-to-loops` lowers the
    layers to vectorized loops that read only the non-zeros.
  }];
  let dependentDialects = ["::mlir::sparse_tensor::SparseTensorDialect"];
}

class Sparse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sparse_Dialect, mnemonic, traits>;

class Sparse_I64ArrayOfSize<int n, string defaultValue>
    : DefaultValuedAttr<ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<n>]>,
                        defaultValue>;

def Sparse_Weight : TypeConstraint<
    CPred<"::mlir::isa<::mlir::RankedTensorType>($_self) && "
          "::mlir::cast<::mlir::RankedTensorType>($_self).getRank() == 2 && "
          "::mlir::cast<::mlir::RankedTensorType>($_self).getElementType().isF32() && "
          "::mlir::cast<::mlir::RankedTensorType>($_self).getEncoding()">,
    "2-D f32 tensor with a #sparse_tensor.encoding",
    "::mlir::RankedTensorType">;

def Sparse_ConstantOp : Sparse_Op<"constant", [Pure]> {
  let summary = "a compressed constant weight (CSR or block-CSR)";
  let description = [{
    The arrays of a sparse weight of type `rows x cols` with CSR or `r x c`
    block-CSR encoding (CSR is `r = c = 1`). With `B = rows / r` block rows:

    * `positions` (`B + 1` entries): block row `i` holds blocks
      `positions[i]` to `positions[i+1] - 1`; `positions[0] = 0`;
    * `coordinates` (one per block): the block column, strictly increasing
      within a block row, below `cols / c`;
    * `values` (`r * c` per block, each block row-major).

    ```mlir
    %w = sparse.constant {positions = array<i32: 0, 1, 3>,
                          coordinates = array<i32: 2, 0, 3>,
                          values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}
        : tensor<2x4xf32, #CSR>
    ```
  }];
  let arguments = (ins DenseI32ArrayAttr:$positions,
                       DenseI32ArrayAttr:$coordinates,
                       FloatElementsAttr<32>:$values);
  let results = (outs Sparse_Weight:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of stored blocks (non-zeros for CSR).
    int64_t getNumStoredBlocks() { return getCoordinates().size(); }
  }];
}

def Sparse_PackOp : Sparse_Op<"pack", [Pure]> {
  let summary = "compress a dense constant weight at compile time";
  let description = [{
    The dense `source` (rank 2 or more; the trailing dimensions are
    flattened, so a convolution filter `F x C x KH x KW` becomes
    `F x (C * KH * KW)`) in the result's CSR or block-CSR format: every
    block with a non-zero element is stored, zeros within a stored block
    included. It canonicalizes to `sparse.constant` when `source` is an
    `arith.constant`; `convert-sparse-to-loops` refuses any other source.

    ```mlir
    %s = sparse.pack %w : tensor<64x64x3x3xf32> -> tensor<64x576xf32, #CSR>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$source);
  let results = (outs Sparse_Weight:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Sparse_Conv2DOp : Sparse_Op<"conv2d", [Pure, AttrSizedOperandSegments]> {
  let summary = "2-D convolution with a sparse constant filter";
  let description = [{
    `nn.conv2d` (NCHW, f32) whose filter is a sparse weight of
    `C_out x (C_in/groups * K_h * K_w)` (`kernel_size = [K_h, K_w]`), with
    an optional `bias` (`C_out`), an optional `residual` added to the
    result (of the result's shape: a residual block's shortcut), an
    optional fused ReLU (`relu`) and an optional fused max pool:
    `max_pool(relu(conv(input) + bias + residual))`.
    `strides`, `padding` (`[top, left, bottom, right]`), `dilations` and
    `groups` mean what they mean for `nn.conv2d`. A block-CSR filter's
    block rows must not straddle groups.

    With `pool_kernel`, the result is the max pool of the convolution's
    output over `pool_kernel` windows moving by `pool_strides` (default 1);
    `pool_padding` (`[top, left, bottom, right]`, default 0, each side
    below the window's) never wins. An `nn.max_pool2d` with `ceil_mode` is
    the same pool with its bottom and right padding grown to the windows it
    reaches. The kernel pools each band of convolution rows while it is in
    cache, so the convolution's output never goes to memory. A pool does
    not combine with `residual`.

    ```mlir
    %y = sparse.conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>,
                                   padding = array<i64: 1, 1, 1, 1>, relu}
        : (tensor<1x64x56x56xf32>, tensor<64x576xf32, #CSR>, tensor<64xf32>)
        -> tensor<1x64x56x56xf32>
    %z = sparse.conv2d %y, %w2, %b2 residual %x {kernel_size = array<i64: 1, 1>, relu}
        : (tensor<1x64x56x56xf32>, tensor<64x64xf32, #CSR>, tensor<64xf32>,
           tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %p = sparse.conv2d %img, %w7, %b7 {kernel_size = array<i64: 7, 7>,
                                      strides = array<i64: 2, 2>,
                                      padding = array<i64: 3, 3, 3, 3>, relu,
                                      pool_kernel = array<i64: 3, 3>,
                                      pool_strides = array<i64: 2, 2>,
                                      pool_padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x224x224xf32>, tensor<64x147xf32, #CSR>, tensor<64xf32>)
        -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins 4DTensorOf<[F32]>:$input, Sparse_Weight:$filter,
                       Optional<1DTensorOf<[F32]>>:$bias,
                       Optional<4DTensorOf<[F32]>>:$residual,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>:$kernel_size,
                       Sparse_I64ArrayOfSize<2, "{1, 1}">:$strides,
                       Sparse_I64ArrayOfSize<4, "{0, 0, 0, 0}">:$padding,
                       Sparse_I64ArrayOfSize<2, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       UnitAttr:$relu,
                       OptionalAttr<ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>>:$pool_kernel,
                       OptionalAttr<ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>>:$pool_strides,
                       OptionalAttr<ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<4>]>>:$pool_padding);
  let results = (outs 4DTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? (`residual` $residual^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The fused max pool's window, strides and padding ([top, left,
    /// bottom, right]); no window when the op has none.
    struct Pool {
      SmallVector<int64_t, 2> kernel, strides{1, 1};
      SmallVector<int64_t, 4> padding{0, 0, 0, 0};
      explicit operator bool() const { return !kernel.empty(); }
    };
    Pool getPool();
    /// The convolution's output rows and columns (before a fused pool):
    /// the input padded, less the dilated window, over the stride, plus 1;
    /// -1 where the window does not fit.
    std::pair<int64_t, int64_t> getConvOutputSize();
    /// Checks the pool attributes against the convolution's output size
    /// and returns the result's spatial size.
    FailureOr<std::pair<int64_t, int64_t>> verifyPool(int64_t outH,
                                                      int64_t outW);
  }];
}

def Sparse_LinearOp : Sparse_Op<"linear", [Pure]> {
  let summary = "fully connected layer with a sparse constant weight";
  let description = [{
    As `nn.linear`: input `N x K`, sparse weight `O x K`, optional bias
    `O`, result `N x O`, with an optional fused ReLU (`relu`). A matrix
    product `x * W` with a constant `W` is `linear` with `W`'s transpose.

    ```mlir
    %y = sparse.linear %x, %w, %b
        : (tensor<8x1024xf32>, tensor<1024x1024xf32, #BSR>, tensor<1024xf32>)
        -> tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$input, Sparse_Weight:$weight,
                       Optional<1DTensorOf<[F32]>>:$bias, UnitAttr:$relu);
  let results = (outs 2DTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // DLAS_DIALECT_SPARSE_SPARSEOPS_TD
