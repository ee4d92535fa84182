//===- WinogradMatrices.h - Winograd F(mxm, 3x3) transform matrices -------===//
//
// The constant matrices of Winograd's minimal filtering F(m x m, 3 x 3)
// (Lavin & Gray), shared by dlas-select-conv-algorithm (which transforms
// the filter at compile time and writes the input and output transforms as
// contractions with B^T (x) B^T and A^T (x) A^T) and dlas-winograd-transforms
// (which emits those contractions as vector code from the same rows).
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_LIB_CODEGEN_CPU_WINOGRADMATRICES_H
#define DLAS_LIB_CODEGEN_CPU_WINOGRADMATRICES_H

#include <cstdint>

namespace mlir::dlas {

/// F(m x m, 3 x 3) on alpha x alpha input tiles, alpha = m + 2: per tile
/// Y = A^T [(G g G^T) . (B^T d B)] A, alpha^2 multiplies for m^2 outputs.
struct WinogradMatrices {
  int64_t m, alpha;
  const double (*g)[3];  ///< alpha x 3
  const double (*bt)[6]; ///< alpha x alpha (row stride 6)
  const double (*at)[6]; ///< m x alpha (row stride 6)
};

/// F(2x2, 3x3): 16 multiplies per 4 outputs (2.25x fewer than direct),
/// transforms of 0 and +-1 only.
inline constexpr double kWinogradG2[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
inline constexpr double kWinogradBT2[4][6] = {
    {1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
inline constexpr double kWinogradAT2[2][6] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

/// F(4x4, 3x3), points 0, +-1, +-2: 36 multiplies per 16 outputs (4x
/// fewer), transforms with coefficients up to 8 (f32 errors about 10-15x
/// F(2x2)'s: 5e-6 to 8e-6 of the output's scale measured at 64-256
/// channels, against 3e-7 to 5e-7).
inline constexpr double kWinogradG4[6][3] = {{1.0 / 4, 0, 0},
                                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                             {0, 0, 1}};
inline constexpr double kWinogradBT4[6][6] = {
    {4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
    {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
inline constexpr double kWinogradAT4[4][6] = {{1, 1, 1, 1, 1, 0},
                                              {0, 1, -1, 2, -2, 0},
                                              {0, 1, 1, 4, 4, 0},
                                              {0, 1, -1, 8, -8, 1}};

/// The matrices of F(m x m, 3 x 3) for m = 2 or 4; null otherwise.
inline const WinogradMatrices *winogradMatrices(int64_t m) {
  static constexpr WinogradMatrices f2{2, 4, kWinogradG2, kWinogradBT2,
                                       kWinogradAT2};
  static constexpr WinogradMatrices f4{4, 6, kWinogradG4, kWinogradBT4,
                                       kWinogradAT4};
  return m == 2 ? &f2 : m == 4 ? &f4 : nullptr;
}

/// The matrices whose transformed tiles number `elements` (alpha^2: 16 or
/// 36); null otherwise.
inline const WinogradMatrices *winogradMatricesForElements(int64_t elements) {
  return elements == 16   ? winogradMatrices(2)
         : elements == 36 ? winogradMatrices(4)
                          : nullptr;
}

} // namespace mlir::dlas

#endif // DLAS_LIB_CODEGEN_CPU_WINOGRADMATRICES_H
