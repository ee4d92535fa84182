// dlas-cpu-select-lowering decides on tensors, per op and per target, which
// kernel lowers it, with which tile and which fusion partners, and records
// it as dlas.lowering; the same input gives the same decisions on every
// machine, and AVX2 and AVX-512 targets get their own.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-cpu-select-lowering | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-cpu-select-lowering | FileCheck %s --check-prefix=V4
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-cpu-select-lowering=print -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// Options, the tuning file and the op's own override, in that precedence.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-cpu-select-lowering="gemm-tiles=4,1 gemm-pack-b=always depthwise-tiles=2" | FileCheck %s --check-prefix=PINNED
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-cpu-select-lowering="tuning-file=%S/Inputs/tuning.json" | FileCheck %s --check-prefix=TUNED
// Without a target the pass refuses.
// RUN: not dlas-opt %s --split-input-file --dlas-cpu-select-lowering -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTARGET
// A bad option value fails the pass's setup.
// RUN: not dlas-opt %s --dlas-attach-target=target=x86-64-v4 --dlas-cpu-select-lowering=gemm-pack-b=sometimes -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADOPT

// NOTARGET: error: no target: set the module's 'dlas.target'
// BADOPT: error

// A matmul whose output starts from a bias broadcast and goes through a
// ReLU: a GEMM kernel that starts from the bias and applies the ReLU.
// The partners are bound to the decision: both carry its fusion group.
// V3-LABEL: func @gemm_bias_relu
// V3: linalg.broadcast {{.*}} {dlas.fused = #dlas.fused<group = 1, role = init>}
// V3: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 2, lanes = 8, kc = 256, mc = 252, pack_b = true, input = f32, acc = f32, init = broadcast, epilogues = 1, key = "m200_n170_k300", source = cost_model, group = 1>}
// V3: linalg.generic {{.*}} {dlas.fused = #dlas.fused<group = 1, role = epilogue>}
// V4-LABEL: func @gemm_bias_relu
// V4: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 4, lanes = 16, kc = 96, mc = 1362, input = f32, acc = f32, init = broadcast, epilogues = 1, key = "m200_n170_k300", source = cost_model, group = 1>}
// PRINT: remark: gemm microkernel 6x64 (6 rows of 4 16-lane vectors, kc = 96, mc = 1362, B read in place) from the cost model for 32 vector registers, key 'm200_n170_k300'; 'f32' inputs, 'f32' accumulators; init broadcast, 1 epilogue op(s) fused (fusion group 1)
// PINNED: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 4, vectors = 1, lanes = 16, kc = 96, mc = {{[0-9]+}}, pack_b = true, {{.*}}source = override{{.*}}>}
// TUNED: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, rows = 6, vectors = 4, lanes = 16, kc = 5, mc = 10, {{.*}}source = tuning_file{{.*}}>}
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @gemm_bias_relu(%a: tensor<200x300xf32>, %b: tensor<300x170xf32>, %bias: tensor<170xf32>) -> tensor<200x170xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<200x170xf32>
  %init = linalg.broadcast ins(%bias : tensor<170xf32>) outs(%empty : tensor<200x170xf32>) dimensions = [0]
  %mm = linalg.matmul ins(%a, %b : tensor<200x300xf32>, tensor<300x170xf32>) outs(%init : tensor<200x170xf32>) -> tensor<200x170xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<200x170xf32>) outs(%empty : tensor<200x170xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<200x170xf32>
  return %relu : tensor<200x170xf32>
}

// -----

