// RUN: dlas-opt %s --convert-nn-to-linalg --split-input-file | FileCheck %s

// A reverse RNN with constant weights: the weights are cut per direction
// at compile time, every step's input projection is one matmul before the
// loop, and the loop body is the recurrent matmul plus one gate generic.
// CHECK-LABEL: func @rnn_reverse
// CHECK-DAG: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<8x4xf32>
// CHECK-DAG: %[[WB:.*]] = arith.constant dense<2.500000e-01> : tensor<4xf32>
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%[[WB]] : tensor<4xf32>) outs(%{{.*}} : tensor<10x4xf32>)
// CHECK: %[[PROJ:.*]] = linalg.matmul ins(%{{.*}}, %[[W]] : tensor<10x8xf32>, tensor<8x4xf32>) outs(%[[INIT]] : tensor<10x4xf32>)
// CHECK: %[[STEPS:.*]] = tensor.expand_shape %[[PROJ]] {{\[\[}}0, 1], [2]] output_shape [5, 2, 4]
// CHECK: %[[H0:.*]] = tensor.extract_slice %arg1[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x2x4xf32> to tensor<2x4xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %[[SEQ:.*]] step %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[Y:.*]] = %{{.*}}) -> (tensor<2x4xf32>, tensor<5x1x2x4xf32>)
// CHECK:   %[[LAST:.*]] = arith.subi %[[SEQ]], %{{.*}} : index
// CHECK:   %[[TIME:.*]] = arith.subi %[[LAST]], %[[T]] : index
// CHECK:   %[[X:.*]] = tensor.extract_slice %[[STEPS]][%[[TIME]], 0, 0] [1, 2, 4] [1, 1, 1]
// The recurrent weights, transposed at compile time (column 0 is 1, 5, 9, 13).
// CHECK:   %[[RT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 5.000000e+00, 9.000000e+00, 1.300000e+01]
// CHECK:   %[[REC:.*]] = linalg.matmul ins(%[[H]], %[[RT]] : tensor<2x4xf32>, tensor<4x4xf32>)
// CHECK:   %[[NEXT:.*]]:2 = linalg.generic {{.*}} ins(%[[X]], %[[REC]], %[[H]] :
// CHECK:     arith.addf
// CHECK:     math.tanh
// CHECK:   %[[YN:.*]] = tensor.insert_slice %[[NEXT]]#1 into %[[Y]][%[[TIME]], 0, 0, 0] [1, 1, 2, 4]
// CHECK:   scf.yield %[[NEXT]]#0, %[[YN]]
// CHECK: %[[FINAL:.*]] = tensor.insert_slice %[[LOOP]]#0 into %{{.*}}[0, 0, 0] [1, 2, 4]
// CHECK: return %[[LOOP]]#1, %[[FINAL]]
func.func @rnn_reverse(%x: tensor<5x2x8xf32>, %h: tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>) {
  %w = arith.constant dense<0.5> : tensor<1x4x8xf32>
  %r = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]]> : tensor<1x4x4xf32>
  %b = arith.constant dense<0.25> : tensor<1x8xf32>
  %0:2 = nn.rnn %x, %w, %r, %b, %h {direction = #nn<rnn_direction reverse>}
      : (tensor<5x2x8xf32>, tensor<1x4x8xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32>)
      -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0, %0#1 : tensor<5x1x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// A bidirectional LSTM with run-time weights, a dynamic sequence length
// and sequence lengths: two loops (the second reversed) write the two
// direction slots of one output; the gate generic reads the four gate
// columns of the projection and of the recurrent product, the state, and
// the length of its batch row, and keeps the state where the row's
// sequence has ended.
// CHECK-LABEL: func @lstm_bidirectional
// CHECK: %[[SEQ:.*]] = tensor.dim %arg0, %c0
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[SEQ]] step %{{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<?x2x1x4xf32>)
// CHECK:   %[[REC:.*]] = linalg.matmul ins(%[[H]], %{{.*}} : tensor<1x4xf32>, tensor<4x16xf32>)
// CHECK-COUNT-8: tensor.extract_slice %{{.*}}[0, {{0|4|8|12}}] [1, 4] [1, 1] : tensor<1x16xf32> to tensor<1x4xf32>
// CHECK:   linalg.generic {{.*}} ins({{.*}}, %[[H]], %[[C]], %arg6 : {{.*}}, tensor<1xi32>) outs({{.*}}) {
// CHECK:     %[[LEN:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:     %[[ACTIVE:.*]] = arith.cmpi ult, %[[T]], %[[LEN]] : index
// CHECK:     arith.select %[[ACTIVE]]
// CHECK:   tensor.insert_slice %{{.*}} into %[[Y]][%[[T]], 0, 0, 0] [1, 1, 1, 4]
// CHECK: scf.for
// CHECK:   arith.subi
// CHECK:   tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 1, 0, 0] [1, 1, 1, 4]
func.func @lstm_bidirectional(%x: tensor<?x1x8xf32>, %w: tensor<2x16x8xf32>, %r: tensor<2x16x4xf32>, %b: tensor<2x32xf32>, %h: tensor<2x1x4xf32>, %c: tensor<2x1x4xf32>, %l: tensor<1xi32>) -> (tensor<?x2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>) {
  %0:3 = nn.lstm %x, %w, %r, %b, %h, %c lengths %l {direction = #nn<rnn_direction bidirectional>}
      : (tensor<?x1x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>, tensor<2x32xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<1xi32>)
      -> (tensor<?x2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<?x2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>
}

// -----

// GRU without linear_before_reset: z and r . h first, then r . h times the
// h gate's recurrent weights (rows 2H..3H), then the candidate and blend.
// CHECK-LABEL: func @gru_reset_before_linear
// CHECK: scf.for
// CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x4xf32>, tensor<4x8xf32>)
// CHECK:   %[[ZR:.*]]:2 = linalg.generic
// CHECK:   linalg.matmul ins(%[[ZR]]#1, %{{.*}} : tensor<1x4xf32>, tensor<4x4xf32>)
// CHECK:   linalg.generic
// CHECK:     math.tanh
func.func @gru_reset_before_linear(%x: tensor<3x1x2xf32>, %w: tensor<1x12x2xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x24xf32>, %h: tensor<1x1x4xf32>) -> tensor<3x1x1x4xf32> {
  %0:2 = nn.gru %x, %w, %r, %b, %h
      : (tensor<3x1x2xf32>, tensor<1x12x2xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, tensor<1x1x4xf32>)
      -> (tensor<3x1x1x4xf32>, tensor<1x1x4xf32>)
  return %0#0 : tensor<3x1x1x4xf32>
}
