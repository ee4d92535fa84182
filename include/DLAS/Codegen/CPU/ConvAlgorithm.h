//===- ConvAlgorithm.h - dlas-select-conv-algorithm's choice ----*- C++ -*-===//
//
// The algorithm dlas-select-conv-algorithm runs an NCHW convolution with,
// shared with dlas-tune, which measures the alternatives of dense
// convolutions and writes the winners into a tuning file's
// `conv_algorithm` section.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_CODEGEN_CPU_CONVALGORITHM_H
#define DLAS_CODEGEN_CPU_CONVALGORITHM_H

#include "DLAS/Codegen/Passes.h"
#include "DLAS/Codegen/TuningFile.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlir::dlas {

enum class ConvAlgorithm { Direct, Gemm, Im2Col, Flat, Winograd };

/// "direct", "gemm", "im2col", "flat", "winograd".
StringRef convAlgorithmName(ConvAlgorithm algorithm);
/// The algorithm named `name`, nullopt for any other name.
std::optional<ConvAlgorithm> parseConvAlgorithm(StringRef name);

/// The tuning-file section of the algorithm choice.
inline constexpr StringLiteral kConvAlgorithmSection = "conv_algorithm";
/// The per-op override: `dlas.conv_algorithm = "im2col"` on the convolution.
inline constexpr StringLiteral kConvAlgorithmAttrName = "dlas.conv_algorithm";

/// The tuning-file key of a dense NCHW convolution with static shapes
/// (`[b<N>_]c<C>_f<F>_i<H>x<W>_o<OH>x<OW>_k<KH>x<KW>_s<SH>x<SW>[_d<DH>x<DW>]`,
/// i the (padded) input's size); nullopt for anything else.
std::optional<std::string> convAlgorithmKey(linalg::LinalgOp conv);

/// The algorithms worth measuring against each other for `conv` (the
/// microkernel ones that apply: flat and im2col for kernels larger than
/// 1x1, Winograd where it applies); empty when there is no choice.
SmallVector<ConvAlgorithm> tunableConvAlgorithms(linalg::LinalgOp conv);

/// The algorithm for `conv` (an NCHW convolution with static shapes and
/// accumulator-typed result): its `dlas.conv_algorithm` override, else its
/// tuning-file entry (dense convolutions; `tuning` may be null), else
/// `options.algorithm`, else the cost model; a requested algorithm that
/// does not apply falls back and `why` says so. Fails, after an error at
/// `conv`, for an override that names no algorithm.
FailureOr<ConvAlgorithm>
chooseConvAlgorithm(linalg::LinalgOp conv,
                    const SelectConvAlgorithmOptions &options,
                    const TuningTable *tuning, std::string &why);

/// The tuning-file entry key of Winograd's output tile (2 or 4).
inline constexpr StringLiteral kWinogradTileKey = "winograd_tile";

/// Winograd's output tile m (F(m x m, 3x3)) for `conv`, a dense
/// convolution that runs as Winograd: its tuning-file entry's
/// `winograd_tile` (`tuning` may be null), else `options.winogradTile`,
/// else the cost model's (4 on targets of at most 8 f32 lanes from 16 4x4
/// output tiles, else 2). Fails, after an error at `conv`, for an entry
/// whose tile is not 2 or 4.
FailureOr<int64_t> chooseWinogradTile(linalg::LinalgOp conv,
                                      const SelectConvAlgorithmOptions &options,
                                      const TuningTable *tuning);

} // namespace mlir::dlas

#endif // DLAS_CODEGEN_CPU_CONVALGORITHM_H
