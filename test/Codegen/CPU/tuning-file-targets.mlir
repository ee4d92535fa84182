// Tuning-file keys may name the target's CPU: "<cpu>/<key>" and "<cpu>/*"
// apply only to modules compiled for that CPU and win over unprefixed keys.
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v3 --dlas-gemm-microkernel="print tuning-file=%S/Inputs/tuning-targets.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=V3
// RUN: dlas-opt %s --split-input-file --dlas-attach-target=target=x86-64-v4 --dlas-gemm-microkernel="print tuning-file=%S/Inputs/tuning-targets.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=V4

// V3: remark: microkernel 2x8 (m0=2, vectors=1, kc=4, {{.*}}tuned) key 'm16_n64_k32'
// V4: remark: microkernel 3x32 (m0=3, vectors=2, kc=8, {{.*}}tuned) key 'm16_n64_k32'
func.func @exact_key(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// V3: remark: microkernel {{.*}}kc=7, {{.*}}tuned) key 'm20_n80_k48'
// V4: remark: microkernel {{.*}}kc=5, mc=10, tuned) key 'm20_n80_k48'
func.func @wildcard(%a: memref<20x48xf32>, %b: memref<48x80xf32>, %c: memref<20x80xf32>) {
  linalg.matmul ins(%a, %b : memref<20x48xf32>, memref<48x80xf32>) outs(%c : memref<20x80xf32>)
  return
}
