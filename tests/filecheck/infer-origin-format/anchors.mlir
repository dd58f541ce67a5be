// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// What makes an anchor (research §1.1 steps 3-4): a data_format attribute,
// an explicit non-ND layout, a user storage format on a graph input, a
// Constant whose value carries a layout, and GE's refresh of an ND origin
// over a non-internal storage format.

// A ge.data's user storage_format that is an origin format means it; an
// internal one (NC1HWC0) says nothing about the origin.
// CHECK-LABEL: ge.graph @data_storage_format
// CHECK-NEXT:    %x = ge.data {index = 0 : i64, storage_format = #ge.format<NHWC>} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %y = ge.data {{.*}} storage_format = #ge.format<NC1HWC0>} : tensor<1x16x4x4xf16>
// CHECK-NEXT:    %r = ge.relu %x : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %n = ge.neg %y : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16>
ge.graph @data_storage_format {
  %x = ge.data {index = 0 : i64, storage_format = #ge.format<NHWC>} : tensor<1x4x4x3xf32>
  %y = ge.data {index = 1 : i64, storage_format = #ge.format<NC1HWC0>} : tensor<1x16x4x4xf16>
  %r = ge.relu %x : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  %n = ge.neg %y : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16>
  ge.netoutput %r, %n : tensor<1x4x4x3xf32>, tensor<1x16x4x4xf16>
}

// -----

// Constant refresh: a ge.const whose value is typed with a layout takes it.
// CHECK-LABEL: ge.graph @constant_refresh
// CHECK-NEXT:    %k = ge.const {{.*}} : tensor<1x2x2x2xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %n = ge.neg %k : {{.*}} -> tensor<1x2x2x2xf32, #ge.layout<NHWC>>
ge.graph @constant_refresh {
  %k = ge.const {value = dense<1.0> : tensor<1x2x2x2xf32, #ge.layout<NHWC>>} : tensor<1x2x2x2xf32>
  %n = ge.neg %k : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  ge.netoutput %n : tensor<1x2x2x2xf32>
}

// -----

// GE's anchor refresh: an ND origin over a non-internal storage format
// (here NCHW) takes the storage format as its origin.
// CHECK-LABEL: ge.graph @refresh_nd_origin
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %n = ge.neg %x : {{.*}} -> tensor<1x3x2x2xf32, #ge.layout<NCHW>>
ge.graph @refresh_nd_origin {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32, #ge.layout<ND, NCHW>>
  %n = ge.neg %x : tensor<1x3x2x2xf32, #ge.layout<ND, NCHW>> -> tensor<1x3x2x2xf32>
  ge.netoutput %n : tensor<1x3x2x2xf32>
}

// -----

// An explicit layout in the middle of a graph is its producer's output
// descriptor: the walk goes forward to the consumers. The producer is an
// anchor, and GE runs no rule on anchors, so its ND input stays ND.
// CHECK-LABEL: ge.graph @explicit_layout_anchor
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32>
// CHECK-NEXT:    %a = ge.abs %x : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %n = ge.neg %a : {{.*}} -> tensor<1x3x2x2xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %e = ge.exp %n : {{.*}} -> tensor<1x3x2x2xf32, #ge.layout<NHWC>>
ge.graph @explicit_layout_anchor {
  %x = ge.data {index = 0 : i64} : tensor<1x3x2x2xf32>
  %a = ge.abs %x : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.layout<NHWC>>
  %n = ge.neg %a : tensor<1x3x2x2xf32, #ge.layout<NHWC>> -> tensor<1x3x2x2xf32>
  %e = ge.exp %n : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32>
  ge.netoutput %e : tensor<1x3x2x2xf32>
}

// -----

// Ops with a data_format label their per-channel parameters too; a
// transposed convolution's filter is [Cin, Cout, kh, kw], labelled NCHW.
// CHECK-LABEL: ge.graph @data_format_parameters
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x2x2x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %g = ge.const {{.*}} : tensor<4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %i = ge.instance_norm %x, %g, %g {{.*}} -> tensor<1x2x2x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %w = ge.const {{.*}} : tensor<4x2x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %t = ge.conv2d_transpose %i, %w {{.*}} -> tensor<1x4x4x2xf32, #ge.layout<NHWC>>
ge.graph @data_format_parameters {
  %x = ge.data {index = 0 : i64} : tensor<1x2x2x4xf32>
  %g = ge.const {value = dense<1.0> : tensor<4xf32>} : tensor<4xf32>
  %i = ge.instance_norm %x, %g, %g {data_format = "NHWC"} : (tensor<1x2x2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x2x4xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x2x3x3xf32>} : tensor<4x2x3x3xf32>
  %t = ge.conv2d_transpose %i, %w {data_format = "NHWC"} : (tensor<1x2x2x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x2xf32>
  ge.netoutput %t : tensor<1x4x4x2xf32>
}
