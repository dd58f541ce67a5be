ge.graph @main {
  %c = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<2xf32>} : tensor<2xf32>
  ge.netoutput %c : tensor<2xf32>
}