// The sum of two products (nn.conv3d's shares per kernel depth): the add
// reads both, so it folds into the kernel of the second, which runs when
// the first's result exists; the first has no epilogue (an epilogue that
// reads a later result cannot be folded after bufferization).
// V3-LABEL: func @gemm_sum_of_products
// V3: %[[P1:.*]] = linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, key
// V3: %[[P2:.*]] = linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, epilogues = 1, key
// V3: linalg.generic {{.*}} ins(%[[P1]], %[[P2]] : {{.*}}) {{.*}} {dlas.fused = #dlas.fused<group = 2, role = epilogue>}
#sum = affine_map<(d0, d1) -> (d0, d1)>
func.func @gemm_sum_of_products(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x96xf32>, %d: tensor<96x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %p1 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%z1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %p2 = linalg.matmul ins(%c, %d : tensor<64x96xf32>, tensor<96x128xf32>) outs(%z2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %sum = linalg.generic {indexing_maps = [#sum, #sum, #sum], iterator_types = ["parallel", "parallel"]}
      ins(%p1, %p2 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%empty : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  return %sum : tensor<64x128xf32>
}

// -----

// A fill of the full-shaped output viewed collapsed by the GEMM, and a
// chain of two elementwise ops on the expanded result; the second one's
// result has two users, so the chain ends with it.
// V4-LABEL: func @gemm_chain
// V4: linalg.fill {dlas.fused = #dlas.fused<group = 1, role = init>}
// V4: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, epilogues = 2, key = "m16_n64_k32", source = cost_model, group = 1>}
// V4: linalg.generic {{.*}}ins(%expanded {{.*}} {dlas.fused = #dlas.fused<group = 1, role = epilogue>}
// V4: linalg.generic {{.*}} {dlas.fused = #dlas.fused<group = 1, role = epilogue, position = 1>}
// V4: linalg.generic
// V4-NOT: dlas.fused
// V4: return
// TUNED-LABEL: func @gemm_chain
// TUNED: source = tuning_file
// The op's own attribute wins over options and file.
// PINNED-LABEL: func @gemm_override
// PINNED: rows = 2, vectors = 1, {{.*}}source = override
// TUNED-LABEL: func @gemm_override
// TUNED: rows = 2, vectors = 2, lanes = 16, kc = 8, {{.*}}source = override
#map = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gemm_chain(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x8x64xf32>
  %full = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %init = tensor.collapse_shape %full [[0, 1], [2]] : tensor<2x8x64xf32> into tensor<16x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 8, 64] : tensor<16x64xf32> into tensor<2x8x64xf32>
  %neg = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<2x8x64xf32>) outs(%e3 : tensor<2x8x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<2x8x64xf32>
  %relu = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%neg : tensor<2x8x64xf32>) outs(%e3 : tensor<2x8x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x64xf32>
  %sq = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%relu, %relu : tensor<2x8x64xf32>, tensor<2x8x64xf32>) outs(%e3 : tensor<2x8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<2x8x64xf32>
  return %sq, %relu : tensor<2x8x64xf32>, tensor<2x8x64xf32>
}
func.func @gemm_override(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %mm = linalg.matmul {dlas.gemm_tiles = {m0 = 2}} ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %mm : tensor<16x64xf32>
}

// -----

// A depthwise convolution of a zero-padded input, from a fill: a stencil
// that folds the padding; a 3x3 stride-2 max pool of a -inf padded input
// is the same stencil with max.
// The pads become a tagged fill and an insertion, as bufferization makes
// them, so that the kernel folds the fill it was given.
// V3-LABEL: func @depthwise
// V3: %[[PAD:.*]] = linalg.fill {dlas.fused = #dlas.fused<group = 1, role = pad>}
// V3: %[[X:.*]] = tensor.insert_slice %{{.*}} into %[[PAD]][0, 0, 1, 1] [1, 4, 7, 7] [1, 1, 1, 1]
// V3: linalg.fill {dlas.fused = #dlas.fused<group = 1, role = init>}
// V3: ins(%[[X]], {{.*}}dlas.lowering = #dlas.microkernel<kind = depthwise, rows = {{[0-9]+}}, vectors = 1, lanes = 8, input = f32, acc = f32, init = fill, padding = true, key = "conv_c4_o7x7_k3x3_s1x1", source = cost_model, group = 1>
// V4-LABEL: func @depthwise
// On 16 lanes the 7-wide rows take 8-lane vectors, the pool's 10-wide
// ones 16.
// V4: dlas.lowering = #dlas.microkernel<kind = depthwise, rows = {{[0-9]+}}, vectors = 1, lanes = 8, {{.*}}padding = true
// V4: dlas.lowering = #dlas.microkernel<kind = max_pool, rows = {{[0-9]+}}, vectors = 1, lanes = 16, {{.*}}init = fill, padding = true, key = "max_c4_o10x10_k3x3_s2x2"
// PINNED: dlas.lowering = #dlas.microkernel<kind = depthwise, rows = 2, vectors = 1, {{.*}}source = override
// TUNED: dlas.lowering = #dlas.microkernel<kind = max_pool, rows = 2, vectors = 1, {{.*}}source = tuning_file
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
#pin = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#pwin = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
func.func @depthwise(%x: tensor<1x4x7x7xf32>, %w: tensor<4x3x3xf32>, %p: tensor<1x4x20x20xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x7x7xf32> to tensor<1x4x9x9xf32>
  %empty = tensor.empty() : tensor<1x4x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x4x9x9xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x7x7xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x7x7xf32>
  %ppad = tensor.pad %p low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x20x20xf32> to tensor<1x4x21x21xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %pempty = tensor.empty() : tensor<1x4x10x10xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%pempty : tensor<1x4x10x10xf32>) -> tensor<1x4x10x10xf32>
  %pool = linalg.generic {indexing_maps = [#pin, #pwin, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%ppad, %window : tensor<1x4x21x21xf32>, tensor<3x3xf32>) outs(%pinit : tensor<1x4x10x10xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.maximumf %o, %i : f32
    linalg.yield %m : f32
  } -> tensor<1x4x10x10xf32>
  return %y, %pool : tensor<1x4x7x7xf32>, tensor<1x4x10x10xf32>
}

// -----

// A blocked 3x3 convolution (channel blocks of the target's lanes).
// V4-LABEL: func @blocked
// V4: dlas.lowering = #dlas.microkernel<kind = blocked_conv, rows = 8, vectors = 2, lines = 2, lanes = 16, input = f32, acc = f32, init = fill, epilogues = 1, key = "c32_f32_o5x11_k3x3_s1x1", source = cost_model, group = 1>
// TUNED: dlas.lowering = #dlas.microkernel<kind = blocked_conv, rows = 4, vectors = 1, {{.*}}source = tuning_file
// On x86-64-v3 the 16-channel blocks are two vectors wide: not this
// kernel's, nor a GEMM's; print says why for each kernel.
// V3-LABEL: func @blocked
// V3-NOT: dlas.lowering
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, C, oh + kh, ow + kw, c)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (F, C, kh, kw, c, f)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c) -> (n, F, oh, ow, f)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @blocked(%x: tensor<1x2x7x13x16xf32>, %w: tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x5x11x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x2x5x11x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x5x11x16xf32>) -> tensor<1x2x5x11x16xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x2x7x13x16xf32>, tensor<2x2x3x3x16x16xf32>) outs(%init : tensor<1x2x5x11x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x5x11x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x2x5x11x16xf32>) outs(%empty : tensor<1x2x5x11x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x5x11x16xf32>
  return %relu : tensor<1x2x5x11x16xf32>
}

