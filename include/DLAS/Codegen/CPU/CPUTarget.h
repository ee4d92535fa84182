//===- CPUTarget.h - named CPU targets and the host -------------*- C++ -*-===//
//
// Turns the names users know (`x86-64-v3`, `x86-64-v4`, LLVM CPU names such
// as `znver3` or `sapphirerapids`) into a `#dlas.cpu_target`, and gives the
// kernel passes the numbers they read from it. `host` is resolved by
// `resolveHostCPUTarget` alone, which only the tools and the pipeline builder
// call: no pass asks the machine it runs on what it is.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_CODEGEN_CPU_CPUTARGET_H
#define DLAS_CODEGEN_CPU_CPUTARGET_H

#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

namespace mlir::dlas {

/// The triple DLAS generates CPU code for.
inline constexpr llvm::StringLiteral kCPUTriple = "x86_64-unknown-linux-gnu";

/// What a user may change of a named target (0 or empty: the name's value).
struct CPUTargetOverrides {
  /// `+name`/`-name` entries applied on top of the CPU's features.
  std::string features;
  int64_t vectorBits = 0;
  int64_t l1 = 0, l2 = 0, l3 = 0;
};

/// The target `name` (an LLVM x86-64 CPU name or level) with `overrides`;
/// an error naming the problem for an unknown name, `host` or features the
/// verifier refuses.
llvm::Expected<CPUTargetAttr>
resolveCPUTarget(MLIRContext *context, StringRef name,
                 const CPUTargetOverrides &overrides = {});

/// The host's CPU name, its code-generation features (as `+`/`-` entries)
/// and its cache sizes from the operating system, as a name and the
/// overrides that `resolveCPUTarget` turns into the host's target. Called
/// at the tools' edge only.
std::pair<std::string, CPUTargetOverrides> resolveHostCPUTarget();

/// The named target `name` and `overrides` as `resolveCPUTarget` takes
/// them: `host` (and `cpu`) become the host's CPU name and values
/// (`resolveHostCPUTarget`) with `overrides` on top; other names pass as
/// they are.
std::pair<std::string, CPUTargetOverrides>
concreteCPUTarget(StringRef name, const CPUTargetOverrides &overrides);

/// `resolveCPUTarget` of `concreteCPUTarget(name, overrides)`.
llvm::Expected<CPUTargetAttr>
resolveCPUTargetOrHost(MLIRContext *context, StringRef name,
                       const CPUTargetOverrides &overrides = {});

/// The names `resolveCPUTarget` documents (the levels and the CPUs in the
/// cache table); any other LLVM x86-64 CPU name works too.
ArrayRef<StringRef> documentedCPUTargetNames();

/// The `+name` entries of the LLVM feature string `features` (code
/// generation features only) that the host lacks, comma-separated ("" when
/// it can run such code).
std::string featuresMissingOnHost(StringRef features);

/// How a target multiplies int8 vectors of a given number of 32-bit lanes.
enum class Int8Multiply {
  /// Widened to i32 on load and multiplied there.
  widen,
  /// vpmaddubsw, then vpmaddwd by ones: two u8 x s8 products summed into a
  /// saturating i16, pairs of those into i32 (AVX2 for 8 lanes, AVX512BW
  /// for 16). Exact while every s8 operand is within
  /// +-kPairProductLimit.
  pairs,
  /// vpdpbusd: four u8 x s8 products into each i32 (AVX512-VNNI for 16
  /// lanes; AVX-VNNI or AVX512-VNNI with VL for 8).
  dotProduct,
};

/// The largest |s8| that vpmaddubsw multiplies exactly: 2 * 255 * 64 is
/// the largest pair sum below 2^15.
inline constexpr int64_t kPairProductLimit = 64;

/// The best int8 multiply `target` has at `lanes` 32-bit lanes.
inline Int8Multiply int8MultiplyOf(CPUTargetAttr target, int64_t lanes) {
  if (!target)
    return Int8Multiply::widen;
  if (lanes == 16) {
    if (target.hasFeature("avx512vnni"))
      return Int8Multiply::dotProduct;
    if (target.hasFeature("avx512bw"))
      return Int8Multiply::pairs;
  }
  if (lanes == 8) {
    if (target.hasFeature("avxvnni") ||
        (target.hasFeature("avx512vnni") && target.hasFeature("avx512vl")))
      return Int8Multiply::dotProduct;
    if (target.hasFeature("avx2"))
      return Int8Multiply::pairs;
  }
  return Int8Multiply::widen;
}

/// Whether `target` loads and stores vectors of `element` under a mask in
/// one instruction: AVX-512's k-masked moves (F for 32/64-bit elements, BW
/// for 8/16-bit). Elsewhere LLVM scalarizes masked moves of bytes and
/// halves (one insert or extract a lane) and uses vmaskmov for the rest.
inline bool hasFastMaskedMoves(CPUTargetAttr target, Type element) {
  if (!target)
    return false;
  if (element.getIntOrFloatBitWidth() >= 32)
    return target.hasFeature("avx512f");
  return target.hasFeature("avx512bw");
}

/// True when `target` has vdpbf16ps (two bf16 products added into each
/// f32 lane) at `lanes` f32 lanes: AVX512-BF16 for 16, with AVX512VL for 8.
inline bool hasBF16DotProduct(CPUTargetAttr target, int64_t lanes) {
  if (!target || !target.hasFeature("avx512bf16"))
    return false;
  return lanes == 16 || (lanes == 8 && target.hasFeature("avx512vl"));
}

/// True when `target` has AMX tiles that multiply `input` elements:
/// AMX-TILE with AMX-BF16 for bf16, with AMX-INT8 for i8.
inline bool hasAmxTilesFor(CPUTargetAttr target, Type input) {
  if (!target || !target.hasFeature("amx-tile"))
    return false;
  if (input.isBF16())
    return target.hasFeature("amx-bf16");
  if (input.isInteger(8))
    return target.hasFeature("amx-int8");
  return false;
}

/// True when `op`'s target has vpdpbusd (u8 x s8 dot products into i32) at
/// `lanes` 32-bit lanes: AVX512-VNNI for 16, AVX512-VNNI with VL or
/// AVX-VNNI for 8.
inline bool hasInt8DotProduct(Operation *op, int64_t lanes) {
  return int8MultiplyOf(lookupCPUTarget(op), lanes) == Int8Multiply::dotProduct;
}

/// The CPU name of `op`'s target ("" without one): the prefix of its
/// tuning-file keys.
inline StringRef targetCpu(Operation *op) {
  CPUTargetAttr target = lookupCPUTarget(op);
  return target ? target.getCpu() : StringRef();
}

/// What a microkernel needs to know about the target.
struct TargetShape {
  int64_t vectorWidth;     // f32 lanes
  int64_t vectorRegisters; // architectural vector registers
  int64_t l1Bytes, l2Bytes;
};

/// The shape of `op`'s target (`lookupCPUTarget`) with a pass's
/// `vectorWidth` and `vectorRegisters` options applied where they are
/// nonzero. Without a target and without both options it reports an error
/// on `op` naming the missing `dlas.target` and fails.
FailureOr<TargetShape> targetShapeFor(Operation *op, int64_t vectorWidth,
                                      int64_t vectorRegisters);

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_CPU_CPUTARGET_H
