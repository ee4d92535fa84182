//===- Passes.td - graph-level passes on the nn dialect ----*- tablegen -*-===//
#ifndef DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD
#define DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineLayers : Pass<"dlas-outline-layers", "mlir::ModuleOp"> {
  let summary = "Give every nn layer a function of its own";
  let description = [{
    Moves each nn op that computes (everything but `reshape` and `flatten`,
    which only relabel memory) of every public function into a private
    function `@<caller>_layer<N>_<op>` marked `noinline` and named after the
    op's location in `dlas.layer`, and calls it. Constant operands move
    into the layer function with the op. Elementwise ops of the same type
    that consume a layer's result one after the other (each the only user
    of the one before: an activation, a residual add) join its function,
    so that the CPU microkernels can apply them before they store. A
    `max_pool2d` that reads a convolution's result (after those ops, as
    their only user) joins the convolution's function too, where the
    convolution may run in the blocked layout (dense, NCHW, f32, channels
    multiples of 8), so that `dlas-blocked-conv-microkernel` can fuse it.

    Why: LLVM's loop passes (IndVarSimplify above all) grow superlinearly
    with the size of one function; a 120-convolution DenseNet compiled as
    one function spends most of its ~39 s there, as one function per layer
    about a tenth. Layer functions are also the unit a per-layer profile
    times.

    Before:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %y = nn.relu %x : tensor<1x8xf32>
      return %y : tensor<1x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %y = call @main_layer0_relu(%x) : (tensor<1x8xf32>) -> tensor<1x8xf32>
      return %y : tensor<1x8xf32>
    }
    func.func private @main_layer0_relu(%arg0: tensor<1x8xf32>) -> tensor<1x8xf32>
        attributes {dlas.layer = "...", passthrough = ["noinline"]} {
      %0 = nn.relu %arg0 : tensor<1x8xf32>
      return %0 : tensor<1x8xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layer functions created">
  ];
}

