// ge-run: weights-valid.npz holds w as 4x3x3x3, the constant reads 2x2.
builtin.module attributes {ge.weights = "weights-valid.npz"} {
  ge.graph @main {
    %x = ge.data {index = 0 : i64, name = "x"} : tensor<2x2xf32>
    %w = ge.const {value = #ge.external<"w">, name = "w"} : tensor<2x2xf32>
    %y = ge.add %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    ge.netoutput %y : tensor<2x2xf32>
  }
}
