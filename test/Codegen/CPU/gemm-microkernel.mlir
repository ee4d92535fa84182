// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 print" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 parallel=false tiles=4,1,8,8 prefetch-bytes=0" | FileCheck %s --check-prefix=FORCED
// RUN: dlas-opt %s --split-input-file --dlas-gemm-microkernel="vector-width=16 vector-registers=32 parallel-chunks=3" | FileCheck %s --check-prefix=CHUNKS
// A fixed chunk count needs no OpenMP query.
// CHUNKS-NOT: omp_get_max_threads
// CHUNKS: arith.ceildivui %{{.*}}, %c3 : index
// CHUNKS: scf.parallel

// A runtime A is packed into panels, the column tiles run in parallel and
// the kernel keeps its accumulators in registers across the k loop.
// Ap[K/kc][M/m0][kc][m0]: k-block-major.
// CHECK-LABEL: func @matmul
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK: vector.from_elements
// One chunk of column tiles per OpenMP thread, asked at run time.
// CHECK: %[[THREADS:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: arith.index_cast %[[THREADS]]
// CHECK: arith.ceildivui
// CHECK: scf.parallel
// CHECK: vector.load %arg2
// CHECK: scf.for {{.*}} iter_args(
// A is prefetched 4 KiB ahead of the kernel in its sequential stream.
// CHECK: memref.prefetch %[[AP]][{{.*}}], read, locality<3>, data
// CHECK: memref.load %[[AP]]
// CHECK: vector.broadcast
// CHECK: vector.fma
// Column tail (170 is not a multiple of the tile): masked loads and stores.
// CHECK: vector.create_mask
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
// CHECK: memref.dealloc %[[AP]]
// CHECK-NOT: linalg.matmul
// PRINT: remark: microkernel {{[0-9]+}}x{{[0-9]+}} {{.*}} for M=200 N=170 K=300, A packed at run time
// FORCED-LABEL: func @matmul
// 300 = 37 blocks of kc = 8 and a ragged one of 4 (zero-padded to 8).
// FORCED: memref.alloc() {alignment = 64 : i64} : memref<38x50x8x4xf32>
// FORCED-NOT: scf.parallel
// FORCED-NOT: memref.prefetch
// FORCED: vector.fma
func.func @matmul(%a: memref<200x300xf32>, %b: memref<300x170xf32>, %c: memref<200x170xf32>) {
  linalg.matmul ins(%a, %b : memref<200x300xf32>, memref<300x170xf32>) outs(%c : memref<200x170xf32>)
  return
}

// -----

// A constant A is packed at compile time into a new global; the original
// global goes when nothing else reads it.
// CHECK: memref.global "private" constant @dlas_packed : memref<1x{{[0-9]+}}x8x{{[0-9]+}}xf32> = dense_resource<dlas_packed
// CHECK-NOT: @weights
// CHECK-LABEL: func @constant_weights
// CHECK: memref.get_global @dlas_packed
// CHECK-NOT: memref.alloc
// CHECK: vector.fma
// PRINT: remark: microkernel {{.*}} for M=16 N=64 K=8, A packed at compile time
memref.global "private" constant @weights : memref<16x8xf32> = dense<1.0>
func.func @constant_weights(%x: memref<8x64xf32>, %y: memref<16x64xf32>) {
  %w = memref.get_global @weights : memref<16x8xf32>
  linalg.matmul ins(%w, %x : memref<16x8xf32>, memref<8x64xf32>) outs(%y : memref<16x64xf32>)
  return
}

// -----

