ge.graph @g {
  %x = ge.data {index = 0 : i64} : tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %p = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x8x4x4xf32, #ge.layout<NCHW>> -> tensor<1x8x4x4xf32, #ge.layout<NCHW>>
  %c = ge.concat %p, %p {axis = 1 : i64} : (tensor<1x8x4x4xf32, #ge.layout<NCHW>>, tensor<1x8x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  %r = ge.relu %c : tensor<1x16x4x4xf32, #ge.layout<NCHW>> -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x16x4x4xf32, #ge.layout<NCHW>>
}
