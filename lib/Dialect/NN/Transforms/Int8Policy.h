//===- Int8Policy.h - dlas-mixed-precision's int8 rewrite ------*- C++ -*-===//
#ifndef DLAS_LIB_DIALECT_NN_TRANSFORMS_INT8POLICY_H
#define DLAS_LIB_DIALECT_NN_TRANSFORMS_INT8POLICY_H

#include "DLAS/Dialect/NN/Transforms/Calibration.h"

namespace mlir::dlas::nn {

/// Layer kinds the precision guard keeps in f32.
struct Guards {
  bool firstConv = false, classifier = false, softmax = false,
       depthwise = false;
};

struct Int8Stats {
  int64_t lowered = 0, kept = 0;
};

/// Rewrites the quantizable layers of `func` that the guard lets through
/// into int8 with i32 accumulation, between an nn.quantize of the input
/// (scale and zero point from `table`) and an nn.dequantize of the
/// accumulator that also adds the bias. Fails, with an error naming the
/// layer, when `table` has no entry for a layer or one made for another.
LogicalResult quantizeFunctionToInt8(FunctionOpInterface func,
                                     const CalibrationTable &table,
                                     Guards guards, double maxWeightError,
                                     bool print, Int8Stats &stats);

/// Rewrites one quantizable layer `op` (conv2d, linear, matmul with a
/// constant f32 weight) into int8 with `input` as its input's per-tensor
/// quantization: the reason it stays f32 ("" when rewritten), `detail`
/// describing the weight error.
FailureOr<std::string> lowerLayerToInt8(Operation *op, QuantizationParams input,
                                        double maxWeightError,
                                        WeightScale choice,
                                        std::string &detail);

/// True for a depthwise convolution (groups > 1, one input channel per
/// group).
bool isDepthwiseConv(Operation *op);

} // namespace mlir::dlas::nn

#endif // DLAS_LIB_DIALECT_NN_TRANSFORMS_INT8POLICY_H
