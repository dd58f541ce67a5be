ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0, storage_shape = [1, 1, 4, 4, 16]>>
  ge.netoutput %x : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0, storage_shape = [1, 1, 4, 4, 16]>>
}
