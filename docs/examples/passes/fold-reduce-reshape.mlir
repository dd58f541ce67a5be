ge.graph @mean_reshape_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x17xf32, #ge.layout<NHWC>>
  %m = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x17xf32>
  %r = ge.reshape %m {shape = array<i64: 1, 1, 1, 17>} : tensor<1x17xf32> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  ge.netoutput %r : tensor<1x1x1x17xf32, #ge.layout<NHWC>>
}
