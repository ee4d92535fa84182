// The kernel passes build what dlas.lowering says and decide nothing: the
// tile, the blocking and the fusion partners come from the decision, not
// from their cost model; a decision they cannot honor is an error (another
// vector width, element types they do not build) or a warning (the
// buffers do not fit, fewer partners found than decided).
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-gemm-microkernel="decided-only print" --dlas-depthwise-microkernel="decided-only print" --verify-diagnostics | FileCheck %s

// The decided 2x16 tile, not the cost model's 6x64, and no epilogue fused
// although a ReLU follows: the decision fused none.
// CHECK-LABEL: func @decided_tile
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @decided_tile(%a: memref<200x300xf32>, %b: memref<300x170xf32>, %c: memref<200x170xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{microkernel 2x16 (m0=2, vectors=1, kc=8, mc=4) key 'm200_n170_k300' for M=200 N=170 K=300, A packed at run time; init loaded, 0 epilogue op(s) fused}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 2, vectors = 1, lanes = 16, kc = 8, mc = 4, input = f32, acc = f32, key = "m200_n170_k300", source = cost_model>}
      ins(%a, %b : memref<200x300xf32>, memref<300x170xf32>) outs(%c : memref<200x170xf32>)
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%c : memref<200x170xf32>) {
  ^bb0(%o: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// decided-only: an op without a decision is left alone.
// CHECK-LABEL: func @undecided
// CHECK: linalg.matmul
func.func @undecided(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// Decided to fuse two epilogue ops; only one follows.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @fewer_partners(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-warning @+2 {{decided to fold init 'loaded' and 2 epilogue op(s) on tensors; after bufferization the kernel folds init 'loaded' and 1}}
  // expected-remark @+1 {{microkernel 4x16}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 1, lanes = 16, kc = 32, mc = 16, input = f32, acc = f32, epilogues = 2, key = "m16_n64_k32", source = cost_model>}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%c : memref<16x64xf32>) {
  ^bb0(%o: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  return
}

// -----

func.func @other_width(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.lowering' was decided for 8-lane vectors; the target's are 16 lanes wide}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 1, lanes = 8, kc = 32, mc = 16, input = f32, acc = f32, key = "m16_n64_k32", source = cost_model>}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

func.func @bf16(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'dlas.lowering' was decided for 'bf16' inputs; the op's are 'f32'}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 1, lanes = 16, kc = 32, mc = 16, input = bf16, acc = f32, key = "m16_n64_k32", source = cost_model>}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// A sum pool sums in f32 only (an i8 average pool would need i32 sums).
func.func @i8_sum_pool(%x: memref<1x8x10x10xi8>, %w: memref<3x3xi8>, %y: memref<1x8x8x8xi32>) {
  // expected-error @+1 {{the sum_pool kernel builds f32 code only (input = i8, acc = i32)}}
  linalg.pooling_nchw_sum {dlas.lowering = #dlas.microkernel<kind = sum_pool, rows = 4, vectors = 1, lanes = 16, input = i8, acc = i32, key = "k", source = cost_model>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x8x10x10xi8>, memref<3x3xi8>) outs(%y : memref<1x8x8x8xi32>)
  return
}

// -----

// A max pool's output is its input's type: bf16 into f32 is refused.
func.func @bf16_max_pool(%x: memref<1x8x10x10xbf16>, %w: memref<3x3xbf16>, %y: memref<1x8x8x8xf32>) {
  // expected-error @+1 {{the max_pool kernel builds f32, bf16, f16 or i8 code (its output of its input's type) only (input = bf16, acc = f32)}}
  linalg.pooling_nchw_max {dlas.lowering = #dlas.microkernel<kind = max_pool, rows = 4, vectors = 1, lanes = 16, input = bf16, acc = f32, key = "k", source = cost_model>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x8x10x10xbf16>, memref<3x3xbf16>) outs(%y : memref<1x8x8x8xf32>)
  return
}

// -----

// A stencil may take vectors narrower than the target's (its output rows
// are 4 wide: 8 lanes), never wider.
// CHECK-LABEL: func @narrow_stencil
// CHECK: vector.fma {{.*}} : vector<8xf32>
#nin = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#nw = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#nout = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @narrow_stencil(%x: memref<1x2x6x6xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  // expected-remark @+1 {{depthwise microkernel 4x8 (rows=4, vectors=1) key 'k'}}
  linalg.generic {indexing_maps = [#nin, #nw, #nout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 4, vectors = 1, lanes = 8, input = f32, acc = f32, key = "k", source = cost_model>} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

#win = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#ww = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#wout = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @wide_stencil(%x: memref<1x2x6x6xf32>, %w: memref<2x3x3xf32>, %y: memref<1x2x4x4xf32>) {
  // expected-error @+1 {{'dlas.lowering' was decided for 32-lane vectors; the target's are 16 lanes wide}}
  linalg.generic {indexing_maps = [#win, #ww, #wout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 4, vectors = 1, lanes = 32, input = f32, acc = f32, key = "k", source = cost_model>} ins(%x, %w : memref<1x2x6x6xf32>, memref<2x3x3xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A stencil decision on an op the stencil kernel cannot take: the GEMM
// kernel leaves it alone (another kernel's), the stencil kernel warns.
func.func @wrong_kernel(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  // expected-warning @+1 {{on tensors, but the buffers do not fit the kernel: not a two-input, one-output, 6-loop op}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 4, vectors = 1, lanes = 16, input = f32, acc = f32, key = "k", source = cost_model>}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// Partners bound on tensors (the decision's group, the ops' dlas.fused):
// the kernel folds the tagged fill and ReLU and writes C once.
// CHECK-LABEL: func @bound_partners
// CHECK-NOT: linalg.fill
// CHECK: vector.fma
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @bound_partners(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill {dlas.fused = #dlas.fused<group = 1, role = init>} ins(%zero : f32) outs(%c : memref<16x64xf32>)
  // expected-remark @+1 {{init linalg.fill, 1 epilogue op(s) fused}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 1, lanes = 16, kc = 32, mc = 16, input = f32, acc = f32, init = fill, epilogues = 1, key = "m16_n64_k32", source = cost_model, group = 1>}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%c : memref<16x64xf32>) attrs = {dlas.fused = #dlas.fused<group = 1, role = epilogue>} {
  ^bb0(%o: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A bound decision folds its own partners only: the fill and the generic
// here are another group's (or nobody's), so the kernel loads C, leaves
// both ops and warns that it folds less than decided.
// CHECK-LABEL: func @foreign_partners
// CHECK: linalg.fill
// CHECK: vector.fma
// CHECK: linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @foreign_partners(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill {dlas.fused = #dlas.fused<group = 7, role = init>} ins(%zero : f32) outs(%c : memref<16x64xf32>)
  // expected-warning @+2 {{decided to fold init 'fill' and 1 epilogue op(s) on tensors; after bufferization the kernel folds init 'loaded' and 0}}
  // expected-remark @+1 {{init loaded, 0 epilogue op(s) fused}}
  linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 1, lanes = 16, kc = 32, mc = 16, input = f32, acc = f32, init = fill, epilogues = 1, key = "m16_n64_k32", source = cost_model, group = 2>}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%c : memref<16x64xf32>) {
  ^bb0(%o: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  return
}
