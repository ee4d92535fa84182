// The kernel passes read the module's dlas.target: the same input gives the
// same kernels on every machine, and AVX2 and AVX-512 targets get their own.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-gemm-microkernel=print --dlas-depthwise-microkernel=print -o /dev/null 2>&1 | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-gemm-microkernel=print --dlas-depthwise-microkernel=print -o /dev/null 2>&1 | FileCheck %s --check-prefix=V4
// An AVX-512 machine told to use 256-bit vectors keeps its 32 registers.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4 vector-bits=256" --dlas-gemm-microkernel=print -o /dev/null 2>&1 | FileCheck %s --check-prefix=V4Y
// The kernels are vector<8xf32> on x86-64-v3.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-gemm-microkernel --dlas-depthwise-microkernel | FileCheck %s --check-prefix=V3IR
// A pass option packs B where the cost model would not.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-gemm-microkernel="print pack-b=always" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PACKED
// Pass options still pin a value over the target's.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-gemm-microkernel="print vector-width=16 vector-registers=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTS
// Without a target (and without both options) the passes refuse.
// RUN: not dlas-opt %s --split-input-file --dlas-gemm-microkernel -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not dlas-opt %s --split-input-file --dlas-depthwise-microkernel -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not dlas-opt %s --split-input-file --dlas-gemm-microkernel=vector-width=8 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET

// NOTARGET: error: no target: set the module's 'dlas.target' (dlas-attach-target, dlas-cpu-pipeline{target=...}) or give vector-width and vector-registers

// V3: remark: microkernel 6x16 (m0=6, vectors=2, kc=256, mc=252, B packed) key 'm200_n170_k300'
// V4: remark: microkernel 6x64 (m0=6, vectors=4, kc=96, mc=1362) key 'm200_n170_k300'
// V4Y: remark: microkernel 12x16 (m0=12, vectors=2, kc=300, mc=432) key 'm200_n170_k300'
// OPTS: remark: microkernel 6x64 (m0=6, vectors=4, kc=64, mc=1020) key 'm200_n170_k300'
// V3IR-LABEL: func @gemm
// V3IR: vector.fma {{.*}} : vector<8xf32>
// V3IR-NOT: vector<16xf32>
func.func @gemm(%a: memref<200x300xf32>, %b: memref<300x170xf32>, %c: memref<200x170xf32>) {
  linalg.matmul ins(%a, %b : memref<200x300xf32>, memref<300x170xf32>) outs(%c : memref<200x170xf32>)
  return
}

// -----

// The target's width on 16-wide rows; rows of at most 8 take 8 lanes on
// both (depthwise-microkernel.mlir).
// V3: remark: depthwise microkernel {{[0-9]+}}x8 (rows={{[0-9]+}}, vectors=1)
// V4: remark: depthwise microkernel {{[0-9]+}}x16 (rows={{[0-9]+}}, vectors=1)
// V3IR-LABEL: func @depthwise
// V3IR: vector<8xf32>
// V3IR-NOT: vector<16xf32>
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @depthwise(%x: memref<1x4x18x18xf32>, %w: memref<4x3x3xf32>, %y: memref<1x4x16x16xf32>) {
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<1x4x18x18xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// One row panel (a classifier at batch 1, M = 1): B is read once either
// way, so even where B is packed by default (16-register targets) it is
// read in place; a pin still packs it.
// V3: remark: microkernel 1x{{[0-9]+}} (m0=1, vectors={{[0-9]+}}, kc={{[0-9]+}}, mc={{[0-9]+}}) key 'm1_n1000_k2048'
// V3-NOT: B packed
// PACKED: remark: microkernel 1x{{[0-9]+}} ({{.*}}, B packed) key 'm1_n1000_k2048'
func.func @one_row_panel(%a: memref<1x2048xf32>, %b: memref<2048x1000xf32>, %c: memref<1x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1x2048xf32>, memref<2048x1000xf32>) outs(%c : memref<1x1000xf32>)
  return
}
