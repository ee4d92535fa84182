//===- Decisions.h - how each kernel's ops are lowered ---------*- C++ -*-===//
//
// The strategy half of the CPU kernels: for one op, the register tile and
// blocking from the target and the cost model, then the tuning file's entry
// and the op's own override, and the fusion partners, recorded as a
// #dlas.microkernel. dlas-cpu-select-lowering calls these on tensors and
// sets the result as the op's `dlas.lowering`; a kernel pass run on its own
// calls them for ops that carry no decision. The kernel passes build code
// from the decision and decide nothing else.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_LIB_CODEGEN_CPU_DECISIONS_H
#define DLAS_LIB_CODEGEN_CPU_DECISIONS_H

#include "DLAS/Codegen/CPU/CPUTarget.h"
#include "DLAS/Codegen/TuningFile.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::dlas {

/// What options pin of a GEMM decision: the leading m0, vectors, kc, mc
/// (0: the cost model's), and B's packing ("auto", "always", "never").
struct GemmPins {
  ArrayRef<int64_t> tiles;
  StringRef packB = "auto";
};

/// What options pin of a stencil decision (0: the cost model's).
struct StencilPins {
  int64_t rows = 0, vectors = 0;
};

// Each of these leaves `decision` null and says in `why` why `op` is not
// its kernel's, or sets `decision`; it fails (after an error at `op`) only
// for a malformed override or tuning entry. `op` may be on tensors or on
// memrefs; the fusion partners are decided on tensors only (on memrefs the
// decision records none and the kernel pass folds what it finds).

/// dlas-gemm-microkernel's ops.
LogicalResult decideGemm(linalg::LinalgOp op, const TargetShape &target,
                         const TuningTable *tuning, const GemmPins &pins,
                         MicrokernelAttr &decision, std::string &why);

/// dlas-depthwise-microkernel's ops (depthwise convolutions, pooling).
LogicalResult decideStencil(linalg::LinalgOp op, const TargetShape &target,
                            const TuningTable *tuning, const StencilPins &pins,
                            MicrokernelAttr &decision, std::string &why);

/// dlas-blocked-conv-microkernel's ops.
LogicalResult decideBlockedConv(linalg::LinalgOp op, const TargetShape &target,
                                const TuningTable *tuning,
                                MicrokernelAttr &decision, std::string &why);

/// The decision on `op` for a kernel pass: its `dlas.lowering` when it has
/// one (null when that names another kernel, per `mine`), else null when
/// `decidedOnly` (in the pipeline, where dlas-cpu-select-lowering decided
/// every op it lowers) or `decide()`.
/// Fails after an error when the decision was made for another vector
/// width or names element types the kernels do not build.
LogicalResult decisionFor(linalg::LinalgOp op, const TargetShape &target,
                          bool decidedOnly,
                          function_ref<bool(MicrokernelAttr)> mine,
                          function_ref<LogicalResult(MicrokernelAttr &,
                                                     std::string &)>
                              decide,
                          MicrokernelAttr &decision, std::string &why);

} // namespace mlir::dlas

#endif // DLAS_LIB_CODEGEN_CPU_DECISIONS_H
