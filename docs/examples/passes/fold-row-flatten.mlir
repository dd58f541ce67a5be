ge.graph @layer_norm_body {
  %x = ge.data {index = 0 : i64} : tensor<2x11x17xf32>
  %r = ge.flatten %x {axis = 2 : i64} : tensor<2x11x17xf32> -> tensor<22x17xf32>
  %m = ge.reduce_mean %r {axes = array<i64: 1>} : tensor<22x17xf32> -> tensor<22x1xf32>
  %d = ge.sub %r, %m : (tensor<22x17xf32>, tensor<22x1xf32>) -> tensor<22x17xf32>
  %sq = ge.mul %d, %d : (tensor<22x17xf32>, tensor<22x17xf32>) -> tensor<22x17xf32>
  %v = ge.reduce_mean %sq {axes = array<i64: -1>} : tensor<22x17xf32> -> tensor<22x1xf32>
  %e = ge.const {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %ve = ge.add %v, %e : (tensor<22x1xf32>, tensor<f32>) -> tensor<22x1xf32>
  %s = ge.sqrt %ve : tensor<22x1xf32> -> tensor<22x1xf32>
  %n = ge.div %d, %s : (tensor<22x17xf32>, tensor<22x1xf32>) -> tensor<22x17xf32>
  %g = ge.const {value = dense<1.5> : tensor<1x17xf32>} : tensor<1x17xf32>
  %y2 = ge.mul %n, %g : (tensor<22x17xf32>, tensor<1x17xf32>) -> tensor<22x17xf32>
  %y = ge.reshape %y2 {shape = array<i64: 2, 11, 17>} : tensor<22x17xf32> -> tensor<2x11x17xf32>
  ge.netoutput %y : tensor<2x11x17xf32>
}
