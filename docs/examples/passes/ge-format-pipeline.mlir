// A convolution with 9 channels (not a multiple of C0) in an NCHW model: the
// filter is laid out in FRACTAL_Z at compile time, activations run in NC1HWC0
// between one TransData in and one out.
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "input"} : tensor<1x9x8x8xf16>
  %w = ge.const {value = dense<0.5> : tensor<9x9x3x3xf16>, name = "conv.weight"} : tensor<9x9x3x3xf16>
  %y = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x9x8x8xf16>, tensor<9x9x3x3xf16>) -> tensor<1x9x8x8xf16>
  %r = ge.relu %y : tensor<1x9x8x8xf16> -> tensor<1x9x8x8xf16>
  ge.netoutput %r : tensor<1x9x8x8xf16>
}
