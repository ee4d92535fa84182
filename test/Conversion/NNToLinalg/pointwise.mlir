// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func @relu
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x3xf32>)
// CHECK: arith.maximumf
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @relu_int
// CHECK: arith.maxsi
func.func @relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = nn.relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @clip
// CHECK-DAG: arith.constant -1.500000e+00 : f32
// CHECK-DAG: arith.constant 2.500000e+00 : f32
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.clip %x {min = -1.5 : f64, max = 2.5 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @activations
// CHECK: arith.cmpf oge
// CHECK: arith.select
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: arith.mulf
func.func @activations(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.leaky_relu %x {alpha = 0.1 : f64} : tensor<4xf32>
  %1 = nn.sigmoid %0 : tensor<4xf32>
  %2 = nn.tanh %1 : tensor<4xf32>
  %3 = nn.gelu %2 : tensor<4xf32>
  %4 = nn.gelu %3 {approximate = #nn<gelu_approximation tanh>} : tensor<4xf32>
  %5 = nn.silu %4 : tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// Broadcast dimensions read index 0; missing leading dimensions are dropped.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK-LABEL: func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[LHS]]]
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<1x8x4x4xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = nn.add %a, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A dynamic result size comes from the operand that has it.
// CHECK-LABEL: func @dynamic_broadcast
// CHECK: %[[D:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x8xi32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x8xi32>
// CHECK: arith.divsi
func.func @dynamic_broadcast(%a: tensor<8xi32>, %b: tensor<?x8xi32>) -> tensor<?x8xi32> {
  %0 = nn.div %a, %b : (tensor<8xi32>, tensor<?x8xi32>) -> tensor<?x8xi32>
  return %0 : tensor<?x8xi32>
}

// -----

// CHECK-LABEL: func @binary_ops
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @binary_ops(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.mul %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.div %1, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nn.max %2, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nn.min %3, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Batch norm folds its parameters per channel, then one multiply-add.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func @batch_norm
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg1, %arg4 : tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: math.sqrt
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%arg2, %arg3, %[[A]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[CH]], #[[CH]], {{.*}}]{{.*}} ins(%arg0, %[[A]], %[[C]] :
func.func @batch_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = nn.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Softplus in its overflow-free form: max(x, 0) + log1p(exp(-|x|)).
// CHECK-LABEL: func @softplus
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log1p
// CHECK: arith.addf
func.func @softplus(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.softplus %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @elu
// CHECK-DAG: arith.constant 5.000000e-01 : f32
// CHECK-DAG: arith.cmpf ogt
// CHECK-DAG: math.expm1
// CHECK: arith.select
func.func @elu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.elu %x {alpha = 0.5 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @hard_swish
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK: %[[S:.*]] = arith.mulf %[[SIXTH]], %[[X]]
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[A:.*]] = arith.addf %[[S]], %[[HALF]]
// CHECK: %[[LO:.*]] = arith.maximumf %[[A]]
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]]
// CHECK: arith.mulf %[[X]], %[[HI]]
func.func @hard_swish(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.hard_swish %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @round
// CHECK: math.roundeven
func.func @round(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.round %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The inverse and hyperbolic trigonometric functions map onto math ops
// (libm calls later, where LLVM has no intrinsic).
// CHECK-LABEL: func @trigonometry
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
func.func @trigonometry(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.tan %x : tensor<4xf32>
  %1 = nn.asin %0 : tensor<4xf32>
  %2 = nn.acos %1 : tensor<4xf32>
  %3 = nn.atan %2 : tensor<4xf32>
  %4 = nn.sinh %3 : tensor<4xf32>
  %5 = nn.cosh %4 : tensor<4xf32>
  %6 = nn.asinh %5 : tensor<4xf32>
  %7 = nn.acosh %6 : tensor<4xf32>
  %8 = nn.atanh %7 : tensor<4xf32>
  return %8 : tensor<4xf32>
}

// -----

// Sign keeps zeros (either sign) and NaN: only strictly positive and
// negative values are replaced.
// CHECK-LABEL: func @sign
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[MINUS:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[X]], %[[ZERO]]
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[X]], %[[ZERO]]
// CHECK: %[[INNER:.*]] = arith.select %[[NEG]], %[[MINUS]], %[[X]]
// CHECK: arith.select %[[POS]], %[[ONE]], %[[INNER]]
func.func @sign(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.sign %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @sign_int
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: arith.select
func.func @sign_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = nn.sign %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @pow
// CHECK: linalg.generic
// CHECK: math.powf
func.func @pow(%x: tensor<2x4xf32>, %y: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = nn.pow %x, %y : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// One-element constant operands become constants in the body (a Pow's
// exponent: later passes see x^2; an epsilon of rank 1), not inputs;
// constants of more elements stay inputs.
// CHECK-LABEL: func @scalar_constants
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x4xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: math.powf %[[IN]], %[[TWO]] : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: arith.addf %{{.*}}, %[[EPS]] : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// A run-time (dynamic) size is still taken from the tensor operand.
// CHECK: %[[DIM:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.empty(%[[DIM]]) : tensor<?x4xf32>
// CHECK: arith.constant 5.000000e-01 : f32
func.func @scalar_constants(%x: tensor<2x4xf32>, %d: tensor<?x4xf32>) -> (tensor<2x4xf32>, tensor<?x4xf32>) {
  %two = arith.constant dense<2.0> : tensor<f32>
  %eps = arith.constant dense<1.0e-5> : tensor<1xf32>
  %scale = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %half = arith.constant dense<0.5> : tensor<1x1xf32>
  %0 = nn.pow %x, %two : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %1 = nn.add %0, %eps : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  %2 = nn.mul %1, %scale : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = nn.mul %half, %d : (tensor<1x1xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %2, %3 : tensor<2x4xf32>, tensor<?x4xf32>
}

// -----

// Integer division never traps: a 0 divisor gives 0 and the lowest value
// by -1 wraps, so the divisor the divsi sees is never 0 or -1.
// CHECK-LABEL: func @div_int
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[MINUS:.*]] = arith.constant -1 : i64
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[UNSAFE:.*]] = arith.ori
// CHECK: %[[SAFE:.*]] = arith.select %[[UNSAFE]], %[[ONE]], %{{.*}} : i64
// CHECK: arith.divsi %{{.*}}, %[[SAFE]] : i64
// CHECK: arith.subi
func.func @div_int(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  %0 = nn.div %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Floats: remf (C's fmod). Integers without fmod: the remainder moves to
// the divisor's sign when the two signs differ.
// CHECK-LABEL: func @mod
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
// CHECK: arith.remsi
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi slt
// CHECK: arith.xori
// CHECK: arith.andi
// CHECK: %[[ADJ:.*]] = arith.addi
// CHECK: arith.select %{{.*}}, %[[ADJ]], %{{.*}} : i32
func.func @mod(%x: tensor<4xf32>, %y: tensor<1xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = nn.mod %x, %y {fmod = true} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %1 = nn.mod %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}