def SinkReshapes : Pass<"dlas-sink-reshapes"> {
  let summary = "Move nn.reshape below the elementwise ops that consume it";
  let description = [{
    Exporters compute a dense layer on a [tokens, features] matrix and
    reshape its result back to [batch, tokens, features] (or [N, H, W, C])
    before the bias add, the activation and the next layer's reshape to a
    matrix. The reshape then separates the matmul from the elementwise ops
    that its kernel would apply before storing (dlas-outline-layers joins
    only direct consumers). For a reshape that adds dimensions, this pass
    rewrites `op(reshape(x), w)` into `reshape(op(x, w'))` for elementwise
    nn ops (activations, math functions, add, sub, mul, div, max, min,
    pow, mod) when every dimension `w` varies along is one of the trailing
    dimensions the reshape keeps (`w'` is `w` reshaped to those trailing
    dimensions when it has more), when `w` has the whole result shape (a
    residual: reshaped to `x`'s), or when both operands are the same
    reshape of equal shapes; unary ops always move. Repeated, the reshape
    sinks to the next op that is not
    elementwise, where a reshape back (the next matmul's) cancels it
    (canonicalization). Static shapes only.

    Before:
    ```mlir
    %y = nn.matmul %x, %w : (tensor<197x768xf32>, tensor<768x3072xf32>) -> tensor<197x3072xf32>
    %r = nn.reshape %y : (tensor<197x3072xf32>) -> tensor<1x197x3072xf32>
    %b = nn.add %r, %bias : (tensor<1x197x3072xf32>, tensor<3072xf32>) -> tensor<1x197x3072xf32>
    %g = nn.gelu %b : tensor<1x197x3072xf32>
    ```
    After:
    ```mlir
    %y = nn.matmul %x, %w : (tensor<197x768xf32>, tensor<768x3072xf32>) -> tensor<197x3072xf32>
    %b = nn.add %y, %bias : (tensor<197x3072xf32>, tensor<3072xf32>) -> tensor<197x3072xf32>
    %g = nn.gelu %b : tensor<197x3072xf32>
    %r = nn.reshape %g : (tensor<197x3072xf32>) -> tensor<1x197x3072xf32>
    ```
  }];
  let statistics = [
    Statistic<"numSunk", "sunk", "Elementwise ops moved above a reshape">
  ];
}

def FoldBatchNorm : Pass<"dlas-fold-batch-norm"> {
  let summary = "Fold inference batch norm into the convolution before it";
  let description = [{
    `batch_norm(conv2d(x, W, b))` with constant `W`, `b` and batch-norm
    parameters (spatial mode, NCHW, f32) and no other use of the convolution
    becomes `conv2d(x, W', b')` with `W'[f] = W[f] * a[f]` and
    `b'[f] = (b[f] - mean[f]) * a[f] + beta[f]`,
    `a = gamma / sqrt(var + eps)`, computed at compile time into new
    `dense_resource` blobs. A 3-D convolution's batch norm (on the 4-D view
    that keeps N and C, as the ONNX importer writes a 5-D one) folds into
    the `conv3d` alike, the view moving onto its result. Batch norms that
    follow anything else (pre-activation networks such as DenseNet) stay as
    they are.

    Before:
    ```mlir
    %c = nn.conv2d %x, %w : (...) -> tensor<1x8x4x4xf32>
    %y = nn.batch_norm %c, %g, %b, %m, %v : (...) -> tensor<1x8x4x4xf32>
    ```
    After:
    ```mlir
    %y = nn.conv2d %x, %w_bn, %b_bn : (...) -> tensor<1x8x4x4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Batch norms folded into convolutions">
  ];
}

def CalibrationProbes : Pass<"dlas-calibration-probes", "mlir::ModuleOp"> {
  let summary = "Return every quantizable layer's input, for int8 calibration";
  let description = [{
    For every public function, appends the input activation of each layer
    that `dlas-mixed-precision{policy=int8}` would quantize (conv2d, linear
    and matmul in f32 with a constant weight) to the function's results,
    and lists them on the module as `dlas.calibration_probes`: one
    dictionary per probe with the function, the layer's key
    (`<function>#<ordinal>`, the ordinal counting quantizable layers in
    walk order), its description and the result index. `dlas-run
    --calibrate DIR` compiles the model with this pass where the precision
    policy would run, runs it on every sample in DIR and records each
    probe's range in a calibration file, which the int8 policy reads. Put
    it at the same place in a pipeline as `dlas-mixed-precision`, after
    the same passes, so that the keys name the same layers.

    ```mlir
    // Before:
    func.func @main(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
      %y = nn.conv2d %x, %w : (...) -> tensor<1x8x4x4xf32>
      return %y : tensor<1x8x4x4xf32>
    }
    // After:
    module attributes {dlas.calibration_probes = [{function = "main",
        key = "main#0", layer = "conv2d loc(...)", result = 1 : i64} ]} {
      func.func @main(%x: tensor<1x8x4x4xf32>)
          -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
        %y = nn.conv2d %x, %w : (...) -> tensor<1x8x4x4xf32>
        return %y, %x : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
      }
    }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numProbes", "probes", "Layer inputs returned for calibration">
  ];
}

def FoldQDQ : Pass<"dlas-fold-qdq"> {
  let summary = "Run the float layers of QDQ-quantized models on the int8 kernels";
  let description = [{
    A model quantized in the QDQ form (onnxruntime's quantizer, PyTorch's
    ONNX export of a quantized model) imports as float layers between
    `nn.dequantize` and `nn.quantize`, with weights that are int8 values
    times a scale. For each conv2d (not depthwise, not transposed), linear,
    or matmul with a constant f32 weight whose input is an `nn.dequantize`
    of i8 per tensor, this pass rewrites the layer as
    `dlas-mixed-precision{policy=int8}` does, taking the input's scale and
    zero point from that `nn.dequantize` instead of a calibration: the
    integer layer into i32 and one `nn.dequantize` with the bias. The
    input's `nn.quantize(nn.dequantize(q))` then folds to `q`.

    Weights are requantized per output channel on the int8 grid they were
    made on: the scale max |w| / k for the largest k <= 128 at which every
    weight is an integer multiple of it in [-128, 127]. Only weights that
    this reproduces (relative L2 error within `max-weight-error`, 1e-6 by
    default) are rewritten, so the result is the model's own quantized
    arithmetic, accumulated exactly in i32; other layers stay float.
    `print` lists each decision.

    ```mlir
    %d = nn.dequantize %q {scales = array<f32: 0.02>, zero_points = array<i64: -3>} : tensor<1x8x8x8xi8> to tensor<1x8x8x8xf32>
    %y = nn.conv2d %d, %w : (tensor<1x8x8x8xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x8x8xf32>
    ```
    becomes
    ```mlir
    %acc = nn.conv2d %q, %w_i8 : (tensor<1x8x8x8xi8>, tensor<16x8x1x1xi8>) -> tensor<1x16x8x8xi32>
    %y = nn.dequantize %acc {scales = ..., zero_points = ...} : tensor<1x16x8x8xi32> to tensor<1x16x8x8xf32>
    ```
  }];
  let options = [
    Option<"maxWeightError", "max-weight-error", "double", "1.0e-6",
           "Largest relative L2 error of a weight requantized per channel">,
    Option<"print", "print", "bool", "false",
           "Print each layer's decision to stdout">,
  ];
  let statistics = [
    Statistic<"numFolded", "layers-folded", "Layers rewritten into int8">,
  ];
}

def HoistQuantize : Pass<"dlas-hoist-quantize"> {
  let summary = "Move per-tensor nn.quantize above max pools, concats and reshapes, so that int8 layers exchange i8 tensors";
  let description = [{
    An int8 layer quantizes its f32 input; when that input is a max pool,
    a concat or a reshape of the previous layers' f32 results, the pool
    reads and writes f32 and the quantize runs as a pass of its own over
    its output. These ops commute with a per-tensor quantize (it is
    monotonic; the ops move or select elements): `quantize(max_pool(x))`
    equals `max_pool(quantize(x))` exactly (the i8 pool pads with -128,
    below every quantized value), and likewise for `concat` and
    `reshape`/`flatten`. For such an op whose f32 result feeds only
    per-tensor `nn.quantize` ops, this pass quantizes the op's inputs
    instead and runs the op on i8, with the parameters of the widest
    quantize (the largest scale); a user with other parameters gets that
    i8 result requantized (`nn.quantize` of `nn.dequantize`, one rounding
    more). It repeats to a fixed point, so a quantize climbs through
    chains (GoogLeNet's concat, pool, concat) to the layers whose
    epilogues then store i8. An op with any other user keeps f32.

    ```mlir
    %p = nn.max_pool2d %x {...} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
    %q = nn.quantize %p {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : ...
    ```
    becomes
    ```mlir
    %qx = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : ...
    %q = nn.max_pool2d %qx {...} : (tensor<1x8x8x8xi8>) -> tensor<1x8x4x4xi8>
    ```
  }];
  let statistics = [
    Statistic<"numHoisted", "ops-hoisted", "Ops now running on i8">,
  ];
}

def QuantizeResiduals : Pass<"dlas-quantize-residuals"> {
  let summary = "Let residual adds read the i8 tensor their int8 neighbours already quantize, so that int8 blocks exchange i8";
  let description = [{
    Under the int8 policy a residual block's output `x` (f32) is read by
    the next block's first convolution, through a per-tensor
    `nn.quantize`, and by the next block's residual `nn.add`, as f32. The
    layer that produces `x` must then store it in f32, a quantize pass
    reads it back, and the add's layer reads it in f32 again: 9 bytes of
    traffic an element where i8 needs 2.

    For an f32 value defined by an op whose users are per-tensor
    quantizes and `nn.add`s only, this pass makes each add read
    `nn.dequantize` of the quantized value instead (the widest quantize,
    the largest scale, when they differ). `x` is then read only by
    quantizes: its layer's epilogue stores i8 (and `dlas-hoist-quantize`
    can move the quantize above a max pool that produces it), and the add's
    layer reads the i8 tensor and dequantizes it in its epilogue. This is
    the quantized add of PyTorch's and ONNX's int8 models (QLinearAdd):
    the skip connection carries the quantized activation, one rounding of
    at most half a step more than the f32 add. Values of function
    arguments are left alone (their producer is outside).

    ```mlir
    %q = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : ...
    %s = nn.add %y, %x : tensor<1x64x56x56xf32>
    ```
    becomes
    ```mlir
    %q = nn.quantize %x {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : ...
    %d = nn.dequantize %q {scales = array<f32: 0.05>, zero_points = array<i64: -128>} : ...
    %s = nn.add %y, %d : tensor<1x64x56x56xf32>
    ```
  }];
  let statistics = [
    Statistic<"numRewired", "adds-rewired", "Residual add operands now read from i8">,
  ];
}

def MixedPrecision : Pass<"dlas-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Run layers in bf16 or f16 under a per-layer policy with an accuracy guard";
  let description = [{
    Rewrites the f32 tensors of every function's nn ops into `bf16`
    (`policy=bf16`) or `f16` (`policy=fp16`), layer by layer:

    * Layers stay in f32 when the guard says so: the kinds in `keep-f32`
      (`first-conv`: the first convolution of a function, which sees the
      raw input; `classifier`: its last linear layer or matmul; `softmax`:
      every softmax and log-softmax; `depthwise`: depthwise convolutions,
      kept by default under `policy=int8`), and every layer whose constant
      weights lose more than `max-weight-error` (relative L2) by rounding,
      which includes any weight that overflows f16.
    * Constant weights are converted at compile time (new `dense_resource`
      blobs, rounded to nearest even); other f32 operands get an
      `nn.cast` where a low-precision region begins, and results an
      `nn.cast` back to f32 where it ends (the function's signature keeps
      its types). Casts of neighbouring regions fold (`nn.cast` folds an
      exact widening undone).
    * Non-nn ops (sparse kernels, func calls) keep their f32 operands.

    The lowering computes convolutions and matmuls in f32 accumulators on
    half-width operands and every other accumulating or transcendental op
    in f32 between casts; what gets faster is what moves fewer bytes and,
    with kernels for the target's bf16 instructions, the arithmetic.
    `policy=auto` picks bf16 when the module's `dlas.target` has
    `avx512bf16` or `amx-bf16`, f16 with `avx512fp16`, and leaves the
    module in f32 otherwise. `print` writes one line per layer: its
    choice and why.

    `policy=int8` (static post-training quantization) reads the
    activation ranges in `calibration` (made by `dlas-run --calibrate`,
    keyed as `dlas-calibration-probes` keys layers) and rewrites each
    quantizable layer (conv2d of every kind but transposed, linear, matmul
    with a constant right-hand side) that the guard lets through: its input
    becomes `nn.quantize` (per tensor, asymmetric: the calibrated range
    widened to hold 0, over 256 steps), its weight a per-output-channel
    symmetric i8 constant, the op accumulates in i32, and one
    `nn.dequantize` (scale `s_x * s_w[c]`, zero point
    `zp_x * sum(w_q[c]) - round(bias[c] / scale)`) gives back f32 with the
    bias added. A padded convolution whose input zero point is not 0 gets
    its padding as an explicit `nn.pad` with that zero point. Activations
    between layers stay f32. A calibration without an entry for a layer, or
    with one recorded for another layer, is an error.

    ```mlir
    // policy=bf16, keep-f32=first-conv:
    %c = nn.cast %x : tensor<1x8x4x4xf32> to tensor<1x8x4x4xbf16>
    %y = nn.conv2d %c, %w_bf16 : (...) -> tensor<1x8x4x4xbf16>
    %r = nn.cast %y : tensor<1x8x4x4xbf16> to tensor<1x8x4x4xf32>
    ```
  }];
  let options = [
    Option<"policy", "policy", "std::string", "\"bf16\"",
           "f32, bf16, fp16, int8 or auto">,
    ListOption<"keepF32", "keep-f32", "std::string",
               "Layer kinds that stay in f32: first-conv, classifier, "
               "softmax, depthwise (default: the first three, and "
               "depthwise for policy=int8; `none` for none)">,
    Option<"maxWeightError", "max-weight-error", "double", "-1.0",
           "A layer whose constant weights lose more than this (relative "
           "L2 error of the rounding) stays in f32 (negative: the policy's "
           "default, 1e-2 for bf16/fp16 and 5e-2 for int8)">,
    Option<"calibration", "calibration", "std::string", "\"\"",
           "policy=int8: the calibration file (JSON) with every "
           "quantizable layer's input range (dlas-run --calibrate)">,
    Option<"print", "print", "bool", "false",
           "Print every layer's precision and the reason">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numLowered", "lowered-layers", "Layers run in bf16 or f16">,
    Statistic<"numKept", "kept-layers", "Layers kept in f32 by the guard">,
    Statistic<"numCasts", "casts", "Casts placed at region edges">
  ];
}

#endif // DLAS_DIALECT_NN_TRANSFORMS_PASSES_TD
