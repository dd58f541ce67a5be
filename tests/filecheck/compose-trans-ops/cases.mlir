// RUN: ge-opt %s --split-input-file --compose-trans-ops | filecheck %s

// Two transposes compose into one (ONNX Runtime's ComposePerm).
// CHECK-LABEL: ge.graph @compose_two_transposes
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %b = ge.transpose %x {perm = array<i64: 0, 1, 3, 2>} : tensor<1x3x4x5xf32> -> tensor<1x3x5x4xf32>
// CHECK-NEXT:    ge.netoutput %b
ge.graph @compose_two_transposes {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 3, 2, 1>} : tensor<1x4x5x3xf32> -> tensor<1x3x5x4xf32>
  ge.netoutput %b : tensor<1x3x5x4xf32>
}

// -----

// Three rotations of a rank-3 tensor compose to the identity: nothing is left.
// CHECK-LABEL: ge.graph @compose_to_identity
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @compose_to_identity {
  %x = ge.data {index = 0 : i64} : tensor<2x3x17xf16>
  %a = ge.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x17xf16> -> tensor<3x17x2xf16>
  %b = ge.transpose %a {perm = array<i64: 1, 2, 0>} : tensor<3x17x2xf16> -> tensor<17x2x3xf16>
  %c = ge.permute %b {order = array<i64: 1, 2, 0>} : tensor<17x2x3xf16> -> tensor<2x3x17xf16>
  ge.netoutput %c : tensor<2x3x17xf16>
}

// -----

// The first transpose has another user: merging would not remove it.
// CHECK-LABEL: ge.graph @no_compose_shared_transpose
// CHECK:         %a = ge.transpose %x
// CHECK-NEXT:    %b = ge.transpose %a
ge.graph @no_compose_shared_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x4x5xf32> -> tensor<1x4x5x3xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 3, 2, 1>} : tensor<1x4x5x3xf32> -> tensor<1x3x5x4xf32>
  ge.netoutput %a, %b : tensor<1x4x5x3xf32>, tensor<1x3x5x4xf32>
}

// -----

// TransData out of NC1HWC0 then a format transpose: one TransData to the
// transpose's layout (5HD -> NHWC directly).
// CHECK-LABEL: ge.graph @compose_transdata_then_transpose
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %t = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NHWC>, perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC>>
// CHECK-NEXT:    ge.netoutput %t
ge.graph @compose_transdata_then_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x3xf16, #ge.layout<NCHW>>
  %t = ge.transpose %p {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf16, #ge.layout<NCHW>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC>>
  ge.netoutput %t : tensor<1x2x3x17xf16, #ge.layout<NHWC>>
}

// -----

// Transpose then TransData (GE's transpose-transdata fusion, part of the
// composition), and a transpose pair: a chain of three relayouts becomes one.
// CHECK-LABEL: ge.graph @compose_chain_into_one_transdata
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %d = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>} : tensor<1x2x3x33xf32, #ge.layout<NHWC>> -> tensor<1x33x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %d
ge.graph @compose_chain_into_one_transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x33xf32, #ge.layout<NHWC>>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x3x33xf32, #ge.layout<NHWC>> -> tensor<1x3x2x33xf32>
  %b = ge.transpose %a {perm = array<i64: 0, 3, 2, 1>} : tensor<1x3x2x33xf32> -> tensor<1x33x2x3xf32, #ge.layout<NCHW>>
  %d = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x33x2x3xf32, #ge.layout<NCHW>> -> tensor<1x33x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %d : tensor<1x33x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The TransData result has another user: folding would not remove it.
// CHECK-LABEL: ge.graph @no_compose_shared_transdata
// CHECK:         %p = ge.transdata %x
// CHECK-NEXT:    %t = ge.transpose %p
ge.graph @no_compose_shared_transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x3xf16, #ge.layout<NCHW>>
  %t = ge.transpose %p {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf16, #ge.layout<NCHW>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC>>
  ge.netoutput %p, %t : tensor<1x17x2x3xf16, #ge.layout<NCHW>>, tensor<1x2x3x17xf16, #ge.layout<NHWC>>
}

// -----

// The transpose after the TransData is not a format change (it swaps H and
// W of an NCHW value): no single TransData does both.
// CHECK-LABEL: ge.graph @no_compose_transdata_then_spatial_transpose
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.transpose
ge.graph @no_compose_transdata_then_spatial_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %p = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x3xf16, #ge.layout<NCHW>>
  %t = ge.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x17x2x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x2xf16, #ge.layout<NCHW>>
  ge.netoutput %t : tensor<1x17x3x2xf16, #ge.layout<NCHW>>
}

// -----

// FRACTAL_NZ is not derived from NHWC: TransData(NZ -> NCHW) and a transpose
// to NHWC stay two ops.
// CHECK-LABEL: ge.graph @no_compose_unsupported_transdata
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.transpose
ge.graph @no_compose_unsupported_transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x3xf16, #ge.layout<NCHW, FRACTAL_NZ>>
  %p = ge.transdata %x {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x3xf16, #ge.layout<NCHW, FRACTAL_NZ>> -> tensor<1x17x2x3xf16, #ge.layout<NCHW>>
  %t = ge.transpose %p {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x2x3xf16, #ge.layout<NCHW>> -> tensor<1x2x3x17xf16, #ge.layout<NHWC>>
  ge.netoutput %t : tensor<1x2x3x17xf16, #ge.layout<NHWC>>
}
