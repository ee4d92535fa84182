//===- NNToLinalg.h - nn to linalg conversion -------------------*- C++ -*-===//
#ifndef DLAS_CONVERSION_NNTOLINALG_NNTOLINALG_H
#define DLAS_CONVERSION_NNTOLINALG_NNTOLINALG_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace dlas {

#define GEN_PASS_DECL_CONVERTNNTOLINALG
#include "DLAS/Conversion/Passes.h.inc"

/// Patterns lowering nn ops to linalg, split by op family so that other
/// pipelines can take the families they want.
void populateNNConvolutionToLinalgPatterns(RewritePatternSet &patterns);
void populateNNLogicToLinalgPatterns(RewritePatternSet &patterns);
void populateNNMatmulToLinalgPatterns(RewritePatternSet &patterns);
void populateNNPoolingToLinalgPatterns(RewritePatternSet &patterns);
void populateNNQuantizationToLinalgPatterns(RewritePatternSet &patterns);
void populateNNPointwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateNNReductionToLinalgPatterns(RewritePatternSet &patterns);
void populateNNRecurrentToLinalgPatterns(RewritePatternSet &patterns);
void populateNNScanToLinalgPatterns(RewritePatternSet &patterns);
void populateNNShapeToLinalgPatterns(RewritePatternSet &patterns);
void populateNNTopKToLinalgPatterns(RewritePatternSet &patterns);
void populateNNToLinalgPatterns(RewritePatternSet &patterns);

} // namespace dlas
} // namespace mlir

#endif // DLAS_CONVERSION_NNTOLINALG_NNTOLINALG_H
