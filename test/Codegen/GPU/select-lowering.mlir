// The GPU decision pass: one #dlas.gpu_kernel per linalg op, from the cost
// model or a per-op override.
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering | FileCheck %s
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=rocm:gfx942 --dlas-gpu-select-lowering | FileCheck %s --check-prefix=ROCM
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=print -o /dev/null | FileCheck %s --check-prefix=PRINT
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=split-reductions=false | FileCheck %s --check-prefix=NOSPLIT
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=split=3 | FileCheck %s --check-prefix=SPLIT3
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=outputs=3,2 | FileCheck %s --check-prefix=FORCED
// RUN: dlas-opt %s --dlas-gpu-attach-target=target=cuda:sm_90 --dlas-gpu-select-lowering=staged=never | FileCheck %s --check-prefix=TILES
// FORCED-LABEL: func.func @matmul
// FORCED: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [3, 2], key = "linalg.matmul_64x48x32", source = override>}
// FORCED-LABEL: func.func @classifier
// FORCED: kind = flat, threads = [32], split = 2, key

// CHECK: dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_90", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 132>
// ROCM: dlas.target = #dlas.gpu_target<api = "rocm", chip = "gfx942", features = "", warp_size = 64, max_threads = 1024, shared_memory = 65536, processors = 304>

// A contraction over an 8 x 32 output or more: tiled blocks of 8 x 32.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], key = "linalg.matmul_64x48x32", source = cost_model>}
// PRINT: dlas-gpu-select-lowering: linalg.matmul_64x48x32 -> tiled 8x32 threads (cost_model)
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// One row (a classifier): flat, and small enough that 256-thread blocks
// would leave processors idle: 1000 outputs over 132 SMs, a warp a block.
// Its 512-long sum splits in 2 (each chunk keeps at least 256 of the
// reduction's iterations).
// CHECK-LABEL: func.func @classifier
// CHECK: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [32], split = 2, key = "linalg.matmul_1x1000x512", source = cost_model>}
// NOSPLIT-LABEL: func.func @classifier
// NOSPLIT: #dlas.gpu_kernel<kind = flat, threads = [32], key = "linalg.matmul_1x1000x512", source = cost_model>
// SPLIT3-LABEL: func.func @classifier
// SPLIT3: #dlas.gpu_kernel<kind = flat, threads = [32], split = 3, key = "linalg.matmul_1x1000x512", source = override>
// ROCM-LABEL: func.func @classifier
// ROCM: kind = flat, threads = [64]
func.func @classifier(%a: tensor<1x512xf32>, %b: tensor<512x1000xf32>, %c: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%c : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}

// Elementwise ops are flat, 256 threads a block once they fill the GPU.
// CHECK-LABEL: func.func @relu
// SPLIT3-LABEL: func.func @relu
// SPLIT3: source = cost_model
// CHECK: linalg.generic {{.*}}dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [256], key = "linalg.generic_1x64x56x56", source = cost_model>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @relu(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %e = tensor.empty() : tensor<1x64x56x56xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x56x56xf32>) outs(%e : tensor<1x64x56x56xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// The depthwise convolution's loops are (n, oh, ow, c, kh, kw); its NCHW
// output puts c outside oh and ow, so the kernel's order is (n, c, oh, ow)
// and its two innermost dimensions are 56 x 56: tiled.
// CHECK-LABEL: func.func @depthwise
// 4 x 2 outputs a thread: block tiles of 32 x 64 leave 7/8 of the last
// one's columns idle (56 of 64: at least 3/4 must work) and still give
// 2 x 1 x 144 = 288 blocks (two per SM: 264).
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{{.*}}dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [4, 2], key = "linalg.depthwise_conv_2d_nchw_chw_1x56x56x144x3x3", source = cost_model>
func.func @depthwise(%x: tensor<1x144x58x58xf32>, %w: tensor<144x3x3xf32>, %o: tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x144x58x58xf32>, tensor<144x3x3xf32>) outs(%o : tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  return %r : tensor<1x144x56x56xf32>
}

// Large contractions stage their operands in shared memory (staged: 64 x
// 64 blocks, 1024 and 256 of them, enough for sm_90's 132 processors).
// Without staged kernels, register tiles: 8 x 4 outputs a thread where the
// 64 x 128 block tiles still give two blocks per SM (2048^2: 512 blocks),
// 4 x 2 where neither 8 x 4 nor 4 x 4 would (1024^2: 256 blocks of
// 32 x 128 < 264).
// CHECK-LABEL: func.func @big
// CHECK: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], outputs = [64, 64], key = "linalg.matmul_2048x2048x2048"
// CHECK: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = staged, threads = [128], outputs = [64, 64], key = "linalg.matmul_1024x1024x1024"
// TILES-LABEL: func.func @big
// TILES: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [8, 4], key = "linalg.matmul_2048x2048x2048"
// TILES: linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [4, 2], key = "linalg.matmul_1024x1024x1024"
// PRINT: dlas-gpu-select-lowering: linalg.matmul_2048x2048x2048 -> staged 128 threads, 64x64 outputs a block (cost_model)
func.func @big(%a: tensor<2048x2048xf32>, %b: tensor<1024x1024xf32>) -> (tensor<2048x2048xf32>, tensor<1024x1024xf32>) {
  %r = linalg.matmul ins(%a, %a : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%a : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %s = linalg.matmul ins(%b, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%b : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r, %s : tensor<2048x2048xf32>, tensor<1024x1024xf32>
}

// More than 65535 batches would overflow the grid's z dimension: flat.
// CHECK-LABEL: func.func @many_batches
// CHECK: linalg.batch_matmul {dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [256], key = "linalg.batch_matmul_70000x8x32x4"
func.func @many_batches(%a: tensor<70000x8x4xf32>, %b: tensor<70000x4x32xf32>, %c: tensor<70000x8x32xf32>) -> tensor<70000x8x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<70000x8x4xf32>, tensor<70000x4x32xf32>) outs(%c : tensor<70000x8x32xf32>) -> tensor<70000x8x32xf32>
  return %r : tensor<70000x8x32xf32>
}

