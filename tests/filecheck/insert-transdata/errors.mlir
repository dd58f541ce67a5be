// RUN: ge-opt %s --split-input-file --verify-diagnostics --insert-transdata | filecheck %s

// Malformed requirements are one-line errors.

// CHECK: error: 'ge.relu' op operand #0 has origin format NHWC, but its required layout #ge.layout<NCHW, NC1HWC0> has another
ge.graph @origin_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf16, #ge.layout<NHWC>>
  %h = ge.relu %x {input_layouts = [#ge.layout<NCHW, NC1HWC0>]} : tensor<1x4x4x3xf16, #ge.layout<NHWC>> -> tensor<1x4x4x3xf16, #ge.layout<NHWC>>
  ge.netoutput %h : tensor<1x4x4x3xf16, #ge.layout<NHWC>>
}

// -----

// CHECK: error: 'ge.relu' op 'input_layouts' needs one #ge.layout per operand (1)
ge.graph @wrong_count {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf16, #ge.layout<NHWC>>
  %h = ge.relu %x {input_layouts = []} : tensor<1x4x4x3xf16, #ge.layout<NHWC>> -> tensor<1x4x4x3xf16, #ge.layout<NHWC>>
  ge.netoutput %h : tensor<1x4x4x3xf16, #ge.layout<NHWC>>
}
