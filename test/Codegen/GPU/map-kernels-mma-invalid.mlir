// An mma decision on a chip without a matrix instruction for the operands'
// type: bf16 before sm_80 (Turing has f16 tensor cores only), f16 on an AMD
// chip without MFMA (RDNA).
// RUN: dlas-opt %s --split-input-file --dlas-gpu-map-kernels --verify-diagnostics

module attributes {dlas.target = #dlas.gpu_target<api = "cuda", chip = "sm_75", features = "+ptx80", warp_size = 32, max_threads = 1024, shared_memory = 49152, processors = 40>} {
  func.func @bf16_sm75(%a: memref<64x32xbf16>, %b: memref<32x64xbf16>, %c: memref<64x64xf32>) {
    // expected-error @+1 {{an mma kernel on cuda:sm_75 has no matrix instruction for 'bf16' operands}}
    linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [128], outputs = [64, 64], key = "k", source = override>} ins(%a, %b : memref<64x32xbf16>, memref<32x64xbf16>) outs(%c : memref<64x64xf32>)
    return
  }
}

// -----

module attributes {dlas.target = #dlas.gpu_target<api = "rocm", chip = "gfx1100", features = "", warp_size = 32, max_threads = 1024, shared_memory = 65536, processors = 48>} {
  func.func @f16_rdna(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>) {
    // expected-error @+1 {{an mma kernel on rocm:gfx1100 has no matrix instruction for 'f16' operands}}
    linalg.matmul {dlas.lowering = #dlas.gpu_kernel<kind = mma, threads = [128], outputs = [64, 64], key = "k", source = override>} ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%c : memref<64x64xf32>)
    return
  }
}
