ge.graph @mask_per_layer {
  %m = ge.data {index = 0 : i64} : tensor<2x1x1x11xi1>
  %x = ge.data {index = 1 : i64} : tensor<2x1x11x11xf32>
  %zero0 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "layer0/zero"} : tensor<1xf32>
  %low0 = ge.const {value = dense<-1.0e4> : tensor<1xf32>, name = "layer0/low"} : tensor<1xf32>
  %w0 = ge.select %m, %zero0, %low0 {name = "layer0/Where"} : (tensor<2x1x1x11xi1>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x1x11xf32>
  %a0 = ge.add %x, %w0 : (tensor<2x1x11x11xf32>, tensor<2x1x1x11xf32>) -> tensor<2x1x11x11xf32>
  %zero1 = ge.const {value = dense<0.0> : tensor<1xf32>, name = "layer1/zero"} : tensor<1xf32>
  %low1 = ge.const {value = dense<-1.0e4> : tensor<1xf32>, name = "layer1/low"} : tensor<1xf32>
  %w1 = ge.select %m, %zero1, %low1 {name = "layer1/Where"} : (tensor<2x1x1x11xi1>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x1x11xf32>
  %a1 = ge.add %a0, %w1 : (tensor<2x1x11x11xf32>, tensor<2x1x1x11xf32>) -> tensor<2x1x11x11xf32>
  ge.netoutput %a1 : tensor<2x1x11x11xf32>
}
