// RUN: ge-opt %s --split-input-file --ge-format-pipeline=data-format=NCHW | filecheck %s
// RUN: ge-opt %s --split-input-file --ge-format-pipeline=data-format=NCHW | ge-opt --split-input-file --ge-format-pipeline=data-format=NCHW | filecheck %s

// The whole format flow (SPEC §4 steps 2-7) on the survey scenarios of
// research/layout_optimizers.md (b). Survey scenario 19 (idempotence): the
// second RUN line compiles the output again and must meet the same checks.
// Survey scenario 1: TransData(NCHW->5HD) then its inverse: nothing is left.
// CHECK-LABEL: ge.graph @survey_1_inverse_pair_cancels
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @survey_1_inverse_pair_cancels {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %b : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
}

// -----

// Survey scenario 1, variant: the intermediate value is also a graph output
// the user asked for in NC1HWC0 (`storage_formats`): it keeps that layout and
// only the inverse TransData goes (ORT: cost 12 -> 8, not 0).
// CHECK-LABEL: ge.graph @survey_1_intermediate_is_an_output
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    ge.netoutput %x, %a
ge.graph @survey_1_intermediate_is_an_output {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x4x4xf16, #ge.layout<NCHW>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.layout<NCHW>>
  ge.netoutput %b, %a : tensor<1x17x4x4xf16, #ge.layout<NCHW>>, tensor<1x17x4x4xf16, #ge.layout<NCHW, NC1HWC0>> {storage_formats = [#ge.format<ND>, #ge.format<NC1HWC0>]}
}

// -----

// Survey scenario 2: the transpose in front of the convolution and the
// TransData into NC1HWC0 become one TransData from NHWC.
// CHECK-LABEL: ge.graph @survey_2_transpose_into_conv
// CHECK-NEXT:    %x = ge.data
// CHECK-NOT:     ge.transpose
// CHECK:         %[[IN:.*]] = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x3xf16, #ge.layout<NHWC>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %c = ge.conv2d %[[IN]]
// CHECK-NEXT:    ge.transdata %c {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    ge.netoutput
ge.graph @survey_2_transpose_into_conv {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf16, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<4x3x3x3xf16>} : tensor<4x3x3x3xf16>
  %t = ge.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x3xf16, #ge.layout<NHWC>> -> tensor<1x3x8x8xf16>
  %c = ge.conv2d %t, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16>
  ge.netoutput %c : tensor<1x4x6x6xf16>
}

// -----

// Survey scenarios 3 and 4: conv -> relu -> conv needs exactly two data
// relayouts; the relu runs in NC1HWC0 and the weights are folded constants.
// CHECK-LABEL: ge.graph @survey_4_relu_between_convs
// CHECK:         ge.transdata %x
// CHECK-NOT:     ge.transdata
// CHECK:         %r = ge.relu %c : tensor<1x17x6x6xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NOT:     ge.transdata
// CHECK:         %d = ge.conv2d %r
// CHECK-NEXT:    ge.transdata %d
// CHECK-NEXT:    ge.netoutput
ge.graph @survey_4_relu_between_convs {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<0.25> : tensor<17x3x3x3xf32>} : tensor<17x3x3x3xf32>
  %v = ge.const {value = dense<0.125> : tensor<5x17x1x1xf32>} : tensor<5x17x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<17x3x3x3xf32>) -> tensor<1x17x6x6xf32>
  %r = ge.relu %c : tensor<1x17x6x6xf32> -> tensor<1x17x6x6xf32>
  %d = ge.conv2d %r, %v {data_format = "NCHW"} : (tensor<1x17x6x6xf32>, tensor<5x17x1x1xf32>) -> tensor<1x5x6x6xf32>
  ge.netoutput %d : tensor<1x5x6x6xf32>
}

// -----

