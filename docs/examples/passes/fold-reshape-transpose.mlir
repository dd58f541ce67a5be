ge.graph @patch_tokens {
  %x = ge.data {index = 0 : i64} : tensor<2x3x8x8xf32>
  %w = ge.const {value = dense<0.5> : tensor<17x3x2x2xf32>} : tensor<17x3x2x2xf32>
  %c = ge.conv2d %x, %w {strides = array<i64: 1, 1, 2, 2>, data_format = "NCHW"} : (tensor<2x3x8x8xf32>, tensor<17x3x2x2xf32>) -> tensor<2x17x4x4xf32>
  %r = ge.reshape %c {shape = array<i64: 2, 17, 16>} : tensor<2x17x4x4xf32> -> tensor<2x17x16xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1>} : tensor<2x17x16xf32> -> tensor<2x16x17xf32>
  ge.netoutput %t : tensor<2x16x17xf32>
}
