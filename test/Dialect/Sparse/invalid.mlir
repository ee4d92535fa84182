// Every verifier message of the sparse dialect, one case each.
// RUN: dlas-opt %s -split-input-file -verify-diagnostics

#CSC = #sparse_tensor.encoding<{map = (d0, d1) -> (d1 : dense, d0 : compressed)}>
func.func @csc_is_refused() {
  // expected-error @+1 {{result type 'tensor<2x2xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>>' must be CSR ((d0, d1) -> (d0 : dense, d1 : compressed)) or block-CSR}}
  %w = sparse.constant {positions = array<i32: 0, 0, 0>, coordinates = array<i32>, values = dense<> : tensor<0xf32>} : tensor<2x2xf32, #CSC>
  return
}

// -----

func.func @no_encoding() {
  // expected-error @+1 {{result #0 must be 2-D f32 tensor with a #sparse_tensor.encoding}}
  %w = sparse.constant {positions = array<i32: 0, 0, 0>, coordinates = array<i32>, values = dense<> : tensor<0xf32>} : tensor<2x2xf32>
  return
}

// -----

#BSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 4 : dense, d1 : compressed, d0 mod 4 : dense)}>
func.func @not_a_multiple_of_the_block() {
  // expected-error @+1 {{shape 6x2 is not a multiple of its 4x1 blocks}}
  %w = sparse.constant {positions = array<i32: 0, 0>, coordinates = array<i32>, values = dense<> : tensor<0xf32>} : tensor<6x2xf32, #BSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @dynamic() {
  // expected-error @+1 {{must have a static shape}}
  %w = sparse.constant {positions = array<i32: 0, 0, 0>, coordinates = array<i32>, values = dense<> : tensor<0xf32>} : tensor<2x?xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @positions_count() {
  // expected-error @+1 {{expects 3 positions (one per block row and one more), got 2}}
  %w = sparse.constant {positions = array<i32: 0, 0>, coordinates = array<i32>, values = dense<> : tensor<0xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @positions_start() {
  // expected-error @+1 {{positions must start at 0, got 1}}
  %w = sparse.constant {positions = array<i32: 1, 1, 1>, coordinates = array<i32: 0>, values = dense<1.0> : tensor<1xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @positions_decrease() {
  // expected-error @+1 {{positions decrease at block row 1 (2 then 1)}}
  %w = sparse.constant {positions = array<i32: 0, 2, 1>, coordinates = array<i32: 0, 1>, values = dense<1.0> : tensor<2xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @position_past_the_end() {
  // expected-error @+1 {{position 3 of block row 1 is past the 2 coordinates}}
  %w = sparse.constant {positions = array<i32: 0, 1, 3>, coordinates = array<i32: 0, 1>, values = dense<1.0> : tensor<2xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @coordinate_out_of_range() {
  // expected-error @+1 {{coordinate 2 (entry 1, block row 1) is outside [0, 2)}}
  %w = sparse.constant {positions = array<i32: 0, 1, 2>, coordinates = array<i32: 0, 2>, values = dense<1.0> : tensor<2xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @coordinates_unsorted() {
  // expected-error @+1 {{coordinates of block row 0 are not strictly increasing at entry 1}}
  %w = sparse.constant {positions = array<i32: 0, 2, 2>, coordinates = array<i32: 1, 1>, values = dense<1.0> : tensor<2xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @coordinates_left_over() {
  // expected-error @+1 {{last position 1 differs from the number of coordinates 2}}
  %w = sparse.constant {positions = array<i32: 0, 1, 1>, coordinates = array<i32: 0, 1>, values = dense<1.0> : tensor<2xf32>} : tensor<2x2xf32, #CSR>
  return
}

// -----

#BSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 2 : dense, d1 : compressed, d0 mod 2 : dense)}>
func.func @values_count() {
  // expected-error @+1 {{expects 4 values (2 blocks of 2x1) in a 1-D tensor, got 'tensor<2xf32>'}}
  %w = sparse.constant {positions = array<i32: 0, 2>, coordinates = array<i32: 0, 1>, values = dense<1.0> : tensor<2xf32>} : tensor<2x2xf32, #BSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pack_rank(%d: tensor<4xf32>) {
  // expected-error @+1 {{source must have rank 2 or more and a static shape, got 'tensor<4xf32>'}}
  %w = sparse.pack %d : tensor<4xf32> -> tensor<2x2xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pack_shape(%d: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{result shape 4x9 is not the source 'tensor<4x2x3x3xf32>' with its trailing dimensions flattened (4x18)}}
  %w = sparse.pack %d : tensor<4x2x3x3xf32> -> tensor<4x9xf32, #CSR>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_dynamic_channels(%x: tensor<1x?x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{input must have static channel and spatial sizes, got 'tensor<1x?x5x5xf32>'}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>} : (tensor<1x?x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_kernel_size(%x: tensor<1x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{kernel_size must be positive, got 0}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 0, 3>} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_strides(%x: tensor<1x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{strides must be positive, got -1}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, strides = array<i64: 1, -1>} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_dilations(%x: tensor<1x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{dilations must be positive, got 0}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, dilations = array<i64: 0, 1>} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_padding(%x: tensor<1x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{padding must not be negative, got -1}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0, -1, 0>} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_groups(%x: tensor<1x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{groups = 3 must be positive and divide the input channels (2) and the output channels (4)}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, groups = 3 : i64} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_filter_columns(%x: tensor<1x2x5x5xf32>, %w: tensor<4x9xf32, #CSR>) {
  // expected-error @+1 {{filter has 9 columns but C_in/groups * K_h * K_w = 2 * 3 * 3 = 18}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>, tensor<4x9xf32, #CSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#BSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 4 : dense, d1 : compressed, d0 mod 4 : dense)}>
func.func @conv_blocks_straddle_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x18xf32, #BSR>) {
  // expected-error @+1 {{filter blocks of 4 rows straddle groups of 2 output channels}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x18xf32, #BSR>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_bias(%x: tensor<1x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias has 3 elements but the weight has 4 output channels}}
  %y = sparse.conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_window(%x: tensor<1x2x2x2xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{the 3x3 window (dilated) does not fit the padded 2x2 input}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>} : (tensor<1x2x2x2xf32>, tensor<4x18xf32, #CSR>) -> tensor<1x4x1x1xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_result(%x: tensor<?x2x5x5xf32>, %w: tensor<4x18xf32, #CSR>) {
  // expected-error @+1 {{result shape should be ?x4x3x3, got 'tensor<?x4x5x5xf32>'}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 3, 3>} : (tensor<?x2x5x5xf32>, tensor<4x18xf32, #CSR>) -> tensor<?x4x5x5xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @conv_residual(%x: tensor<1x18x5x5xf32>, %w: tensor<4x18xf32, #CSR>, %r: tensor<1x4x5x1xf32>) {
  // expected-error @+1 {{residual must have the result's type 'tensor<1x4x5x5xf32>', got 'tensor<1x4x5x1xf32>'}}
  %y = sparse.conv2d %x, %w residual %r {kernel_size = array<i64: 1, 1>} : (tensor<1x18x5x5xf32>, tensor<4x18xf32, #CSR>, tensor<1x4x5x1xf32>) -> tensor<1x4x5x5xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @linear_features(%x: tensor<3x5xf32>, %w: tensor<2x4xf32, #CSR>) {
  // expected-error @+1 {{input has 5 features but the weight has 4 columns}}
  %y = sparse.linear %x, %w : (tensor<3x5xf32>, tensor<2x4xf32, #CSR>) -> tensor<3x2xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @linear_bias(%x: tensor<3x4xf32>, %w: tensor<2x4xf32, #CSR>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias has 4 elements but the weight has 2 output channels}}
  %y = sparse.linear %x, %w, %b : (tensor<3x4xf32>, tensor<2x4xf32, #CSR>, tensor<4xf32>) -> tensor<3x2xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @linear_result(%x: tensor<3x4xf32>, %w: tensor<2x4xf32, #CSR>) {
  // expected-error @+1 {{result shape should be 3x2, got 'tensor<3x4xf32>'}}
  %y = sparse.linear %x, %w : (tensor<3x4xf32>, tensor<2x4xf32, #CSR>) -> tensor<3x4xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_without_kernel(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{pool_strides and pool_padding need pool_kernel}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x8x8xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_with_residual(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>, %r: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{a fused max pool (pool_kernel) does not combine with residual}}
  %y = sparse.conv2d %x, %w residual %r {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 2>, pool_strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>, tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_kernel_zero(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{pool_kernel must be positive, got 0}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 0, 2>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x8x8xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_stride_zero(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{pool_strides must be positive, got 0}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 2>, pool_strides = array<i64: 2, 0>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x4x4xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_padding_window(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{pool_padding 2 must be at least 0 and below the pool window's side (2): a window must hold a convolution output}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 2>, pool_strides = array<i64: 2, 2>, pool_padding = array<i64: 0, 0, 0, 2>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x4x5xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_padding_negative(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{pool_padding -1 must be at least 0 and below the pool window's side (3)}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 3, 3>, pool_padding = array<i64: -1, 0, 0, 0>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x6x6xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_too_large(%x: tensor<1x2x3x3xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{the 5x5 pool window does not fit the padded 3x3 convolution output}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 5, 5>} : (tensor<1x2x3x3xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x1x1xf32>
  return
}

// -----

#CSR = #sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>
func.func @pool_result(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2xf32, #CSR>) {
  // expected-error @+1 {{result shape should be 1x4x4x4, got 'tensor<1x4x8x8xf32>'}}
  %y = sparse.conv2d %x, %w {kernel_size = array<i64: 1, 1>, pool_kernel = array<i64: 2, 2>, pool_strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<4x2xf32, #CSR>) -> tensor<1x4x8x8xf32>
  return
}
