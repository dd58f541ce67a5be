ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  ge.netoutput %y : tensor<7xf32>
}
