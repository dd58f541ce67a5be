// RUN: ge-opt %s --split-input-file --transpose-transdata-fusion | filecheck %s

// GE's TransposeTransDataPass unit-test scenarios (docs/research/ge_behaviour.md
// §5.6), in SSA form. GE's FAILED / PARAM_INVALID cases (a transpose with 1 or
// 3 inputs, two outputs, a null node) cannot be written: the dialect's
// verifier rejects them.

// GE: TD(5HD->NHWC) -> TransposeD(NHWC->NCHW) -> TD(NCHW->5HD) is fused into
// `transpose1transdata2` reading the NHWC value (2 nodes left).
// CHECK-LABEL: ge.graph @transposed_between_transdata
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>, name = "transdata1"}
// CHECK-NEXT:    %b = ge.transdata %a {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, name = "transpose1transdata2", perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x17xf16, #ge.layout<NHWC>> -> tensor<1x17x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %b
ge.graph @transposed_between_transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x17xf16, #ge.layout<NHWC, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>, name = "transdata1"} : tensor<1x8x8x17xf16, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x8x8x17xf16, #ge.layout<NHWC>>
  %t = ge.transpose %a {perm = array<i64: 0, 3, 1, 2>, name = "transpose1"} : tensor<1x8x8x17xf16, #ge.layout<NHWC>> -> tensor<1x17x8x8xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, name = "transdata2"} : tensor<1x17x8x8xf16, #ge.layout<NCHW>> -> tensor<1x17x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x17x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: the Transpose version (perm from a Const input) fuses too. Here the
// other transpose op, `ge.permute` (GE's PermutePass makes it a TransposeD),
// with its `order`.
// CHECK-LABEL: ge.graph @permute_into_transdata
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %b = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>} : tensor<2x5x5x3xf32, #ge.layout<NHWC>> -> tensor<2x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %b
ge.graph @permute_into_transdata {
  %x = ge.data {index = 0 : i64} : tensor<2x5x5x3xf32, #ge.layout<NHWC>>
  %t = ge.permute %x {order = array<i64: 0, 3, 1, 2>} : tensor<2x5x5x3xf32, #ge.layout<NHWC>> -> tensor<2x3x5x5xf32, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x3x5x5xf32, #ge.layout<NCHW>> -> tensor<2x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<2x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: a transpose whose output format equals its input format is left alone
// (GE warns).
// CHECK-LABEL: ge.graph @no_transpose_same_format
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transdata %t
ge.graph @no_transpose_same_format {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf16, #ge.layout<NCHW>>
  %t = ge.transpose %x {perm = array<i64: 0, 1, 3, 2>} : tensor<1x3x4x5xf16, #ge.layout<NCHW>> -> tensor<1x3x5x4xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x5x4xf16, #ge.layout<NCHW>> -> tensor<1x3x5x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x3x5x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: an ND transpose input -> unchanged.
// CHECK-LABEL: ge.graph @no_transpose_nd_input
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transdata %t
ge.graph @no_transpose_nd_input {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf16>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x3xf16> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// GE: an unknown dim -> unchanged.
// CHECK-LABEL: ge.graph @no_transpose_unknown_dim
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transdata %t
ge.graph @no_transpose_unknown_dim {
  %x = ge.data {index = 0 : i64} : tensor<?x8x8x3xf16, #ge.layout<NHWC>>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<?x8x8x3xf16, #ge.layout<NHWC>> -> tensor<?x3x8x8xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<?x3x8x8xf16, #ge.layout<NCHW>> -> tensor<?x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<?x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
}
