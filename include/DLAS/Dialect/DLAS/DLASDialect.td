//===- DLASDialect.td - codegen attributes: targets and decisions ---------===//
//
// The `dlas` dialect holds no ops: it carries what code generation needs to
// know about the machine it compiles for (`#dlas.cpu_target`, on the module
// as `dlas.target`), so that every pass reads the target from the IR and
// none asks the host it runs on.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_DIALECT_DLAS_DLASDIALECT_TD
#define DLAS_DIALECT_DLAS_DLASDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/DialectBase.td"

def DLAS_Dialect : Dialect {
  let name = "dlas";
  let cppNamespace = "::mlir::dlas";
  let summary = "DLAS code generation attributes: targets and decisions";
  let description = [{
    Attributes that code generation reads. A module compiled by DLAS carries
    its target as the discardable attribute `dlas.target`:

    ```mlir
    module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3",
        features = "+avx,+avx2,+f16c,+fma", vector_bits = 256,
        vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432,
        fma_per_cycle = 2>} {
      ...
    }
    ```

    The kernel passes take their vector width, register budget and cache
    blocking from it; the JIT (`dlas-run`) and the object path
    (`dlas-compile`) create their LLVM target machine from its `cpu` and
    `features`. `host` is resolved to a concrete target only by the tools and
    by the pipeline builder, never by a pass, so that the IR printed for a
    named target is the same on every machine.

    Strategy is kept apart from mechanism: `dlas-cpu-select-lowering`
    decides, on tensors, how each contraction and stencil is lowered and
    records the decision on the op as `dlas.lowering` (a
    `#dlas.microkernel`); the kernel passes read it after bufferization and
    decide nothing themselves.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute that holds the target.
    static constexpr ::llvm::StringLiteral kTargetAttrName = "dlas.target";
    /// The op attribute that holds a lowering decision
    /// (dlas-cpu-select-lowering's #dlas.microkernel).
    static constexpr ::llvm::StringLiteral kLoweringAttrName = "dlas.lowering";
    /// The op attribute that binds a fusion partner to the decision of the
    /// kernel that folds it (dlas-cpu-select-lowering's #dlas.fused).
    static constexpr ::llvm::StringLiteral kFusedAttrName = "dlas.fused";
  }];
}

class DLAS_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<DLAS_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def DLAS_CPUTargetAttr : DLAS_Attr<"CPUTarget", "cpu_target"> {
  let summary = "A CPU that code is generated for";
  let description = [{
    * `cpu`: the LLVM CPU name (`x86-64-v3`, `znver3`, `sapphirerapids`, ...),
      given to the LLVM target machine;
    * `features`: the code-generation-relevant ISA extensions the target has,
      as an LLVM feature string of `+name` entries in a fixed order (`+avx2`,
      `+fma`, `+avx512f`, `+avx512bf16`, `+avx512vnni`, `+avxvnni`,
      `+amx-bf16`, `+amx-int8`, ...); those it lacks are disabled explicitly
      when the target machine is created, whatever the CPU name implies;
    * `vector_bits`: the vector register width kernels use (128, 256, 512);
    * `vector_registers`: architectural vector registers (16 or 32);
    * `l1`, `l2`, `l3`: data cache bytes per core (L3: the whole cache);
    * `fma_per_cycle`: vector FMA instructions issued per cycle per core.
  }];
  let parameters = (ins
    StringRefParameter<"LLVM CPU name">:$cpu,
    StringRefParameter<"LLVM feature string of the ISA extensions">:$features,
    "int64_t":$vector_bits,
    "int64_t":$vector_registers,
    "int64_t":$l1,
    "int64_t":$l2,
    "int64_t":$l3,
    "int64_t":$fma_per_cycle
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when `features` lists `+name`.
    bool hasFeature(::llvm::StringRef name) const;
    /// Lanes of a vector register holding elements of `bits` bits.
    int64_t lanes(int64_t bits) const { return getVectorBits() / bits; }
    /// The LLVM feature string for a target machine: the listed features
    /// and every other code-generation-relevant one disabled.
    std::string llvmFeatureString() const;
  }];
}

