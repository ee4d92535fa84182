//===- TuningFile.h - per-shape microkernel parameters ----------*- C++ -*-===//
//
// A tuning file holds microkernel parameters keyed by problem shape, so that
// an auto-tuner (or a person) can override the heuristics per layer without
// editing IR. Format (JSON):
//
//   {
//     "dlas_tuning": 1,
//     "gemm":      { "m64_n3136_k576": {"m0": 6, "vectors": 4, "kc": 96},
//                    "*": {"pack_b": true} },
//     "depthwise": { "conv_c96_o56x56_k3x3_s2x2": {"rows": 4} }
//     "conv_algorithm": { "c64_f64_i56x56_o56x56_k3x3_s1x1":
//                           {"algorithm": "im2col"} }
//   }
//
// Each section maps a shape key (what the pass's `print` remark reports for
// an op) to the entries of the per-op attribute of that pass
// (`dlas.gemm_tiles`, `dlas.depthwise_tiles`); "*" applies to every op of
// the section that has no entry of its own. A key may name the target's
// CPU first ("x86-64-v3/m64_n3136_k576", "znver4/*"): such entries apply
// only to modules compiled for that target and win over unprefixed ones.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_CODEGEN_TUNINGFILE_H
#define DLAS_CODEGEN_TUNINGFILE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace mlir::dlas {

/// An entry whose value is one of a few names ("algorithm": "im2col").
struct TuningChoice {
  StringRef key;
  ArrayRef<StringRef> values;
};

/// The entries a section allows: integer ones must be positive, choices
/// one of their names.
struct TuningSchema {
  StringRef section;
  ArrayRef<StringRef> integerKeys;
  ArrayRef<StringRef> boolKeys;
  ArrayRef<TuningChoice> choiceKeys = {};
};

/// The sections DLAS's passes read: "gemm" (dlas-gemm-microkernel),
/// "depthwise" (dlas-depthwise-microkernel), "blocked_conv"
/// (dlas-blocked-conv-microkernel), "gspc" (dlas-grouped-conv-packing) and
/// "conv_algorithm" (dlas-select-conv-algorithm). Every pass validates the
/// whole file, so that a typo is reported whichever pass reads it.
ArrayRef<TuningSchema> tuningSchemas();

class TuningTable {
public:
  /// Reads and validates `path` against `schemas` (the sections it may
  /// hold); on failure emits an error at an unknown location naming the
  /// file and what is wrong in it.
  static FailureOr<std::shared_ptr<const TuningTable>>
  load(MLIRContext *context, StringRef path, ArrayRef<TuningSchema> schemas);

  /// The entry of `section` for `key` on the CPU `target` (the
  /// dlas.target's cpu name; empty: none), as a dictionary of the per-op
  /// attribute's shape, trying "<target>/<key>", "<key>", "<target>/*" and
  /// "*" in that order; null when none exists.
  DictionaryAttr lookup(StringRef section, StringRef key,
                        StringRef target = "") const;

private:
  llvm::StringMap<llvm::StringMap<DictionaryAttr>> sections;
};

/// What a pass's initialize() does with its `tuning-file` option: loads
/// `path` into `table` (with every section DLAS reads), or leaves `table`
/// null when `path` is empty.
LogicalResult loadTuningFile(MLIRContext *context, StringRef path,
                             std::shared_ptr<const TuningTable> &table);

/// Sets each slot named in `attr` (the per-op override `attrName`, or a
/// tuning-file entry in its shape: a dictionary of positive integers);
/// errors at `op` for anything else.
LogicalResult
applyIntegerOverrides(Operation *op, StringRef attrName, Attribute attr,
                      ArrayRef<std::pair<StringRef, int64_t *>> slots);

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_TUNINGFILE_H
