// Calibration files dlas-mixed-precision{policy=int8} refuses, each with a
// message naming the file or the layer.
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/does-not-exist.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-truncated.json" 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-not-calibration.json" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-bad-range.json" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-wrong-layer.json" 2>&1 | FileCheck %s --check-prefix=LAYER
// RUN: not dlas-opt %s --dlas-mixed-precision="policy=int8 calibration=%S/Inputs/int8-empty.json" 2>&1 | FileCheck %s --check-prefix=KEY

// NONE: error: dlas-mixed-precision: policy int8 needs calibration=FILE, the activation ranges that dlas-run --calibrate DIR records
// MISSING: error: dlas-mixed-precision: calibration file '{{.*}}does-not-exist.json': cannot read it:
// JSON: error: dlas-mixed-precision: calibration file '{{.*}}int8-truncated.json': not JSON:
// FORMAT: error: dlas-mixed-precision: calibration file '{{.*}}int8-not-calibration.json': not a calibration file (no "format": "dlas-calibration"); make one with dlas-run --calibrate
// RANGE: error: dlas-mixed-precision: calibration file '{{.*}}int8-bad-range.json': layer 'linear#0' needs finite "min" <= "max"
// LAYER: error: dlas-mixed-precision: calibration entry 'linear#0' was recorded for linear weight 3x2, but that layer is linear weight 2x2: the calibration was made for another model or pipeline
// KEY: error: dlas-mixed-precision: the calibration has no range for layer 'linear#0' (linear weight 2x2): it was made for another model or pipeline
func.func @linear(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.27, -0.5], [0.5, 0.0]]> : tensor<2x2xf32>
  %y = nn.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
