// ge-run: the module names a weights file that does not exist.
builtin.module attributes {ge.weights = "missing.weights.npz"} {
  ge.graph @main {
    %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x3xf32>
    %w = ge.const {value = #ge.external<"w">} : tensor<2x3xf32>
    %y = ge.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ge.netoutput %y : tensor<2x3xf32>
  }
}
