ge.graph @int16_widens {
  %x = ge.data {index = 0 : i64} : tensor<1x1x2x3xi16>
  %t = ge.resize %x {sizes = array<i64: 1, 1, 4, 6>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest"} : tensor<1x1x2x3xi16> -> tensor<1x1x4x6xi16>
  ge.netoutput %t : tensor<1x1x4x6xi16>
}
