ge.graph @constant_refresh {
  %k = ge.const {value = dense<1.0> : tensor<1x2x2x2xf32, #ge.layout<NHWC>>} : tensor<1x2x2x2xf32>
  %n = ge.neg %k : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  ge.netoutput %n : tensor<1x2x2x2xf32>
}
