ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf99>
  ge.netoutput %x : tensor<2xf99>
}
