// Options and inputs dlas-sparsify refuses, with the reason.
// RUN: not dlas-opt %s --dlas-sparsify="policy=sometimes" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not dlas-opt %s --dlas-sparsify 2>&1 | FileCheck %s --check-prefix=NO-TARGET
// RUN: not dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-sparsify="calibration=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-sparsify="calibration=%S/Inputs/not-json.json" 2>&1 | FileCheck %s --check-prefix=NOT-JSON
// RUN: not dlas-opt %s --dlas-attach-target=target=x86-64-v3 --dlas-sparsify="calibration=%S/Inputs/no-targets.json" 2>&1 | FileCheck %s --check-prefix=NO-TARGETS
// POLICY: error: dlas-sparsify: policy 'sometimes' is none of auto, always, never
// NO-TARGET: error: dlas-sparsify: policy=auto needs the module's 'dlas.target' (dlas-attach-target) to pick its calibration
// MISSING: error: dlas-sparsify: cannot read calibration file '{{.*}}missing.json': No such file or directory
// NOT-JSON: error: dlas-sparsify: calibration {{.*}}not-json.json is not JSON: {{.*}}
// NO-TARGETS: error: dlas-sparsify: calibration has no "targets" object
func.func @f(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %y = nn.linear %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
