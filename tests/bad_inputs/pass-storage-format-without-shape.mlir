// refine-running-format: storage_format without storage_shape (GE E14002).
ge.graph @main {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %x : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}
