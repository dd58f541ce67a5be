// ge-run: an external constant whose key is not in the weights.
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x3xf32>
  %w = ge.const {value = #ge.external<"w">} : tensor<2x3xf32>
  %y = ge.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}
