ge.graph @chain {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %a = ge.relu %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %t = ge.resize %a {sizes = array<i64: 1, 16, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x16x8x8xf32> -> tensor<1x16x16x16xf32>
  %e = ge.exp %t : tensor<1x16x16x16xf32> -> tensor<1x16x16x16xf32>
  ge.netoutput %e : tensor<1x16x16x16xf32>
}
