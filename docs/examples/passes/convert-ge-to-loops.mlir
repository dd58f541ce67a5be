ge.graph @relu_5hd {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.relu %x : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}
