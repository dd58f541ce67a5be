ge.graph @conv1d_relu_conv1d {
  %x = ge.data {index = 0 : i64} : tensor<1x16x1x5xf32>
  %w = ge.const {value = dense<0.5> : tensor<16x16x1x1xf32>} : tensor<16x16x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x16x1x5xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x5xf32>
  %s = ge.squeeze %c {axes = array<i64: 2>} : tensor<1x16x1x5xf32> -> tensor<1x16x5xf32>
  %r = ge.relu %s : tensor<1x16x5xf32> -> tensor<1x16x5xf32>
  %u = ge.unsqueeze %r {axes = array<i64: 2>} : tensor<1x16x5xf32> -> tensor<1x16x1x5xf32>
  %d = ge.conv2d %u, %w {data_format = "NCHW"} : (tensor<1x16x1x5xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x5xf32>
  ge.netoutput %d : tensor<1x16x1x5xf32>
}
