ge.graph @unchanged_swap_of_unit_axes {
  %x = ge.data {index = 0 : i64} : tensor<1x1x2x2x8xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2, 3, 4>} : tensor<1x1x2x2x8xf32> -> tensor<1x1x2x2x8xf32>
  ge.netoutput %y : tensor<1x1x2x2x8xf32>
}
