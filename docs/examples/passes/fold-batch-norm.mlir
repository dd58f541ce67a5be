ge.graph @gemm_bn_without_c {
  %a = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %b = ge.const {value = dense<1.0> : tensor<4x3xf32>} : tensor<4x3xf32>
  %p = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %offset = ge.const {value = dense<[0.5, 1.0, 1.5]> : tensor<3xf32>} : tensor<3xf32>
  %g = ge.gemm %a, %b {alpha = 3.0 : f32} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = ge.reshape %g {shape = array<i64: 0, 1, 1, 3>} : tensor<2x3xf32> -> tensor<2x1x1x3xf32>
  %y = ge.batch_norm %r, %p, %offset, %p, %p {data_format = "NHWC", epsilon = 0.0 : f32} : (tensor<2x1x1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x1x1x3xf32>
  ge.netoutput %y : tensor<2x1x1x3xf32>
}
