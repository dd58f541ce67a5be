// RUN: ge-opt %s --split-input-file --infer-origin-format --refine-running-format --select-storage-format | filecheck %s

// A 3-D convolution takes GE's 3-D formats: NDC1HWC0 activations and a
// FRACTAL_Z_3D filter (its bias stays in origin format); the graph's input
// and output keep NCDHW.

// CHECK-LABEL: ge.graph @conv3d
// CHECK:         %y = ge.conv3d %x, %w, %b {{{.*}}input_layouts = [#ge.layout<NCDHW, NDC1HWC0>, #ge.layout<NCDHW, FRACTAL_Z_3D>, #ge.layout<NCDHW>]} : {{.*}} -> tensor<1x17x4x7x6xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    ge.netoutput %y : {{.*}} {input_layouts = [#ge.layout<NCDHW>]}
ge.graph @conv3d {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf16>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf16>
  %b = ge.data {index = 2 : i64} : tensor<17xf16>
  %y = ge.conv3d %x, %w, %b {data_format = "NCDHW", pads = array<i64: 1, 1, 0, 1, 1, 1>} : (tensor<1x5x4x7x6xf16>, tensor<17x5x3x2x3xf16>, tensor<17xf16>) -> tensor<1x17x4x7x6xf16>
  ge.netoutput %y : tensor<1x17x4x7x6xf16>
}

// -----

// 3-D pools take NDC1HWC0 (GE's MaxPool3D and AvgPool3D read it), from
// either data format, 17 channels leaving the last C0 block partly padded;
// a pool after the convolution reads its NDC1HWC0 result in place.

// CHECK-LABEL: ge.graph @pool3d
// CHECK:         %m = ge.max_pool3d %x {{{.*}}input_layouts = [#ge.layout<NCDHW, NDC1HWC0>]} : {{.*}} -> tensor<1x17x3x3x4xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    %a = ge.avg_pool3d %v {{{.*}}input_layouts = [#ge.layout<NDHWC, NDC1HWC0>]} : {{.*}} -> tensor<2x5x5x7x17xf32, #ge.layout<NDHWC, NDC1HWC0>>
// CHECK-NEXT:    ge.netoutput %m, %a : {{.*}} {input_layouts = [#ge.layout<NCDHW>, #ge.layout<NDHWC>]}
ge.graph @pool3d {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x6x7xf16>
  %v = ge.data {index = 1 : i64} : tensor<2x5x4x7x17xf32>
  %m = ge.max_pool3d %x {data_format = "NCDHW", ksize = array<i64: 1, 1, 2, 3, 2>, strides = array<i64: 1, 1, 2, 1, 2>, pads = array<i64: 1, 0, 1, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 2, 1>, ceil_mode = true} : tensor<1x17x5x6x7xf16> -> tensor<1x17x3x3x4xf16>
  %a = ge.avg_pool3d %v {data_format = "NDHWC", ksize = array<i64: 1, 3, 2, 3, 1>, pads = array<i64: 1, 1, 1, 1, 0, 2>, count_include_pad = true} : tensor<2x5x4x7x17xf32> -> tensor<2x5x5x7x17xf32>
  ge.netoutput %m, %a : tensor<1x17x3x3x4xf16>, tensor<2x5x5x7x17xf32>
}

// -----

// CHECK-LABEL: ge.graph @conv3d_then_pool3d
// CHECK:         %y = ge.conv3d {{.*}} -> tensor<1x17x4x7x6xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    %p = ge.max_pool3d %y {{{.*}}} : tensor<1x17x4x7x6xf16, #ge.layout<NCDHW, NDC1HWC0>> -> tensor<1x17x2x3x3xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    ge.netoutput %p : {{.*}} {input_layouts = [#ge.layout<NCDHW>]}
ge.graph @conv3d_then_pool3d {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf16>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf16>
  %y = ge.conv3d %x, %w {data_format = "NCDHW", pads = array<i64: 1, 1, 0, 1, 1, 1>} : (tensor<1x5x4x7x6xf16>, tensor<17x5x3x2x3xf16>) -> tensor<1x17x4x7x6xf16>
  %p = ge.max_pool3d %y {data_format = "NCDHW", ksize = array<i64: 1, 1, 2, 2, 2>, strides = array<i64: 1, 1, 2, 2, 2>} : tensor<1x17x4x7x6xf16> -> tensor<1x17x2x3x3xf16>
  ge.netoutput %p : tensor<1x17x2x3x3xf16>
}

// -----

// A 3-D transposed convolution is laid out like conv3d: NDC1HWC0
// activations, a FRACTAL_Z_3D filter, the bias in origin format.

// CHECK-LABEL: ge.graph @conv3d_transpose
// CHECK:         %y = ge.conv3d_transpose %x, %w, %b {{{.*}}input_layouts = [#ge.layout<NCDHW, NDC1HWC0>, #ge.layout<NCDHW, FRACTAL_Z_3D>, #ge.layout<NCDHW>]} : {{.*}} -> tensor<2x17x7x4x7xf16, #ge.layout<NCDHW, NDC1HWC0>>
// CHECK-NEXT:    ge.netoutput %y : {{.*}} {input_layouts = [#ge.layout<NCDHW>]}
ge.graph @conv3d_transpose {
  %x = ge.data {index = 0 : i64} : tensor<2x3x3x4x3xf16>
  %w = ge.data {index = 1 : i64} : tensor<3x17x3x2x3xf16>
  %b = ge.data {index = 2 : i64} : tensor<17xf16>
  %y = ge.conv3d_transpose %x, %w, %b {data_format = "NCDHW", strides = array<i64: 1, 1, 2, 1, 2>, pads = array<i64: 1, 0, 1, 0, 1, 0>, output_padding = array<i64: 1, 0, 1>} : (tensor<2x3x3x4x3xf16>, tensor<3x17x3x2x3xf16>, tensor<17xf16>) -> tensor<2x17x7x4x7xf16>
  ge.netoutput %y : tensor<2x17x7x4x7xf16>
}
