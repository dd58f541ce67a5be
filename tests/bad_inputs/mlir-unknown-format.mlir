ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHX>>
  ge.netoutput %x : tensor<1x3x4x4xf32, #ge.layout<NCHX>>
}
