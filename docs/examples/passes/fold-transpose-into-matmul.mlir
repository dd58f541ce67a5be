ge.graph @key_transposed {
  %q = ge.data {index = 0 : i64} : tensor<2x4x11x16xf32>
  %k = ge.data {index = 1 : i64} : tensor<2x11x4x16xf32>
  %kt = ge.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x11x4x16xf32> -> tensor<2x4x16x11xf32>
  %s = ge.batch_matmul %q, %kt : (tensor<2x4x11x16xf32>, tensor<2x4x16x11xf32>) -> tensor<2x4x11x11xf32>
  ge.netoutput %s : tensor<2x4x11x11xf32>
}
