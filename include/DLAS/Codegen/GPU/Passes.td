//===- Passes.td - DLAS GPU code generation passes ---------*- tablegen -*-===//
#ifndef DLAS_CODEGEN_GPU_PASSES_TD
#define DLAS_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUAttachTarget : Pass<"dlas-gpu-attach-target", "mlir::ModuleOp"> {
  let summary = "Put the named GPU target on the module as dlas.target";
  let description = [{
    Resolves `api:chip` to a `#dlas.gpu_target` from DLAS's table of GPUs
    and sets it as the module's `dlas.target`, which the GPU passes read
    (warp size, threads per block, processors to fill) and the pipeline
    hands to `nvvm-attach-target` / `rocdl-attach-target`.

    Names: `cuda:sm_80`, `cuda:sm_86`, `cuda:sm_89`, `cuda:sm_90`,
    `rocm:gfx90a`, `rocm:gfx942`.

    ```mlir
    // dlas-opt --dlas-gpu-attach-target=target=cuda:sm_90
    module attributes {dlas.target = #dlas.gpu_target<api = "cuda",
        chip = "sm_90", features = "+ptx80", warp_size = 32,
        max_threads = 1024, shared_memory = 49152, processors = 132>} {...}
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"cuda:sm_80\"",
           "GPU target name (cuda:sm_80, cuda:sm_90, rocm:gfx90a, "
           "rocm:gfx942, ...)">,
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect"];
}

def GPUSelectLowering : Pass<"dlas-gpu-select-lowering", "mlir::ModuleOp"> {
  let summary = "Decide, per linalg op, how it maps onto GPU blocks and threads";
  let description = [{
    The GPU's decision pass, on tensors: every linalg op in a module whose
    `dlas.target` is a `#dlas.gpu_target` gets `dlas.lowering =
    #dlas.gpu_kernel<...>`, which `dlas-gpu-map-kernels` reads after
    bufferization. One thread computes one output, with the op's
    reductions in a sequential loop in registers.

    The cost model:
    * contractions and stencils (ops with reductions) whose two innermost
      parallel dimensions fill 8 x 32 threads become `tiled` blocks of
      8 x 32 threads (16 x 16 or 32 x 8 where the innermost is 14 or 7
      wide): a warp walks contiguous outputs (coalesced loads of the
      column operand and stores), the rows of a block reuse the other
      operand through L1; a convolution runs its output channels as the
      rows;
    * everything else is `flat`: the parallel dimensions collapsed and cut
      into blocks of 256 threads, fewer (down to a warp) when that leaves
      fewer blocks than the target has processors, so that small layers
      still spread over the whole GPU.

    A contraction with f16 or bf16 operands and f32 sums (`precision=fp16`
    or `bf16`: convolutions of every kind as implicit GEMMs, matmuls,
    linear layers) whose GEMM has m and n of at least 32 and a reduction
    of at least 32 becomes an `mma` kernel where the target has a matrix
    instruction for the type: 64 x 64 outputs a block, 2 x 2 warps of
    32 x 32 outputs, each multiplying with WMMA (NVIDIA, f16), mma.sync
    m16n8k16 (NVIDIA sm_80 and newer, bf16) or MFMA 16x16x16 (AMD gfx90a
    and gfx94x, f16 and bf16; waves of 64, so 256 threads a block). With
    `allow-tf32`, f32 contractions on NVIDIA sm_80 and newer too, as
    mma.sync m16n8k8 on operands rounded to tf32 (10-bit mantissas; off by
    default, as in PyTorch). `tensor-cores=never`: the FMA kernels below.

    A contraction that takes no mma kernel (f32 without `allow-tf32`, or
    f16/bf16 on a chip without a matrix instruction for it) whose GEMM
    fills 64 x 64 tiles to half and whose blocks cover every processor
    (resnet50's layers at batch 32, large matmuls) becomes a `staged`
    kernel: the mma kernel's blocks, shared-memory staging and epilogue,
    each thread multiplying a register tile of its warp's 32 x 32 outputs
    with FMAs (8 x 4 outputs on NVIDIA, 4 x 4 on AMD's waves of 64), its
    operands read from shared memory as vectors. `staged=always` takes
    every such contraction, whatever its size; `never` none.

    Tiled kernels get a register tile of outputs per thread (`outputs =
    [rows, columns]`, up to 8 x 4) when the output still fills the larger
    block tile and leaves two blocks per processor.

    A sum reduction (convolution, matmul) whose kernel would launch fewer
    than `processors` x 1024 threads (a 7 x 7 layer at batch 1) gets its
    longest reduction loop split (`split = S`, a power of two up to 64,
    at least 8 iterations a chunk): S times the blocks, each adding its
    partial sum to the output atomically. Its prologue (bias) and epilogue
    (activation) then run as kernels of their own. `split-reductions=false`
    turns this off (the atomic additions' order, and so the last bits of
    the result, vary between runs).

    Per-op overrides: `dlas.gpu_threads = array<i64: t>` (flat) or
    `array<i64: rows, columns>` (tiled), `dlas.gpu_outputs = array<i64:
    rows, columns>` (tiled); the `threads` and `outputs` options set every
    kernel's (tests use small, odd ones to exercise every edge).

    ```mlir
    %r = linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled,
           threads = [8, 32], key = "linalg.matmul_64x48x32",
           source = cost_model>} ins(...) outs(...)
    ```
  }];
  let options = [
    Option<"print", "print", "bool", "false",
           "Print every op's decision and why to stdout">,
    ListOption<"threads", "threads", "int64_t",
               "Thread counts of every kernel: one (flat) or rows,columns "
               "(tiled, where the op has two parallel dimensions); empty: "
               "the cost model's">,
    ListOption<"outputs", "outputs", "int64_t",
               "Outputs per thread [rows, columns] of every tiled kernel "
               "(empty: the cost model's)">,
    Option<"splitReductions", "split-reductions", "bool", "true",
           "Split the reductions of kernels too small to occupy the GPU "
           "(partial sums added atomically: the result's last bits vary "
           "between runs)">,
    Option<"split", "split", "int64_t", "0",
           "Chunks of every sum reduction's split (0: the cost model's; "
           "tests use odd ones to exercise uneven chunks)">,
    Option<"tensorCores", "tensor-cores", "std::string", "\"auto\"",
           "mma (tensor-core) kernels for f16 and bf16 contractions: auto "
           "(the cost model's size rule), always (every contraction they "
           "can compute, any size: tests use it for edges everywhere) or "
           "never">,
    Option<"allowTF32", "allow-tf32", "bool", "false",
           "f32 contractions on NVIDIA tensor cores too (sm_80 and newer), "
           "their operands rounded to tf32 (10-bit mantissas)">,
    Option<"staged", "staged", "std::string", "\"auto\"",
           "staged kernels (operands staged in shared memory, FMAs on "
           "register tiles) for contractions that take no mma kernel: auto "
           "(when their blocks fill the processors), always (any size) or "
           "never">,
  ];
  let dependentDialects = ["::mlir::dlas::DLASDialect"];
}

def GPUSeparateEmptyTensors : Pass<"dlas-gpu-separate-empty-tensors"> {
  let summary = "Give every use of a tensor.empty an empty tensor of its own";
  let description = [{
    CSE merges identical `tensor.empty` ops, and one-shot bufferization then
    lets every op that writes into the merged one share its buffer: a
    convolution's output lands in the buffer its padded input was copied
    from. On a GPU that sharing forbids reading the unpadded input in place
    (the kernel would read what other threads overwrite), so before
    bufferization each use gets its own `tensor.empty`: one allocation per
    layer output, freed after its last use by the deallocation pipeline.

    ```mlir
    %e = tensor.empty() : tensor<1x64x56x56xf32>
    %a = linalg.broadcast ins(%b0 : tensor<64xf32>) outs(%e : ...) ...
    %c = linalg.broadcast ins(%b1 : tensor<64xf32>) outs(%e : ...) ...
    // becomes
    %e0 = tensor.empty() : tensor<1x64x56x56xf32>
    %a = linalg.broadcast ins(%b0 : tensor<64xf32>) outs(%e0 : ...) ...
    %e1 = tensor.empty() : tensor<1x64x56x56xf32>
    %c = linalg.broadcast ins(%b1 : tensor<64xf32>) outs(%e1 : ...) ...
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def GPUNameKernels : Pass<"dlas-gpu-name-kernels", "mlir::ModuleOp"> {
  let summary = "Name each gpu.launch after the layer it computes, one module a function";
  let description = [{
    `dlas-gpu-map-kernels` records, per function, the layer each kernel
    computes (its decision key: op and loop ranges) in the function's
    `dlas.gpu_kernel_names`, in program order; after
    `convert-parallel-loops-to-gpu` this pass gives the function's
    `gpu.launch` ops, in the same order, `module(@<func>_kernels)
    function(@<layer>_<i>)`, so that `gpu-kernel-outlining` puts the
    function's kernels in one `gpu.module` (one binary to build and to
    load, instead of one per kernel) and names them after their layers:
    the runtime's per-kernel profile (`dlas-run --profile`) says which
    layer each time belongs to. The attribute is removed. When the
    launches do not correspond one to one (a pass in between made or
    removed some) the kernels keep outlining's names and a warning says so.

    ```mlir
    gpu.launch blocks(...) threads(...) module(@main_kernels)
        function(@conv_2d_nchw_fchw_1x64x56x56x64x3x3_3) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUMapKernels : Pass<"dlas-gpu-map-kernels", "mlir::ModuleOp"> {
  let summary = "Lower each decided linalg op to scf.parallel loops mapped "
                "to GPU blocks and threads";
  let description = [{
    Runs on memrefs, after bufferization. Each linalg op outside a GPU
    kernel becomes an `scf.parallel` nest over its parallel loops, in the
    decision's loop order (the output's layout), whose body keeps each
    output value in a register across sequential `scf.for` loops over the
    reductions (one load and one store per output, where linalg's loop
    lowering would load and store it at every reduction step), shaped by
    its `#dlas.gpu_kernel` decision:
    `flat` collapses the parallel dimensions into one, `tiled` keeps the
    two innermost and collapses the rest; the loop is tiled by the block's
    thread counts (out-of-range threads skip the body) and the outer loop
    is mapped to block ids, the inner one to thread ids. Upstream
    `convert-parallel-loops-to-gpu` then turns each nest into a
    `gpu.launch`. An op without a decision (copies that bufferization
    made) gets the cost model's, and a `memref.copy` left on the host
    becomes a `linalg.copy` kernel first.

    Fusion (`fuse`, on): a reduction's kernel folds the elementwise op right
    before it that fills its output (a bias broadcast, a fill: its value
    starts the accumulators) and the one right after it that reads its
    output elementwise (bias add, activation, residual add, which
    elementwise fusion has made one op): applied to the final values in
    registers and stored to its own output. The reduction's output is then
    stored only if something else reads it. A padded input (a
    `tensor.pad`, bufferized: a buffer filled with the padding value and the
    source copied into a subview of it) that nothing else reads is read
    from its source with a bounds check instead, and the fill, the copy and
    the buffer go (unless the source is written between the copy and the
    reader: bufferization reuses buffers). A ResNet block's padding,
    convolution, bias and ReLU become one kernel (resnet50: 198 kernels
    without fusion, 56 with).

    An op whose outputs are not
    indexed by a projected permutation (none that DLAS makes) is refused.

    ```mlir
    // before: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled,
    //           threads = [8, 32], ...>} ins(%a, %b) outs(%c)
    scf.parallel (%z, %i, %j) = (%c0, %c0, %c0) to (%c1, %c64, %c48)
        step (%c1, %c8, %c32) {
      scf.parallel (%ti, %tj) = ... to (%c8, %c32) step (%c1, %c1) {
        scf.if %in_range {
          %c0 = memref.load %c[...]
          %sum = scf.for %k ... iter_args(%acc = %c0) -> (f32) { ... }
          memref.store %sum, %c[...]
        }
      } {mapping = [#gpu.loop_dim_map<processor = thread_z, ...>, ...]}
    } {mapping = [#gpu.loop_dim_map<processor = block_z, ...>, ...]}
    ```
  }];
  let options = [
    Option<"fuse", "fuse", "bool", "true",
           "Fold the elementwise op that fills a reduction's output (its "
           "prologue) and the one that reads it (its epilogue) into the "
           "reduction's kernel">,
    Option<"emulate", "emulate", "bool", "false",
           "Build `mma` kernels to run on a CPU (a test aid): one thread "
           "does a block's cooperative work and every warp's steps in "
           "turn, each WMMA step as scalar f32 loops on the shared C tile "
           "(the same tiles, positions and staging), no barriers, staging "
           "buffers on the stack">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
}

def GPUDeviceBuffers : Pass<"dlas-gpu-device-buffers", "mlir::ModuleOp"> {
  let summary = "Keep every buffer in device memory; copy at the entry's edges";
  let description = [{
    Runs after the kernels are `gpu.launch` ops. Host code then only
    allocates, launches and copies:
    * `memref.alloc` / `memref.dealloc` become `gpu.alloc` / `gpu.dealloc`;
    * a public function (the entry the runner calls with host buffers)
      copies each memref argument to a device buffer on entry, and each
      returned buffer to a new host buffer before it returns, freeing the
      device buffers it made (not the constants);
    * a constant (`memref.get_global`) is copied to the device once per
      process by the runtime's `dlas_gpu_constant`, which keeps the device
      copy for later calls;
    * private functions take and return device buffers.
    Host code that would read or write a buffer's elements itself
    (`memref.load`, `memref.store`, `memref.copy`, a linalg op left on the
    host, ...) is refused with an error naming the op: it would touch
    device memory on the host.

    ```mlir
    func.func @main(%x: memref<1x8xf32>) -> memref<1x8xf32> {
      %dx = gpu.alloc () : memref<1x8xf32>
      gpu.memcpy %dx, %x : memref<1x8xf32>, memref<1x8xf32>
      ...                                   // gpu.launch on %dx
      %h = memref.alloc() : memref<1x8xf32>
      gpu.memcpy %h, %dr : memref<1x8xf32>, memref<1x8xf32>
      gpu.dealloc %dr : memref<1x8xf32>
      gpu.dealloc %dx : memref<1x8xf32>
      return %h : memref<1x8xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // DLAS_CODEGEN_GPU_PASSES_TD
