// RUN: dlas-opt %s --split-input-file --dlas-vectorize-reductions="vector-width=8" | FileCheck %s
// RUN: dlas-opt %s --split-input-file --dlas-vectorize-reductions="vector-width=8 parallel=false" | FileCheck %s --check-prefix=SERIAL
// RUN: dlas-opt %s --split-input-file --dlas-attach-target="target=x86-64-v4" --dlas-vectorize-reductions | FileCheck %s --check-prefix=V4

// A sum along the contiguous last dim, 20 = two vectors and a tail of 4:
// two accumulators, one horizontal add, a scalar loop, the output's value
// folded in last. The rows run in parallel.
// CHECK-LABEL: func @row_sum
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: %[[ACC:.*]]:2 = scf.for %[[K:.*]] = %c0{{.*}} to %c16{{.*}} step %c16{{.*}} iter_args(%[[A0:.*]] = %[[ZERO]], %[[A1:.*]] = %[[ZERO]])
// CHECK: %[[V0:.*]] = vector.load %arg0[%[[I]], %{{.*}}] : memref<4x20xf32>, vector<8xf32>
// CHECK: arith.addf %[[A0]], %[[V0]] : vector<8xf32>
// CHECK: vector.load %arg0[%[[I]], %{{.*}}] : memref<4x20xf32>, vector<8xf32>
// CHECK: arith.addf %[[A1]], %{{.*}} : vector<8xf32>
// CHECK: %[[BOTH:.*]] = arith.addf %[[ACC]]#0, %[[ACC]]#1 : vector<8xf32>
// CHECK: %[[H:.*]] = vector.reduction <add>, %[[BOTH]] : vector<8xf32> into f32
// CHECK: %[[T:.*]] = scf.for %[[J:.*]] = %c16{{.*}} to %c20{{.*}} step %c1{{.*}} iter_args(%[[S:.*]] = %[[H]]) -> (f32)
// CHECK: memref.load %arg0[%[[I]], %[[J]]] : memref<4x20xf32>
// CHECK: %[[OLD:.*]] = memref.load %arg1[%[[I]]] : memref<4xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[T]] : f32
// CHECK: memref.store %[[NEW]], %arg1[%[[I]]] : memref<4xf32>
// CHECK-NOT: linalg.generic
// SERIAL-LABEL: func @row_sum
// SERIAL-NOT: scf.parallel
// SERIAL: vector.reduction <add>
// 16 lanes: one vector of the 20 and a tail of 4.
// V4-LABEL: func @row_sum
// V4: vector.load %arg0[%{{.*}}, %{{.*}}] : memref<4x20xf32>, vector<16xf32>
// V4: vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
func.func @row_sum(%x: memref<4x20xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x20xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Softmax's sum of exp(x - max): the per-row maximum is broadcast, the
// body's ops run on vectors, four accumulators over 64 = 8 vectors.
// CHECK-LABEL: func @softmax_sum
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c32{{.*}} iter_args(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[X:.*]] = vector.load %arg0
// CHECK: %[[M:.*]] = memref.load %arg1
// CHECK: %[[MB:.*]] = vector.broadcast %[[M]] : f32 to vector<8xf32>
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[MB]] : vector<8xf32>
// CHECK: math.exp %[[D]] : vector<8xf32>
// CHECK: vector.reduction <add>
// No tail: 64 is whole vectors.
// CHECK-NOT: iter_args({{.*}}) -> (f32)
func.func @softmax_sum(%x: memref<2x3x64xf32>, %m: memref<2x3xf32>, %s: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %m : memref<2x3x64xf32>, memref<2x3xf32>) outs(%s : memref<2x3xf32>) {
  ^bb0(%in: f32, %max: f32, %out: f32):
    %d = arith.subf %in, %max : f32
    %e = math.exp %d : f32
    %a = arith.addf %e, %out : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// The maximum, NaN-propagating as arith.maximumf, from -inf; a sum of
// squares folded with math.fma (its product kept as FMAs).
// CHECK-LABEL: func @max_and_squares
// CHECK: arith.constant dense<0xFF800000> : vector<8xf32>
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: math.fma %[[V:.*]], %[[V]], %{{.*}} : vector<8xf32>
// CHECK: vector.reduction <add>
func.func @max_and_squares(%x: memref<3x8xf32>, %y: memref<3xf32>, %z: memref<3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x8xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x8xf32>) outs(%z : memref<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %f = math.fma %in, %in, %out : f32
    linalg.yield %f : f32
  }
  return
}

// -----

// Left alone: a reduction along a non-contiguous dim (a column sum), a row
// shorter than a vector, f16 data, a body reading the loop index, and a
// body that uses the output otherwise than to fold into it.
// CHECK-LABEL: func @not_vectorized
// CHECK-NOT: vector.reduction
// CHECK-COUNT-5: linalg.generic
func.func @not_vectorized(%x: memref<6x40xf32>, %c: memref<40xf32>, %short: memref<4x5xf32>,
                          %r: memref<4xf32>, %h: memref<2x16xf16>, %hr: memref<2xf16>,
                          %w: memref<2x16xf32>, %wr: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<6x40xf32>) outs(%c : memref<40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%short : memref<4x5xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<2x16xf16>) outs(%hr : memref<2xf16>) {
  ^bb0(%in: f16, %out: f16):
    %s = arith.addf %out, %in : f16
    linalg.yield %s : f16
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%w : memref<2x16xf32>) outs(%wr : memref<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %p = arith.mulf %in, %jf : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%w : memref<2x16xf32>) outs(%wr : memref<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %out : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  return
}
