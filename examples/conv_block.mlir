// A small NCHW convolution block: the bundled example for `ge-opt`.
ge.graph @conv_block {
  %x = ge.data {index = 0 : i64, name = "input"} : tensor<1x3x16x16xf32>
  %w = ge.const {value = dense<0.125> : tensor<17x3x3x3xf32>, name = "conv1.weight"} : tensor<17x3x3x3xf32>
  %b = ge.const {value = dense<0.5> : tensor<17xf32>, name = "conv1.bias"} : tensor<17xf32>
  %c = ge.conv2d %x, %w, %b {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>, name = "conv1"} : (tensor<1x3x16x16xf32>, tensor<17x3x3x3xf32>, tensor<17xf32>) -> tensor<1x17x16x16xf32>
  %r = ge.relu %c {name = "relu1"} : tensor<1x17x16x16xf32> -> tensor<1x17x16x16xf32>
  %p = ge.max_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, name = "pool1"} : tensor<1x17x16x16xf32> -> tensor<1x17x8x8xf32>
  ge.netoutput %p : tensor<1x17x8x8xf32>
}
