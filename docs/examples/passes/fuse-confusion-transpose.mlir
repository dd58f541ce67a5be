ge.graph @head_split {
  %x = ge.data {index = 0 : i64} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>>
  %a = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<2x11x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x11x32xf32>
  %r = ge.reshape %a {shape = array<i64: 2, 11, 4, 8>} : tensor<2x11x32xf32> -> tensor<2x11x4x8xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<2x11x4x8xf32> -> tensor<2x4x11x8xf32>
  %b = ge.transdata %t {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x4x11x8xf32> -> tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %b : tensor<2x4x11x8xf32, #ge.layout<ND, FRACTAL_NZ>>
}
