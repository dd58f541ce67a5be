// convert-ge-to-loops lowers ge.if, but not a variable read inside a branch:
// the error points at the op in the subgraph.
ge.graph @main {
  %c = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  %r = ge.if %c, %x : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  } else {
    %v = ge.variable {name = "step"} : tensor<2xf32>
    ge.netoutput %v : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}
