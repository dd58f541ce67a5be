ge.graph @transposed_nhwc_nchw_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
  %a = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x3xf32, #ge.layout<NHWC>> -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %b = ge.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x8xf32, #ge.layout<NCHW>> -> tensor<1x8x8x3xf32, #ge.layout<NHWC>>
  ge.netoutput %b : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
}
