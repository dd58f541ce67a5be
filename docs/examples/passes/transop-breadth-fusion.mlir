ge.graph @names_ignored {
  %x = ge.data {index = 0 : i64} : tensor<33x3x3x3xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {name = "first", src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<33x3x3x3xf16, #ge.layout<NCHW>> -> tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  %b = ge.transdata %x {name = "second", src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<33x3x3x3xf16, #ge.layout<NCHW>> -> tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %a, %b : tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>, tensor<33x3x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
}
