ge.graph @cycle_through_other_engine {
  %x = ge.data {index = 0 : i64} : tensor<1x1x2x3xf32>
  %a = ge.relu %x {name = "a"} : tensor<1x1x2x3xf32> -> tensor<1x1x2x3xf32>
  %t = ge.resize %a {sizes = array<i64: 1, 1, 2, 3>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>, mode = "nearest", name = "t"} : tensor<1x1x2x3xf32> -> tensor<1x1x2x3xf32>
  %c = ge.add %a, %t {name = "c"} : (tensor<1x1x2x3xf32>, tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32>
  ge.netoutput %c : tensor<1x1x2x3xf32>
}