// A 7 x 7 map is too narrow for 32 columns: 32 rows (output channels,
// which the kernel runs next to ow) x 8 columns; 7 x 16 blocks, too few
// for a register tile.
// Its 28672 threads would occupy a fifth of the 132 x 1024 the cost model
// wants: the 512 input channels are split in 4 chunks (4 x 112 blocks).
// CHECK-LABEL: func.func @conv7
// CHECK: kind = tiled, threads = [32, 8], split = 4, key = "linalg.conv_2d_nchw_fchw_1x512x7x7x512x3x3"
// PRINT: dlas-gpu-select-lowering: linalg.conv_2d_nchw_fchw_1x512x7x7x512x3x3 -> tiled 32x8 threads, reduction split 4 (cost_model)
func.func @conv7(%x: tensor<1x512x9x9xf32>, %w: tensor<512x512x3x3xf32>, %o: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%o : tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  return %r : tensor<1x512x7x7xf32>
}

// Too narrow even for 8 columns (3 wide): flat, 3 x 3 x 64 = 576 outputs
// over 132 SMs: 32 threads a block; the 576-long sums split in 2.
// CHECK-LABEL: func.func @conv3
// CHECK: kind = flat, threads = [32], split = 2, key = "linalg.conv_2d_nchw_fchw_1x64x3x3x64x3x3"
func.func @conv3(%x: tensor<1x64x5x5xf32>, %w: tensor<64x64x3x3xf32>, %o: tensor<1x64x3x3xf32>) -> tensor<1x64x3x3xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x5x5xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x3x3xf32>) -> tensor<1x64x3x3xf32>
  return %r : tensor<1x64x3x3xf32>
}

// 2 wide: flat as well, 2 x 2 x 64 = 256 outputs over 132 SMs, 32
// threads a block, the sums split in 2.
// CHECK-LABEL: func.func @conv2
// CHECK: kind = flat, threads = [32], split = 2, key = "linalg.conv_2d_nchw_fchw_1x64x2x2x64x3x3"
func.func @conv2(%x: tensor<1x64x4x4xf32>, %w: tensor<64x64x3x3xf32>, %o: tensor<1x64x2x2xf32>) -> tensor<1x64x2x2xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x4x4xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x2x2xf32>) -> tensor<1x64x2x2xf32>
  return %r : tensor<1x64x2x2xf32>
}

// 14 wide: 16 x 16 threads; rows are the 256 output channels, 4 a thread
// (8 would leave 8 x 14 x 2 = 224 blocks, fewer than 2 per SM).
// CHECK-LABEL: func.func @conv14
// CHECK: kind = tiled, threads = [16, 16], outputs = [4, 1], key = "linalg.conv_2d_nchw_fchw_8x256x14x14x256x3x3"
func.func @conv14(%x: tensor<8x256x16x16xf32>, %w: tensor<256x256x3x3xf32>, %o: tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<8x256x16x16xf32>, tensor<256x256x3x3xf32>) outs(%o : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  return %r : tensor<8x256x14x14xf32>
}

// A full reduction has no parallel dimension: one thread, four blocks of
// it with the sum split in 4 chunks of 256.
// CHECK-LABEL: func.func @sum
// CHECK: linalg.reduce {{.*}}dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [32], split = 4, key = "linalg.reduce_1024", source = cost_model>
func.func @sum(%x: tensor<1024xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%x : tensor<1024xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// A per-op override, rows x columns or one count.
// CHECK-LABEL: func.func @override
// CHECK: linalg.matmul {dlas.gpu_threads = array<i64: 16, 16>, dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [16, 16], key = "linalg.matmul_64x48x32", source = override>}
// CHECK: linalg.matmul {dlas.gpu_threads = array<i64: 128>, dlas.lowering = #dlas.gpu_kernel<kind = flat, threads = [128], key = "linalg.matmul_64x48x32", source = override>}
// CHECK: linalg.matmul {dlas.gpu_outputs = array<i64: 2, 3>, dlas.lowering = #dlas.gpu_kernel<kind = tiled, threads = [8, 32], outputs = [2, 3], key = "linalg.matmul_64x48x32", source = override>}
// PRINT: dlas-gpu-select-lowering: linalg.matmul_64x48x32 -> tiled 16x16 threads (override)
func.func @override(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %r = linalg.matmul {dlas.gpu_threads = array<i64: 16, 16>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  %s = linalg.matmul {dlas.gpu_threads = array<i64: 128>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%r : tensor<64x48xf32>) -> tensor<64x48xf32>
  %t = linalg.matmul {dlas.gpu_outputs = array<i64: 2, 3>} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%s : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %t : tensor<64x48xf32>
}