// The flat convolution: B's last index is n plus a tap offset; the 3x3
// window unrolls inside the kernel.
// CHECK-LABEL: func @flat_conv
// CHECK: vector.fma
// CHECK-NOT: linalg.generic
// PRINT: remark: microkernel {{.*}} for M=8 N=80 K=36, A packed at run time
#x = affine_map<(n, f, p, c, kh, kw) -> (n, c, p + kh * 10 + kw)>
#w = affine_map<(n, f, p, c, kh, kw) -> (f, c, kh, kw)>
#y = affine_map<(n, f, p, c, kh, kw) -> (n, f, p)>
func.func @flat_conv(%x: memref<1x4x110xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x80xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x4x110xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x80xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A per-op override wins over the heuristic and the pass options.
// PRINT: remark: microkernel 2x32 (m0=2, vectors=2, kc=16, mc=4, B packed, overridden) key 'm16_n64_k32' for M=16 N=64 K=32
func.func @override(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 2, vectors = 2, kc = 16, mc = 4, pack_b = true}}
      ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// What does not fit is left alone, and print says why.
// CHECK-LABEL: func @not_f32
// CHECK: linalg.matmul
// PRINT: remark: no microkernel: needs f32, bf16 or f16 inputs of one type with an f32 output, or i8 inputs with an i32 output
func.func @not_f32(%a: memref<4x4xf64>, %b: memref<4x4xf64>, %c: memref<4x4xf64>) {
  linalg.matmul ins(%a, %b : memref<4x4xf64>, memref<4x4xf64>) outs(%c : memref<4x4xf64>)
  return
}

// -----

// bf16 operands, f32 accumulators: A packed as bf16 panels, B loaded as
// bf16 vectors and both widened in registers before the f32 FMAs.
// CHECK-LABEL: func @bf16_operands
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x4x32x4xbf16>
// CHECK: vector.load %{{.*}} : memref<32x64xbf16>, vector<16xbf16>
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: memref.load %{{.*}} : memref<1x4x32x4xbf16>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: vector.fma %{{.*}} : vector<16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
// PRINT: remark: microkernel {{.*}} key 'm16_n64_k32' for M=16 N=64 K=32
func.func @bf16_operands(%a: memref<16x32xbf16>, %b: memref<32x64xbf16>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// bf16 operands with several column tiles: A and B widen into f32 as they
// are packed (A once per call, B once per k block), and the loop is the
// f32 kernel's, with no conversion at the FMAs. (With one column tile, as
// above, A stays bf16: each value is used once.)
// CHECK-LABEL: func @bf16_packed_wide
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x8x16x2xf32>
// CHECK: arith.extf %{{.*}} : vector<2xbf16> to vector<2xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x16x32xf32>
// CHECK: vector.load %{{.*}} : memref<32x128xbf16>, vector<16xbf16>
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: vector.store %{{.*}} : memref<4x16x32xf32>, vector<16xf32>
// CHECK: vector.load %{{.*}} : memref<4x16x32xf32>, vector<16xf32>
// CHECK-NOT: arith.extf
// CHECK: vector.fma %{{.*}} : vector<16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @bf16_packed_wide(%a: memref<16x32xbf16>, %b: memref<32x128xbf16>, %c: memref<16x128xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 2, vectors = 2, kc = 16, mc = 4, pack_b = true}}
      ins(%a, %b : memref<16x32xbf16>, memref<32x128xbf16>) outs(%c : memref<16x128xf32>)
  return
}

// -----

// i8 operands, i32 accumulators: the same kernel, the operands widened
// with arith.extsi, the accumulation in integer multiplies and adds.
// CHECK-LABEL: func @i8_operands
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x4x32x4xi8>
// CHECK: vector.load %{{.*}} : memref<32x64xi8>, vector<16xi8>
// CHECK: arith.extsi %{{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: memref.load %{{.*}} : memref<1x4x32x4xi8>
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[P:.*]] = arith.muli %{{.*}} : vector<16xi32>
// CHECK: arith.addi %{{.*}}, %[[P]] : vector<16xi32>
// CHECK-NOT: linalg.matmul
// CHECK: return
// PRINT: remark: microkernel {{.*}} key 'm16_n64_k32' for M=16 N=64 K=32
func.func @i8_operands(%a: memref<16x32xi8>, %b: memref<32x64xi8>, %c: memref<16x64xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x64xi8>) outs(%c : memref<16x64xi32>)
  return
}

