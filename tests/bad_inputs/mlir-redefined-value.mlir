ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %x = ge.relu %x : tensor<2xf32> -> tensor<2xf32>
  ge.netoutput %x : tensor<2xf32>
}
