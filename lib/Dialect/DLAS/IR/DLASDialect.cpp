//===- DLASDialect.cpp - codegen attributes: targets ----------------------===//
#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dlas;

#include "DLAS/Dialect/DLAS/DLASDialect.cpp.inc"
#include "DLAS/Dialect/DLAS/DLASEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "DLAS/Dialect/DLAS/DLASAttrs.cpp.inc"

void DLASDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "DLAS/Dialect/DLAS/DLASAttrs.cpp.inc"
      >();
}

/// Succeeds when `attr`'s value is an `AttrT`; else an error at `op` that
/// names the attribute and the kind (`what`) it must be.
template <typename AttrT>
static LogicalResult verifyAttrKind(Operation *op, NamedAttribute attr,
                                    StringRef what) {
  if (isa<AttrT>(attr.getValue()))
    return success();
  return op->emitError() << "'" << attr.getName().getValue() << "' must be a "
                         << what << ", got " << attr.getValue();
}

LogicalResult DLASDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  // Other dlas.* attributes (dlas.layer, dlas.signature, per-op tiles)
  // belong to the passes that set and read them.
  StringRef name = attr.getName().getValue();
  if (name == kLoweringAttrName) {
    if (isa<GPUKernelAttr>(attr.getValue()))
      return success();
    return verifyAttrKind<MicrokernelAttr>(
        op, attr, "#dlas.microkernel or #dlas.gpu_kernel");
  }
  if (name == kFusedAttrName)
    return verifyAttrKind<FusedAttr>(op, attr, "#dlas.fused");
  if (name == kTargetAttrName) {
    if (isa<GPUTargetAttr>(attr.getValue()))
      return success();
    return verifyAttrKind<CPUTargetAttr>(
        op, attr, "#dlas.cpu_target or #dlas.gpu_target");
  }
  return success();
}

ArrayRef<StringRef> dlas::codegenFeatureNames() {
  static const StringRef names[] = {
      "sse4.2",     "avx",        "avx2",       "fma",     "f16c",
      "avx512f",    "avx512dq",   "avx512bw",   "avx512vl", "avx512vnni",
      "avx512bf16", "avx512fp16", "avxvnni",    "amx-tile", "amx-bf16",
      "amx-int8"};
  return names;
}

CPUTargetAttr dlas::getCheckedCPUTarget(
    function_ref<InFlightDiagnostic()> emitError, MLIRContext *context,
    StringRef cpu, StringRef features, int64_t vectorBits,
    int64_t vectorRegisters, int64_t l1, int64_t l2, int64_t l3,
    int64_t fmaPerCycle) {
  return CPUTargetAttr::getChecked(emitError, context, cpu, features,
                                   vectorBits, vectorRegisters, l1, l2, l3,
                                   fmaPerCycle);
}

CPUTargetAttr dlas::lookupCPUTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target =
            op->getAttrOfType<CPUTargetAttr>(DLASDialect::kTargetAttrName))
      return target;
  return {};
}

GPUTargetAttr dlas::lookupGPUTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target =
            op->getAttrOfType<GPUTargetAttr>(DLASDialect::kTargetAttrName))
      return target;
  return {};
}

LogicalResult
GPUTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef api, StringRef chip, StringRef features,
                      int64_t warpSize, int64_t maxThreads,
                      int64_t sharedMemory, int64_t processors) {
  if (api != "cuda" && api != "rocm")
    return emitError() << "api must be cuda or rocm, got '" << api << "'";
  StringRef prefix = api == "cuda" ? "sm_" : "gfx";
  if (!chip.starts_with(prefix))
    return emitError() << "a " << api << " chip is named " << prefix
                       << "..., got '" << chip << "'";
  if (warpSize != 32 && warpSize != 64)
    return emitError() << "warp_size must be 32 or 64, got " << warpSize;
  if (maxThreads < warpSize || maxThreads % warpSize != 0)
    return emitError() << "max_threads must be a multiple of warp_size ("
                       << warpSize << "), got " << maxThreads;
  if (sharedMemory <= 0 || processors <= 0)
    return emitError() << "shared_memory and processors must be positive";
  return success();
}