def DLAS_GPUTargetAttr : DLAS_Attr<"GPUTarget", "gpu_target"> {
  let summary = "A GPU that code is generated for";
  let description = [{
    Put on the module as `dlas.target` by `dlas-gpu-attach-target` from a
    name `api:chip` (`cuda:sm_80`, `cuda:sm_90`, `rocm:gfx90a`,
    `rocm:gfx942`); the GPU passes read it and the pipeline hands `chip`
    and `features` to `nvvm-attach-target` or `rocdl-attach-target`.

    * `api`: `cuda` (NVVM, PTX/cubin, the CUDA driver) or `rocm` (ROCDL,
      hsaco, HIP);
    * `chip`: `sm_NN` or `gfxNNN`;
    * `features`: the LLVM features of the device code (`+ptx80`: the PTX
      ISA version);
    * `warp_size`: threads per warp (32) or wavefront (64);
    * `max_threads`: threads per block (workgroup);
    * `shared_memory`: shared memory (LDS) bytes a block may use;
    * `processors`: streaming multiprocessors or compute units, which the
      cost model fills with blocks.

    ```mlir
    module attributes {dlas.target = #dlas.gpu_target<api = "cuda",
        chip = "sm_90", features = "+ptx80", warp_size = 32,
        max_threads = 1024, shared_memory = 232448, processors = 132>} {...}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"cuda or rocm">:$api,
    StringRefParameter<"sm_NN or gfxNNN">:$chip,
    StringRefParameter<"LLVM features of the device code">:$features,
    "int64_t":$warp_size,
    "int64_t":$max_threads,
    "int64_t":$shared_memory,
    "int64_t":$processors
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isCUDA() const { return getApi() == "cuda"; }
    /// The name the attribute was made from: `api:chip`.
    std::string getName() const { return (getApi() + ":" + getChip()).str(); }
  }];
}

//===----------------------------------------------------------------------===//
// Lowering decisions
//===----------------------------------------------------------------------===//

def DLAS_MicrokernelKind : I32EnumAttr<"MicrokernelKind",
    "the kernel a decision selects", [
  I32EnumAttrCase<"gemm", 0>,
  I32EnumAttrCase<"depthwise", 1>,
  I32EnumAttrCase<"max_pool", 2>,
  I32EnumAttrCase<"sum_pool", 3>,
  I32EnumAttrCase<"blocked_conv", 4>,
  I32EnumAttrCase<"blocked_depthwise", 5>,
  I32EnumAttrCase<"grouped_conv", 6>]> {
  let cppNamespace = "::mlir::dlas";
  let genSpecializedAttr = 0;
}

def DLAS_FusedInit : I32EnumAttr<"FusedInit",
    "how the kernel initializes its accumulators", [
  I32EnumAttrCase<"loaded", 0>,
  I32EnumAttrCase<"fill", 1>,
  I32EnumAttrCase<"broadcast", 2>]> {
  let cppNamespace = "::mlir::dlas";
  let genSpecializedAttr = 0;
}

def DLAS_FusionRole : I32EnumAttr<"FusionRole",
    "what a fusion partner contributes to the kernel that folds it", [
  I32EnumAttrCase<"init", 0>,
  I32EnumAttrCase<"pad", 1>,
  I32EnumAttrCase<"epilogue", 2>]> {
  let cppNamespace = "::mlir::dlas";
  let genSpecializedAttr = 0;
}

def DLAS_ThreadSplit : I32EnumAttr<"ThreadSplit",
    "how a GEMM's threads share its work", [
  I32EnumAttrCase<"automatic", 0, "auto">,
  I32EnumAttrCase<"tiles", 1>,
  I32EnumAttrCase<"rows", 2>]> {
  let cppNamespace = "::mlir::dlas";
  let genSpecializedAttr = 0;
}

def DLAS_DecisionSource : I32EnumAttr<"DecisionSource",
    "where a decision's tiles come from", [
  I32EnumAttrCase<"cost_model", 0>,
  I32EnumAttrCase<"tuning_file", 1>,
  I32EnumAttrCase<"override", 2>]> {
  let cppNamespace = "::mlir::dlas";
  let genSpecializedAttr = 0;
}

class DLAS_BoolParameter<string desc> : AttrParameter<"bool", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<bool> {
      ::mlir::BoolAttr flag;
      if ($_parser.parseAttribute(flag))
        return ::mlir::failure();
      return flag.getValue();
    }() }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
  let defaultValue = "false";
}

def DLAS_MicrokernelAttr : DLAS_Attr<"Microkernel", "microkernel"> {
  let summary = "How dlas-cpu-select-lowering decided to lower one op";
  let description = [{
    Set on a linalg op as `dlas.lowering` by `dlas-cpu-select-lowering`
    (on tensors, before bufferization); read, never recomputed, by the
    kernel pass of its `kind` after bufferization:

    * `kind`: `gemm` (dlas-gemm-microkernel), `depthwise`, `max_pool`,
      `sum_pool` (dlas-depthwise-microkernel), `blocked_conv`,
      `blocked_depthwise`, `grouped_conv` (GSPC, from
      dlas-grouped-conv-packing) (dlas-blocked-conv-microkernel);
    * `rows` x `vectors`: the register tile, in rows (GEMM rows of A,
      output rows or columns of a stencil) and vectors of `lanes` elements;
      `lanes` is the target's vector width for the accumulator type (for
      `grouped_conv`, GSPC's output tile TO: a power of two up to it), and
      the kernel pass refuses a decision made for another width;
    * `lines` (blocked kinds only; 1 when left out): the column tails of
      `lines` consecutive output rows share one register tile, so that a
      row whose width `rows` does not divide leaves one tile of `lines` x
      tail positions per band of rows instead of a narrow tile per row;
    * `kc`, `mc` (GEMM only): the k block (B micro-panel in L1) and the row
      block (A block in L2); `pack_b`: B is copied into contiguous panels
      per k block;
    * `input`, `acc`: the element type of the operands and of the
      accumulators (f32 and f32 today; bf16/f16 inputs with f32
      accumulation and i8 with i32 are the mixed-precision formats the
      attribute admits, and that the kernels refuse until they build them);
    * fusion partners, decided on tensors: `init` (the accumulators start
      `loaded` from the output, from a `fill` or from a per-channel
      `broadcast`), `epilogues` (how many elementwise ops after the
      contraction the kernel applies before its one store), `padding`
      (depthwise: a constant pad of the input is folded into the window
      bounds);
    * `group`: the fusion group (non-zero when the decision fuses
      partners): every partner op carries `dlas.fused =
      #dlas.fused<group = ...>` with the same number, and the kernel pass
      folds exactly those ops, in their order, instead of searching the
      bufferized IR for candidates; 0 on a decision written by hand or made
      on memrefs, whose partners the kernel locates itself;
    * `key`: the tuning-file key of the op's shape; `source`: where the tile
      came from (`cost_model`, `tuning_file` or a per-op `override`);
    * `split` (GEMM only; `auto` when left out): how the threads share the
      contraction: chunks of column `tiles` or of row panels (`rows`);
      `auto` lets the kernel pass choose from the tile and panel counts.

    ```mlir
    %r = linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm,
           rows = 6, vectors = 2, lanes = 8, kc = 256, mc = 96,
           pack_b = true, input = f32, acc = f32, init = fill, epilogues = 2,
           key = "m64_n3136_k576", source = cost_model>} ...
    ```
  }];
  let parameters = (ins
    "::mlir::dlas::MicrokernelKind":$kind,
    "int64_t":$rows,
    "int64_t":$vectors,
    DefaultValuedParameter<"int64_t", "1">:$lines,
    "int64_t":$lanes,
    DefaultValuedParameter<"int64_t", "0">:$kc,
    DefaultValuedParameter<"int64_t", "0">:$mc,
    DLAS_BoolParameter<"B is packed into panels per k block">:$pack_b,
    "::mlir::Type":$input,
    "::mlir::Type":$acc,
    DefaultValuedParameter<"::mlir::dlas::FusedInit",
                           "::mlir::dlas::FusedInit::loaded">:$init,
    DefaultValuedParameter<"int64_t", "0">:$epilogues,
    DLAS_BoolParameter<"a constant pad of the input is folded">:$padding,
    StringRefParameter<"tuning-file key">:$key,
    "::mlir::dlas::DecisionSource":$source,
    DefaultValuedParameter<"int64_t", "0">:$group,
    DefaultValuedParameter<"::mlir::dlas::ThreadSplit",
                           "::mlir::dlas::ThreadSplit::automatic">:$split
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True for the kinds dlas-gemm-microkernel lowers.
    bool isGemm() const { return getKind() == MicrokernelKind::gemm; }
    /// True for the kinds dlas-depthwise-microkernel lowers.
    bool isStencil() const;
    /// True for the kinds dlas-blocked-conv-microkernel lowers.
    bool isBlocked() const;
    /// Empty when the kernels build code for `input` and `acc` today;
    /// otherwise why not (for a kernel pass's diagnostic).
    std::string unsupportedTypes() const;
  }];
}

