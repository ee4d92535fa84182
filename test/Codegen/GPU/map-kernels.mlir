// dlas-gpu-map-kernels: each decided linalg op becomes a parallel loop nest
// tiled by its block's threads and mapped to block and thread ids.
// RUN: dlas-opt %s --dlas-gpu-map-kernels | FileCheck %s
// RUN: dlas-opt %s --dlas-gpu-map-kernels --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s --check-prefix=LAUNCH

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>} {

// Tiled: blocks of 8 x 32 threads over the 64 x 48 output, k sequential in
// each thread with the output's value in a register (loaded once, carried
// by the loop, stored once), threads past the edge skip the body.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c64{{[_0-9]*}}, %c48{{[_0-9]*}}) step
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c8{{[_0-9]*}}, %c32{{[_0-9]*}}) step
// CHECK: scf.if
// CHECK: %[[INIT:.*]] = memref.load %arg2
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK-NOT: memref.store
// CHECK: %[[PRODUCT:.*]] = arith.mulf
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PRODUCT]]
// CHECK: scf.yield %[[NEXT]]
// CHECK: memref.store %[[SUM]], %arg2
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// CHECK-NOT: linalg.matmul
// LAUNCH-LABEL: func.func @matmul
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %c8, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c8, {{.*}} = %c1)
func.func @matmul(%a: memref<64x32xf32>, %b: memref<32x48xf32>, %c: memref<64x48xf32>) {
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "k", source = cost_model>} ins(%a, %b : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>)
  return
}

// Flat: the four dimensions collapsed into one, 256 threads a block.
// CHECK-LABEL: func.func @relu
// CHECK: arith.muli %{{.*}}, %c56{{[_0-9]*}} : index
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c56{{[_0-9]*}} : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[N]]) step
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256{{[_0-9]*}}) step
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK: arith.maximumf
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @relu(%x: memref<1x64x56x56xf32>, %y: memref<1x64x56x56xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [256], key = "k", source = cost_model>} ins(%x : memref<1x64x56x56xf32>) outs(%y : memref<1x64x56x56xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  }
  return
}

// The depthwise convolution runs in the order of its NCHW output, (n, c)
// collapsed onto the grid's z, oh on y, ow on x: consecutive threads write
// consecutive outputs.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[NC:.*]] = arith.muli %{{.*}}, %c144{{[_0-9]*}} : index
// CHECK: scf.parallel ({{.*}}, {{.*}}, {{.*}}) = ({{.*}}) to (%[[NC]], %{{.*}}, %{{.*}}) step
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c1{{[_0-9]*}}, %c8{{[_0-9]*}}, %c32{{[_0-9]*}})
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x144x56x56xf32>
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_z, {{.*}}>, #gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_z, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// LAUNCH-LABEL: func.func @depthwise
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %c7, {{.*}} = %c144) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c8, {{.*}} = %c1)
func.func @depthwise(%x: memref<1x144x58x58xf32>, %w: memref<144x3x3xf32>, %o: memref<1x144x56x56xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "k", source = cost_model>} ins(%x, %w : memref<1x144x58x58xf32>, memref<144x3x3xf32>) outs(%o : memref<1x144x56x56xf32>)
  return
}

// An op without a decision (a copy bufferization made) gets the cost
// model's: 4096 elements over 132 SMs, 32 threads a block.
// CHECK-LABEL: func.func @copy
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c32{{[_0-9]*}}) step
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
func.func @copy(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  linalg.copy ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>)
  return
}

// A register tile of 2 x 3 outputs a thread on a 20 x 70 output: the grid
// counts thread positions (ceil(20 / 16) * 8 = 16 rows, ceil(70 / 96) * 32
// = 32 columns), each thread loads its six outputs (clamped into range),
// carries six accumulators through k, and stores each output only inside.
// CHECK-LABEL: func.func @register_tile
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[ROWS:.*]], %[[COLUMNS:.*]]) step
// CHECK-COUNT-6: memref.load %arg2
// CHECK: scf.for {{.*}} iter_args({{.*}}, {{.*}}, {{.*}}, {{.*}}, {{.*}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-6: arith.addf
// CHECK: scf.yield
// CHECK-COUNT-6: memref.store
// LAUNCH-LABEL: func.func @register_tile
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c2, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c8, {{.*}} = %c1)
func.func @register_tile(%a: memref<20x9xf32>, %b: memref<9x70xf32>, %c: memref<20x70xf32>) {
  linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [2, 3], key = "k", source = override>} ins(%a, %b : memref<20x9xf32>, memref<9x70xf32>) outs(%c : memref<20x70xf32>)
  return
}

// A memref.copy left on the host becomes a copy kernel.
// CHECK-LABEL: func.func @memref_copy
// CHECK-NOT: memref.copy
// CHECK: scf.parallel
// CHECK: memref.load %{{.*}} : memref<2x60xf32>
// CHECK: memref.store %{{.*}} : memref<2x60xf32, strided<[120, 1]>>
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @memref_copy(%x: memref<2x60xf32>, %y: memref<2x60xf32, strided<[120, 1]>>) {
  memref.copy %x, %y : memref<2x60xf32> to memref<2x60xf32, strided<[120, 1]>>
  return
}

// A full reduction has no parallel loop; the cost model splits its 1024
// iterations into 4 chunks of 256 (no decision attribute here: the pass
// asks the cost model): 4 one-thread blocks, each summing its chunk from
// zero and adding the sum to the output atomically.
// CHECK-LABEL: func.func @sum
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%c0{{.*}}) to (%c4{{.*}}) step (%c1{{.*}})
// CHECK: %[[SIZE:.*]] = arith.ceildivui %c1024{{.*}}, %c4
// CHECK: %[[LB:.*]] = arith.muli %[[CHUNK]], %[[SIZE]]
// CHECK: %[[END:.*]] = arith.addi %[[LB]], %[[SIZE]]
// CHECK: %[[UB:.*]] = arith.minui %[[END]], %c1024
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]] {{.*}} iter_args(%{{.*}} = %cst{{.*}})
// CHECK: arith.addf
// CHECK: memref.atomic_rmw addf %[[SUM]], %arg1[] : (f32, memref<f32>) -> f32
// CHECK-NOT: memref.store
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// LAUNCH-LABEL: func.func @sum
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1)
// LAUNCH-NOT: scf.parallel
func.func @sum(%x: memref<1024xf32>, %acc: memref<f32>) {
  linalg.reduce ins(%x : memref<1024xf32>) outs(%acc : memref<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return
}
}

