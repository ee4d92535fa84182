// An im2col GEMM whose B is packed reads the patches from the
// convolution's input: the `dlas.im2col` copy (KH * KW times the input) is
// erased, a table holds each B row's offset in the flat input (channel and
// tap), and a vector of B lanes loads with one masked load per output row
// it touches (twice the elements, the even ones kept, at stride 2). The
// copy stays where a vector would touch more than three output rows, where
// something writes the input between the copy and the GEMM, and where
// anything else reads it.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids" --dlas-gemm-microkernel | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=sapphirerapids" --dlas-gemm-microkernel="print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// f32 packs B where asked to: the same reads into its panels.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3" --dlas-gemm-microkernel | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v3" --dlas-gemm-microkernel="pack-b=always print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PACKED

// bf16 on AMX, 3x3 on a 10x10 input (8x8 outputs: a 16-lane vector spans
// up to three output rows). A write to another buffer in between is fine.
// CHECK: #[[OFFSETS:.+]] = affine_map<(d0) -> ((d0 floordiv 9) * 100 + ((d0 mod 9) floordiv 3) * 10 + d0 mod 3)>
// CHECK-LABEL: func @bf16_patches
// CHECK-NOT: dlas.im2col
// CHECK-NOT: memref<1x72x8x8xbf16>
// CHECK: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : memref<1x8x10x10xbf16> into memref<1x800xbf16>
// CHECK: %[[TABLE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<72xindex>
// CHECK: scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[OFFSET:.*]] = affine.apply #[[OFFSETS]](%[[Q]])
// CHECK: memref.store %[[OFFSET]], %[[TABLE]][%[[Q]]]
// CHECK: memref.load %[[TABLE]]
// CHECK-COUNT-3: vector.maskedload %[[X]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<1x800xbf16>, vector<16xi1>, vector<16xbf16>
// CHECK: vector.shuffle
// CHECK: amx.tile_mulf
// CHECK: memref.dealloc %[[TABLE]]
// CHECK: return
// PRINT: remark: microkernel 16x32 {{.*}} key 'm16_n64_k72' {{.*}}; B packed from the im2col copy's input
func.func @bf16_patches(%x: memref<1x8x10x10xbf16>, %w: memref<16x72xbf16>, %y: memref<1x16x64xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 1 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x10xbf16>) outs(%p : memref<1x72x8x8xbf16>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %t = memref.alloc() : memref<4xf32>
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%t : memref<4xf32>)
  memref.dealloc %t : memref<4xf32>
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x8x8xbf16> into memref<1x72x64xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xbf16>, memref<1x72x64xbf16>) outs(%y : memref<1x16x64xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %p : memref<1x72x8x8xbf16>
  return
}


// -----

// f32 (a batch of two), with B packed only when forced.
// CHECK-LABEL: func @f32_patches
// CHECK: dlas.im2col
// PRINT: remark: microkernel {{.*}} key 'b2_m16_n128_k72' {{.*}} fused{{$}}
// PACKED: remark: microkernel {{.*}}, B packed) key 'b2_m16_n128_k72' {{.*}}; B packed from the im2col copy's input
func.func @f32_patches(%x: memref<2x8x10x18xf32>, %w: memref<16x72xf32>, %y: memref<2x16x128xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<2x72x8x16xf32>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 1 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x8x10x18xf32>) outs(%p : memref<2x72x8x16xf32>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<2x72x8x16xf32> into memref<2x72x128xf32>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xf32>, memref<2x72x128xf32>) outs(%y : memref<2x16x128xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %2 = arith.mulf %in, %in_0 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %p : memref<2x72x8x16xf32>
  return
}


// -----