def DLAS_FusedAttr : DLAS_Attr<"Fused", "fused"> {
  let summary = "Binds a fusion partner to the kernel decision that folds it";
  let description = [{
    Set as `dlas.fused` by `dlas-cpu-select-lowering`, on tensors, on each
    op whose effect a kernel folds: the decision's `group` says which
    kernel, `role` what the op contributes and `position` where an
    epilogue stands in the chain (0 for the first op after the kernel).

    * `init`: the fill or per-channel broadcast the accumulators start
      from;
    * `pad`: the fill of a padded buffer (a flat convolution's padded
      output, a stencil's padded input) whose padding the kernel folds;
    * `epilogue`: an elementwise op applied to the accumulators before
      their one store.

    The attribute survives bufferization on the ops that bufferize one to
    one (fills, broadcasts, generics); the copies bufferization makes for
    the `tensor.insert_slice` between a pad and its source are found from
    the tagged fill's buffer.

    ```mlir
    %b = linalg.broadcast ins(%bias : tensor<64xf32>) outs(%e : tensor<1x64x56x56xf32>)
           dimensions = [0, 2, 3]
           {dlas.fused = #dlas.fused<group = 3, role = init>}
    ```
  }];
  let parameters = (ins
    "int64_t":$group,
    "::mlir::dlas::FusionRole":$role,
    DefaultValuedParameter<"int64_t", "0">:$position
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

/// A list of integers printed and parsed as `[a, b, ...]`.
class DLAS_IntListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> values;
      if ($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&] {
                return $_parser.parseInteger(values.emplace_back());
              }))
        return ::mlir::failure();
      return values;
    }() }];
  let printer = [{
    $_printer << "[";
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << "]";
  }];
}

