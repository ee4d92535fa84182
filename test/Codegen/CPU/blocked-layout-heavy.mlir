// RUN: dlas-opt %s --dlas-blocked-layout="block=16 print=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: dlas-opt %s --dlas-blocked-layout="block=16 print=true macs-per-converted-element=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: dlas-opt %s --dlas-blocked-layout="block=16 print=true macs-per-converted-element=3000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HIGH

// One 512-channel 3x3 convolution leaves two conversions (its input's pack
// and its output's unpack), more than one per 4 convolutions, but it does
// 512 * 9 * 512 * 28 * 28 MACs for 512 * (30 * 30 + 28 * 28) converted
// elements: 2145 MACs per converted element, over the default 2000, so
// the layout applies.
// CHECK: remark: 1 convolution(s) blocked, 2 layout conversion(s) left
// OFF: remark: stays NCHW: 2 layout conversion(s) would remain for 1 blocked convolution(s) (at most 1 per 4){{$}}
// HIGH: remark: stays NCHW: 2 layout conversion(s) would remain for 1 blocked convolution(s) (at most 1 per 4), 2145 MACs per converted element (fewer than 3000)
func.func @heavy(%x: tensor<1x512x30x30xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x512x28x28xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x512x28x28xf32>) -> tensor<1x512x28x28xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x512x30x30xf32>, tensor<512x512x3x3xf32>) outs(%init : tensor<1x512x28x28xf32>) -> tensor<1x512x28x28xf32>
  return %y : tensor<1x512x28x28xf32>
}
