//===- Passes.td - passes on the sparse dialect ------------*- tablegen -*-===//
#ifndef DLAS_DIALECT_SPARSE_TRANSFORMS_PASSES_TD
#define DLAS_DIALECT_SPARSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def Prune : Pass<"dlas-prune"> {
  let summary = "Magnitude-prune the constant weights of convolution and "
                "linear layers";
  let description = [{
    For experiments and tests: sets the smallest-magnitude weights of every
    `nn.conv2d` filter and `nn.linear` weight that is an f32
    `arith.constant` to zero, per layer, and replaces the constant (a new
    one: a constant shared with another user is not changed under it).
    The weight is viewed as a matrix `rows x cols` (a filter
    `F x C x KH x KW` as `F x (C * KH * KW)`).

    `structure`:
    * `unstructured`: the `round(sparsity * size)` smallest |w| become 0;
    * `block-RxC` (for example `block-4x1`): `R x C` blocks of the matrix
      are ranked by their L1 norm and the smallest `round(sparsity *
      blocks)` become 0 (a layer whose matrix is no multiple of the block
      is left dense and reported);
    * `N:M` (for example `2:4`): in every group of `M` consecutive elements
      of a row the `N` largest stay; `sparsity` is then `1 - N/M`.

    `report` prints, per layer, the achieved fraction of zeros.

    ```
    dlas-prune: conv2d "layer1.0.conv1" 64x64x3x3: 90.0% zeros (unstructured)
    ```
  }];
  let options = [
    Option<"sparsity", "sparsity", "double", "0.9",
           "Fraction of each layer's weights set to zero (0 to 1)">,
    Option<"structure", "structure", "std::string", "\"unstructured\"",
           "unstructured, block-RxC or N:M">,
    Option<"minElements", "min-elements", "int64_t", "0",
           "Leave weights with fewer elements dense">,
    Option<"report", "report", "bool", "false",
           "Print the achieved sparsity of every layer">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPruned", "pruned-layers", "Layers pruned">
  ];
}

def Sparsify : Pass<"dlas-sparsify", "mlir::ModuleOp"> {
  let summary = "Replace dense layers with sparse enough constant weights "
                "by sparse ones where the cost model says they win";
  let description = [{
    For every `nn.conv2d` (NCHW, f32) and `nn.linear` (f32) whose weight
    is an `arith.constant`, compresses the weight (CSR, or block-CSR with
    `R x 1` blocks where the non-zeros come in such blocks) and decides:

    * `policy=always`: sparse whenever the weight has a zero;
    * `policy=never`: nothing changes;
    * `policy=auto`: sparse when the fraction of stored elements is below
      the break-even density of the layer's kind (`conv1x1`, `conv` for
      larger kernels, `depthwise`, `linear`) on the module's target,
      from the calibration table (measured on such a machine by
      `bench/sparse_bench.py --calibrate FILE`, committed as
      `lib/Dialect/Sparse/Transforms/Calibration.json` and built in;
      `calibration` names another file). The table is keyed by the
      target's vector width (256: AVX2, 512: AVX-512).

    A convolution whose only user is an `nn.add` of a tensor of its own
    shape (a residual block's shortcut) gets the addition folded in as the
    sparse op's `residual`; a layer (or that addition) followed by
    `nn.relu` as its only user gets the ReLU fused, and a convolution
    without a residual whose result (or ReLU's) only feeds an NCHW
    `nn.max_pool2d` (no dilation) gets the pool fused (`fuse-pools`, on by
    default, for maps of at least `min-pool-positions`). The kernel
    computes bands of rows into a buffer in cache and pools them, saving
    the output's trip through memory; on small maps its bands are few, so
    more chunks of output channels each read the whole input again.
    Measured on a Zen 3 host (x86-64-v3, 1 thread, 10% density,
    `bench/sparse_pool_bench.py`): fused faster on 112x112 and 224x224
    maps, slower on 56x56 and below, hence the default of 8192. as `pool_kernel`,
    `pool_strides` and `pool_padding` (a `ceil_mode` pool's bottom and
    right padding grown to the windows it reaches). `print` explains every
    decision:

    ```
    dlas-sparsify: conv2d "conv1" 64x576 (conv): stored 0.10 in 1x1 blocks, break-even 0.40 (avx512, calibrated) -> sparse
    ```
  }];
  let options = [
    Option<"policy", "policy", "std::string", "\"auto\"",
           "auto (cost model), always or never">,
    Option<"calibration", "calibration", "std::string", "\"\"",
           "Calibration file (JSON) instead of the built-in table">,
    Option<"print", "print", "bool", "false",
           "Print every layer's decision and its reason">,
    Option<"fusePools", "fuse-pools", "bool", "true",
           "Fold a max pool after a sparse convolution into it">,
    Option<"minPoolPositions", "min-pool-positions", "int64_t", "8192",
           "Fold a max pool only after a convolution output of at least "
           "this many positions per channel (smaller maps measure faster "
           "with the pool apart, docs/Sparse.md)">,
  ];
  let dependentDialects = ["::mlir::dlas::sparse::SparseDialect",
                           "mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numSparsified", "sparse-layers", "Layers made sparse">,
    Statistic<"numResidualsFused", "residual-adds",
              "Residual additions folded into sparse convolutions">,
    Statistic<"numPoolsFused", "max-pools",
              "Max pools folded into sparse convolutions">
  ];
}

#endif // DLAS_DIALECT_SPARSE_TRANSFORMS_PASSES_TD
