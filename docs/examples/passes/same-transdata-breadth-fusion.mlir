ge.graph @casts_then_transdata_shared {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %h = ge.relu %x : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf32, #ge.layout<NCHW>>
  %c1 = ge.cast %h {dst_type = f16} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %t1 = ge.transdata %c1 {name = "td1", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %c2 = ge.cast %h {dst_type = i32} : tensor<1x17x3x3xf32, #ge.layout<NCHW>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW>>
  %t2 = ge.transdata %c2 {name = "td2", src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xi32, #ge.layout<NCHW>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.abs %t2 : tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %t1, %a : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x3x3xi32, #ge.layout<NCHW, NC1HWC0>>
}
