ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  %z = ge.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  ge.netoutput %z : tensor<2x3xf32>
}
