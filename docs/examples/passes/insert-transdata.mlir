ge.graph @user_storage_input {
  %x = ge.data {index = 0 : i64} : tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.softmax %x {input_layouts = [#ge.layout<ND>]} : tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>> -> tensor<16x16xf16>
  ge.netoutput %y, %x : tensor<16x16xf16>, tensor<16x16xf16, #ge.layout<ND, FRACTAL_NZ>> {input_layouts = [#ge.layout<ND>, #ge.layout<ND>]}
}
