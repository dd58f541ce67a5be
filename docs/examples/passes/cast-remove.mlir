ge.graph @redundant_cast {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf16>
  %c = ge.cast %x {dst_type = f16} : tensor<2x3xf16> -> tensor<2x3xf16>
  %i = ge.cast %x {dst_type = i32} : tensor<2x3xf16> -> tensor<2x3xi32>
  ge.netoutput %c, %i : tensor<2x3xf16>, tensor<2x3xi32>
}
