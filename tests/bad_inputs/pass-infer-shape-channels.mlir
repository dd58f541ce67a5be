ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<17x5x3x3xf32>) -> tensor<1x17x6x6xf32>
  ge.netoutput %y : tensor<1x17x6x6xf32>
}