// -----

// What no kernel builds stays for the loops; print says why per kernel.
// V3-LABEL: func @f64
// V4-LABEL: func @f64
// V4-NOT: dlas.lowering
// PRINT: remark: no microkernel (loops): not a blocked convolution (not a 9-loop or 10-loop (4 reductions), 10-loop (5 reductions) or 7-loop (2 reductions) op); not a GEMM (needs f32, bf16 or f16 inputs of one type with an f32 output, or i8 inputs with an i32 output); not a stencil (not a two-input, one-output, 6-loop op)
func.func @f64(%a: tensor<4x4xf64>, %b: tensor<4x4xf64>, %c: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf64>, tensor<4x4xf64>) outs(%c : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %r : tensor<4x4xf64>
}

// -----

// A fill of the collapsed output (no full-shaped buffer before the GEMM):
// the ReLU on the expanded result reads a view the kernel does not write
// through, so it is not an epilogue of this GEMM.
// V4-LABEL: func @gemm_expanded_result
// V4: dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, key = "m16_n64_k32", source = cost_model, group = 1>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gemm_expanded_result(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> tensor<2x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 8, 64] : tensor<16x64xf32> into tensor<2x8x64xf32>
  %e3 = tensor.empty() : tensor<2x8x64xf32>
  %relu = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<2x8x64xf32>) outs(%e3 : tensor<2x8x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x64xf32>
  return %relu : tensor<2x8x64xf32>
}

