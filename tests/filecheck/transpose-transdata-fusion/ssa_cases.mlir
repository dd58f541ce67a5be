// RUN: ge-opt %s --split-input-file --transpose-transdata-fusion | filecheck %s

// Survey scenario 2 (docs/research/layout_optimizers.md (b)): Transpose(NHWC->NCHW)
// then TransData(NCHW->5HD) is a single TransData(NHWC->5HD), MLIR's pack with
// outer_dims_perm [0, 3, 1, 2]. 33 channels: C0 = 16 pads them to 48.
// CHECK-LABEL: ge.graph @survey_2_transpose_then_transdata
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %b = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>} : tensor<1x6x7x33xf16, #ge.layout<NHWC>> -> tensor<1x33x6x7xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %b
ge.graph @survey_2_transpose_then_transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x6x7x33xf16, #ge.layout<NHWC>>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x6x7x33xf16, #ge.layout<NHWC>> -> tensor<1x33x6x7xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x33x6x7xf16, #ge.layout<NCHW>> -> tensor<1x33x6x7xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x33x6x7xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A weight: HWCN -> NCHW transpose, then FRACTAL_Z. FRACTAL_Z is packed from
// HWCN directly, so one TransData does both.
// CHECK-LABEL: ge.graph @hwcn_transpose_into_fractal_z
// CHECK-NEXT:    %w = ge.data
// CHECK-NEXT:    %f = ge.transdata %w {src_format = #ge.format<HWCN>, dst_format = #ge.format<FRACTAL_Z>, perm = array<i64: 3, 2, 0, 1>} : tensor<3x3x17x5xf16, #ge.layout<HWCN>> -> tensor<5x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    ge.netoutput %f
ge.graph @hwcn_transpose_into_fractal_z {
  %w = ge.data {index = 0 : i64} : tensor<3x3x17x5xf16, #ge.layout<HWCN>>
  %t = ge.transpose %w {perm = array<i64: 3, 2, 0, 1>} : tensor<3x3x17x5xf16, #ge.layout<HWCN>> -> tensor<5x17x3x3xf16, #ge.layout<NCHW>>
  %f = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<5x17x3x3xf16, #ge.layout<NCHW>> -> tensor<5x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
  ge.netoutput %f : tensor<5x17x3x3xf16, #ge.layout<NCHW, FRACTAL_Z>>
}

// -----

// Each TransData consumer fuses on its own; the transpose stays for its other
// user.
// CHECK-LABEL: ge.graph @transpose_with_other_users
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %t = ge.transpose %x
// CHECK-NEXT:    %b = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %c = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %r = ge.relu %t
ge.graph @transpose_with_other_users {
  %x = ge.data {index = 0 : i64} : tensor<1x2x2x3xf32, #ge.layout<NHWC>>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x2x2x3xf32, #ge.layout<NHWC>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %t : tensor<1x3x2x2xf32, #ge.layout<NCHW>> -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
  ge.netoutput %b, %c, %r : tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x2x2xf32, #ge.layout<NCHW>>
}

// -----

// No TransData turns NHWC into FRACTAL_NZ directly (NZ tiles the last two
// dims, which the transpose moves).
// CHECK-LABEL: ge.graph @no_transpose_into_unsupported_transdata
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transdata %t
ge.graph @no_transpose_into_unsupported_transdata {
  %x = ge.data {index = 0 : i64} : tensor<1x4x5x17xf16, #ge.layout<NHWC>>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x5x17xf16, #ge.layout<NHWC>> -> tensor<1x17x4x5xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<1x17x4x5xf16, #ge.layout<NCHW>> -> tensor<1x17x4x5xf16, #ge.layout<NCHW, FRACTAL_NZ>>
  ge.netoutput %b : tensor<1x17x4x5xf16, #ge.layout<NCHW, FRACTAL_NZ>>
}

// -----

// The formats say NHWC -> NCHW but the perm swaps W and C in another way:
// the transpose is not the format change, so it cannot hide in a TransData.
// CHECK-LABEL: ge.graph @no_transpose_perm_is_not_the_format_change
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transdata %t
ge.graph @no_transpose_perm_is_not_the_format_change {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf16, #ge.layout<NHWC>>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 2, 1>} : tensor<1x4x4x3xf16, #ge.layout<NHWC>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf16, #ge.layout<NCHW>> -> tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x3x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The transpose reads NC1HWC0 data (its running format is internal): GE's
// TransData from the transpose's input format would be 5HD -> 5HD of another
// tensor; left alone.
// CHECK-LABEL: ge.graph @no_transpose_of_internal_data
// CHECK:         ge.transpose
// CHECK-NEXT:    ge.transdata %t
ge.graph @no_transpose_of_internal_data {
  %x = ge.data {index = 0 : i64} : tensor<1x4x5x3xf16, #ge.layout<NHWC, NC1HWC0>>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x5x3xf16, #ge.layout<NHWC, NC1HWC0>> -> tensor<1x3x4x5xf16, #ge.layout<NCHW>>
  %b = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x5xf16, #ge.layout<NCHW>> -> tensor<1x3x4x5xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x3x4x5xf16, #ge.layout<NCHW, NC1HWC0>>
}
