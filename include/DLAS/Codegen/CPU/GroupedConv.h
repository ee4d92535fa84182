//===- GroupedConv.h - GSPC's layouts, shared with dlas-blocked-layout -*- C++ -*-===//
//
// The packed forms of a grouped convolution that dlas-grouped-conv-packing
// builds (GSPC) and that dlas-blocked-layout builds when each group's
// channels are whole blocks (GSPC with TI = TO = the block, whose packed
// activations are the blocked layout's).
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_CODEGEN_CPU_GROUPEDCONV_H
#define DLAS_CODEGEN_CPU_GROUPEDCONV_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace mlir::dlas::gspc {

/// The narrowest output tile TO: one 128-bit vector of f32.
constexpr int64_t kMinOutputTile = 4;

/// The largest output plane on which GSPC (blocked or packed from NCHW)
/// takes a group whose output channels make one vector: its register tile
/// is then one vector wide (an input broadcast per FMA), and on larger
/// planes the flat GEMM, vectorized along the image, wins. Measured:
/// x86-64-v4, 1 thread, 64 channels 56x56 g = 4 0.41 ms GSPC against 0.33
/// flat; x86-64-v3 on Zen 3, 1 and 2 threads, ResNet-34 128 channels 28x28
/// g = 16 0.30 against 0.26 ms (1 thread), WRN-40-2 32 channels 32x32 g = 4
/// 0.093 against 0.080; at 16x16 (64 channels, g = 8) within noise; from
/// 14x14 down GSPC wins. (For GSPC packed from NCHW; in the blocked
/// layout see maxBlockedOneVectorPlane.)
constexpr int64_t kMaxOneVectorPlane = 196;

/// The largest output plane on which the blocked layout takes a grouped
/// convolution whose groups are one `block`-channel output block. Its
/// kernel reads the input in place and skips the border's taps (see
/// dlas-blocked-conv-microkernel), where GSPC packed from NCHW pays for a
/// packed, padded copy: measured on a Zen 5 host (1 and 2 threads,
/// 2026-11-30), blocked against the flat GEMM, x86-64-v4: ResNet-34 64
/// channels 56x56 g = 4 0.232 against 0.245 ms, 128 channels 28x28 g = 8
/// 0.112 / 0.124, WRN-40-2 64 channels 16x16 g = 4 0.020 / 0.023;
/// x86-64-v3: 128 channels 28x28 g = 16 0.143 / 0.156, 32 channels 32x32
/// g = 4 0.046 / 0.046 (2 threads 0.025 / 0.029), and the flat GEMM
/// ahead at 56x56 (64 channels g = 8: 0.293 / 0.271).
constexpr int64_t maxBlockedOneVectorPlane(int64_t block) {
  return block >= 16 ? 56 * 56 : 32 * 32;
}

/// The sizes of one grouped convolution: input [N, G, CPG, H, W] (already
/// padded), filter [G, KPG, CPG, KH, KW], output [N, G, KPG, OH, OW].
struct GroupedShape {
  int64_t n, g, cpg, kpg, h, w, kh, kw, oh, ow;
  SmallVector<int64_t> strides, dilations;

  static std::optional<GroupedShape> of(linalg::Conv2DNgchwGfchwOp conv);

  /// The tuning-file key, in the layer's own channel counts.
  std::string key() const;
};

/// Output channels computed per group with output tile `to`: KPG rounded
/// up to a multiple of it.
int64_t paddedKPG(const GroupedShape &s, int64_t to);

/// The filter [G, KPG, CPG, KH, KW] as [G, KPG'/TO, CPG/TI, KH, KW, TI, TO],
/// KPG' = paddedKPG with zero filters: a new constant when the filter is
/// one (seen through reshapes), else pad, reshape and transpose ops.
Value packFilter(OpBuilder &b, Location loc, Value filter,
                 const GroupedShape &s, int64_t ti, int64_t to);

/// Y[n, g, F, oh, ow, f] += X[n, g, C, oh*sh + kh*dh, ow*sw + kw*dw, c] *
/// W[g, F, C, kh, kw, c, f] as a linalg.generic tagged dlas.gspc, for
/// dlas-blocked-conv-microkernel.
Value packedConvolution(OpBuilder &b, Location loc, Value x, Value w,
                        Value init, const GroupedShape &s);

} // namespace mlir::dlas::gspc

#endif // DLAS_CODEGEN_CPU_GROUPEDCONV_H
