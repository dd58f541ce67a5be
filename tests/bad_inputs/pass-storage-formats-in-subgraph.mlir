// refine-running-format: storage_formats only on a root graph's ge.netoutput.
ge.graph @main {
  %c = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %r = ge.if %c, %x : (tensor<i32>, tensor<1x3x4x4xf16, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf16, #ge.layout<NCHW>> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
    ge.netoutput %a : tensor<1x3x4x4xf16, #ge.layout<NCHW>> {storage_formats = [#ge.format<NC1HWC0>]}
  } else {
    %b = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
    ge.netoutput %b : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  }
  ge.netoutput %r : tensor<1x3x4x4xf16, #ge.layout<NCHW>>
}
