ge.graph @cycle_through_other_engine {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %a = ge.relu %x {name = "a"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %t = ge.tile %a {multiples = array<i64: 1, 1>, name = "t"} : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = ge.add %a, %t {name = "c"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %c : tensor<2x3xf32>
}
