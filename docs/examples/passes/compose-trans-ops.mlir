ge.graph @compose_two_transposes {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 3, 2, 1>} : tensor<1x4x5x3xf32> -> tensor<1x3x5x4xf32>
  ge.netoutput %b : tensor<1x3x5x4xf32>
}
