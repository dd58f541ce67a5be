ge.graph @conv_bias_add_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x2xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x2x3xf32>} : tensor<1x1x2x3xf32, #ge.layout<HWCN>>
  %d = ge.const {value = dense<[1.0, -2.0, 0.5]> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NHWC", name = "conv"} : (tensor<1x4x4x2xf32, #ge.layout<NHWC>>, tensor<1x1x2x3xf32, #ge.layout<HWCN>>) -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  %y = ge.bias_add %c, %d {data_format = "NHWC", name = "bias"} : (tensor<1x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>) -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  ge.netoutput %y : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
}
