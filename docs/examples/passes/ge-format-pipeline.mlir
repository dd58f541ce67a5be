ge.graph @survey_1_inverse_pair_cancels {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %b : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
}