// Survey scenario 9: a reduction over C of an NC1HWC0 value. The reduction has
// no NC1HWC0 kernel, so the value goes back to NCHW first: never wrong axes.
// CHECK-LABEL: ge.graph @survey_9_reduce_over_c
// CHECK:         %c = ge.conv2d
// CHECK-NEXT:    %[[BACK:.*]] = ge.transdata %c {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    ge.reduce_sum %[[BACK]] {axes = array<i64: 1>} : tensor<1x17x6x6xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.reduce_sum %[[BACK]] {axes = array<i64: 1>, keep_dims = false} : tensor<1x17x6x6xf16, #ge.layout<NCHW>>
ge.graph @survey_9_reduce_over_c {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %w = ge.const {value = dense<0.25> : tensor<17x3x3x3xf16>} : tensor<17x3x3x3xf16>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<17x3x3x3xf16>) -> tensor<1x17x6x6xf16>
  %s = ge.reduce_sum %c {axes = array<i64: 1>, keep_dims = true} : tensor<1x17x6x6xf16> -> tensor<1x1x6x6xf16>
  %m = ge.reduce_sum %c {axes = array<i64: 1>, keep_dims = false} : tensor<1x17x6x6xf16> -> tensor<1x6x6xf16>
  ge.netoutput %s, %m : tensor<1x1x6x6xf16>, tensor<1x6x6xf16>
}

// -----