LogicalResult
GPUKernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      GPUKernelKind kind, ArrayRef<int64_t> threads,
                      ArrayRef<int64_t> outputs, int64_t split,
                      StringRef key, DecisionSource source) {
  if (split < 1 || split > 1024)
    return emitError() << "split must be 1 to 1024 reduction chunks, got "
                       << split;
  if (kind == GPUKernelKind::mma || kind == GPUKernelKind::staged) {
    if (outputs.size() != 2 ||
        llvm::any_of(outputs,
                     [](int64_t count) {
                       return count < 32 || count > 128 || count % 32;
                     }) ||
        threads.size() != 1 ||
        (threads[0] != outputs[0] / 32 * (outputs[1] / 32) * 32 &&
         threads[0] != outputs[0] / 32 * (outputs[1] / 32) * 64))
      return emitError() << (kind == GPUKernelKind::mma ? "an mma" : "a staged")
                         << " kernel takes outputs = [rows, columns] "
                            "(multiples of 32 up to 128) and threads = "
                            "[warp size (32 or 64) x (rows / 32) x "
                            "(columns / 32)]";
    return success();
  }
  size_t expected = kind == GPUKernelKind::flat ? 1 : 2;
  if (threads.size() != expected)
    return emitError() << "a " << stringifyGPUKernelKind(kind)
                       << " kernel takes " << expected
                       << " thread count(s), got " << threads.size();
  int64_t total = 1;
  for (int64_t count : threads) {
    if (count < 1)
      return emitError() << "thread counts must be positive, got " << count;
    total *= count;
  }
  if (total > 1024)
    return emitError() << "a block has at most 1024 threads, got " << total;
  if (outputs.empty())
    return success();
  if (kind != GPUKernelKind::tiled || outputs.size() != 2)
    return emitError() << "outputs per thread are [rows, columns] of a "
                          "tiled kernel";
  for (int64_t count : outputs)
    if (count < 1 || count > 8)
      return emitError() << "outputs per thread must be 1 to 8 a "
                            "dimension, got "
                         << count;
  return success();
}

bool CPUTargetAttr::hasFeature(StringRef name) const {
  SmallVector<StringRef> listed;
  getFeatures().split(listed, ',', -1, /*KeepEmpty=*/false);
  return llvm::is_contained(listed, ("+" + name).str());
}

std::string CPUTargetAttr::llvmFeatureString() const {
  SmallVector<std::string> entries;
  for (StringRef name : codegenFeatureNames())
    entries.push_back((hasFeature(name) ? "+" : "-") + name.str());
  return llvm::join(entries, ",");
}

LogicalResult
CPUTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef cpu, StringRef features, int64_t vectorBits,
                      int64_t vectorRegisters, int64_t l1, int64_t l2,
                      int64_t l3, int64_t fmaPerCycle) {
  if (cpu.empty())
    return emitError() << "cpu must name an LLVM CPU";
  SmallVector<StringRef> listed;
  features.split(listed, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : listed) {
    if (!entry.consume_front("+"))
      return emitError() << "features lists what the target has, as "
                            "'+name' entries; got '"
                         << entry << "'";
    if (!llvm::is_contained(codegenFeatureNames(), entry))
      return emitError() << "unknown feature '" << entry
                         << "' (known: "
                         << llvm::join(codegenFeatureNames(), ", ") << ")";
  }
  auto has = [&](StringRef name) {
    return llvm::is_contained(listed, ("+" + name).str());
  };
  if (vectorBits != 128 && vectorBits != 256 && vectorBits != 512)
    return emitError() << "vector_bits must be 128, 256 or 512, got "
                       << vectorBits;
  if (vectorBits == 512 && !has("avx512f"))
    return emitError() << "vector_bits = 512 needs +avx512f in features";
  if (vectorBits == 256 && !has("avx"))
    return emitError() << "vector_bits = 256 needs +avx in features";
  if (vectorRegisters != 16 && vectorRegisters != 32)
    return emitError() << "vector_registers must be 16 or 32, got "
                       << vectorRegisters;
  if (vectorRegisters == 32 && !has("avx512f"))
    return emitError() << "vector_registers = 32 needs +avx512f in features";
  if (l1 <= 0 || l2 <= 0 || l3 <= 0)
    return emitError() << "cache sizes must be positive, got l1 = " << l1
                       << ", l2 = " << l2 << ", l3 = " << l3;
  if (fmaPerCycle <= 0)
    return emitError() << "fma_per_cycle must be positive, got "
                       << fmaPerCycle;
  return success();
}

MicrokernelAttr dlas::lookupLowering(Operation *op) {
  return op->getAttrOfType<MicrokernelAttr>(DLASDialect::kLoweringAttrName);
}

/// The kinds dlas-depthwise-microkernel lowers.
static bool isStencilKind(MicrokernelKind kind) {
  return kind == MicrokernelKind::depthwise ||
         kind == MicrokernelKind::max_pool || kind == MicrokernelKind::sum_pool;
}

/// The kinds dlas-blocked-conv-microkernel lowers.
static bool isBlockedKind(MicrokernelKind kind) {
  return kind == MicrokernelKind::blocked_conv ||
         kind == MicrokernelKind::blocked_depthwise ||
         kind == MicrokernelKind::grouped_conv;
}

bool MicrokernelAttr::isStencil() const { return isStencilKind(getKind()); }

bool MicrokernelAttr::isBlocked() const { return isBlockedKind(getKind()); }

