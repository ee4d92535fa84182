// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// Comparisons broadcast like arithmetic and yield i1; floats compare
// ordered, except ne (true for NaN); integers signed.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @compare
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME: outs(%{{.*}} : tensor<3x4xi1>)
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf une
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi eq
func.func @compare(%x: tensor<3x4xf32>, %y: tensor<4xf32>, %i: tensor<3x4xi32>)
    -> (tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>) {
  %0 = nn.compare %x, %y {predicate = #nn<compare_predicate lt>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %1 = nn.compare %x, %y {predicate = #nn<compare_predicate ne>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %2 = nn.compare %i, %i {predicate = #nn<compare_predicate ge>} : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
  %3 = nn.compare %i, %i {predicate = #nn<compare_predicate eq>} : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
  return %0, %1, %2, %3 : tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>
}

// -----

// CHECK-LABEL: func @logic
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @logic(%a: tensor<2x3xi1>, %b: tensor<3xi1>) -> tensor<2x3xi1> {
  %0 = nn.logical %a, %b {kind = #nn<logical_kind and>} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %1 = nn.logical %0, %a {kind = #nn<logical_kind or>} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %2 = nn.logical %1, %b {kind = #nn<logical_kind xor>} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %3 = nn.not %2 : tensor<2x3xi1>
  return %3 : tensor<2x3xi1>
}

// -----

// All three operands of select broadcast.
// CHECK-DAG: #[[C0:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @select
// CHECK: linalg.generic {indexing_maps = [#[[C0]], #[[ID]], #[[ROW]], #[[ID]]]
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @select(%m: tensor<3x1xi1>, %x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = nn.select %m, %x, %y : (tensor<3x1xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @select_dynamic
// CHECK: %[[D:.*]] = tensor.dim %arg1, %c0
// CHECK: tensor.empty(%[[D]]) : tensor<?x4xf32>
func.func @select_dynamic(%m: tensor<1x4xi1>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nn.select %m, %x, %x : (tensor<1x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Every pair of cast kinds maps to its arith op.
// CHECK-LABEL: func @casts
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: arith.extsi %{{.*}} : i8 to i16
// CHECK: %[[Z16:.*]] = arith.constant 0 : i16
// CHECK: arith.cmpi ne, %{{.*}}, %[[Z16]] : i16
// f16 to bf16 goes through f32.
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
func.func @casts(%x: tensor<4xf32>, %h: tensor<4xf16>) {
  %0 = nn.cast %x : tensor<4xf32> to tensor<4xi64>
  %1 = nn.cast %0 : tensor<4xi64> to tensor<4xf64>
  %2 = nn.cast %1 : tensor<4xf64> to tensor<4xf16>
  %3 = nn.cast %2 : tensor<4xf16> to tensor<4xf32>
  %4 = nn.cast %3 : tensor<4xf32> to tensor<4xbf16>
  %5 = nn.cast %x : tensor<4xf32> to tensor<4xi1>
  %6 = nn.cast %5 : tensor<4xi1> to tensor<4xf32>
  %7 = nn.cast %5 : tensor<4xi1> to tensor<4xi32>
  %8 = nn.cast %0 : tensor<4xi64> to tensor<4xi8>
  %9 = nn.cast %8 : tensor<4xi8> to tensor<4xi16>
  %10 = nn.cast %9 : tensor<4xi16> to tensor<4xi1>
  %11 = nn.cast %h : tensor<4xf16> to tensor<4xbf16>
  return
}

// -----

// A cast to the same type folds away.
// CHECK-LABEL: func @cast_identity
// CHECK-NOT: linalg.generic
// CHECK: return %arg0
func.func @cast_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
