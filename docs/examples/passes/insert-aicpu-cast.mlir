ge.graph @int8_widens {
  %x = ge.data {index = 0 : i64} : tensor<2x3xi8>
  %t = ge.tile %x {multiples = array<i64: 1, 2>} : tensor<2x3xi8> -> tensor<2x6xi8>
  ge.netoutput %t : tensor<2x6xi8>
}
