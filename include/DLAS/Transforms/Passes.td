//===- Passes.td - DLAS transforms -------------------------*- tablegen -*-===//
#ifndef DLAS_TRANSFORMS_PASSES_TD
#define DLAS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrepareEntryABI : Pass<"dlas-prepare-entry-abi", "mlir::ModuleOp"> {
  let summary = "Mark public functions for the C calling convention of dlas-run";
  let description = [{
    Puts `llvm.emit_c_interface` on every public `func.func` with a body, so
    that the LLVM lowering emits a `_mlir_ciface_<name>` wrapper taking
    memref descriptors by pointer, and records the function's tensor
    signature in `dlas.signature` so that a runner given already-lowered
    LLVM-dialect IR still knows the shapes and element types of the entry.
    An i8 argument or result marked `dlas.unsigned` (a UINT8 tensor at an
    imported ONNX graph's edge, whose bytes the function converts itself)
    is `ui8` in the signature: the runner reads and writes it as uint8.

    Before:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32>
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32>
        attributes {dlas.signature = (tensor<1x8xf32>) -> tensor<1x8xf32>,
                    llvm.emit_c_interface}
    ```
  }];
}

def CheckConstants : Pass<"dlas-check-constants", "mlir::ModuleOp"> {
  let summary = "Refuse dense_resource constants whose blob does not hold their type's bytes";
  let description = [{
    A `dense_resource<name>` attribute is a handle: the bytes sit in the
    file's `dialect_resources` section and nothing in MLIR's parser checks
    that the blob holds as many bytes as the attribute's type needs, or
    that it is there at all (`--mlir-elide-resource-strings-if-larger`
    prints handles without data). Every pass that reads weights at
    compile time (weight packing, Winograd, mixed precision) would read
    past a short blob. This pass walks every attribute of the module
    (constants, `memref.global` initial values, module attributes) and
    fails with an error naming the resource, its type and both byte
    counts. It runs first in `dlas-cpu-pipeline`; the readers also refuse
    such a blob on their own (`dlas::resourceValues`), so a pass run alone
    leaves the constant as it is instead of reading past it.

    ```
    error: dense_resource 'w2' of type 'tensor<8x8x3x3xf32>' holds 100 bytes, where its type needs 2304
    ```
  }];
}

def MemRefCopyToLinalg : Pass<"dlas-memref-copy-to-linalg"> {
  let summary = "Rewrite memref.copy between non-contiguous buffers as linalg.copy";
  let description = [{
    The LLVM lowering turns a `memref.copy` between non-contiguous buffers
    into a call to `memrefCopy` from MLIR's C runner library, which a
    JIT-compiled or exported module would then have to link. As a
    `linalg.copy` the copy lowers to plain loops with the rest of the code.
    A copy whose source and target are both contiguous (identity layout, or
    a static row-major run such as a channel range of an NCHW buffer of
    batch 1) stays a `memref.copy`: it lowers to `llvm.intr.memcpy`.

    Before:
    ```mlir
    memref.copy %a, %b : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
    ```
    After:
    ```mlir
    linalg.copy ins(%a : memref<4x4xf32, strided<[8, 1]>>) outs(%b : memref<4x4xf32>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def LowerDynamicExpandShapes : Pass<"dlas-lower-dynamic-expand-shapes"> {
  let summary = "Rewrite memref.expand_shape ops that split one dimension into "
                "several run-time sizes as memref.reinterpret_cast";
  let description = [{
    Upstream `expand-strided-metadata` (MLIR 22) derives an expanded
    group's sizes from its source size and the group's static sizes, so it
    allows one run-time size per reassociation group; with two (a
    `[T * B, 48]` GEMM result split into `[T, B, 48]` when both the
    sequence length and the batch are known only at run time) it reads a
    null size and crashes. This pass, run before it, rewrites such
    expand_shapes with the sizes the op itself carries (`output_shape`):
    a `memref.reinterpret_cast` of the source's base buffer at the
    source's offset, each expanded dimension's stride the source
    dimension's stride times the sizes after it in its group. Every other
    expand_shape is left to `expand-strided-metadata`.

    Before:
    ```mlir
    %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%t, %b, 48]
        : memref<?x48xf32> into memref<?x?x48xf32>
    ```
    After:
    ```mlir
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a
        : memref<?x48xf32> -> memref<f32>, index, index, index, index, index
    %stride = arith.muli %b, %c48 : index
    %e = memref.reinterpret_cast %base to offset: [0], sizes: [%t, %b, 48],
        strides: [%stride, 48, 1] : memref<f32> to memref<?x?x48xf32>
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def FillPadBorders : Pass<"dlas-fill-pad-borders"> {
  let summary = "Fill only the border of a padded buffer whose interior a copy overwrites";
  let description = [{
    A bufferized `tensor.pad` fills its whole new buffer with the padding
    value and then copies the source into the interior: every interior
    element is written twice. Where a fill (`linalg.fill`, or a
    `linalg.map` without inputs that yields a value from outside) of a
    whole static buffer is followed, in the same block and with nothing
    between that touches the buffer, by a copy (`linalg.copy` or
    `memref.copy`) into a static unit-stride subview of it, the fill is
    replaced by fills of the subview's complement: per padded dim, the
    slab before and the slab after the interior (the dims before it
    restricted to the interior, those after it whole). A convolution's
    spatial padding of one becomes two rows and two columns per plane
    instead of the plane.

    Before:
    ```mlir
    %a = memref.alloc() : memref<1x8x34x34xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<1x8x34x34xf32>)
    %s = memref.subview %a[0, 0, 1, 1] [1, 8, 32, 32] [1, 1, 1, 1] : ...
    linalg.copy ins(%x : memref<1x8x32x32xf32>) outs(%s : ...)
    ```
    After: `linalg.fill` of `%a[0, 0, 0, 0] [1, 8, 1, 34]`,
    `%a[0, 0, 33, 0] [1, 8, 1, 34]`, `%a[0, 0, 1, 0] [1, 8, 32, 1]` and
    `%a[0, 0, 1, 33] [1, 8, 32, 1]`, then the copy.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def NestedDynamicLinalgToLoops : Pass<"dlas-nested-dynamic-linalg-to-loops"> {
  let summary = "Lower linalg ops with run-time sizes inside loops to scf loops";
  let description = [{
    `convert-linalg-to-affine-loops` bounds its loops by the operands'
    sizes, and a run-time size (`memref.dim`) is a valid affine dimension
    only where its buffer is defined at the top of the function. Inside
    an `scf.for` (an LSTM's or GRU's time loop over a symbolic batch, whose
    state buffers are the loop's iteration arguments) it is not, and the
    affine loops would not verify. This pass lowers every linalg op on
    buffers that has an operand with a dynamic size and is nested in a
    region other than its function's body to `scf.for` loops
    (`linalg::linalgOpToLoops`, the same loop nest and body); the others
    are left to the affine lowering.

    Before:
    ```mlir
    scf.for %t = %c0 to %c11 step %c1 iter_args(%h = %h0) -> (memref<?x20xf32>) {
      %n = memref.dim %h, %c0 : memref<?x20xf32>
      %a = memref.alloc(%n) : memref<?x20xf32>
      linalg.copy ins(%h : memref<?x20xf32>) outs(%a : memref<?x20xf32>)
      ...
    ```
    After: the copy is an `scf.for` over `memref.dim %h, %c0` and one over
    20 around a load and a store.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def ExternalizeWeights : Pass<"dlas-externalize-weights", "mlir::ModuleOp"> {
  let summary = "Move large constant tensors out of the generated code";
  let description = [{
    Replaces every `arith.constant` holding a `dense_resource` tensor of at
    least `min-bytes` bytes by a read of an external `memref.global`
    (declared, not defined) and records the resource under the global's name
    in the module attribute `dlas.external_weights`. On bufferized IR it
    does the same to constant `memref.global`s defined by such a resource:
    they keep their name and lose their initializer. The CPU pipeline runs
    it there, after the microkernels have packed constant weights at
    compile time, so that the packed copies are bound, not emitted, too. A JIT (dlas-run) binds
    each global to the resource's data in memory, so LLVM never copies,
    optimizes or emits the weights: importing ResNet-18 then compiles in a
    fraction of a second instead of seconds spent emitting 46 MB of data.

    Before:
    ```mlir
    %w = arith.constant dense_resource<conv1.weight> : tensor<64x3x7x7xf32>
    ```
    After:
    ```mlir
    memref.global "public" constant @dlas_weight_0 : memref<64x3x7x7xf32>
    ...
    %m = memref.get_global @dlas_weight_0 : memref<64x3x7x7xf32>
    %w = bufferization.to_tensor %m restrict : memref<64x3x7x7xf32> to tensor<64x3x7x7xf32>
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", "4096",
           "Smallest constant (in bytes) to externalize">
  ];
  let statistics = [
    Statistic<"numExternalized", "externalized", "Constants moved out">,
    Statistic<"bytesExternalized", "externalized-bytes", "Bytes moved out">
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def VectorizableLoopOrder : Pass<"dlas-vectorizable-loop-order"> {
  let summary = "Order linalg loops so that the innermost one is contiguous";
  let description = [{
    Generalizes every linalg op with a reduction (convolutions, matmuls,
    pooling, reductions) and interchanges its loops: the parallel loop that
    indexes the output's last, contiguous dimension goes innermost, the
    reduction loops right outside it, the other parallel loops outermost.
    Lowered to loops, the innermost loop then walks unit-stride memory with
    no loop-carried dependence and LLVM vectorizes it (16 f32 lanes with
    AVX-512), instead of a scalar reduction over a 3-tap kernel window. Each
    output element still sums its products in the original order.

    Reduction loops of at most `max-inner-reduction` iterations
    (convolution windows) go inside the contiguous loop instead: LLVM
    unrolls them fully and vectorizes the contiguous loop with the window's
    products summed in registers, one load and store of the output per
    window rather than per product.

    This is the first, loop-level stage of the CPU codegen strategy; tiling,
    packing and register-blocked microkernels refine it.

    Before (conv_2d_nchw_fchw): loops n, f, oh, ow, c, kh, kw.
    After: n, f, oh, c, ow, kh, kw.
  }];
  let options = [
    Option<"maxInnerReduction", "max-inner-reduction", "int64_t", "7",
           "Reductions with at most this many iterations stay innermost">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numReordered", "reordered", "Linalg ops whose loops were reordered">
  ];
}

def CollapseContiguousLoops : Pass<"dlas-collapse-contiguous-loops"> {
  let summary = "Merge the loops of a linalg op that walk contiguous memory into one";
  let description = [{
    The ops that no kernel pass took (quantize, standalone elementwise ops,
    fills, reductions) become plain loop nests, and LLVM vectorizes their
    innermost loop. On a 14x14 or 7x7 feature map that loop has 14 or 7
    iterations: most of it is the scalar remainder. A ResNet-50 int8
    quantize layer on 1024x14x14 took 0.19 ms; the same elements as one
    loop take 0.04 ms.

    This pass merges adjacent loops of every linalg op on buffers wherever
    the merged loop still walks each operand in order (upstream
    `linalg::collapseOpIterationDims`, checked with
    `areDimSequencesPreserved`): a run of loops merges when they have the
    same iterator type and every operand either indexes all of them,
    consecutively, or none. Operands must be contiguous buffers (identity
    layout or contiguous row-major strides) and indexing maps projected
    permutations (no strided windows); ops whose body reads
    `linalg.index`, and ops with a `dlas.lowering` decision, are left alone.
    Named ops are generalized first when something merges.

    Before (a per-channel operand keeps the channel loop apart):
    ```mlir
    linalg.generic {indexing_maps = [(n, c, h, w) -> (n, c, h, w),
                                     (n, c, h, w) -> (c),
                                     (n, c, h, w) -> (n, c, h, w)], ...}
      ins(%x, %s : memref<1x8x14x14xf32>, memref<8xf32>) outs(%y : ...)
    ```
    After: loops (n), (c), (h * w) over `memref<1x8x196xf32>` views.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numCollapsed", "collapsed", "Linalg ops whose loops were merged">
  ];
}

def FuseConversions : Pass<"dlas-fuse-conversions"> {
  let summary = "Fuse elementwise type conversions (i8 dequantizes, bf16/f16 widenings and narrowings) into the elementwise ops next to them";
  let description = [{
    Lowered alone, a conversion is a loop of its own over memory: an int8
    residual block's add reads its skip connection as `nn.dequantize` of
    an i8 tensor (dlas-quantize-residuals), and every elementwise op of
    a bf16/f16 region reads its operands through `arith.extf` to f32 and
    rounds its result with `arith.truncf` (a bf16 add was four loops: two
    widenings, the add, the narrowing). Apart, they also keep a kernel
    from folding the op into its epilogue (a widening's result is written
    after the kernel runs). This pass fuses them on tensors, before the
    kernels are decided (upstream `linalg::fuseElementwiseOps`):

    * a *widening* (an all-parallel `linalg.generic` with one use that
      reads integers narrower than 32 bits, bf16 or f16, yields f32 and
      reads no other full f32 tensor) into the all-parallel op that reads
      it, which then loads the narrow tensor and converts in its body (a
      kernel's epilogue loads bytes or halves);
    * an all-parallel op with one use into the *narrowing* that reads it
      (a body of one `arith.truncf` from f32 to bf16/f16), so that the op
      stores bf16/f16 itself;
    * a *clamp* (a body of maxima and minima of its one input with scalar
      constants: ReLU, ReLU6, clip) of a narrowing's result moves before
      the narrowing and computes on its f32 input: rounding to nearest is
      monotonic and the bounds are narrow-type values, so the result is
      the same, and bf16/f16 have no maximum instructions (LLVM widens
      and narrows each lane around every one).

    An int8 layer's dequantize of its i32 accumulator, and the narrowing
    of a kernel's f32 result, stay: they start the kernel's epilogue chain,
    which may change the element type (i32 -> f32, f32 -> i8, bf16, f16).

    ```mlir
    %d = linalg.generic ... ins(%q : tensor<1x64x56x56xi8>) outs(...) {
      extsi, subi, sitofp, mulf }
    %s = linalg.generic ... ins(%y, %d : tensor<...xf32>, tensor<...xf32>) ... { addf }
    ```
    becomes one generic `ins(%y, %q : tensor<...xf32>, tensor<...xi8>)`
    whose body dequantizes and adds; a bf16 add's two `extf` loops, its
    `addf` and its `truncf` become one generic on bf16 operands.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numWidenings", "widenings", "Widenings fused into their reader">,
    Statistic<"numNarrowings", "narrowings", "Ops fused into the narrowing of their result">,
    Statistic<"numClampsBeforeNarrowing", "clamps-before-narrowing", "Clamps computed in f32 before the narrowing of their input">
  ];
}

def InstrumentLayers : Pass<"dlas-instrument-layers", "mlir::ModuleOp"> {
  let summary = "Time every layer call for a per-layer profile";
  let description = [{
    Wraps every call to a layer function (a function with `dlas.layer`, made
    by `dlas-outline-layers`) in calls to `dlas_layer_begin(id)` and
    `dlas_layer_end(id)`, declared as external functions that the runner
    provides, and lists the layers in the module attribute `dlas.layers`
    (entry `id` describes layer `id` as "<layer name>: <callee>"). dlas-run
    --profile binds the two functions to timers and prints the per-layer
    medians: which layer is slow, without reading IR.

    Before:
    ```mlir
    %1 = call @main_layer0_conv2d(%0) : (tensor<...>) -> tensor<...>
    ```
    After:
    ```mlir
    %c0 = arith.constant 0 : i64
    call @dlas_layer_begin(%c0) : (i64) -> ()
    %1 = call @main_layer0_conv2d(%0) : (tensor<...>) -> tensor<...>
    call @dlas_layer_end(%c0) : (i64) -> ()
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::arith::ArithDialect"];
}

def DedupeLayers : Pass<"dlas-dedupe-layers", "mlir::ModuleOp"> {
  let summary = "Let identical layer functions share one body, weights passed as arguments";
  let description = [{
    Networks repeat their layers: the 58 3x3 convolutions of DenseNet-121
    have four distinct shapes, ResNet-50's bottlenecks repeat within each
    stage. After outlining (`dlas-outline-layers`) and the kernel passes,
    such layer functions differ only in the constant `memref.global`s they
    read (their weights, packed or not). This pass groups private
    `func.func`s marked `dlas.layer` whose bodies are the same op for op
    once the names of the constant globals they read are set aside, keeps
    one body per group with each such global turned into a trailing memref
    argument, and rewrites every call to pass its own layer's globals. The
    code that LLVM optimizes and emits shrinks accordingly (DenseNet-121:
    217k to 140k lines of LLVM dialect), and with it the compile time.

    Functions with any other use than a `func.call`, public functions and
    layers read the same global under different names in different places
    are left alone. A layer with no twin keeps its globals. The shared
    body's `dlas.layer` becomes the list of the layers it runs.

    Before:
    ```mlir
    func.func private @l1(%x: memref<8xf32>) -> memref<8xf32> attributes {dlas.layer = "a"} {
      %w = memref.get_global @w1 : memref<8xf32>
      ...
    }
    func.func private @l2(%x: memref<8xf32>) -> memref<8xf32> attributes {dlas.layer = "b"} {
      %w = memref.get_global @w2 : memref<8xf32>
      ...
    }
    %1 = call @l1(%0) : (memref<8xf32>) -> memref<8xf32>
    %2 = call @l2(%1) : (memref<8xf32>) -> memref<8xf32>
    ```
    After:
    ```mlir
    func.func private @l1(%x: memref<8xf32>, %w: memref<8xf32>) -> memref<8xf32>
        attributes {dlas.layer = "a; b"} { ... }
    %w1 = memref.get_global @w1 : memref<8xf32>
    %1 = call @l1(%0, %w1) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
    %w2 = memref.get_global @w2 : memref<8xf32>
    %2 = call @l1(%1, %w2) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
    ```
  }];
  let statistics = [
    Statistic<"numMerged", "merged-layers", "Layer functions replaced by a shared body">
  ];
}

def AffineParallelizeLarge : Pass<"dlas-affine-parallelize"> {
  let summary = "Turn the parallel affine loops that carry enough work into affine.parallel (OpenMP later)";
  let description = [{
    Upstream `affine-parallelize` with a floor on the work: an `affine.for`
    that `isLoopParallel` proves parallel becomes a 1-D `affine.parallel`
    (upstream `affineParallelize`, at most `max-nested` deep, outer loops
    first) only when its nest runs at least `min-iterations` iterations in
    all (its trip count times those of the loops inside it; a loop whose
    trip count is not constant always qualifies). Each `affine.parallel`
    becomes an OpenMP parallel region, and a region's fork and join cost
    microseconds, more than the small fills, copies and elementwise ops
    around a kernel take on one thread. An add + ReLU on Zen 4 at 2
    threads: 8192 elements 0.006-0.007 ms in parallel, 0.003 sequential;
    16384 elements 0.007-0.011 against 0.004-0.005; 50176 elements about
    even (0.010-0.013). Smaller nests stay sequential, and so do the four
    border slabs of a padded buffer (dlas-fill-pad-borders).

    Before (`min-iterations=1024`):
    ```mlir
    affine.for %i = 0 to 16 {      // 16 x 8 = 128 iterations: stays
      affine.for %j = 0 to 8 { ... }
    }
    affine.for %i = 0 to 64 {      // 64 x 256: affine.parallel
      affine.for %j = 0 to 256 { ... }
    }
    ```
  }];
  let options = [
    Option<"maxNested", "max-nested", "unsigned", "1",
           "Parallel loops at most this deep (upstream affine-parallelize's option)">,
    Option<"minIterations", "min-iterations", "int64_t", "32768",
           "Iterations a loop nest needs in all to run in parallel">
  ];
  let dependentDialects = ["mlir::affine::AffineDialect"];
  let statistics = [
    Statistic<"numParallelized", "parallelized", "Loops made parallel">,
    Statistic<"numTooSmall", "too-small", "Parallel loops kept sequential for their size">
  ];
}

#endif // DLAS_TRANSFORMS_PASSES_TD
