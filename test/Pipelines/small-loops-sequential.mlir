// RUN: dlas-opt %s --dlas-cpu-pipeline=target=x86-64-v4 | FileCheck %s
// RUN: dlas-opt %s --dlas-cpu-pipeline="target=x86-64-v4 min-parallel-iterations=0" | FileCheck %s --check-prefix=ALL

// An elementwise layer no kernel takes runs on threads only from 32768
// elements (min-parallel-iterations): below that a parallel region's fork
// and join cost more than the loop (dlas-affine-parallelize).
// 16384 elements: sequential.
// CHECK: llvm.func @main_layer0_add(
// CHECK-NOT: omp.parallel
// CHECK: llvm.return
// 50176 elements: parallel.
// CHECK: llvm.func @main_layer1_add(
// CHECK: omp.parallel
// ALL: llvm.func @main_layer0_add(
// ALL: omp.parallel
// ALL: llvm.func @main_layer1_add(
// ALL: omp.parallel
func.func @main(%a: tensor<1x64x16x16xf32>, %b: tensor<1x64x16x16xf32>,
                %c: tensor<1x256x14x14xf32>, %d: tensor<1x256x14x14xf32>)
    -> (tensor<1x64x16x16xf32>, tensor<1x256x14x14xf32>) {
  %0 = nn.add %a, %b : (tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %1 = nn.relu %0 : tensor<1x64x16x16xf32>
  %2 = nn.add %c, %d : (tensor<1x256x14x14xf32>, tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  %3 = nn.relu %2 : tensor<1x256x14x14xf32>
  return %1, %3 : tensor<1x64x16x16xf32>, tensor<1x256x14x14xf32>
}
