ge.graph @shared_and_multi_result {
  %a = ge.const {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %p:2 = ge.split %a {axis = 0 : i64, sizes = array<i64: 1, 3>, name = "split"} : (tensor<4xf32>) -> (tensor<1xf32>, tensor<3xf32>)
  ge.netoutput %p#0, %p#1, %a : tensor<1xf32>, tensor<3xf32>, tensor<4xf32>
}
