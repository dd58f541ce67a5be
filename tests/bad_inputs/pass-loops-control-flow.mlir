// convert-ge-to-loops has no lowering for control flow.
ge.graph @main {
  %c = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<2xf32>
  %r = ge.if %c, %x : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    ge.netoutput %a : tensor<2xf32>
  } else {
    %b = ge.data {parent_index = 1 : i64} : tensor<2xf32>
    %n = ge.neg %b : tensor<2xf32> -> tensor<2xf32>
    ge.netoutput %n : tensor<2xf32>
  }
  ge.netoutput %r : tensor<2xf32>
}
