ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}
