ge.graph @max_pool_relu {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x17x5x5xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %p : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x17x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}
