// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 print tuning-file=%S/Inputs/tuning.json" --dlas-depthwise-microkernel="vector-width=16 vector-registers=32 print tuning-file=%S/Inputs/tuning.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 print" --dlas-depthwise-microkernel="vector-width=16 vector-registers=32 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HEURISTIC
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 print tiles=4 tuning-file=%S/Inputs/tuning.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION

// The tuning file's entry for the shape key sets the parameters it names;
// the others keep the heuristic's values.
// CHECK: remark: microkernel 3x32 (m0=3, vectors=2, kc=8, mc={{[0-9]+}}, tuned) key 'm16_n64_k32' for M=16 N=64 K=32
// HEURISTIC-NOT: tuned
// HEURISTIC: remark: microkernel {{[0-9]+}}x{{[0-9]+}} ({{.*}}) key 'm16_n64_k32' for M=16 N=64 K=32
// The file's entry wins over the pass's global tiles option.
// OPTION: remark: microkernel 3x32 (m0=3, vectors=2, kc=8, mc={{[0-9]+}}, tuned) key 'm16_n64_k32'
func.func @exact_key(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// No entry for this shape: the "*" entry applies.
// CHECK: remark: microkernel {{.*}}kc=5, mc=10, tuned) key 'm20_n80_k48' for M=20 N=80 K=48
// The global option sets what the "*" entry leaves alone.
// OPTION: remark: microkernel 4x{{[0-9]+}} (m0=4, {{.*}}kc=5, mc=10, tuned) key 'm20_n80_k48'
func.func @wildcard(%a: memref<20x48xf32>, %b: memref<48x80xf32>, %c: memref<20x80xf32>) {
  linalg.matmul ins(%a, %b : memref<20x48xf32>, memref<48x80xf32>) outs(%c : memref<20x80xf32>)
  return
}

// -----

// A thread split from the file (dlas-tune measures both where threads > 1).
// CHECK: remark: microkernel 4x16 (m0=4, vectors=1, {{.*}}threads split rows, tuned) key 'm64_n48_k16'
// HEURISTIC-NOT: threads split
func.func @split(%a: memref<64x16xf32>, %b: memref<16x48xf32>, %c: memref<64x48xf32>) {
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x48xf32>) outs(%c : memref<64x48xf32>)
  return
}

// -----

// The op's own attribute wins over the file, entry by entry.
// CHECK: remark: microkernel 2x32 (m0=2, vectors=2, kc=8, mc={{[0-9]+}}, overridden) key 'm16_n64_k32'
func.func @attribute_wins(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 2}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// A batched contraction's key counts its batch.
// CHECK: remark: microkernel {{.*}}kc=5, mc=10, tuned) key 'b3_m8_n32_k16'
func.func @batched(%a: memref<3x8x16xf32>, %b: memref<3x16x32xf32>, %c: memref<3x8x32xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x8x16xf32>, memref<3x16x32xf32>) outs(%c : memref<3x8x32xf32>)
  return
}

// -----

// Depthwise stencils read the "depthwise" section.
// CHECK: remark: depthwise microkernel 3x8 (rows=3, vectors=1, tuned) key 'conv_c4_o7x7_k3x3_s2x2'
// HEURISTIC: remark: depthwise microkernel 7x8 (rows=7, vectors=1) key 'conv_c4_o7x7_k3x3_s2x2'
#s2in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#s2w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#s2out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @depthwise(%x: memref<2x4x15x15xf32>, %w: memref<4x3x3xf32>, %y: memref<2x4x7x7xf32>) {
  linalg.generic {indexing_maps = [#s2in, #s2w, #s2out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : memref<2x4x15x15xf32>, memref<4x3x3xf32>) outs(%y : memref<2x4x7x7xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Poolings have keys of their own.
// CHECK: remark: max-pool microkernel 2x16 (rows=2, vectors=1, tuned) key 'max_c4_o10x10_k3x3_s2x2'
func.func @max_pool(%x: memref<1x4x21x21xf32>, %y: memref<1x4x10x10xf32>) {
  %window = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %window : memref<1x4x21x21xf32>, memref<3x3xf32>) outs(%y : memref<1x4x10x10xf32>)
  memref.dealloc %window : memref<3x3xf32>
  return
}
