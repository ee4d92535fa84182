//===- Passes.td - DLAS code generation passes -------------*- tablegen -*-===//
#ifndef DLAS_CODEGEN_PASSES_TD
#define DLAS_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttachTarget : Pass<"dlas-attach-target", "mlir::ModuleOp"> {
  let summary = "Put the named CPU target on the module as dlas.target";
  let description = [{
    Resolves a target name to a `#dlas.cpu_target` and sets it as the
    module's `dlas.target`, which every DLAS code generation pass reads
    (vector width, register budget, caches) and the JIT and object paths use
    for their LLVM target machine.

    Names: `x86-64-v3` (AVX2 + FMA), `x86-64-v4` (AVX-512 F/BW/DQ/VL), and
    any LLVM x86-64 CPU name (`znver3`, `znver4`, `skylake-avx512`,
    `icelake-server`, `sapphirerapids`, ...). The CPU's features come from
    LLVM's x86 target parser; cache sizes from a table of common CPUs (the
    ISA level's row for others). `features`, `vector-bits`, `l1`, `l2` and
    `l3` override them. This pass never asks the machine it runs on: `host`
    is refused here and resolved by the tools and by
    `dlas-cpu-pipeline{target=host}`.

    ```mlir
    // dlas-opt --dlas-attach-target=target=x86-64-v3
    module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3",
        features = "+sse4.2,+avx,+avx2,+fma,+f16c", vector_bits = 256,
        vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432,
        fma_per_cycle = 2>} { ... }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "Target name (x86-64-v3, x86-64-v4, an LLVM x86-64 CPU name)">,
    Option<"features", "features", "std::string", "\"\"",
           "Comma-separated +name/-name changes to the CPU's features">,
    Option<"vectorBits", "vector-bits", "int64_t", "0",
           "Vector width kernels use (0: the widest the features allow)">,
    Option<"l1", "l1", "int64_t", "0", "L1 data cache bytes (0: table)">,
    Option<"l2", "l2", "int64_t", "0", "L2 cache bytes per core (0: table)">,
    Option<"l3", "l3", "int64_t", "0", "L3 cache bytes (0: table)">,
    Option<"keepExisting", "keep-existing", "bool", "false",
           "Leave a module that already has a dlas.target as it is">,
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect"];
}

def TargetToLLVM : Pass<"dlas-target-to-llvm", "mlir::ModuleOp"> {
  let summary = "Hand the module's dlas.target to the LLVM dialect";
  let description = [{
    The last step of the CPU pipeline: every `llvm.func` with a body gets
    the target's `target_cpu` and `target_features` (every code generation
    feature explicitly on or off), the module gets
    `llvm.target_triple = "x86_64-unknown-linux-gnu"`, and `dlas.target`
    is removed. The lowered module is then plain LLVM dialect: stock
    `mlir-translate --mlir-to-llvmir` translates it, and `llc` or the JIT
    generate code for the named target from the function attributes alone.
    A module without `dlas.target` is left as it is. After the GPU pipeline
    (a `#dlas.gpu_target`, whose device code is already in `gpu.binary`
    ops) the host code is for any x86-64: the triple is set, the functions
    get no CPU, and `dlas.target` is removed.

    ```mlir
    llvm.func @main(...) attributes {target_cpu = "x86-64-v3",
        target_features = #llvm.target_features<["+sse4.2", "+avx",
        "+avx2", "+fma", "+f16c", "-avx512f", ...]>}
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPULegalizeBF16 : Pass<"dlas-cpu-legalize-bf16", "mlir::ModuleOp"> {
  let summary = "bf16 arithmetic and conversions a target without AVX512-BF16 can run";
  let description = [{
    LLVM's x86 backend rounds f32 to bf16 with `vcvtneps2bf16` when the
    target has `avx512bf16`, and otherwise calls `__truncsfbf2`, a
    compiler-rt builtin that neither the JIT process nor a plain C runtime
    provides. On a module whose `dlas.target` lacks `+avx512bf16` (or that
    has no target), this pass computes every arith op on bf16 in f32
    (`arith::populateEmulateUnsupportedFloatsPatterns`) and expands the
    f32 <-> bf16 conversions into integer bit operations with
    round-to-nearest-even (`arith::populateExpandBFloat16Patterns`), for
    scalars and vectors alike. A target with `avx512bf16` keeps the
    conversions for LLVM to select. Runs on loops, before the LLVM
    conversion; a module without bf16 is left as it is.

    On any target, `llvm.intr.masked.load`/`masked.store` of bf16 or f16
    vectors become the same accesses of i16 vectors with bitcasts: LLVM
    scalarizes 16-bit masked accesses without AVX-512BW and would round-trip
    each scalarized bf16 element through f32. The CPU pipeline runs the
    pass again after the LLVM conversion for these.

    ```mlir
    %y = arith.truncf %x : f32 to bf16
    // becomes, without avx512bf16: bitcast to i32, add the rounding bias
    // (0x7fff + lsb), shift right by 16, truncate to i16, bitcast to bf16
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CPUApproximateMath : Pass<"dlas-cpu-approximate-math"> {
  let summary = "Vectorizable polynomial forms of exp, tanh, erf and log, and multiplies for constant powers";
  let description = [{
    LLVM has no vector form of `expf`, `tanhf`, `erff` or `logf` without a
    vector math library: a loop that calls them runs one element at a
    time through libm (the GELU of a transformer block, the exp of a
    softmax or a sigmoid, an LSTM's tanh). This pass rewrites the math ops
    it is told to into MLIR's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`: Cephes exp and log,
    Eigen's rational tanh, a piecewise rational erf; f32 relative error
    about 2^-22, denormal results flushed to zero), made of arith ops that
    LLVM vectorizes. bf16 and f16 operands are computed in f32
    (`populateMathF32ExpansionPatterns`). `math.powf` with a constant
    exponent of 1, 2, 3, -1, -2, 0.5 or -0.5 becomes multiplies, a
    division or a square root (`populateMathAlgebraicSimplificationPatterns`),
    so LayerNorm's `Pow(x - mean, 2)` is one multiply.

    The CPU pipeline runs this pass on loops, before the LLVM conversion,
    unless `approximate-math=false` (then every such op stays a libm
    call). Ops not listed in `ops` are left to libm: sin, cos and the
    other trigonometric functions keep libm's accuracy for large
    arguments.

    ```mlir
    %y = math.erf %x : f32
    // becomes: |x| picks one of three rational approximations
    // P(|x|)/Q(|x|) (fma chains), then copysign; no call
    ```
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "Math ops to approximate (default: exp, expm1, tanh, erf, log, log1p, log2)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def SelectConvAlgorithm : Pass<"dlas-select-conv-algorithm"> {
  let summary = "Choose direct, flat, 1x1-as-GEMM, im2col+GEMM or Winograd per "
                "convolution";
  let description = [{
    Rewrites every NCHW f32 convolution with static shapes
    (`linalg.conv_2d_nchw_fchw`, `conv_2d_ngchw_gfchw`,
    `depthwise_conv_2d_nchw_chw`) into the algorithm a cost model picks, or
    the one forced by `algorithm`:

    * `gemm` (1x1 kernels): the convolution is a matrix product
      `W[F, C] x X[C, H*W]` per image, on collapsed views, with no copy at
      stride 1; at stride s the input is first subsampled (a copy of 1/s^2
      of it);
    * `im2col`: the input patches are copied into `P[N, C*Kh*Kw, Ho, Wo]`
      (the div/mod that split the row index into (c, kh, kw) depend on the
      outer loop only; each row written sequentially, rows split between
      threads), viewed as a `[N, C*Kh*Kw, Ho*Wo]` matrix, then one matrix
      product;
    * `winograd` (dense 3x3, stride 1, undilated, constant filter):
      Winograd F(m x m, 3x3), m = 2 or 4 (`winograd-tile`; alpha = m + 2).
      The filter transform `U = G g G^T` runs at compile time into an
      `[alpha^2, F, C]` constant; the input transform `B^T d B` and the
      output transform `A^T M A` are contractions with the constant
      matrices, marked for `dlas-winograd-transforms` (one vector pass each
      after bufferization); the alpha^2 products over channels are one
      batched GEMM `M[t] = U[t] x V[t]` (t a batch dim of the
      microkernel's A). F(2x2) does 16 multiplies per 2x2 outputs instead
      of 36 with transforms of 0 and +-1; F(4x4) 36 per 4x4 outputs
      instead of 144, with coefficients up to 8 (f32 errors about 10x
      F(2x2)'s: ~1e-5 of the output's scale at 64-256 channels, against
      ~1e-6) and a transformed filter 4x the filter's size (16/9 for
      F(2x2)). The output transform adds into the (zero-padded where the
      output is not a whole number of tiles) init viewed as
      `[N, F, Ho/m, m, Wo/m, m]`, so a bias broadcast into the init is
      kept (and folded by `dlas-winograd-transforms`);
    * `flat` (stride 1, any kind): a direct convolution over the flattened,
      padded spatial domain: output position `p = oh * Wp + ow` reads input
      `p + kh * dh * Wp + kw * dw`, so the innermost loop covers `Ho * Wp`
      elements; the `Wp - Wo` extra columns per row are computed and dropped.
      With microkernels, rows at least `compact-flat-min-width` wide and a
      target with AVX-512 (the compact B vectors are masked loads, which
      cost 3x without mask registers) the form is compact instead: output `p = oh * Wo + ow` reads input
      `p + (p floordiv Wo) * (Wp - Wo) + tap`, no column is wasted, the
      output needs no padded init nor compaction, and its elementwise
      consumers fold into the microkernel's store (ResNet-50 5% faster
      whole; narrower rows, where a vector spans 3+ rows, measured slower
      and keep the padded width, except rows of a half or a quarter
      vector: the kernel's vectors start at multiples of the vector width,
      so each covers 2 or 4 whole rows, and at 8x8 and 4x4 the compact form
      measured 1.1-1.8x faster). On any target, rows whose width is a
      multiple of the f32 lanes are compact too: each B vector then lies
      in one row and loads unmasked (x86-64-v3, 40 -> 80 channels at
      56x56: 2.22 -> 2.11 ms).
      A strided dense or grouped undilated convolution first splits its
      padded input into its `sh*sw` stride phases, `Q[n, (g,) c, ph, pw, i,
      j] = X[n, (g,) c, i*sh + ph, j*sw + pw]` (one copy of the input, where im2col
      copies it `Kh*Kw/(sh*sw)` times: 2.25x at 3x3 stride 2, 12x for
      ResNet's 7x7 stem); tap (kh, kw) then reads phase
      (kh mod sh, kw mod sw) at `p + (kh floordiv sh) * Wq + kw floordiv sw`
      of the phases laid end to end, the same implicit GEMM;
    * `direct`: the convolution stays as it is.

    With `transposed-gemm` (the default) and microkernels, a `gemm` or
    `im2col` convolution of a batch of one whose output positions fill the
    target's vectors at least 15% worse than its output channels do (7x7
    planes: 49 positions in 64 lanes; the channels a multiple of the
    lanes), with a constant filter, in floats or in int8 where the target
    has vpdpbusd, runs as the transposed
    product `Y^T[P, F] = X^T[P, K] x W^T[K, F]`: the filter transposed at
    compile time, the microkernel's vectors over the channels, the
    elementwise ops after the convolution (bias is the init, ReLU, the
    narrowing to bf16, an int8 layer's dequantization with its per-channel
    scales and zero-point sums) moved before one transpose back to NCHW so
    that the kernel still applies them as it stores. ResNet-50's 7x7 layers
    in bf16 on vdpbf16ps (x86-64-v4 + AVX512-BF16, Zen 5, 1 thread): 2048
    -> 512 1x1 0.258 -> 0.21 ms (oneDNN bf16 0.201); in int8 on vpdpbusd
    0.134 -> 0.120 ms (oneDNN int8 0.098), the 3x3 0.311 -> 0.270. In int8
    the activations become the GEMM's A operand, packed per call in k
    quads with their row sums (the kernel reads the weights, B, as u8 and
    subtracts 128 times those sums); without vpdpbusd the pair kernel
    (vpmaddubsw) needs its signed operand known at compile time, so int8
    stays NCHW there. So do convolutions on AMX tiles, whose 16 rows a 7x7
    plane fills as poorly as their 16 columns.

    Why it matters here: the loop-order stage vectorizes the innermost,
    contiguous output loop. For the direct algorithm that loop is the output
    width, 7 to 56 in ResNet-50; as a matrix product it is `Ho*Wo`, on the
    flattened domain `Ho*Wp`. The cost model is a set of rules measured with
    the benchmark harness: `gemm` for dense 1x1 kernels; for other
    stride-1 convolutions, `direct` when grouped or depthwise and at least
    `min-direct-width` wide (a vectorized row with the window unrolled
    around it: 54-73 GFLOP/s on ResNet-34's 56-wide grouped layers where
    flat gets 10-49), else `flat` while the output plane (`Ho*Wp` floats)
    fits a third of L1 (`l1-cache-bytes`; 1.2x direct on ResNet-50's 56x56
    3x3 layer, 1.9x on 28-wide grouped ones), else `im2col` (dense) or
    `direct`; `im2col` for strided dense convolutions; `direct` for strided
    grouped and depthwise ones. With `microkernels` (the CPU pipeline's
    default, where dlas-gemm-microkernel turns every dense GEMM, im2col and
    flat contraction into a register-blocked kernel), dense and grouped
    stride-1 convolutions go `flat`: that is an implicit GEMM whose B rows
    are shifted views of the padded input, with no im2col copy; strided
    dense ones go `flat` over their stride phases (ResNet-50's stem
    1.46 -> 1.16 ms, its strided 3x3 layers unchanged within noise), and
    so do strided grouped ones that dlas-grouped-conv-packing left (groups
    that fill no vector), the group a batch dim of the GEMM (x86-64-v4,
    Zen 4, 1 thread, against the direct loop nest they ran as before:
    128 channels 28x28 -> 14x14 in 16 groups 0.51 -> 0.086 ms, 64 at 56x56
    in 8 groups 0.34 -> 0.18, 256 at 14x14 in 32 groups 0.25 -> 0.054).
    Dense 3x3 stride-1 convolutions with a constant filter go `winograd`
    instead where the `winograd` rule applies and they are large enough:
    the smaller of input and output channels at least 64 and at least 16
    2x2 output tiles; as F(4x4) where there are at least 16 4x4 output
    tiles (all images) on targets of 8 f32 lanes (AVX2) and 32 on 16-lane
    ones (AVX-512), F(2x2) below (measured on Zen 3: F(4x4) took 0.61-0.85
    of F(2x2)'s time on 14x14 to 112x112 layers, and inside GoogLeNet
    every 14x14+ layer gained, while at 7x7, a GEMM four tiles wide, it
    lost 0.5-0.7 ms a layer; on Zen 5, x86-64-v4: 0.58 at 56x56, 0.87 at
    28x28, 1.07-1.5 at 14x14). `winograd=auto` (the default) and `on`
    apply the rule, `off` nowhere. Measured inside whole models (1
    thread): on Zen 3 (x86-64-v3) GoogLeNet 40.3 -> 31.8 ms and
    Inception-v3 180 -> 138 ms; on Zen 5 (x86-64-v4) GoogLeNet 16.2 ->
    11.4 ms (9.2 -> 7.1 at 2 threads) and Inception-v3 60.3 -> 54.4 ms.
    Convolutions in the blocked layout (`dlas-blocked-layout`, most of a
    ResNet's) are not Winograd candidates.

    Per convolution, from weakest to strongest: the cost model, the
    `algorithm` option, the `tuning-file`'s `conv_algorithm` entry for the
    convolution's shape key (dense convolutions:
    `[b<N>_]c<C>_f<F>_i<H>x<W>_o<OH>x<OW>_k<KH>x<KW>_s<SH>x<SW>[_d<DH>x<DW>]`,
    with the padded input's size; `{"algorithm": "im2col"}`, or
    `{"algorithm": "winograd", "winograd_tile": 2}`; dlas-tune measures
    flat, im2col and Winograd at both tiles against each other and writes
    it; not for int8 convolutions, whose algorithm follows their
    multiply), and the op's own `dlas.conv_algorithm = "im2col"`. A
    Winograd convolution's tile is its entry's `winograd_tile` (2 or 4;
    another value is an error naming the entry), else the `winograd-tile`
    option, else the cost model's. Requested
    algorithms that do not apply to a convolution fall back and say so.
    `print` reports each choice, and a dense convolution's key, as a
    remark.
  }];
  let options = [
    Option<"algorithm", "algorithm", "std::string", "\"auto\"",
           "auto (cost model), direct, flat (stride 1), gemm (1x1), im2col (dense) "
           "or winograd (dense 3x3 stride 1, constant filter)">,
    Option<"minDirectWidth", "min-direct-width", "int64_t", "32",
           "Grouped and depthwise stride-1 convolutions at least this wide "
           "stay direct">,
    Option<"l1CacheBytes", "l1-cache-bytes", "int64_t", "0",
           "L1 data cache bytes (0: the dlas.target's, 48 KiB without one; flat is chosen while a third of it "
           "holds the output plane)">,
    Option<"microkernels", "microkernels", "bool", "false",
           "Contractions will become GEMM microkernels (dlas-gemm-microkernel): "
           "dense stride-1 convolutions go flat (an implicit GEMM)">,
    Option<"winograd", "winograd", "std::string", "\"auto\"",
           "When the cost model picks Winograd (with microkernels): auto or "
           "on from 64 channels and 16 2x2 output tiles (F(4x4) from 16 4x4 "
           "tiles on 8-lane targets, 32 on 16-lane ones), off never">,
    Option<"winogradTile", "winograd-tile", "int64_t", "0",
           "Winograd's output tile: 2 (F(2x2,3x3)), 4 (F(4x4,3x3)) or 0 "
           "(the cost model's: see the description)">,
    Option<"transposedGemm", "transposed-gemm", "bool", "true",
           "With microkernels, batch-1 1x1 and im2col convolutions (float; "
           "int8 on vpdpbusd targets) whose output planes fill vectors poorly "
           "(7x7) run as the transposed GEMM, vectors over the output "
           "channels">,
    Option<"compactFlatMinWidth", "compact-flat-min-width", "int64_t", "16",
           "With microkernels, flat convolutions at least this wide compute "
           "only the OH*OW output positions (B rows jump by Wp - OW per "
           "output row; the microkernel loads a vector per row it touches) "
           "instead of OH*Wp; narrower ones keep the padded width">,
    Option<"tuningFile", "tuning-file", "std::string", "\"\"",
           "JSON tuning file whose `conv_algorithm` section sets the algorithm "
           "of dense convolutions per shape key">,
    Option<"print", "print", "bool", "false",
           "Report the algorithm chosen for each convolution (and a dense "
           "one's tuning key) as a remark">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numDirect", "direct", "Convolutions left direct">,
    Statistic<"numGemm", "gemm", "1x1 convolutions run as GEMM">,
    Statistic<"numIm2Col", "im2col", "Convolutions run as im2col + GEMM">,
    Statistic<"numFlat", "flat", "Convolutions run on the flattened spatial domain">,
    Statistic<"numWinograd", "winograd", "Convolutions run as Winograd F(2x2,3x3)">
  ];
}

def BlockedLayout : Pass<"dlas-blocked-layout", "mlir::ModuleOp"> {
  let summary = "Run dense convolutions in the blocked NCHWc layout and "
                "propagate it through the graph";
  let description = [{
    Rewrites every dense f32 `linalg.conv_2d_nchw_fchw` with static shapes
    whose input and output channels are multiples of the block `b` (the
    target's f32 vector width unless `block` says otherwise) into the
    blocked layout oneDNN calls nChw16c:

    * the input `X[N, C, H, W]` packed to `X'[N, C/b, H, W, b]`;
    * the filter packed to `W'[F/b, C/b, Kh, Kw, b(c), b(f)]`, the output
      channels innermost; a constant filter is packed at compile time;
    * `Y'[n, F, oh, ow, f] += X'[n, C, oh*sh + kh*dh, ow*sw + kw*dw, c] *
      W'[F, C, kh, kw, c, f]` as a `linalg.generic` tagged
      `dlas.blocked_conv`, whose innermost output dim is one vector of
      output channels: `dlas-blocked-conv-microkernel` turns it into a
      direct convolution with the channel vector in registers, which needs
      no flattening trick, no stride-phase copy and wastes no lane on narrow
      rows (ResNet-50's 14- and 7-wide layers);
    * the accumulator: a fill or a per-channel bias broadcast is rebuilt in
      blocked form (so the microkernel still folds it), anything else is
      packed;
    * the result unpacked to NCHW.

    With `int8`, an int8 convolution (i8 input, constant i8 filter, i32
    accumulator, as dlas-mixed-precision quantizes it) goes blocked too
    where the target multiplies bytes with `vpdpbusd` at `b` 32-bit lanes
    (AVX512-VNNI for 16, AVX-VNNI for 8): its filter is packed at compile
    time in k quads, `W'[F/b, C/b, Kh, Kw, b/4, b(f), 4]`, four
    consecutive input channels of an output channel in one 32-bit lane,
    and `Y'[n, F, oh, ow, f] += X'[n, C, oh*sh + kh*dh, ow*sw + kw*dw,
    4*c4 + q] * W'[F, C, kh, kw, c4, f, q]` (i8 products widened into
    i32): each step of the microkernel broadcasts four input bytes and
    multiplies them with a vector of filter quads in one vpdpbusd.
    On a target with AMX tiles for the type (AMX-INT8, AMX-BF16) such
    layers stay NCHW for the GEMM on tiles. With `bf16`, a bf16 convolution (bf16 input and constant filter, f32
    accumulator) goes blocked the same way where the target has
    `vdpbf16ps` at `b` lanes (AVX512-BF16; with VL for 8): the filter in k
    pairs, `[F/b, C/b, Kh, Kw, b/2, b(f), 2]`, and `x[.., 2*c2 + p]`.

    With `depthwise`, depthwise convolutions
    (`linalg.depthwise_conv_2d_nchw_chw`, channels a multiple of b) are
    blocked the same way, with the filter packed to
    `[C/b, Kh, Kw, b]` and `Y'[n, C, oh, ow, c] += X'[n, C, oh*sh + kh*dh,
    ow*sw + kw*dw, c] * W'[C, kh, kw, c]` tagged `dlas.blocked_depthwise`:
    a channel vector per output position, so a stride-2 window needs no
    shuffle, and MobileNet-style graphs stay blocked across their
    depthwise layers. It is off by default: the blocked kernel reads a
    padded copy of its input, and for these memory-bound layers the copy
    costs more than the kernel gains (MobileNetV2's 56x56x144 layer
    0.17 ms blocked against 0.066 ms in NCHW, whose kernel folds the
    padding; 112x112x96 stride 2: 0.29 against 0.12 ms).

    Then upstream's data-layout propagation (`linalg.pack` bubbled up and
    `linalg.unpack` pushed down through elementwise `linalg.generic`s and
    `tensor.pad`s) moves each unpack down to the next convolution's pack,
    where the pair folds: consecutive convolutions, with the activations,
    residual adds and paddings between them, stay blocked. Only the graph's
    edges convert, where a conversion is left: a pack there becomes a pad,
    a reshape and a transpose (upstream's lowering, the channel within a
    block innermost); an activation unpack becomes a copy that walks the
    blocked source in order into the result viewed as `[N, C/b, b, H, W]`
    (upstream's lowering walks the result in order, reading one float per
    cache line of the source: a 56x56x256 unpack took 1.5 ms, now 0.2). Layer functions
    (`dlas-outline-layers`) do not stop the layout: a private function
    called once that packs an argument or unpacks a result has its
    signature changed to the blocked type and its caller converts instead,
    where the caller's unpack of one layer meets the pack of the next.

    The layout is a whole-module choice, made on a trial copy: it applies
    when at most one activation conversion is left per
    `convs-per-conversion` blocked convolutions, or when the blocked
    convolutions do at least `macs-per-converted-element` MACs per element
    the conversions move (VGG-11: 7 blocked convolutions, 2 conversions,
    9000 MACs per element; 143 -> 107 ms blocked). A graph that keeps
    crossing back to NCHW (MobileNetV2, whose depthwise convolutions and
    24-channel layers have no blocked form) stays NCHW: its conversions
    cost more than the kernels gain (4.8 -> 8.8 ms measured), where
    ResNet-50 (52 convolutions, 2 conversions) gains 9%.

    `max-width` leaves wider convolutions in NCHW, so that the blocked
    layout can start inside the network. `print` reports the decision and
    each convolution left in NCHW as remarks.

    Before:
    ```mlir
    %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
        strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>)
        outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
    ```
    After (b = 16):
    ```mlir
    %xb = linalg.transpose ... : tensor<1x2x9x9x16xf32>
    %yb = linalg.generic {dlas.blocked_conv, ...}
        ins(%xb, %wb : tensor<1x2x9x9x16xf32>, tensor<2x2x3x3x16x16xf32>)
        outs(%initb : tensor<1x2x7x7x16xf32>) -> tensor<1x2x7x7x16xf32>
    %y = linalg.transpose ...  // then a collapse_shape to 1x32x7x7
    ```
  }];
  let options = [
    Option<"block", "block", "int64_t", "0",
           "Channels per block (0: the target's f32 vector width)">,
    Option<"maxWidth", "max-width", "int64_t", "0",
           "Block only convolutions whose output is at most this wide "
           "(0: any width)">,
    Option<"int8", "int8", "bool", "false",
           "Block int8 convolutions too (i8 input and constant filter, i32 "
           "accumulator) where the target has vpdpbusd at b lanes: the "
           "filter in k quads, [F/b, C/b, Kh, Kw, b/4, b(f), 4]">,
    Option<"bf16", "bf16", "bool", "false",
           "Block bf16 convolutions too (bf16 input and constant filter, f32 "
           "accumulator) where the target has vdpbf16ps at b lanes: the "
           "filter in k pairs, [F/b, C/b, Kh, Kw, b/2, b(f), 2]">,
    Option<"depthwise", "depthwise", "bool", "false",
           "Block depthwise convolutions too (off: their padded input copy "
           "costs more than the blocked kernel gains)">,
    Option<"blockedEntry", "blocked-entry", "bool", "false",
           "Public functions take and return activations in the blocked "
           "layout [N, C/b, H, W, b] where they would convert at their "
           "boundary (for callers that keep activations blocked, and to time "
           "a layer as oneDNN's format_tag::any does, without the edge "
           "reorders)">,
    Option<"grouped", "grouped", "bool", "true",
           "Block grouped convolutions whose groups are whole blocks (GSPC "
           "on the blocked activations)">,
    Option<"pools", "pools", "bool", "true",
           "Block a max pool that reads a blocked convolution through its "
           "activation and padding (tagged dlas.blocked_pool), so that "
           "dlas-blocked-conv-microkernel pools each tile before it stores">,
    Option<"convsPerConversion", "convs-per-conversion", "int64_t", "4",
           "Blocked convolutions needed per activation layout conversion "
           "left at the edges for the layout to apply">,
    Option<"macsPerConvertedElement", "macs-per-converted-element",
           "int64_t", "2000",
           "Block also where more conversions remain, when the blocked "
           "convolutions do at least this many MACs per element the "
           "conversions move (0: off)">,
    Option<"print", "print", "bool", "false",
           "Report the layout decision and each convolution left in NCHW">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numBlocked", "blocked", "Convolutions put in the blocked layout">,
    Statistic<"numEdgeConversions", "edge-conversions",
              "Activation layout conversions left at the graph's edges">
  ];
}

def GroupedConvPacking : Pass<"dlas-grouped-conv-packing", "mlir::ModuleOp"> {
  let summary = "Grouped Spatial Pack Convolution (GSPC): run grouped "
                "convolutions on per-group packed data";
  let description = [{
    Rewrites grouped f32 convolutions (`linalg.conv_2d_ngchw_gfchw`, static
    shapes) into the Grouped Spatial Pack Convolution of Gibson et al.
    ("Optimizing Grouped Convolutions on Edge Devices", ASAP 2020), the
    algorithm TVM adopted for grouped convolutions on CPUs. With G groups
    of CPG input and KPG output channels, an input tile TI and an output
    tile TO:

    * the filter `[G, KPG, CPG, Kh, Kw]` is packed to
      `[G, KPG'/TO, CPG/TI, Kh, Kw, TI, TO]` (at compile time when it is a
      constant), KPG' being KPG rounded up to a multiple of TO with zero
      filters;
    * the (padded) input `[N, G, CPG, H, W]` is packed to
      `[N, G, CPG/TI, H, W, TI]`;
    * `Y[n, g, F, oh, ow, f] += X[n, g, C, oh*sh + kh*dh, ow*sw + kw*dw, c]
      * W[g, F, C, kh, kw, c, f]` is a `linalg.generic` tagged `dlas.gspc`
      whose innermost output dim is TO output channels of one group:
      `dlas-blocked-conv-microkernel` builds it as a register tile of output
      columns x TO-lane vectors, broadcasting one input value per column,
      with the work items (image, group, channel tile, output row) split
      across threads;
    * the accumulator is rebuilt in packed form (a fill or a per-channel
      bias broadcast, which the kernel folds) and the result unpacked to
      `[N, G, KPG, OH, OW]`, dropping the padded channels.

    TI divides CPG (no padding of the input channels: TI is a block of the
    reduction, of any size), so any CPG works, odd ones included. TO is a
    vector: the target's f32 width, or a narrower power of two (at least 4)
    when KPG is smaller. The input keeps TI innermost, after W (the paper
    and TVM put it between H and W): the kernel broadcasts TI consecutive
    values of one input position, which this order reads from one cache
    line.

    Which layers: with `policy=always` every grouped convolution; with
    `auto` those the cost model gives to GSPC: whose KPG fills whole
    vectors of the target (at most `max-pad` of the output channels
    padding; a group narrower than a vector wastes lanes, where the flat
    implicit GEMM vectorizes along the image instead) and whose output
    plane is at most 196 positions on 16-lane targets (measured: GSPC
    from NCHW beats the flat GEMM at 7x7 to 14x14 and loses from 16x16 up,
    where the GEMM's rows are long and the NCHW conversions cost most) and
    1024 on 8-lane targets (measured by dlas-tune on x86-64-v3: GSPC wins
    up to 32x32 and loses at 56x56); `never` leaves them to
    `dlas-select-conv-algorithm`. Grouped convolutions whose groups are
    whole channel blocks are taken earlier by `dlas-blocked-layout`, which
    runs them as GSPC with TI = TO = the block inside the blocked layout,
    without conversions. Depthwise convolutions (CPG =
    KPG = 1) are `linalg.depthwise_conv_2d_nchw_chw` and never reach this
    pass. TI and TO come from the options, else from the tuning file's
    `gspc` section (keys `g<G>_c<C>_f<F>_o<OH>x<OW>_k<KH>x<KW>_s<SH>x<SW>`
    with `_d<DH>x<DW>` when dilated, C and F the layer's channels), else
    from the target (TO its f32 vector width, TI the largest divisor of CPG
    not above it). `print` reports each choice.
  }];
  let options = [
    Option<"policy", "policy", "std::string", "\"auto\"",
           "Which grouped convolutions to pack: auto (cost model), always, "
           "never">,
    Option<"ti", "ti", "int64_t", "0",
           "Input channels per tile (must divide each group's; 0: tuning "
           "file or target)">,
    Option<"to", "to", "int64_t", "0",
           "Output channels per tile, a power of two from 4 to the target's "
           "f32 vector width (0: tuning file or target)">,
    Option<"maxPad", "max-pad", "double", "0.25",
           "auto: the largest share of computed output channels that may be "
           "padding">,
    Option<"tuningFile", "tuning-file", "std::string", "\"\"",
           "JSON tuning file whose `gspc` section sets ti and to per shape">,
    Option<"print", "print", "bool", "false",
           "Report each grouped convolution's choice and tiles as remarks">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPacked", "packed", "Grouped convolutions run as GSPC">
  ];
}

def CPUSelectLowering : Pass<"dlas-cpu-select-lowering", "mlir::ModuleOp"> {
  let summary = "Decide, on tensors, how each contraction and stencil is "
                "lowered for the module's CPU target";
  let description = [{
    Strategy apart from mechanism. For every linalg op with reductions on
    tensors, this pass decides which microkernel lowers it
    (`dlas-blocked-conv-microkernel`, `dlas-gemm-microkernel` or
    `dlas-depthwise-microkernel`, tried in that order), its register tile
    and cache blocking, and its fusion partners, and records the decision
    as the op's `dlas.lowering`, a `#dlas.microkernel`:

    ```mlir
    %r = linalg.generic {..., dlas.lowering = #dlas.microkernel<kind = gemm,
           rows = 6, vectors = 2, lanes = 8, kc = 256, mc = 96,
           pack_b = true, input = f32, acc = f32, init = fill,
           epilogues = 1, key = "m64_n3136_k576", source = cost_model>} ...
    ```

    The inputs of a decision, in increasing precedence:
    1. the target (`dlas.target`: lanes, vector registers, L1/L2) and each
       kernel's cost model (docs/CodegenPasses.md under each kernel pass);
    2. this pass's options (`gemm-tiles`, `gemm-pack-b`, `depthwise-tiles`);
    3. the tuning file's entry for the op's shape key on this target
       (docs/Tuning.md);
    4. the op's own override attribute (`dlas.gemm_tiles`,
       `dlas.depthwise_tiles`, `dlas.blocked_conv_tiles`).
    `source` records which one set the tile.

    Fusion partners are read off the tensor SSA graph: the fill or bias
    broadcast the output starts from (`init`), the chain of single-use
    elementwise generics that consume the result (`epilogues`) and, for a
    stencil, a constant `tensor.pad` of the input (`padding`). The kernel
    passes fold no more than that after bufferization, and warn when they
    find fewer.

    In `dlas-cpu-pipeline` this pass runs last before bufferization, and
    the kernel passes run with `decided-only`: they build code for the
    decided ops only and choose nothing. `print` explains every decision,
    and why an op gets none, as a remark.
  }];
  let options = [
    ListOption<"gemmTiles", "gemm-tiles", "int64_t",
               "Pin m0, vectors, kc, mc of every GEMM (leading entries; 0 "
               "keeps the cost model's)">,
    Option<"gemmPackB", "gemm-pack-b", "std::string", "\"auto\"",
           "Copy B into panels: auto (the target's rule: 16-register "
           "targets pack, unless A has one row panel), always, never">,
    ListOption<"depthwiseTiles", "depthwise-tiles", "int64_t",
               "Pin rows, vectors of every stencil (0 keeps the cost "
               "model's)">,
    Option<"tuningFile", "tuning-file", "std::string", "\"\"",
           "JSON file of tiles per shape key (docs/Tuning.md)">,
    Option<"print", "print", "bool", "false",
           "Explain each decision (and each op left to loops) as a remark">
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect"];
  let statistics = [
    Statistic<"numDecisions", "decisions", "Ops given a lowering decision">
  ];
}

def BlockedConvMicrokernel : Pass<"dlas-blocked-conv-microkernel"> {
  let summary = "Lower blocked NCHWc convolutions to direct vector "
                "microkernels";
  let description = [{
    Matches, on memrefs, the convolution `dlas-blocked-layout` produces (in
    any loop order): `y[n, F, oh, ow, f] += x[n, C, oh*sh + kh*dh,
    ow*sw + kw*dw, c] * w[F, C, kh, kw, c, f]`, with the channel blocks f
    and c one f32 vector wide. It becomes a direct convolution kernel, the
    scheme of oneDNN's AVX-512 one:

    * a register tile holds `rows` output columns of `vectors`
      output-channel blocks (`rows * vectors` accumulators); per input
      channel and tap it loads `vectors` filter vectors, broadcasts `rows`
      input values and does `rows * vectors` FMAs, over the whole
      reduction (channel blocks and filter rows loop, filter columns and
      the channels of a block unroll so their offsets fold into the
      addresses), then stores once;
    * work items are (image, channel tile, output row), the row innermost
      so that consecutive items reuse the tile's filter from cache; each
      OpenMP thread takes one contiguous chunk (`omp_get_max_threads()` at
      run time);
    * strided and dilated windows read the input in place: no phase copy;
    * the output's init (a fill or a per-channel bias broadcast) and the
      elementwise ops after it (activation, residual add) fold into the
      kernel as for `dlas-gemm-microkernel`: the output is written once.

    The blocked depthwise form, `y[n, C, oh, ow, c] += x[n, C, oh*sh +
    kh*dh, ow*sw + kw*dw, c] * w[C, kh, kw, c]`, gets the same kernel with
    one channel block per tile (`vectors` is 1): per tap one filter vector
    and one contiguous input vector per output column, no broadcast, up to
    14 columns per tile (key `dw_c<C>_o<OH>x<OW>_k<KH>x<KW>_s<sh>x<sw>`).

    The int8 form (`dlas-blocked-layout`'s `int8`), `y[n, F, oh, ow, f] +=
    x[n, C, oh*sh + kh*dh, ow*sw + kw*dw, 4*c + q] * w[F, C, kh, kw, c, f,
    q]` on i8 x and w into i32 y, runs on `vpdpbusd` (the target must have
    it at the block's lanes): per quad of input channels and tap, `vectors`
    loads of 64 filter bytes (16 output channels x 4 input channels), one
    32-bit broadcast of four input bytes per column and one vpdpbusd per
    accumulator (64 multiply-adds). vpdpbusd multiplies unsigned by signed
    bytes: the input is flipped to u8 (x + 128: on 32-register targets
    each broadcast word in registers, one vpxord; on 16-register ones by
    a copy of the input first, one pass split among the threads from 64
    KiB), and the accumulators start `-128 * sum(w)` lower per output
    channel (a constant computed from the filter, which must be a
    constant global). A padding of -128 (the zero
    point of a post-ReLU activation) is a zero border in u8: its taps are
    skipped as below. The epilogue (int8's dequantize to f32, the
    activation, the requantization) folds as for f32; pools do not fuse.
    Key `i8_c<C>_f<F>_o<OH>x<OW>_k<KH>x<KW>_s<sh>x<sw>`.

    The bf16 form (`dlas-blocked-layout`'s `bf16`), the same on bf16 x and
    w into f32 y with the filter in k pairs (`2*c + q`), runs on
    `vdpbf16ps` (AVX512-BF16 at the block's lanes): per pair of input
    channels one load of 32 filter values per vector, one 32-bit broadcast
    of an input pair per column, one vdpbf16ps per accumulator; no bias.
    Its tiles take four channel blocks (4x4 on 32 registers) where the
    output channels allow. On a padded input whose rows 4 columns do not
    split, shared tail tiles would read the padded copy: rows up to 28
    wide take balanced 4-vector tiles of at most 5 columns, one row each
    (14 = 5 + 5 + 4, 7 = 4 + 3), and the kernel reads the source in place
    (a stride-2 3x3 layer, 28 -> 14, ran 25-30% faster at 2 threads on Zen
    5 than with shared tails); wider ones take 2-vector tiles where those
    split the row. Key `bf16_c<C>_...`.

    Tiles come from a rule measured on ResNet-50's layers: two channel
    blocks when their count is even, and up to 8 rows (at most half the
    vector registers as accumulators), the fewest tiles per output row,
    then no tail: 7x2 on 7-, 14- and 28-wide rows, 8x2 on 56-wide ones.
    On 16 registers (x86-64-v3) up to 6x2, the column tails of several
    rows sharing one tile (`lines`), except for windows wider than one
    column on rows up to 28 wide: there balanced tiles of at most 5
    columns, one row each (7 = 4 + 3, 14 = 5 + 5 + 4), which skip the
    padding's taps per row and can read a padded input's source in place.
    Tiles of 24-28 accumulators (14x2, 7x4) measured 5-40% slower from
    register pressure, single-vector ones from a broadcast per FMA. They
    can be overridden
    per op with `dlas.blocked_conv_tiles = {rows = R, vectors = V}` or per
    shape from `tuning-file` (section `blocked_conv`, key
    `c<C>_f<F>_o<OH>x<OW>_k<KH>x<KW>_s<sh>x<sw>[_d<dh>x<dw>]`); the
    attribute wins. `print` reports each kernel as a remark; a
    `dlas.blocked_conv` op that does not match is reported with the reason.

    Before (on memrefs):
    ```mlir
    linalg.generic {dlas.blocked_conv, ...}
        ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x2x3x3x16x16xf32>)
        outs(%y : memref<1x2x7x7x16xf32>) { mulf, addf }
    ```
    After: an `scf.parallel` over chunks of work items, each an `scf.for`
    over channel blocks and filter rows carrying `rows * vectors`
    `vector<16xf32>` accumulators through `vector.fma`s, and
    `vector.store`s of the results.

    With `fuse-pools`, a max pool that is the only reader of the kernel's
    final values (a `dlas.blocked_pool` from `dlas-blocked-layout`,
    directly or through the constant-filled padded copy a padded pool
    reads) fuses into the kernel: work items become (image, channel tile,
    band of pooled rows); each pooled row computes, into a ring of
    `(Kh - 1) * dh + 1` output rows (one buffer per thread), the rows its
    window needs that the previous pooled row did not (with the
    activation applied), takes the window maxima from the ring and stores
    only them. The pre-pool activation never goes to memory and output
    rows no window reads are not computed. Bands (enough for 4 work items)
    recompute the rows their windows share. `print` reports each fused
    pool, and why a pool after a kernel did not fuse.

    With `skip-padding-taps` (the default), taps that read only the zero
    border of a padded input are skipped, as in oneDNN's brgconv: the
    input must be a buffer that a zero fill writes whole before the
    convolution and that everything else writes only through static
    subviews (a bufferized `tensor.pad`); their bounding box is where
    nonzeros may be. The filter-row loop's bounds follow each tile's
    output row; the tiles at the ends of a row, where the border's columns
    take at least 2% of the row's taps (7x7 to 28x28 maps with 3x3
    windows), get one loop body per filter column without the positions
    it would read the border at. On a 7x7 map a 3x3 convolution does 18%
    fewer FMAs, on 14x14 9%. A NaN or infinite filter value times the
    border then no longer reaches the output (as in oneDNN); set it false
    for the reference behaviour. `print` reports the border it skips.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", "true",
           "Split the work items over OpenMP threads (scf.parallel)">,
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes per vector register (0: the dlas.target's)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "0",
           "Vector registers (0: the dlas.target's)">,
    Option<"decidedOnly", "decided-only", "bool", "false",
           "Lower only ops that carry a dlas.lowering decision "
           "(dlas-cpu-select-lowering's; the pipeline sets this)">,
    Option<"tuningFile", "tuning-file", "std::string", "\"\"",
           "JSON file of tiles per shape key (docs/Tuning.md)">,
    Option<"fusePools", "fuse-pools", "bool", "true",
           "Fuse a max pool that reads the kernel's final values into the "
           "kernel (only the pooled values are stored)">,
    Option<"skipPaddingTaps", "skip-padding-taps", "bool", "true",
           "Skip the taps that read only the zero border of a padded "
           "input">,
    Option<"print", "print", "bool", "false",
           "Report each kernel (and each convolution that does not match)">
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Blocked convolutions lowered">,
    Statistic<"numFusedEpilogues", "fused-epilogues",
              "Elementwise ops folded into the kernels">,
    Statistic<"numFusedPools", "fused-pools",
              "Max pools fused into the kernels">
  ];
}

def GemmMicrokernel : Pass<"dlas-gemm-microkernel", "mlir::ModuleOp"> {
  let summary = "Lower GEMM-shaped linalg contractions on memrefs to packed, "
                "cache-blocked, register-blocked vector microkernels";
  let description = [{
    Rewrites every f32 contraction `C[.., m, .., n] += A[g.., m, k..] *
    B[.., n + f(k..)]` on static, contiguous memrefs (linalg.matmul, the
    1x1-as-GEMM, im2col, flat, grouped flat and Winograd convolutions of
    dlas-select-conv-algorithm; `g..` are batch dims A shares with B and C,
    a group or a Winograd tile position) into:

    * A packed into panels `Ap[g..][K/kc][M/m0][kc][m0]` (zero-padded;
      k-block-major, so that every k block reads A as one sequential
      stream): at compile time when A is a constant global (a new global
      holds the packed data), at run time otherwise (O(M*K) copy, against
      O(M*N*K) arithmetic);
    * one `scf.parallel` (an OpenMP loop under threading) outside the k
      blocks, so that each thread keeps its part of C across k: over chunks
      of column tiles, or, with fewer than 8 tiles (N = 49 at 7x7), over
      chunks of row panels; one chunk per OpenMP thread
      (`omp_get_max_threads()` at run time, or `parallel-chunks`), so that
      each thread reads the operand it does not split once; with B packed
      per k block (a region per k block: the threads pack it together),
      over the column tiles, or over the row panels where the tiles are
      few against them (fewer than 16 and at most half the panels: at
      14x14, 13 tiles balanced 7/6 on 2 threads);
    * inside it, loops `kc` (a B micro-panel of `kc` rows x `n0` columns in
      L1), `mc` (an A block of `mc` rows x `kc` in L2), the column tiles of
      `n0 = vectors * vector-width`, then the m0-row panels;
    * a microkernel holding `m0 x vectors` accumulators in vector registers
      across the whole `kc` loop: per k, `vectors` loads of B, `m0`
      broadcasts of A and `m0 * vectors` vector.fma, and a
      `memref.prefetch` of A `prefetch-bytes` ahead (inside a whole model
      the weights stream from memory: ResNet-50 48 -> 44 ms, MobileNetV2
      5.0 -> 4.5 ms at 1 thread). Column tails use masked loads and
      stores in the last column tile alone, which also holds only the
      vectors that reach into N (B's packing too: AVX2 has no masked byte
      load, LLVM scalarizes it); a row tail uses a kernel with fewer rows.
    * the tile (unless pinned): the fewest estimated cycles over the padded
      problem, then the fewest loads per FMA, within the vector registers
      (tile + B vectors + a broadcast). Where B is read in place (a flat
      convolution's shifted rows) on a 16-register target the tile leaves
      three registers free: LLVM loads the next k step's B vectors ahead,
      and a full 4x24 tile spilled one every step (x86-64-v3: 4x24 ->
      3x24 / 4x16, 2-8% faster on Zen 3).

    Operands may also be bf16/f16 (widened on load into f32 FMAs) or i8
    into i32 accumulators. Int8 with a packable B on a target with
    AVX512-VNNI (16 lanes) or AVX-VNNI (8 lanes) runs on `vpdpbusd`: A
    panels hold k quads (`[K/kc][M/m0][kc/4][m0*4]`, one 32-bit broadcast
    per row), B is always packed, as `[tile][kc/4][n0*4]` with four rows
    interleaved byte-wise and biased to u8 (vpdpbusd multiplies unsigned by
    signed bytes), and the first k block starts from `-128 * sum_k A`,
    which removes the bias; without VNNI the i8 operands widen into i32
    multiplies. An elementwise epilogue may turn the i32 accumulator into
    f32 (int8's dequantize), the rest of the chain following in f32.
    These quad GEMMs, and bf16 ones on `vdpbf16ps` (k pairs), run one k
    block wherever the packed B tile (kc x n0 elements) fits a quarter of
    L2 (as on AMX below); where one row block holds all of M and the
    threads (if any) split the column tiles, each tile of B is packed
    where it is used, into a slot of its thread's (the chunk's first
    tile), right before every row panel multiplies it from L1. Threads
    that split the row panels take the tail panel among them. A packed
    per call in quads from vector loads (the transposed convolution GEMM's
    activations) is packed by all threads from 64 KiB.

    On a target with AMX tiles for the operands (`amx-tile` with
    `amx-bf16` for bf16, with `amx-int8` for i8) and 16-lane vectors, a
    GEMM with a packable B runs on them: a register tile of 16 or 32 rows
    by 16 or 32 columns is up to 2 x 2 C tiles of 16 x 16 f32 (i32), A
    is packed in whole tiles per 64-byte step of k
    (`[K/kc][M/m0][kc/step][m0][step]`), B is packed in k pairs (bf16, `[tile][kc/2][n0*2]`) or in the
    biased quads above (i8), and each 64-byte step of k is one `tdpbf16ps`
    (`tdpbsud`) per C tile. Each chunk of parallel work packs the column
    tile of B it multiplies next into a slot of its own (numbered by the
    chunk's first tile or row panel), so that the packed tile stays in L1
    for all the row panels (where B's whole k block fits half of L2 and
    a thread would pack a tile again, for several row blocks of mc rows
    or a tail panel, every tile is packed once per k block into a slot of
    its own first); the accumulators pass
    through the slot's C
    tiles in memory on the way in and out, so the init, the int8 bias
    correction and the epilogue are the vector kernel's. Convolutions
    whose operands AMX takes run as im2col (dlas-select-conv-algorithm).
    `-amx-tile` in the target's features turns it off; a GEMM with fewer
    than 8 rows of A (a batch-1 linear layer) or with K under two tile
    steps (64 bf16, 128 i8 values) keeps the vector kernel. kc is all of
    K while the packed B tile fits a quarter of L2; with one k block and
    a folded init the C tiles start from `tilezero` and the init is added
    to their sums.

    B is read in place: for the flat convolution its row for tap
    (c, kh, kw) is the padded input shifted by c*Hp*Wp + kh*Wp + kw (an
    implicit GEMM, no im2col copy). B's index may also jump by a constant
    every W columns, `B[.., n + (n floordiv W) * S + f(k..)]` (a compact
    flat convolution: output row n / OW reads its own padded input row);
    each B vector is then one masked load per output row it touches,
    merged, with lane masks computed per column tile outside the k loop,
    and the tile cost counts those loads.

    An im2col GEMM (B the collapsed `dlas.im2col` copy of
    dlas-select-conv-algorithm) whose B is packed reads the patches from
    the convolution's input instead: row q = (c, kh, kw) of B at output
    position p = oh * OW + ow is the flat input at p * sw + oh * (sh * Wp -
    OW * sw) + c * Hp * Wp + kh * dh * Wp + kw * dw, the per-row offsets
    coming from a table filled once per call, and each vector of B lanes
    is one masked load per output row it touches (of sw times the lanes
    at stride sw, every sw-th element kept: a truncation of pairs at
    stride 2, where ResNet-50's stride-2 3x3 layer in bf16 on AMX went
    from 1.29 to 0.69 ms and its 7x7 stem from 1.97 to 1.03). The
    copy (KH * KW times the input: 3.6 MB at 3x3 with 64 channels on
    56x56) is then never written and is erased. It stays where a vector
    would touch more than three output rows (ResNet-50's 7x7 maps with 16
    lanes), where the input may be written between the copy and the GEMM,
    or where anything else reads it; the remark then lacks "B packed from
    the im2col copy's input".

    Parameters come from a cost model over the target (vector width and
    register count from the module's dlas.target unless given): among all (m0, vectors)
    whose accumulators, B vectors and one broadcast fit in the registers,
    among those within 3% of the fewest estimated cycles (FMA- or
    load-bound per k, times the padded tile count) the one with the fewest
    loads per FMA; `kc` fills half of L1 with the B
    micro-panel, `mc` half of L2 with the A block. An op can override any
    of them with a dictionary attribute `dlas.gemm_tiles = {m0 = 8,
    vectors = 3, kc = 128, mc = 512}` (set on the op before or after
    bufferization; it survives one-shot bufferization), and a tuning file
    (`tuning-file`, docs/Tuning.md) can do so per shape key
    (`m<M>_n<N>_k<K>`, `b<B>_` in front for batched contractions; `print`
    shows each op's key). Precedence: heuristic, then the `tiles` option,
    then the file's entry for the key (or its "*" entry), then the
    attribute.

    With `fuse` (the default) the kernel also folds its neighbours, so that
    C is written once, from registers, with its final values:

    * the one write of C (or of the buffer C collapses, as 1x1 and flat
      convolutions do) before the contraction, when it is a `linalg.fill`
      or a `linalg.broadcast` (a bias, per output channel or per column):
      the first k block starts its accumulators from it. A flat
      convolution's padded init (the padded-width output filled, then the
      real init copied into its first OW columns) counts too: the dropped
      columns are never read, so every column starts from the real init;
    * the chain of elementwise `linalg.generic` ops that follows, on C's
      (uncollapsed) shape, with arith/math bodies: activations, clips,
      residual adds, per-channel scales. Each reads the running value and
      other buffers the kernel can read at its tile (same-shaped ones, or
      ones indexed by whole dims of C); it writes in place or into a fresh
      allocation, in which case the kernel stores there and the
      intermediate buffer goes away. The chain stops at the first op that
      could observe or change memory. With several k blocks the epilogue
      runs on the last one only.

    Ops that do not fit (other element types, dynamic shapes, strided
    layouts, a B not contiguous along n) are left alone; `print` reports
    both the kernels chosen (with what was fused) and why an op was left
    alone.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes per vector register (0: the dlas.target's)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "0",
           "Vector registers (0: the dlas.target's)">,
    Option<"l1CacheBytes", "l1-cache-bytes", "int64_t", "0",
           "L1 data cache per core (0: the dlas.target's)">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", "0",
           "L2 cache per core (0: the dlas.target's)">,
    Option<"parallel", "parallel", "bool", "true",
           "Emit the column-tile loop as scf.parallel">,
    Option<"packConstants", "pack-constants", "bool", "true",
           "Pack constant A operands at compile time">,
    Option<"print", "print", "bool", "false",
           "Emit a remark per contraction with the kernel chosen">,
    ListOption<"tiles", "tiles", "int64_t",
           "m0,vectors,kc,mc for every contraction (0 keeps the heuristic's "
           "value; a dlas.gemm_tiles attribute still wins)">,
    Option<"packB", "pack-b", "std::string", "\"auto\"",
           "Copy B into contiguous panels: auto (packed on 16-register "
           "targets, where A has more than one row panel; in place "
           "elsewhere: measured faster), always (where B is a plain "
           "matrix) or never">,
    Option<"fuse", "fuse", "bool", "true",
           "Fold C's fill/broadcast init and the elementwise ops consuming C "
           "into the kernel">,
    Option<"parallelChunks", "parallel-chunks", "int64_t", "0",
           "Chunks the parallel loop of a contraction splits its column tiles "
           "or row panels into; 0: one per OpenMP thread, from "
           "omp_get_max_threads() at run time (needs the OpenMP runtime; "
           "give a count when scf.parallel is lowered otherwise)">,
    Option<"prefetchBytes", "prefetch-bytes", "int64_t", "4096",
           "Software-prefetch packed A this many bytes ahead of the kernel "
           "(0: none)">,
    Option<"decidedOnly", "decided-only", "bool", "false",
           "Lower only ops that carry a dlas.lowering decision "
           "(dlas-cpu-select-lowering's; the pipeline sets this)">,
    Option<"tuningFile", "tuning-file", "std::string", "\"\"",
           "JSON tuning file whose \"gemm\" section gives parameters per "
           "shape key (see docs/Tuning.md); a dlas.gemm_tiles attribute "
           "still wins">
  ];
  let statistics = [
    Statistic<"numKernels", "microkernels", "Contractions lowered to microkernels">,
    Statistic<"numPackedConstants", "packed-constants", "A operands packed at compile time">,
    Statistic<"numFusedEpilogues", "fused-epilogues", "Elementwise ops fused into kernels">
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "mlir::func::FuncDialect",
                           "mlir::amx::AMXDialect"];
}


def DepthwiseMicrokernel : Pass<"dlas-depthwise-microkernel"> {
  let summary = "Lower depthwise convolutions and NCHW max/sum pooling on "
                "memrefs to register-blocked vector stencils with fused padding, "
                "initialization and epilogue";
  let description = [{
    Rewrites every f32 depthwise convolution on static memrefs in NCHW
    (`y[n, c, oh, ow] += x[n, c, oh*sh + kh*dh, ow*sw + kw*dw] * w[c, kh, kw]`,
    what convert-nn-to-linalg emits for `groups = C`) into a vector stencil:

    * per (n, c), an `scf.parallel` (an OpenMP loop under threading), the
      KH*KW filter taps are broadcast into registers once;
    * the output plane is cut into column tiles of `vectors` vectors and
      blocks of `rows` output rows. A vector is the narrowest power of
      two of at least 8 lanes that holds an output row, up to the
      target's width: on 16 lanes, rows up to 8 wide (7x7 maps, 14x14
      ones at stride 2) take 8-lane vectors, which issue as fast as
      16-lane ones and leave fewer lanes idle. A block keeps `rows x vectors`
      accumulators in registers, loads each input row it needs once per
      kw (stride s: s vectors, then a shuffle takes every s-th lane) and
      adds it into every output row that uses it;
    * tiles and blocks that stay inside the input run without masks, in a
      loop; border and tail ones are emitted with their compile-time masks.

    NCHW poolings are the same stencil without taps: `linalg.pooling_nchw_max`
    (or any window op whose body is `max(out, x)`) combines with
    `arith.maximumf` and `linalg.pooling_nchw_sum` (the sum of an average
    pool) with `arith.addf`; rows wholly in the padding are skipped when
    the pad value is the reduction's identity (-inf, 0).

    Three neighbours are folded into the kernel when the IR allows it:

    * padding: when the input is a buffer filled with a constant and then
      overwritten by a copy of the unpadded input (how `tensor.pad`
      bufferizes), the kernel reads the unpadded input directly, uses the
      constant for out-of-range taps and the padded buffer disappears;
    * initialization: a `linalg.fill` of the output, or a `linalg.broadcast`
      of a per-channel bias into it, becomes the accumulators' start value;
    * epilogue: following in-place elementwise `linalg.generic`s on the
      output (activations, per-channel scale/shift, a residual of the same
      shape) are applied to the accumulators before the one store.

    `rows` and `vectors` come from the register budget (taps + accumulators
    + loaded rows must fit in the target's vector registers) and can be set
    per op with `dlas.depthwise_tiles = {rows = 4, vectors = 1}`, or per
    shape key in a tuning file (`tuning-file`, docs/Tuning.md; keys like
    `conv_c96_o56x56_k3x3_s2x2`, with `max_`/`sum_` for poolings and
    `_d<DH>x<DW>` for dilation; `print` shows each op's key). Precedence:
    heuristic, the `rows`/`vectors` options, the file, the attribute.
    Other convolutions (channel multiplier, NHWC, dynamic shapes, other
    element types) are left alone; `print` says why.
  }];
  let options = [
    Option<"rowMajor", "row-major", "bool", "true",
           "Visit a channel's row blocks outside its column tiles (the input "
           "plane is read in rows)">,
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes per vector register (0: the dlas.target's)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "0",
           "Vector registers (0: the dlas.target's)">,
    Option<"rows", "rows", "int64_t", "0",
           "Output rows per register block (0: from the register budget)">,
    Option<"vectors", "vectors", "int64_t", "0",
           "Vectors per column tile (0: from the register budget)">,
    Option<"parallel", "parallel", "bool", "true",
           "Emit the (n, c) loop as scf.parallel">,
    Option<"fuse", "fuse", "bool", "true",
           "Fold the padding buffer, the output initialization and the "
           "elementwise epilogue into the kernel">,
    Option<"print", "print", "bool", "false",
           "Emit a remark per depthwise convolution with the kernel chosen">,
    Option<"decidedOnly", "decided-only", "bool", "false",
           "Lower only ops that carry a dlas.lowering decision "
           "(dlas-cpu-select-lowering's; the pipeline sets this)">,
    Option<"tuningFile", "tuning-file", "std::string", "\"\"",
           "JSON tuning file whose \"depthwise\" section gives rows/vectors "
           "per shape key (see docs/Tuning.md); a dlas.depthwise_tiles "
           "attribute still wins">
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Depthwise convolutions lowered">,
    Statistic<"numFusedEpilogues", "fused-epilogues", "Elementwise ops fused into the store">
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def VectorizeReductions : Pass<"dlas-vectorize-reductions"> {
  let summary = "Reduce along a contiguous last dimension with vector "
                "accumulators";
  let description = [{
    A `linalg.generic` on buffers with one reduction loop, where every
    input that the reduction reads has it as its innermost, unit-stride
    dimension (softmax's maximum and sum, a reduce-mean over features,
    LayerNorm's mean and variance, a global average over a row), and whose
    body folds a value computed elementwise from the inputs (arith and
    math ops) into the output with `addf`, `mulf`, `maximumf`, `minimumf`,
    `maxnumf` or `minnumf`, becomes per output element: four vector
    accumulators of the target's width over the row (fewer for short
    rows), a single-accumulator loop for the vectors left, one
    `vector.reduction`, a scalar loop for the tail, and the result combined
    with the output's initial value. The loops over the output elements
    are `scf.for`, the first with more than one iteration `scf.parallel`
    when `parallel` is set.

    This reassociates the reduction, as every vectorized library does:
    left to LLVM the row is a chain of dependent scalar operations through
    the output buffer, which it may not reorder (3136 rows of 96 floats
    took 0.23 ms on Zen 3 at 1 thread, 5x PyTorch's mean). Rows shorter
    than one vector, dynamic shapes, other element types than f32 and
    bodies with other ops (index arithmetic, calls) are left alone.

    ```mlir
    // Before: the sum of exp(x - max) per row of a softmax.
    linalg.generic {indexing_maps = [(i, j) -> (i, j), (i, j) -> (i),
                                     (i, j) -> (i)],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x, %max : memref<197x197xf32>, memref<197xf32>)
        outs(%sum : memref<197xf32>) { ... addf %out, exp(%x - %max) ... }
    ```

    The target's vector width comes from `dlas.target` (`vector-width`
    overrides it).
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes per vector (0: from the module's dlas.target)">,
    Option<"parallel", "parallel", "bool", "true",
           "Emit the outermost loop over output elements as scf.parallel">
  ];
  let statistics = [
    Statistic<"numReductions", "reductions", "Reductions vectorized">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def VectorizeRowCopies : Pass<"dlas-vectorize-row-copies"> {
  let summary = "Copy im2col patches and strided buffers row by row with "
                "vector loads and stores";
  let description = [{
    Two kinds of copies are left as loop nests after bufferization whose
    rows LLVM copies one element at a time: their rows are short constant
    loops (OW = 56, 28, 14, 7) that it unrolls fully, and it cannot rule out
    that source and destination alias, so it does not vectorize them.

    * The patch matrix of an im2col convolution,
      `P[n, q, oh, ow] = X[n, c, oh*sh + kh*dh, ow*sw + kw*dw]`
      (`q = (c, kh, kw)` flattened), which `dlas-select-conv-algorithm`
      builds as one `linalg.generic` marked
      `dlas.im2col = array<i64: KH, KW, sh, sw, dh, dw>`. On ResNet-50's
      int8 56x56 3x3 layers the patches took 0.42 ms of 1.75.
    * `linalg.copy` between buffers that are not one contiguous run (those
      stay `memref.copy`, a memcpy): the interior of a padded map, slices.

    Each becomes loops over the rows (the patch rows `q`, or the first
    dimension with more than one row, as `scf.parallel`: an OpenMP loop
    under threading) and per row vectors of up to 32 bytes (no more
    elements than the row has), the last one flush with the row's end,
    overlapping the one before where the width is not a multiple (no masks:
    masked byte loads are scalarized on AVX2); rows of more than 8 vectors
    copy them in a loop. An im2col stride `s` loads
    `s` times the elements and keeps every s-th lane with a shuffle, where
    the input row holds them (`W >= (KW - 1) * dw + s * OW`); elsewhere, and
    for rows of one element, the copy stays scalar. Operands whose rows are
    not contiguous (innermost stride other than 1) are left alone.

    A copy into the interior of a buffer (a static unit-stride subview of
    an identity-layout buffer) that `linalg.fill`s of one value just before
    it surround exactly (the border `dlas-fill-pad-borders` leaves of a
    bufferized `tensor.pad`), with nothing between them and the copy that
    touches the buffer, becomes one loop nest over the buffer's rows: per
    dimension the border before the interior, the interior, the border
    after it; each interior row stores its border columns (splat vectors,
    scalars for one column) and copies its source row. The parallel loop is
    the interior's first dimension with more than one row, so the border is
    written by the threads that write the rows it surrounds, not before
    them by a sequential loop of scalar stores (a 128-channel 28x28 map's
    1-wide left and right borders are 7168 stores one element apart).
  }];
  let options = [
    Option<"parallel", "parallel", "bool", "true",
           "Emit the outer loop over rows as scf.parallel">,
    Option<"minParallelElements", "min-parallel-elements", "int64_t", "32768",
           "Elements a copy writes at least to run its rows in parallel "
           "(a parallel region's fork and join cost more than a smaller "
           "copy; see dlas-affine-parallelize)">,
    Option<"minParallelReadElements", "min-parallel-read-elements", "int64_t",
           "4096",
           "Elements a padded copy writes at least to run its rows in "
           "parallel when a parallel loop reads the buffer afterwards "
           "(each thread then writes what its own core reads next)">
  ];
  let statistics = [
    Statistic<"numIm2Col", "im2col", "im2col patch copies vectorized">,
    Statistic<"numCopies", "copies", "Strided copies vectorized">,
    Statistic<"numPaddedCopies", "padded-copies",
              "Copies into a padded buffer fused with its border fills">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def WinogradTransforms : Pass<"dlas-winograd-transforms"> {
  let summary = "Winograd F(2x2,3x3) and F(4x4,3x3) input and output "
                "transforms as one vector pass each";
  let description = [{
    `dlas-select-conv-algorithm` writes Winograd F(m x m, 3x3)'s
    transforms (m = 2 or 4, alpha = m + 2) as contractions with constant
    matrices, marked `dlas.winograd_input` (`V[t, n, c, i, j] += T[t, k, l]
    * X[n, c, m i + k, m j + l]`, T = B^T (x) B^T) and
    `dlas.winograd_output` (`Y[n, f, i, p, j, q] += A[p, q, t] *
    M[t, n, f, i, j]`, A = A^T (x) A^T). As loop nests they cost alpha^4
    and m^2 alpha^2 multiplies per tile; they used to be elementwise ops
    over strided slices, a pass over memory each (2.2 of the 4 ms of
    ResNet-50's 56x56x64 layer on Zen 3).

    This pass (after bufferization) emits each as one pass: per (image,
    channel) plane, in parallel, per row of tiles, blocks of 8 tiles (then
    4, 2, 1) as vector lanes; m is read from V's and M's first dimension
    (16 or 36). The input transform loads each of a tile row's alpha input
    rows as two vectors of m x lanes elements, at column m j and at
    m j + alpha - m (which ends where the row's last tile does), whose m
    lane phases (even/odd splits, log2 m levels) are the tile columns
    (bf16/f16 inputs widen as they load); it applies B^T along the row as
    it loads it (alpha, not alpha^2, values of d live), then along the
    columns, and stores the alpha^2 results (a zero fill of V just before
    is dropped). The output transform loads the alpha^2 products, applies
    A^T, interleaves the m columns of each output row with shuffles and
    adds them into the result (which holds the bias). A matrix row becomes
    additions for its +-1 entries and FMAs with a splat for the others
    (F(2x2): 32 and 24 additions per tile). The marker asserts the
    constants are those of dlas's F(2x2) or F(4x4) matrices (the pass does
    not read them); operands whose shapes do not match, or whose rows are
    not contiguous, are left alone (the generic stays a correct loop nest).
  }];
  let options = [
    Option<"parallel", "parallel", "bool", "true",
           "Emit the loop over (image, channel) planes as scf.parallel">
  ];
  let statistics = [
    Statistic<"numInput", "input-transforms", "Input transforms emitted">,
    Statistic<"numOutput", "output-transforms", "Output transforms emitted">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def SplitMaskedStores : Pass<"dlas-split-masked-stores"> {
  let summary = "Store the enabled run of a constant-mask vector store as "
                "unmasked pieces where the target's masked stores are slow";
  let description = [{
    The kernels store a row's or a tile's last, partial vector with
    `vector.maskedstore` under a constant mask (a 7x7 depthwise plane's
    7-wide rows, a GEMM's last column tile). Without AVX-512 that is
    `vmaskmovps`, which AMD Zen 2/3 execute at about one per 14 cycles (one
    per cycle unmasked): on Zen 3 the 7 masked row stores of a 7x7 depthwise
    channel cost more than its 57 FMAs. Masked stores of 8- and 16-bit
    elements have no instruction at all before AVX-512BW, and LLVM
    scalarizes them into a branch per lane.

    Where the mask is a constant (`vector.constant_mask`, a
    `vector.create_mask` of a constant, or an `arith.constant` of `i1`s) and
    enables one run of lanes, the store becomes plain `vector.store`s of
    `vector.extract_strided_slice`s of that run, largest powers of two first
    (7 lanes: 4, 2 and 1); an all-false mask stores nothing, an all-true one
    is a plain store. Masks with gaps or that are not constant stay.

    The target decides (`dlas.target`, no host query): a target with
    AVX-512F keeps its masked stores of 32- and 64-bit elements (`vmovups`
    under a k-mask, one per cycle), one with AVX-512BW those of 8- and
    16-bit elements too; everything else is split, as is everything in a
    module without a target.

    ```mlir
    vector.maskedstore %y[%c, %r, %c0], %mask7, %v
        : memref<512x7x7xf32>, vector<8xi1>, vector<8xf32>
    // becomes, for x86-64-v3:
    %lo = vector.extract_strided_slice %v {offsets = [0], sizes = [4], strides = [1]}
    vector.store %lo, %y[%c, %r, %c0] : memref<512x7x7xf32>, vector<4xf32>
    // ... 2 lanes at %c0 + 4, 1 lane at %c0 + 6
    ```
  }];
  let statistics = [
    Statistic<"numSplit", "split", "Masked stores split into pieces">,
    Statistic<"numPieces", "pieces", "Unmasked stores emitted for them">
  ];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def ConvertSparseToLoops : Pass<"convert-sparse-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower sparse.conv2d and sparse.linear to vectorized loops "
                "over the non-zeros";
  let description = [{
    Direct sparse convolution (as in the TIRAMISU compiler's sparse
    kernels): dense activations, the filter's non-zeros driving vector FMAs
    over whole output rows. For each image and output-channel block (`r`
    rows of a block-CSR filter, one row of a CSR one) and each tile of
    `U x VL` flat output positions, `r x U` accumulators (vector registers)
    start at the bias; every stored block of the row adds `weight x input`
    for each of its `c` columns; the ReLU, if fused, is applied before the
    one store.

    To make every input read a contiguous full vector, whatever the stride,
    dilation and padding:

    * the input is zero-padded and split into `stride_h x stride_w` phase
      planes (a space-to-depth copy, none at stride 1), so that tap
      `(c, kh, kw)` of output `(oh, ow)` is at a fixed offset from flat
      position `oh * W_q + ow` of one plane; the planes are written in one
      pass per (image, channel), zeros where they read padding and vector
      copies (a load of `stride_w` vectors' worth and a lane shuffle)
      between;
    * output rows are computed `W_q` wide (the plane's row) and the tile
      count rounded up; the extra columns are sliced away afterwards. Where
      `OW` is a whole number of vectors, tiles follow the output rows
      instead (row tiles: balanced, at most `U` vectors each), computing
      no column past `OW` and storing (and reading a shortcut) compact.

    A tile of fewer than 8 accumulators (a batch-1 linear layer's 1-lane
    vector) takes consecutive stored blocks into 2-4 interleaved sets of
    accumulators, added at the end, so that the FMAs do not wait on each
    other.

    Tiles are the outer parallel loop and output channels the inner one, so
    that a tile's input is read from cache by every output channel. Where
    that input exceeds the L1 the reduction is split into slabs of
    input channels (each row's non-zeros of one slab at a time, the
    partial sums stored and reloaded between slabs; a slab keeps about 8
    stored blocks per row so that the reload pays off).

    Register shifts (`shift-taps`, on by default where rounding the
    planes' rows up to whole vectors costs at most 1/8 more positions):
    each row's stored blocks of a slab are grouped by their tap's column
    shift s at compile time; group s reads its taps s elements early, on
    the vector grid, over one vector more than the tile, and its sums are
    shifted left by s lanes (a `vector.shuffle` of two vectors) into the
    tile's accumulators, so no load splits a cache line.

    Narrow taps (`narrow-taps`, on by default where register shifts are
    refused, some tap is off the grid, half-width rows compute no more
    positions than the flat full-width tile, and at most 20% of the weight
    is stored: 7x7 maps on 16-lane targets)
    run the layer on half-width vectors over a copy of the input per tap
    column, each copy's rows OW rounded up to the half width (a 7x7 map:
    rows of 8, 7 vectors of 8 lanes, every load aligned, where 16-lane
    tiles load at any offset and split cache lines; denser weights read
    most of the tripled input per row, and the L1 refills cost more).
    `align-taps` makes such copies at the full width. The shifted copies
    are made row by row from the input, so they follow the kernel's tiles
    in bands like the plain planes.

    The offsets of every weight column are computed at compile time and
    stored with the positions (i32) and values in private constant
    `memref.global`s; the kernel reads these compact arrays. Offsets are
    16-bit (zero-extended as they are loaded) where every one of a layer's
    is below 65536 (linear layers up to 65536 features at batch 1, small
    maps), else 32-bit: layers that stream their arrays (few positions per
    stored weight) read 6 bytes per non-zero instead of 8. Images, tiles
    and chunks of output-channel blocks of about equal non-zeros (computed
    at compile time) are the iterations of one `scf.parallel` (OpenMP in
    the CPU pipeline).

    With a fused max pool (`pool_kernel`), the parallel iterations are
    images, chunks and bands of pooled rows: each band computes its
    convolution rows (full tiles and one narrower last tile) into a
    scratch buffer of its own, one row per output channel of the chunk,
    sets the padding there to -inf and pools the band from it (stride-2
    window columns as two loads and an even shuffle); only the pooled
    result is stored. The band height is the lowest whose cost per pooled
    row (tiles, their per-weight overhead, rows shared with the next band)
    is within 3% of the cheapest.

    `sparse.linear` is the same kernel on the transposed input: the batch
    is the flat output position, each input feature a plane of length 1
    per row (a batch below the vector width gets 1-lane vectors, a plain
    sparse matrix-vector product).

    The vector width and register budget come from the module's
    `dlas.target`. The weight must be a `sparse.constant` or a
    `sparse.pack` of an `arith.constant`; any other weight, or a
    sparse-encoded value left for another op, is an error that names the
    op. A dynamic batch is the outermost loop, read from the buffers at run
    time (a linear layer's: one sparse matrix-vector product per row).
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes per vector (0: from the module's dlas.target)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "0",
           "Vector registers (0: from the module's dlas.target)">,
    Option<"tileVectors", "tile-vectors", "int64_t", "0",
           "Vectors of output positions per tile and row (0: by the "
           "register budget)">,
    Option<"slabChannels", "slab-channels", "int64_t", "0",
           "Input channels (features) per slab (0: as many as the L1 "
           "holds of a tile's input)">,
    Option<"bakeLimit", "bake-limit", "int64_t", "0",
           "Bake the weights into the code (offsets and values as "
           "immediates, one straight-line case per block row and slab) for "
           "layers with at most this many stored blocks; 0: never (the "
           "arrays measure as fast and compile far faster, docs/Sparse.md)">,
    Option<"narrowOffsets", "narrow-offsets", "bool", "true",
           "Store offsets as 16 bits where a layer's all fit (false: always "
           "32 bits)">,
    Option<"gather", "gather", "bool", "true",
           "Gather the inputs of a one-position CSR tile (a batch-1 linear "
           "layer) a vector of non-zeros at a time (false: one 1-lane FMA "
           "per non-zero)">,
    Option<"alignTapsMode", "align-taps", "std::string", "\"never\"",
           "Aligned taps: plane rows rounded up to whole vectors and a "
           "shifted copy of the input per column offset, so that every load "
           "is aligned: never (the default: faster at 1 thread, slower at "
           "2, docs/Sparse.md), auto (16-lane targets, at most 1/8 more "
           "positions) or always">,
    Option<"shiftTapsMode", "shift-taps", "std::string", "\"auto\"",
           "Register shifts: plane rows rounded up to whole vectors, taps "
           "read on the vector grid (one vector more per tile) and shifted "
           "into place with a shuffle: auto (where some tap is off the grid "
           "and the rounding costs at most 1/8 more positions), always or "
           "never">,
    Option<"narrowTapsMode", "narrow-taps", "std::string", "\"auto\"",
           "Narrow taps: half-width vectors (8 lanes on a 16-lane target) "
           "with aligned taps, plane rows OW rounded up to them: auto (where "
           "some tap is off the grid, register shifts are refused, the "
           "narrow rows compute no more positions and the weight is at most "
           "20% dense: 7x7 maps), always or never">,
    Option<"weightChunkBytes", "weight-chunk-bytes", "int64_t", "-1",
           "Output channels in chunks whose stored weights (values and "
           "offsets) take at most this many bytes, run one chunk after the "
           "other over every tile, so that a chunk's weights are read from "
           "L2 at every tile after the first instead of from memory: -1 "
           "half the target's L2, 0 never">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Sparse layers lowered">
  ];
}

#endif // DLAS_CODEGEN_PASSES_TD
