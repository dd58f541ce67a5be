ge.graph @dim1_transpose_to_squeeze {
  %x = ge.data {index = 0 : i64} : tensor<1x5x7xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<1x5x7xf32> -> tensor<5x1x7xf32>
  ge.netoutput %y : tensor<5x1x7xf32>
}