// int8 in quads (K = 72 is short of AMX's two int8 steps), rows of the
// input 2 apart (stride 2, dilation 2 along H): a row of outputs skips
// 2 * 18 - 16 = 20 input elements.
// CHECK: #[[OFFSETS8:.+]] = affine_map<(d0) -> ((d0 floordiv 9) * 180 + ((d0 mod 9) floordiv 3) * 36 + d0 mod 3)>
// CHECK-LABEL: func @i8_patches
// CHECK-NOT: dlas.im2col
// CHECK: %[[X8:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : memref<1x8x10x18xi8> into memref<1x1440xi8>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<72xindex>
// CHECK: affine.apply #[[OFFSETS8]]
// CHECK: vector.maskedload %[[X8]]{{.*}} : memref<1x1440xi8>, vector<16xi1>, vector<16xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// Without AVX512BW a masked load of bytes is one insert per lane: a vector
// inside X (1440 bytes) loads whole and its row's lanes are selected; only
// one reaching past X's end loads under the mask.
// V3-LABEL: func @i8_patches
// V3-NOT: dlas.im2col
// V3: %[[X3:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : memref<1x8x10x18xi8> into memref<1x1440xi8>
// V3: %[[END:.*]] = arith.addi %[[POS:.*]], %c8 : index
// V3: %[[INSIDE:.*]] = arith.cmpi ule, %[[END]], %c1440 : index
// V3: %[[ROW:.*]] = scf.if %[[INSIDE]] -> (vector<8xi8>) {
// V3: vector.load %[[X3]][%{{.*}}, %[[POS]]] : memref<1x1440xi8>, vector<8xi8>
// V3: } else {
// V3: vector.maskedload %[[X3]][%{{.*}}, %[[POS]]], %[[LANES:.*]], %{{.*}} : memref<1x1440xi8>, vector<8xi1>, vector<8xi8>
// V3: arith.select %[[LANES]], %[[ROW]], %{{.*}} : vector<8xi1>, vector<8xi8>
// PRINT: remark: microkernel {{.*}} VNNI) key 'm16_n48_k72' {{.*}}; B packed from the im2col copy's input
func.func @i8_patches(%x: memref<1x8x10x18xi8>, %w: memref<16x72xi8>, %y: memref<1x16x48xi32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x3x16xi8>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 2 + ((q mod 9) floordiv 3) * 2, ow * 1 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x18xi8>) outs(%p : memref<1x72x3x16xi8>) attrs = {dlas.im2col = array<i64: 3, 3, 2, 1, 2, 1>} {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  }
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x3x16xi8> into memref<1x72x48xi8>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xi8>, memref<1x72x48xi8>) outs(%y : memref<1x16x48xi32>) {
  ^bb0(%in: i8, %in_0: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    %1 = arith.extsi %in_0 : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %out, %2 : i32
    linalg.yield %3 : i32
  }
  memref.dealloc %p : memref<1x72x3x16xi8>
  return
}


// -----

// Stride 2 along W: a lane is every other element of a row of the input,
// so each output row's lanes load twice the elements (the lane mask spread
// over the even ones) and keep the even ones (a truncation of pairs).
// CHECK-LABEL: func @stride_w2
// CHECK-NOT: dlas.im2col
// CHECK: %[[XW:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : memref<1x8x10x40xbf16> into memref<1x3200xbf16>
// CHECK: %[[SPREAD:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 16, 2, 16, {{.*}}] : vector<16xi1>, vector<16xi1>
// CHECK: %[[WIDE:.*]] = vector.maskedload %[[XW]][%{{.*}}, %{{.*}}], %[[SPREAD]], %{{.*}} : memref<1x3200xbf16>, vector<32xi1>, vector<32xbf16> into vector<32xbf16>
// CHECK: %[[PAIRS:.*]] = vector.bitcast %[[WIDE]] : vector<32xbf16> to vector<16xi32>
// CHECK: %[[EVEN:.*]] = arith.trunci %[[PAIRS]] : vector<16xi32> to vector<16xi16>
// CHECK: vector.bitcast %[[EVEN]] : vector<16xi16> to vector<16xbf16>
// CHECK: arith.select
// PRINT: remark: microkernel {{.*}} key 'm16_n152_k72' {{.*}}; B packed from the im2col copy's input
// PACKED: remark: microkernel {{.*}} key 'm16_n152_k72' {{.*}}; B packed from the im2col copy's input

func.func @stride_w2(%x: memref<1x8x10x40xbf16>, %w: memref<16x72xbf16>, %y: memref<1x16x152xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x8x19xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 2 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x40xbf16>) outs(%p : memref<1x72x8x19xbf16>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 2, 1, 1>} {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x8x19xbf16> into memref<1x72x152xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xbf16>, memref<1x72x152xbf16>) outs(%y : memref<1x16x152xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %p : memref<1x72x8x19xbf16>
  return
}


// -----

