ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %y = ge.relu %x
  ge.netoutput %y : tensor<2xf32>
}