std::string MicrokernelAttr::unsupportedTypes() const {
  Type input = getInput(), acc = getAcc();
  if (input.isF32() && acc.isF32())
    return "";
  MicrokernelKind kind = getKind();
  // The GEMM and depthwise kernels widen bf16/f16 operands on load into
  // f32 accumulators, and i8 operands into i32 ones.
  bool widens =
      kind == MicrokernelKind::gemm || kind == MicrokernelKind::depthwise;
  if (widens && ((acc.isF32() && (input.isBF16() || input.isF16())) ||
                 (input.isInteger(8) && acc.isInteger(32))))
    return "";
  // The blocked convolution runs i8 on vpdpbusd into i32, bf16 on
  // vdpbf16ps into f32.
  if (kind == MicrokernelKind::blocked_conv &&
      ((input.isInteger(8) && acc.isInteger(32)) ||
       (input.isBF16() && acc.isF32())))
    return "";
  // A max pool is exact in i8, and in bf16/f16 (compared in f32).
  if (kind == MicrokernelKind::max_pool && acc == input &&
      (input.isInteger(8) || input.isBF16() || input.isF16()))
    return "";
  std::string why;
  llvm::raw_string_ostream os(why);
  os << "the " << stringifyMicrokernelKind(kind) << " kernel builds "
     << (widens ? "f32, bf16 or f16 inputs with f32 accumulators, or i8 "
                  "with i32"
         : kind == MicrokernelKind::max_pool
             ? "f32, bf16, f16 or i8 code (its output of its input's type)"
         : kind == MicrokernelKind::blocked_conv
             ? "f32 code, i8 into i32, or bf16 into f32"
             : "f32 code")
     << " only (input = " << input << ", acc = " << acc << ")";
  return why;
}

/// The (input, accumulator) element type pairs a decision may name: f32,
/// the mixed-precision formats that the kernels take, and i8, bf16 or f16
/// throughout (a max pool).
static bool isKnownTypePair(Type input, Type acc) {
  if (acc.isF32())
    return input.isF32() || input.isBF16() || input.isF16();
  if (acc.isBF16() || acc.isF16())
    return input == acc;
  return input.isInteger(8) && (acc.isInteger(32) || acc.isInteger(8));
}

LogicalResult MicrokernelAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, MicrokernelKind kind,
    int64_t rows, int64_t vectors, int64_t lines, int64_t lanes, int64_t kc,
    int64_t mc, bool packB, Type input, Type acc, FusedInit init,
    int64_t epilogues, bool padding, StringRef key, DecisionSource source,
    int64_t group, ThreadSplit split) {
  if (rows < 1 || vectors < 1)
    return emitError() << "the register tile must be positive, got rows = "
                       << rows << ", vectors = " << vectors;
  if (lanes < 1 || !llvm::isPowerOf2_64(lanes))
    return emitError() << "lanes must be a power of two, got " << lanes;
  if (lines < 1 || (lines != 1 && !isBlockedKind(kind)))
    return emitError() << "lines = " << lines
                       << " is not a positive count of output rows of a "
                          "blocked decision";
  bool gemm = kind == MicrokernelKind::gemm;
  if (gemm && (kc < 1 || mc < 1))
    return emitError() << "a gemm decision needs positive kc and mc, got kc = "
                       << kc << ", mc = " << mc;
  if (!gemm && (kc != 0 || mc != 0 || packB || split != ThreadSplit::automatic))
    return emitError() << "kc, mc, pack_b and split are a gemm decision's, "
                          "not a "
                       << stringifyMicrokernelKind(kind) << "'s";
  if (padding && !isStencilKind(kind))
    return emitError() << "only a depthwise or pooling decision folds "
                          "padding, not a "
                       << stringifyMicrokernelKind(kind);
  if (!isKnownTypePair(input, acc))
    return emitError() << "input = " << input << " with acc = " << acc
                       << " is not a kernel format (f32, bf16 or f16 with "
                          "f32 accumulators, i8 with i32 or i8, bf16 or "
                          "f16 throughout)";
  if (epilogues < 0)
    return emitError() << "epilogues must not be negative, got " << epilogues;
  if (key.empty())
    return emitError() << "key must name the op's tuning-file key";
  if (group < 0)
    return emitError() << "group must not be negative, got " << group;
  if (group > 0 && init == FusedInit::loaded && epilogues == 0 && !padding)
    return emitError() << "group " << group
                       << " names the partners of a decision that fuses none";
  return success();
}

LogicalResult FusedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t group, FusionRole role,
                                int64_t position) {
  if (group < 1)
    return emitError() << "a fusion group is positive, got " << group;
  if (position < 0)
    return emitError() << "position must not be negative, got " << position;
  if (role != FusionRole::epilogue && position != 0)
    return emitError() << "position " << position
                       << " is an epilogue's place in its chain; a '"
                       << stringifyFusionRole(role) << "' partner has none";
  return success();
}

FusedAttr dlas::lookupFused(Operation *op) {
  return op->getAttrOfType<FusedAttr>(DLASDialect::kFusedAttrName);
}
