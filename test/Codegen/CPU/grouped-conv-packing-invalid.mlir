// RUN: dlas-opt %s --split-input-file --dlas-grouped-conv-packing="policy=always" -verify-diagnostics
// RUN: not dlas-opt %s --dlas-grouped-conv-packing="policy=sometimes" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not dlas-opt %s --split-input-file --dlas-grouped-conv-packing="policy=always tuning-file=%S/Inputs/gspc-bad-tuning.json" 2>&1 | FileCheck %s --check-prefix=TUNING

// POLICY: dlas-grouped-conv-packing: policy must be auto, always or never, not 'sometimes'
// TUNING: gspc-bad-tuning.json
// TUNING-SAME: unknown entry 'tile' (expected ti, to)

// An output tile that is not a power of two.
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx,+avx2,+fma,+avx512f", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
func.func @to_not_power_of_two(%x: tensor<1x2x16x10x10xf32>, %w: tensor<2x16x16x3x3xf32>, %i: tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32> {
  // expected-error @below {{GSPC output tile TO = 12 is not a power of two from 4 to the target's 16 f32 lanes}}
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.gspc_tiles = {to = 12 : i64}} ins(%x, %w : tensor<1x2x16x10x10xf32>, tensor<2x16x16x3x3xf32>) outs(%i : tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32>
  return %y : tensor<1x2x16x8x8xf32>
}
}

// -----

// An output tile wider than the target's vectors.
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
func.func @to_too_wide(%x: tensor<1x2x16x10x10xf32>, %w: tensor<2x16x16x3x3xf32>, %i: tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32> {
  // expected-error @below {{GSPC output tile TO = 16 is not a power of two from 4 to the target's 8 f32 lanes}}
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.gspc_tiles = {to = 16 : i64}} ins(%x, %w : tensor<1x2x16x10x10xf32>, tensor<2x16x16x3x3xf32>) outs(%i : tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32>
  return %y : tensor<1x2x16x8x8xf32>
}
}

// -----

// An input tile that does not divide the group's channels.
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
func.func @ti_not_dividing(%x: tensor<1x2x16x10x10xf32>, %w: tensor<2x16x16x3x3xf32>, %i: tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32> {
  // expected-error @below {{GSPC input tile TI = 6 does not divide the 16 input channels of each group}}
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.gspc_tiles = {ti = 6 : i64}} ins(%x, %w : tensor<1x2x16x10x10xf32>, tensor<2x16x16x3x3xf32>) outs(%i : tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32>
  return %y : tensor<1x2x16x8x8xf32>
}
}

// -----

// A malformed override.
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
func.func @bad_override(%x: tensor<1x2x16x10x10xf32>, %w: tensor<2x16x16x3x3xf32>, %i: tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32> {
  // expected-error @below {{'dlas.gspc_tiles'}}
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.gspc_tiles = {to = -8 : i64}} ins(%x, %w : tensor<1x2x16x10x10xf32>, tensor<2x16x16x3x3xf32>) outs(%i : tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32>
  return %y : tensor<1x2x16x8x8xf32>
}
}

// -----

// No target and no `to`.
// expected-error @below {{no target: set the module's 'dlas.target'}}
module {
func.func @no_target(%x: tensor<1x2x16x10x10xf32>, %w: tensor<2x16x16x3x3xf32>, %i: tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32> {
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x16x10x10xf32>, tensor<2x16x16x3x3xf32>) outs(%i : tensor<1x2x16x8x8xf32>) -> tensor<1x2x16x8x8xf32>
  return %y : tensor<1x2x16x8x8xf32>
}
}
