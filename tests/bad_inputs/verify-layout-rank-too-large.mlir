ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x4x5xf32, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<1x2x3x4x5xf32, #ge.layout<NCHW>>
}