/// An optional `[a, b, ...]` list, left out when empty.
class DLAS_OptionalIntListParameter<string desc>
    : DLAS_IntListParameter<desc> {
  let defaultValue = "::llvm::SmallVector<int64_t>()";
  let comparator = "::llvm::ArrayRef<int64_t>($_lhs) == "
                   "::llvm::ArrayRef<int64_t>($_rhs)";
}

def DLAS_GPUKernelKind : I32EnumAttr<"GPUKernelKind",
    "how a GPU kernel maps its iterations to threads", [
  I32EnumAttrCase<"flat", 0>,
  I32EnumAttrCase<"tiled", 1>,
  I32EnumAttrCase<"mma", 2>,
  I32EnumAttrCase<"staged", 3>]> {
  let cppNamespace = "::mlir::dlas";
  let genSpecializedAttr = 0;
}

def DLAS_GPUKernelAttr : DLAS_Attr<"GPUKernel", "gpu_kernel"> {
  let summary = "How dlas-gpu-select-lowering decided to run one op on a GPU";
  let description = [{
    Set on a linalg op as `dlas.lowering` by `dlas-gpu-select-lowering`
    (on tensors); read by `dlas-gpu-map-kernels` after bufferization. Each
    thread computes one output (or a register tile of them), with the op's
    reductions in a loop over registers.

    * `kind = flat`: the parallel dimensions are collapsed into one and cut
      into blocks of `threads[0]` threads;
    * `kind = tiled`: the two innermost parallel dimensions are cut into
      blocks of `threads[0]` x `threads[1]` threads (rows x columns), the
      outer ones collapsed onto the grid's third dimension;
    * `outputs = [rows, columns]` (tiled only; left out: one output): each
      thread computes a register tile of rows x columns outputs, strided by
      the block's thread counts (a warp's accesses stay contiguous), so that
      an operand value loaded once serves a whole row or column of the
      tile; a block covers threads x outputs;
    * `split = S` (left out: 1): the op's longest reduction loop is cut
      into S chunks computed by S times the blocks, each adding its partial
      sum to the output atomically (a sum reduction whose output already
      holds its start value: a bias or zero fill, then its own kernel);
      for layers with too few outputs to occupy the GPU. The order of the
      additions varies from run to run, and so do the last bits;
    * `kind = mma`: tensor cores (NVIDIA `mma.sync`, m16n8k16): the op is
      a batch of GEMMs (a convolution an implicit one), each block
      computes `outputs = [rows, columns]` of a GEMM (m x n, both
      multiples of 32) with `threads` = (rows / 32) x (columns / 32) warps
      of 32 threads, each warp 32 x 32 outputs; each 32-deep step of the
      reduction stages the operands' tiles in shared memory as f16 (out of
      range: zero), the sums stay in registers, and the epilogue goes
      through shared memory to guarded stores;
    * `kind = staged`: an mma kernel's blocks, warps, staging and epilogue
      with FMAs in place of the matrix instruction (f32 contractions that
      do not take tensor cores, or f16/bf16 ones on chips without a matrix
      instruction for them): each 32-deep step stages both operands' tiles
      in shared memory (A transposed, so that a thread's rows are
      contiguous), and each thread multiplies its register tile of a warp's
      32 x 32 outputs (NVIDIA: 8 x 4, AMD's waves of 64: 4 x 4) one k at a
      time, its operand values read as vectors;
    * `key`: the tuning-file key of the op's shape; `source`: where the
      choice came from.

    ```mlir
    linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled,
        threads = [8, 32], outputs = [4, 4], key = "linalg.matmul_512x512x512",
        source = cost_model>} ...
    ```
  }];
  let parameters = (ins
    "::mlir::dlas::GPUKernelKind":$kind,
    DLAS_IntListParameter<"threads per block">:$threads,
    DLAS_OptionalIntListParameter<"outputs per thread (tiled)">:$outputs,
    DefaultValuedParameter<"int64_t", "1", "reduction chunks">:$split,
    StringRefParameter<"tuning-file key">:$key,
    "::mlir::dlas::DecisionSource":$source
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // DLAS_DIALECT_DLAS_DLASDIALECT_TD