// -----

// i8 operands into an f32 output are not a kernel format.
// PRINT: remark: no microkernel: needs f32, bf16 or f16 inputs of one type with an f32 output, or i8 inputs with an i32 output
func.func @i8_into_f32(%a: memref<16x32xi8>, %b: memref<32x64xi8>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x64xi8>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// Mixed operand types are left alone.
// PRINT: remark: no microkernel: needs f32, bf16 or f16 inputs of one type with an f32 output, or i8 inputs with an i32 output
func.func @mixed_operands(%a: memref<16x32xbf16>, %b: memref<32x64xf16>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xbf16>, memref<32x64xf16>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// Few column tiles (N = 49, as at 7x7): threads take chunks of the 16-row
// panels (8 chunks of 32 rows here) outside the k blocks, instead of
// splitting the 1-4 column tiles once per cache block.
// CHECK-LABEL: func @few_columns
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: arith.muli %[[CHUNK]]
// CHECK: scf.for
// CHECK: vector.fma
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @few_columns(%a: memref<256x300xf32>, %b: memref<300x49xf32>, %c: memref<256x49xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 16, vectors = 1}} ins(%a, %b : memref<256x300xf32>, memref<300x49xf32>) outs(%c : memref<256x49xf32>)
  return
}

// -----

// A decision's `split` (a tuning file's, here the op's override) makes the
// threads split the few column tiles all the same: each chunk walks its
// tiles in B blocks (21 tiles), and the k blocks (kc = 96) inside them.
// CHECK-LABEL: func @few_columns_split_tiles
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[CHUNK]]
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %c21
// CHECK-NOT: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %c300 step %c96
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @few_columns_split_tiles(%a: memref<256x300xf32>, %b: memref<300x49xf32>, %c: memref<256x49xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 16, vectors = 1, split = "tiles"}} ins(%a, %b : memref<256x300xf32>, memref<300x49xf32>) outs(%c : memref<256x49xf32>)
  return
}

// -----

// ... and many column tiles split by row panels: the k blocks outside, each
// chunk's panels inside them.
// CHECK-LABEL: func @many_columns_split_rows
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[CHUNK]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128 step %c32
// CHECK-NOT: scf.for
// CHECK: scf.for %{{.*}} = %[[FIRST]] to
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @many_columns_split_rows(%a: memref<64x128xf32>, %b: memref<128x1024xf32>, %c: memref<64x1024xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 8, vectors = 1, kc = 32, split = "rows"}} ins(%a, %b : memref<64x128xf32>, memref<128x1024xf32>) outs(%c : memref<64x1024xf32>)
  return
}

// -----

// Many column tiles (64 here): one parallel region over 8 chunks of 8
// tiles, outside the k blocks (kc = 32: 4 blocks), so that each thread
// keeps its columns of C across k.
// CHECK-LABEL: func @many_columns
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: arith.muli %[[CHUNK]]
// CHECK: scf.for {{.*}} step %c32
// CHECK-NOT: scf.parallel
// CHECK: vector.fma
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @many_columns(%a: memref<64x128xf32>, %b: memref<128x1024xf32>, %c: memref<64x1024xf32>) {
  linalg.matmul {dlas.gemm_tiles = {m0 = 8, vectors = 1, kc = 32}} ins(%a, %b : memref<64x128xf32>, memref<128x1024xf32>) outs(%c : memref<64x1024xf32>)
  return
}

// -----

