// ge-run: a ge.while whose condition never becomes false.
ge.graph @main {
  %x = ge.data {index = 0 : i64, name = "x"} : tensor<2xf32>
  %r = ge.while %x : (tensor<2xf32>) -> tensor<2xf32> cond {
    %a = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    %t = ge.const {value = dense<1> : tensor<i32>} : tensor<i32>
    ge.netoutput %t : tensor<i32>
  } body {
    %b = ge.data {parent_index = 0 : i64} : tensor<2xf32>
    ge.netoutput %b : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}
