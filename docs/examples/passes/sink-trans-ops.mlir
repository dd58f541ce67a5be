ge.graph @survey_4_unary_elementwise_is_transparent {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %r = ge.relu %a : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %b = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}
