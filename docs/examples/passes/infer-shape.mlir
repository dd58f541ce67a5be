ge.graph @conv2d_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x4x5x5xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d_transpose %x, %w {data_format = "NCHW", groups = 2 : i64, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 0, 1, 1>, output_padding = array<i64: 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}