// A grouped flat convolution: A = w[g, f, c, kh, kw] has the group as a
// batch dim (B and C have it too): A is packed per group,
// Ap[g][K/kc][M/m0][kc][m0].
// CHECK-LABEL: func @grouped
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x1x1x27x4xf32>
// CHECK: vector.fma
// PRINT: remark: microkernel 4x{{[0-9]+}} {{.*}} for M=4 N=80 K=27, A packed at run time
#gx = affine_map<(n, g, f, p, c, kh, kw) -> (n, g, c, p + kh * 10 + kw)>
#gw = affine_map<(n, g, f, p, c, kh, kw) -> (g, f, c, kh, kw)>
#gy = affine_map<(n, g, f, p, c, kh, kw) -> (n, g, f, p)>
func.func @grouped(%x: memref<1x4x3x110xf32>, %w: memref<4x4x3x3x3xf32>, %y: memref<1x4x4x80xf32>) {
  linalg.generic {indexing_maps = [#gx, #gw, #gy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x4x3x110xf32>, memref<4x4x3x3x3xf32>) outs(%y : memref<1x4x4x80xf32>) {
  ^bb0(%in: f32, %f: f32, %o: f32):
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Many small groups (16 of 2 filters x 2 channels): one parallel region
// over the (group, column tile) pairs, each chunk walking its groups and
// their tiles, instead of one region per group (16 forks per layer).
// CHECK-LABEL: func @grouped_one_region
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: %[[FIRST_GROUP:.*]] = arith.divui %{{.*}}, %[[TILES:.*]] : index
// CHECK: %[[END_GROUP:.*]] = arith.ceildivui %{{.*}}, %[[TILES]] : index
// CHECK: scf.for %[[GROUP:.*]] = %[[FIRST_GROUP]] to %[[END_GROUP]]
// CHECK: arith.muli %[[GROUP]], %[[TILES]]
// CHECK: arith.maxui
// CHECK-NOT: scf.parallel
// CHECK: vector.fma
// CHECK-NOT: scf.parallel
// CHECK: return
// PRINT: remark: microkernel {{.*}} key 'b16_m2_n80_k18' for M=2 N=80 K=18
#g1x = affine_map<(n, g, f, p, c, kh, kw) -> (n, g, c, p + kh * 10 + kw)>
#g1w = affine_map<(n, g, f, p, c, kh, kw) -> (g, f, c, kh, kw)>
#g1y = affine_map<(n, g, f, p, c, kh, kw) -> (n, g, f, p)>
func.func @grouped_one_region(%x: memref<1x16x2x110xf32>, %w: memref<16x2x2x3x3xf32>, %y: memref<1x16x2x80xf32>) {
  linalg.generic {indexing_maps = [#g1x, #g1w, #g1y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x16x2x110xf32>, memref<16x2x2x3x3xf32>) outs(%y : memref<1x16x2x80xf32>) {
  ^bb0(%in: f32, %f: f32, %o: f32):
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A compact flat convolution's B: output p = oh * 20 + ow reads input
// p + (p floordiv 20) * 2 + tap. Each B vector is one masked load per
// output row it touches (two at 16 lanes of 20-wide rows), merged; the lane
// masks come from the vector's first column's place in its row, computed
// outside the k loop.
// CHECK-LABEL: func @compact_flat
// CHECK: arith.remui %{{.*}}, %c20
// CHECK: vector.create_mask
// CHECK: arith.xori
// CHECK: scf.for
// CHECK: %[[FIRST:.*]] = vector.maskedload %arg0[{{.*}}], %{{.*}}, %{{.*}} : memref<1x4x484xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.maskedload %arg0[{{.*}}], %{{.*}}, %[[FIRST]] : memref<1x4x484xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.fma
// PRINT: remark: microkernel {{.*}} key 'm6_n400_k36' for M=6 N=400 K=36
#cin = affine_map<(n, f, p, c, kh, kw) -> (n, c, p + (p floordiv 20) * 2 + kh * 22 + kw)>
#cw = affine_map<(n, f, p, c, kh, kw) -> (f, c, kh, kw)>
#cout = affine_map<(n, f, p, c, kh, kw) -> (n, f, p)>
func.func @compact_flat(%x: memref<1x4x484xf32>, %w: memref<6x4x3x3xf32>, %y: memref<1x6x400xf32>) {
  linalg.generic {indexing_maps = [#cin, #cw, #cout], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x4x484xf32>, memref<6x4x3x3xf32>) outs(%y : memref<1x6x400xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}