// Stride 3: three bf16 make no integer type to truncate; a shuffle keeps
// every third element.
// CHECK-LABEL: func @stride_w3
// CHECK-NOT: dlas.im2col
// CHECK: vector.maskedload %{{.*}} : memref<1x3200xbf16>, vector<48xi1>, vector<48xbf16> into vector<48xbf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 3, 6, 9, {{.*}}, 45] : vector<48xbf16>, vector<48xbf16>
// PRINT: remark: microkernel {{.*}} key 'm16_n104_k72' {{.*}}; B packed from the im2col copy's input
func.func @stride_w3(%x: memref<1x8x10x40xbf16>, %w: memref<16x72xbf16>, %y: memref<1x16x104xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x8x13xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 3 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x40xbf16>) outs(%p : memref<1x72x8x13xbf16>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 3, 1, 1>} {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x8x13xbf16> into memref<1x72x104xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xbf16>, memref<1x72x104xbf16>) outs(%y : memref<1x16x104xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %p : memref<1x72x8x13xbf16>
  return
}

// -----

// 7 outputs a row: a 16-lane vector would touch four rows, an 8-lane
// one (x86-64-v3) two.
// CHECK-LABEL: func @narrow_rows
// CHECK: dlas.im2col
// PRINT: remark: microkernel {{.*}} key 'm16_n56_k72' {{.*}} fused{{$}}
// PACKED: remark: microkernel {{.*}} key 'm16_n56_k72' {{.*}}; B packed from the im2col copy's input
func.func @narrow_rows(%x: memref<1x8x10x9xbf16>, %w: memref<16x72xbf16>, %y: memref<1x16x56xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x8x7xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 1 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x9xbf16>) outs(%p : memref<1x72x8x7xbf16>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x8x7xbf16> into memref<1x72x56xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xbf16>, memref<1x72x56xbf16>) outs(%y : memref<1x16x56xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %p : memref<1x72x8x7xbf16>
  return
}


// -----

// The input is written after the copy.
// CHECK-LABEL: func @input_written
// CHECK: dlas.im2col
// CHECK: linalg.fill
// PRINT: remark: microkernel {{.*}} key 'm16_n64_k72' {{.*}} fused{{$}}
func.func @input_written(%x: memref<1x8x10x10xbf16>, %w: memref<16x72xbf16>, %y: memref<1x16x64xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 1 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x10xbf16>) outs(%p : memref<1x72x8x8xbf16>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %z = arith.constant 0.0 : bf16
  linalg.fill ins(%z : bf16) outs(%x : memref<1x8x10x10xbf16>)
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x8x8xbf16> into memref<1x72x64xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xbf16>, memref<1x72x64xbf16>) outs(%y : memref<1x16x64xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  memref.dealloc %p : memref<1x72x8x8xbf16>
  return
}


// -----

// The patches have another reader.
// CHECK-LABEL: func @read_twice
// CHECK: dlas.im2col
// CHECK: memref.copy
// PRINT: remark: microkernel {{.*}} key 'm16_n64_k72' {{.*}} fused{{$}}
func.func @read_twice(%x: memref<1x8x10x10xbf16>, %w: memref<16x72xbf16>, %y: memref<1x16x64xf32>) {
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x72x8x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, q, oh, ow) -> (n, q floordiv 9, oh * 1 + ((q mod 9) floordiv 3) * 1, ow * 1 + (q mod 3) * 1)>, affine_map<(n, q, oh, ow) -> (n, q, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x8x10x10xbf16>) outs(%p : memref<1x72x8x8xbf16>) attrs = {dlas.im2col = array<i64: 3, 3, 1, 1, 1, 1>} {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %b = memref.collapse_shape %p [[0], [1], [2, 3]] : memref<1x72x8x8xbf16> into memref<1x72x64xbf16>
  linalg.generic {indexing_maps = [affine_map<(n, f, k, p) -> (f, k)>, affine_map<(n, f, k, p) -> (n, k, p)>, affine_map<(n, f, k, p) -> (n, f, p)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%w, %b : memref<16x72xbf16>, memref<1x72x64xbf16>) outs(%y : memref<1x16x64xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %copy = memref.alloc() : memref<1x72x8x8xbf16>
  memref.copy %p, %copy : memref<1x72x8x8xbf16> to memref<1x72x8x8xbf16>
  memref.dealloc %copy : memref<1x72x8x8xbf16>
  memref.dealloc %p : memref<1x72x8x8xbf16>
  return
}