// -----

// One fill (CSE merged them) starts two GEMMs: each gets its own copy, so
// that each tag binds one kernel's init and bufferization does not copy
// the shared fill into each output.
// V4-LABEL: func @shared_fill
// V4: %[[F1:.*]] = linalg.fill {dlas.fused = #dlas.fused<group = 1, role = init>}
// V4: %[[F2:.*]] = linalg.fill {dlas.fused = #dlas.fused<group = 2, role = init>}
// V4: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, {{.*}}group = 1>} {{.*}} outs(%[[F1]] :
// V4: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = fill, {{.*}}group = 2>} {{.*}} outs(%[[F2]] :
func.func @shared_fill(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<32x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<16x32xf32>, tensor<32x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m1, %m2 : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// The pool's init fill and the ReLU before it write one tensor.empty (CSE
// merged them): the pool's gets its own, so that bufferization does not
// give the pool's output the buffer its padded input is copied from (the
// -inf fill would overwrite the ReLU's values before the pool reads them,
// and the padding could not fold).
// V3-LABEL: func @shared_empty
// V3-COUNT-2: tensor.empty() : tensor<1x8x12x12xf32>
// V3: linalg.generic {{.*}} outs(%[[E:[0-9a-z_]+]] :
// V3-NOT: outs(%[[E]] :
// V3: %[[I:.*]] = linalg.fill {dlas.fused = #dlas.fused<group = 1, role = init>} {{.*}} outs(%{{[0-9a-z_]+}} :
// V3: linalg.pooling_nchw_max {{.*}}dlas.lowering = #dlas.microkernel<kind = max_pool, {{.*}}init = fill, padding = true, {{.*}}group = 1>{{.*}} outs(%[[I]] :
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @shared_empty(%x: tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<1x8x12x12xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x12x12xf32>) outs(%empty : tensor<1x8x12x12xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x12x12xf32>
  %padded = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x12x12xf32> to tensor<1x8x14x14xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%empty : tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %window : tensor<1x8x14x14xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32>
  return %pool : tensor<1x8x12x12xf32>
}

// -----

// A padded output (a flat convolution's: the GEMM computes columns it
// drops) that starts from a bias broadcast: the pad becomes a tagged fill,
// the broadcast is the init.
// V4-LABEL: func @padded_init
// V4: %[[B:.*]] = linalg.broadcast {{.*}} {dlas.fused = #dlas.fused<group = 1, role = init>}
// V4: %[[P:.*]] = linalg.fill {dlas.fused = #dlas.fused<group = 1, role = pad>} {{.*}} -> tensor<2x8x72xf32>
// V4: tensor.insert_slice %[[B]] into %[[P]][0, 0, 0] [2, 8, 64] [1, 1, 1]
// V4: linalg.matmul {dlas.lowering = #dlas.microkernel<kind = gemm, {{.*}}init = broadcast, {{.*}}group = 1>}
func.func @padded_init(%a: tensor<16x32xf32>, %b: tensor<32x72xf32>, %bias: tensor<8xf32>) -> tensor<2x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x8x64xf32>
  %init = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%empty : tensor<2x8x64xf32>) dimensions = [0, 2]
  %padded = tensor.pad %init low[0, 0, 0] high[0, 0, 8] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<2x8x64xf32> to tensor<2x8x72xf32>
  %flat = tensor.collapse_shape %padded [[0, 1], [2]] : tensor<2x8x72xf32> into tensor<16x72xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x72xf32>) outs(%flat : tensor<16x72xf32>) -> tensor<16x72xf32>
  %r = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 8, 72] : tensor<16x72xf32> into tensor<2x8x72xf32>
  %crop = tensor.extract_slice %r[0, 0, 0] [2, 8, 64] [1, 1, 1] : tensor<2x8x72xf32> to tensor<2x8x64xf32>
  return %crop : tensor<2x8x64xf32>
}
