// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel 2>/dev/null | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel --verify-diagnostics -o /dev/null

// A bf16 blocked convolution (dlas-blocked-layout bf16) on a target with
// AVX512-BF16: 4 output-channel blocks, so 4x4 tiles (the pair rule); per
// pair of input channels 4 loads of 32 filter values, one 32-bit
// broadcast of an input pair per column, a vdpbf16ps per accumulator; no
// copy of the input and no correction.
// CHECK-LABEL: func.func @bf16
// CHECK-NOT: memref.alloc
// CHECK-NOT: arith.xori
// CHECK: scf.parallel
// CHECK-COUNT-4: vector.load %{{.*}} : memref<4x1x3x3x8x16x2xbf16>, vector<32xbf16>
// CHECK: vector.load %{{.*}} : memref<{{[0-9]+}}xbf16>, vector<2xbf16>
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: vector.bitcast %{{.*}} : vector<16xi32> to vector<32xbf16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// CHECK: vector.store %{{.*}} : memref<1x4x7x7x16xf32>, vector<16xf32>
// CHECK-NOT: linalg.generic
// PRINT: remark: blocked convolution microkernel 4x64 (rows=4, vectors=4) key 'bf16_c16_f64_o7x7_k3x3_s1x1'; init linalg.fill, 0 epilogue op(s) fused
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 2 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f,+avx512bw,+avx512vl,+avx512bf16", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @filter : memref<4x1x3x3x8x16x2xbf16> = dense<1.0>
  func.func @bf16(%x: memref<1x1x9x9x16xbf16>, %y: memref<1x4x7x7x16xf32>) {
    %zero = arith.constant 0.0 : f32
    %w = memref.get_global @filter : memref<4x1x3x3x8x16x2xbf16>
    linalg.fill ins(%zero : f32) outs(%y : memref<1x4x7x7x16xf32>)
    linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xbf16>, memref<4x1x3x3x8x16x2xbf16>) outs(%y : memref<1x4x7x7x16xf32>) attrs = {dlas.blocked_conv} {
    ^bb0(%i: bf16, %f: bf16, %o: f32):
      %ie = arith.extf %i : bf16 to f32
      %fe = arith.extf %f : bf16 to f32
      %m = arith.mulf %ie, %fe : f32
      %a = arith.addf %o, %m : f32
      linalg.yield %a : f32
    }
    return
  }
}

// -----

// Without AVX512-BF16 the pair form has no kernel; the pass says why.
// CHECK-LABEL: func.func @no_bf16
// CHECK: linalg.generic
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 2 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f,+avx512bw,+avx512vl", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @filter : memref<4x1x3x3x8x16x2xbf16> = dense<1.0>
  func.func @no_bf16(%x: memref<1x1x9x9x16xbf16>, %y: memref<1x4x7x7x16xf32>) {
    %w = memref.get_global @filter : memref<4x1x3x3x8x16x2xbf16>
    // expected-remark @+1 {{no blocked convolution microkernel: bf16 without vdpbf16ps at 16 lanes}}
    linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xbf16>, memref<4x1x3x3x8x16x2xbf16>) outs(%y : memref<1x4x7x7x16xf32>) attrs = {dlas.blocked_conv} {
    ^bb0(%i: bf16, %f: bf16, %o: f32):
      %ie = arith.extf %i : bf16 to f32
      %fe = arith.extf %f : bf16 to f32
      %m = arith.mulf %ie, %fe : f32
      %a = arith.addf %o, %m : f32
      linalg.yield %a : f32
    }
    return
  }
}
