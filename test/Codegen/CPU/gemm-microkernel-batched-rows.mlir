// A batched GEMM whose B is read in place and whose threads split row
// panels (16 lanes, 32 registers: a grouped convolution's flat GEMM, as
// WRN-40-2's 64 channels at 16x16 in 8 groups of 8 get it, 2 panels of 4
// rows a group) forks once for all (group, panel) pairs, not once per
// group: per group, 2 panels of about 1.5 us each did not pay for the fork
// (0.031 ms at 2 threads against 0.028 at 1; now 0.019).
// RUN: dlas-opt %s --dlas-gemm-microkernel="vector-width=16 vector-registers=32" | FileCheck %s
// RUN: dlas-opt %s --dlas-gemm-microkernel="vector-width=16 vector-registers=32 parallel=false" | FileCheck %s --check-prefix=SERIAL


#a = affine_map<(g, n, f, p, c) -> (g, f, c)>
#b = affine_map<(g, n, f, p, c) -> (g, n, c, p)>
#c = affine_map<(g, n, f, p, c) -> (g, n, f, p)>

// CHECK-LABEL: func @row_panels_of_groups
// CHECK-NOT: scf.parallel
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK:   scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK:     affine.delinearize_index %[[B]] into (8, 1)
// CHECK-NOT: scf.parallel
// CHECK:     vector.fma
// CHECK-NOT: scf.parallel
// CHECK: return
// SERIAL-LABEL: func @row_panels_of_groups
// SERIAL-NOT: scf.parallel
// SERIAL: vector.fma
func.func @row_panels_of_groups(%w: memref<8x8x72xf32>, %x: memref<8x1x72x256xf32>, %y: memref<8x1x8x256xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : memref<8x8x72xf32>, memref<8x1x72x256xf32>) outs(%y : memref<8x1x8x256xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
