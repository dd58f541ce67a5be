// ge-run: the graph's ge.weights archive (weights-pickled.npz) is not what it claims.
builtin.module attributes {ge.weights = "weights-pickled.npz"} {
  ge.graph @main {
    %x = ge.data {index = 0 : i64, name = "x"} : tensor<4x3x3x3xf32>
    %w = ge.const {value = #ge.external<"w">, name = "w"} : tensor<4x3x3x3xf32>
    %y = ge.add %x, %w : (tensor<4x3x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
    ge.netoutput %y : tensor<4x3x3x3xf32>
  }
}