// Survey scenario 10: concat along C stays in NC1HWC0 only if every piece's C
// is a multiple of C0 (16 for fp16): 17 + 32 channels go through NCHW, 32 +
// 32 do not.
// CHECK-LABEL: ge.graph @survey_10_concat_along_c
// CHECK:         %j = ge.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x17x6x6xf16, #ge.layout<NCHW>>, tensor<1x32x6x6xf16, #ge.layout<NCHW>>) -> tensor<1x49x6x6xf16, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.transdata %j {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    %k = ge.concat %b, %b {axis = 1 : i64} : (tensor<1x32x6x6xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x32x6x6xf16, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x64x6x6xf16, #ge.layout<NCHW, NC1HWC0>>
ge.graph @survey_10_concat_along_c {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %w = ge.const {value = dense<0.25> : tensor<17x3x3x3xf16>} : tensor<17x3x3x3xf16>
  %u = ge.const {value = dense<0.25> : tensor<32x3x3x3xf16>} : tensor<32x3x3x3xf16>
  %a = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<17x3x3x3xf16>) -> tensor<1x17x6x6xf16>
  %b = ge.conv2d %x, %u {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<32x3x3x3xf16>) -> tensor<1x32x6x6xf16>
  %j = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x17x6x6xf16>, tensor<1x32x6x6xf16>) -> tensor<1x49x6x6xf16>
  %k = ge.concat %b, %b {axis = 1 : i64} : (tensor<1x32x6x6xf16>, tensor<1x32x6x6xf16>) -> tensor<1x64x6x6xf16>
  %p = ge.max_pool %j {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x49x6x6xf16> -> tensor<1x49x3x3xf16>
  %q = ge.max_pool %k {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x64x6x6xf16> -> tensor<1x64x3x3xf16>
  ge.netoutput %p, %q : tensor<1x49x3x3xf16>, tensor<1x64x3x3xf16>
}

// -----

// Survey scenario 11: a pad on C keeps its TransData; a pad on H and W only
// runs in NC1HWC0 (GE's PadD takes NC1HWC0 when C is not padded), so the
// conv's result feeds it with no TransData.
// CHECK-LABEL: ge.graph @survey_11_pad
// CHECK:         %[[BACK:.*]] = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK:         %p = ge.pad %a {{.*}} : tensor<1x16x6x6xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK:         %q = ge.pad %[[BACK]] {{.*}} : tensor<1x16x6x6xf16, #ge.layout<NCHW>> -> tensor<1x19x6x6xf16, #ge.layout<NCHW>>
ge.graph @survey_11_pad {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %w = ge.const {value = dense<0.25> : tensor<16x3x3x3xf16>} : tensor<16x3x3x3xf16>
  %a = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x6x6xf16>
  %p = ge.pad %a {paddings = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x16x6x6xf16> -> tensor<1x16x8x8xf16>
  %q = ge.pad %a {paddings = array<i64: 0, 1, 0, 0, 0, 2, 0, 0>} : tensor<1x16x6x6xf16> -> tensor<1x19x6x6xf16>
  %m = ge.max_pool %p {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x16x8x8xf16> -> tensor<1x16x4x4xf16>
  %n = ge.max_pool %q {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x19x6x6xf16> -> tensor<1x19x3x3xf16>
  ge.netoutput %m, %n : tensor<1x16x4x4xf16>, tensor<1x19x3x3xf16>
}

// -----

// Survey scenario 12: a reshape of an NC1HWC0 value, whether it only drops
// size-1 dims or splits C, reads the NCHW value (one shared TransData back).
// CHECK-LABEL: ge.graph @survey_12_reshape
// CHECK:         %[[BACK:.*]] = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    %r = ge.reshape %[[BACK]]
// CHECK-NEXT:    %s = ge.reshape %[[BACK]]
ge.graph @survey_12_reshape {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %w = ge.const {value = dense<0.25> : tensor<16x3x8x8xf16>} : tensor<16x3x8x8xf16>
  %a = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<16x3x8x8xf16>) -> tensor<1x16x1x1xf16>
  %r = ge.reshape %a {shape = array<i64: 1, 16>} : tensor<1x16x1x1xf16> -> tensor<1x16xf16>
  %s = ge.reshape %a {shape = array<i64: 1, 4, 2, 2>} : tensor<1x16x1x1xf16> -> tensor<1x4x2x2xf16>
  ge.netoutput %r, %s : tensor<1x16xf16>, tensor<1x4x2x2xf16>
}

// -----

// Survey scenario 14: the heavy-format spread first puts the mul in NC1HWC0,
// which costs a TransData for the other input and one back; sink-trans-ops
// moves it back to NCHW (3 -> 2 runtime TransData): push only when something
// cancels.
// CHECK-LABEL: ge.graph @survey_14_mul_by_runtime_value
// CHECK-COUNT-1: ge.transdata %x
// CHECK:         %a = ge.conv2d
// CHECK-NEXT:    %[[BACK:.*]] = ge.transdata %a
// CHECK-NEXT:    %m = ge.mul %[[BACK]], %y : (tensor<1x16x6x6xf16, #ge.layout<NCHW>>, tensor<1x16x6x6xf16, #ge.layout<NCHW>>)
// CHECK-NEXT:    ge.netoutput %m
ge.graph @survey_14_mul_by_runtime_value {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %y = ge.data {index = 1 : i64} : tensor<1x16x6x6xf16>
  %w = ge.const {value = dense<0.25> : tensor<16x3x3x3xf16>} : tensor<16x3x3x3xf16>
  %a = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x6x6xf16>
  %m = ge.mul %a, %y : (tensor<1x16x6x6xf16>, tensor<1x16x6x6xf16>) -> tensor<1x16x6x6xf16>
  ge.netoutput %m : tensor<1x16x6x6xf16>
}

// -----

// Survey scenario 17: an op without an NC1HWC0 rule (gather along C) keeps
// the TransData around it, and nothing crashes.
// CHECK-LABEL: ge.graph @survey_17_op_without_format_rule
// CHECK:         %[[BACK:.*]] = ge.transdata %a {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    %g = ge.gather %[[BACK]]
// CHECK-NEXT:    ge.transdata %g {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
ge.graph @survey_17_op_without_format_rule {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16>
  %w = ge.const {value = dense<0.25> : tensor<16x3x3x3xf16>} : tensor<16x3x3x3xf16>
  %i = ge.const {value = dense<[0, 2]> : tensor<2xi32>} : tensor<2xi32>
  %a = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x6x6xf16>
  %g = ge.gather %a, %i {axis = 1 : i64} : (tensor<1x16x6x6xf16>, tensor<2xi32>) -> tensor<1x2x6x6xf16>
  %p = ge.max_pool %g {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x2x6x6xf16> -> tensor<1x2x3x3xf16>
  ge.netoutput %p : tensor<1x2x3x3xf16>
}

// -----

// Survey scenario 18: a FRACTAL_NZ matmul followed by an elementwise op: the
// relu runs in FRACTAL_NZ and a single TransData unpacks at the output.
// CHECK-LABEL: ge.graph @survey_18_fractal_nz_matmul
// CHECK:         %m = ge.matmul
// CHECK-NEXT:    %r = ge.relu %m : tensor<17x20xf16, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %[[OUT:.*]] = ge.transdata %r {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>}
// CHECK-NEXT:    ge.netoutput %[[OUT]]
ge.graph @survey_18_fractal_nz_matmul {
  %x = ge.data {index = 0 : i64} : tensor<17x33xf16>
  %w = ge.const {value = dense<0.25> : tensor<33x20xf16>} : tensor<33x20xf16>
  %m = ge.matmul %x, %w : (tensor<17x33xf16>, tensor<33x20xf16>) -> tensor<17x20xf16>
  %r = ge.relu %m : tensor<17x20xf16> -> tensor<17x20xf16>
  ge.netoutput %r : tensor<17x20xf16>
}
