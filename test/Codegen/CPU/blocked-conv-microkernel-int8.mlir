// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel 2>/dev/null | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-blocked-conv-microkernel --verify-diagnostics -o /dev/null

// An int8 blocked convolution (dlas-blocked-layout int8) on a target with
// AVX512-VNNI and 32 registers: the accumulators start from the fill plus
// -128 * sum(w) per output channel (a constant: 16 input channels x 3 x 3
// taps of 3, 432, times -128), each step loads 64 filter bytes per
// vector, broadcasts four input bytes as one i32, flips them to u8 (xor
// -128, in registers) and multiplies on vpdpbusd. No copy of the input.
// CHECK: memref.global "private" constant @dlas_quad_sums : memref<2x16xi32> = dense<-55296>
// CHECK-LABEL: func.func @int8
// CHECK-NOT: memref.alloc
// CHECK: %[[SUMS:.*]] = memref.get_global @dlas_quad_sums : memref<2x16xi32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} : memref<1x1x9x9x16xi8> into memref<1296xi8>
// CHECK: scf.parallel
// CHECK: vector.load %[[SUMS]]{{.*}} : memref<2x16xi32>, vector<16xi32>
// CHECK: vector.load %{{.*}} : memref<2x1x3x3x4x16x4xi8>, vector<64xi8>
// CHECK: vector.load %[[FLAT]]{{.*}} : memref<1296xi8>, vector<4xi8>
// CHECK: vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// CHECK: %[[U8:.*]] = arith.xori %{{.*}}, %{{.*}} : vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[U8]], %{{.*}})
// CHECK: vector.store %{{.*}} : memref<1x2x7x7x16xi32>, vector<16xi32>
// CHECK-NOT: linalg.generic
// PRINT: remark: blocked convolution microkernel 7x32 (rows=7, vectors=2) key 'i8_c16_f32_o7x7_k3x3_s1x1'; init linalg.fill, 0 epilogue op(s) fused
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 4 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f,+avx512bw,+avx512vl,+avx512vnni", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @filter : memref<2x1x3x3x4x16x4xi8> = dense<3>
  func.func @int8(%x: memref<1x1x9x9x16xi8>, %y: memref<1x2x7x7x16xi32>) {
    %zero = arith.constant 0 : i32
    %w = memref.get_global @filter : memref<2x1x3x3x4x16x4xi8>
    linalg.fill ins(%zero : i32) outs(%y : memref<1x2x7x7x16xi32>)
    linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xi8>, memref<2x1x3x3x4x16x4xi8>) outs(%y : memref<1x2x7x7x16xi32>) attrs = {dlas.blocked_conv} {
    ^bb0(%i: i8, %f: i8, %o: i32):
      %ie = arith.extsi %i : i8 to i32
      %fe = arith.extsi %f : i8 to i32
      %m = arith.muli %ie, %fe : i32
      %a = arith.addi %o, %m : i32
      linalg.yield %a : i32
    }
    return
  }
}

// -----

// A filter that is not a constant global: the kernel cannot sum it, and
// the convolution stays a loop nest.
// CHECK-LABEL: func.func @runtime_filter
// CHECK: linalg.generic
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 4 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f,+avx512bw,+avx512vl,+avx512vnni", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  func.func @runtime_filter(%x: memref<1x1x9x9x16xi8>, %w: memref<2x1x3x3x4x16x4xi8>, %y: memref<1x2x7x7x16xi32>) {
    // expected-warning @+1 {{but the int8 filter is not a constant global: left to loops}}
    linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xi8>, memref<2x1x3x3x4x16x4xi8>) outs(%y : memref<1x2x7x7x16xi32>) attrs = {dlas.blocked_conv} {
    ^bb0(%i: i8, %f: i8, %o: i32):
      %ie = arith.extsi %i : i8 to i32
      %fe = arith.extsi %f : i8 to i32
      %m = arith.muli %ie, %fe : i32
      %a = arith.addi %o, %m : i32
      linalg.yield %a : i32
    }
    return
  }
}

// -----

// Without VNNI the int8 form has no kernel (dlas-blocked-layout leaves such
// convolutions in NCHW); the pass says why.
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 4 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v4", features = "+avx512f,+avx512bw,+avx512vl", vector_bits = 512, vector_registers = 32, l1 = 49152, l2 = 1048576, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @filter : memref<2x1x3x3x4x16x4xi8> = dense<3>
  func.func @no_vnni(%x: memref<1x1x9x9x16xi8>, %y: memref<1x2x7x7x16xi32>) {
    %w = memref.get_global @filter : memref<2x1x3x3x4x16x4xi8>
    // expected-remark @+1 {{no blocked convolution microkernel: int8 without vpdpbusd at 16 lanes}}
    linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x9x9x16xi8>, memref<2x1x3x3x4x16x4xi8>) outs(%y : memref<1x2x7x7x16xi32>) attrs = {dlas.blocked_conv} {
    ^bb0(%i: i8, %f: i8, %o: i32):
      %ie = arith.extsi %i : i8 to i32
      %fe = arith.extsi %f : i8 to i32
      %m = arith.muli %ie, %fe : i32
      %a = arith.addi %o, %m : i32
      linalg.yield %a : i32
    }
    return
  }
}

// -----

// With 16 registers (x86-64-v3 with AVX-VNNI, 8-lane blocks) the sign mask
// would take a register the tile needs: the kernel copies the input
// flipped to u8 first (xor -128 in 32-byte vectors: the 8-channel blocks),
// reads the copy and frees it after.
// CHECK-LABEL: func.func @int8_copy
// CHECK: %[[COPY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x9x9x8xi8>
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<1296xi8>, vector<32xi8>
// CHECK: arith.xori %[[V]], %{{.*}} : vector<32xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"
// CHECK: memref.dealloc %[[COPY]]
#in = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, C, oh + kh, ow + kw, c * 4 + q)>
#w = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (F, C, kh, kw, c, f, q)>
#out = affine_map<(n, F, oh, ow, f, C, kh, kw, c, q) -> (n, F, oh, ow, f)>
module attributes {dlas.target = #dlas.cpu_target<cpu = "x86-64-v3", features = "+avx,+avx2,+fma,+avxvnni", vector_bits = 256, vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432, fma_per_cycle = 2>} {
  memref.global "private" constant @filter : memref<4x2x3x3x2x8x4xi8> = dense<1>
  func.func @int8_copy(%x: memref<1x2x9x9x8xi8>, %y: memref<1x4x7x7x8xi32>) {
    %zero = arith.constant 0 : i32
    %w = memref.get_global @filter : memref<4x2x3x3x2x8x4xi8>
    linalg.fill ins(%zero : i32) outs(%y : memref<1x4x7x7x8xi32>)
    linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x8xi8>, memref<4x2x3x3x2x8x4xi8>) outs(%y : memref<1x4x7x7x8xi32>) attrs = {dlas.blocked_conv} {
    ^bb0(%i: i8, %f: i8, %o: i32):
      %ie = arith.extsi %i : i8 to i32
      %fe = arith.extsi %f : i8 to i32
      %m = arith.muli %ie, %fe : i32
      %a = arith.addi %o, %m : i32
      linalg.yield %a : i32
    }
    return
  }
}
