// A valid graph: the bad pass options, flags and runtime inputs use it.
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.relu %x : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}
