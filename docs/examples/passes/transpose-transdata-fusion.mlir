ge.graph @permute_into_transdata {
  %x = ge.data {index = 0 : i64} : tensor<2x5x5x3xf32, #ge.layout<NHWC>>
  %t = ge.permute %x {order = array<i64: 0, 3, 1, 2>} : tensor<2x5x5x3xf32, #ge.layout<NHWC>> -> tensor<2x3x5x5xf32, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x3x5x5xf32, #ge.layout<NCHW>> -> tensor<2x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<2x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
}
