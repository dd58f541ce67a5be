ge.graph @padded {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.relu %x : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.exp %a : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}
