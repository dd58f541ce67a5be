ge.graph @chain_into_graph_output {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  ge.netoutput %b, %b : tensor<1x3x2x2xf32, #ge.layout<NCHW>>, tensor<1x3x2x2xf32, #ge.layout<NCHW>>
}
