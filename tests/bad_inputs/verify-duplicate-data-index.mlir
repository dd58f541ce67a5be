ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %y = ge.data {index = 0 : i64} : tensor<2xf32>
  %z = ge.add %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ge.netoutput %z : tensor<2xf32>
}
