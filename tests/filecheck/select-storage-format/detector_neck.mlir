// RUN: ge-opt %s --split-input-file --select-storage-format | filecheck %s

// A detector neck: a conv's NC1HWC0 result upsampled x2 (C keeps its size)
// and concatenated with a finer map along C: the resize runs in NC1HWC0
// (ResizeOp.accepts_layouts), so does the concat.
// CHECK-LABEL: ge.graph @upsample_concat
// CHECK:         %u = ge.resize %c {{{.*}}} : tensor<1x16x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x8x8xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %j = ge.concat %u, %f {axis = 1 : i64} : (tensor<1x16x8x8xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x16x8x8xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x32x8x8xf32, #ge.layout<NCHW, NC1HWC0>>
ge.graph @upsample_concat {
  %x = ge.data {index = 0 : i64} : tensor<1x3x6x6xf32, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<1x3x10x10xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<16x3x3x3xf32>} : tensor<16x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x6x6xf32, #ge.layout<NCHW>>, tensor<16x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  %f = ge.conv2d %y, %w {data_format = "NCHW"} : (tensor<1x3x10x10xf32, #ge.layout<NCHW>>, tensor<16x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x16x8x8xf32, #ge.layout<NCHW>>
  %u = ge.resize %c {sizes = array<i64: 1, 16, 8, 8>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest"} : tensor<1x16x4x4xf32, #ge.layout<NCHW>> -> tensor<1x16x8x8xf32, #ge.layout<NCHW>>
  %j = ge.concat %u, %f {axis = 1 : i64} : (tensor<1x16x8x8xf32, #ge.layout<NCHW>>, tensor<1x16x8x8xf32, #ge.layout<NCHW>>) -> tensor<1x32x8x8xf32, #ge.layout<NCHW>>
  ge.netoutput %j : tensor<1x32x8x8xf32, #ge.layout<NCHW>>
}

// -----

// A resize of C itself mixes channel blocks: origin format.
// CHECK-LABEL: ge.graph @no_resize_nc1hwc0_of_channels
// CHECK:         %u = ge.resize %c {{{.*}}input_layouts = [#ge.layout<NCHW>]} : tensor<1x16x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x32x4x4xf32, #ge.layout<NCHW>>
ge.graph @no_resize_nc1hwc0_of_channels {
  %x = ge.data {index = 0 : i64} : tensor<1x3x6x6xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<16x3x3x3xf32>} : tensor<16x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x6x6xf32, #ge.layout<NCHW>>, tensor<16x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x16x4x4xf32, #ge.layout<NCHW>>
  %u = ge.resize %c {sizes = array<i64: 1, 32, 4, 4>, scales = array<f32: 1.0, 2.0, 1.0, 1.0>, mode = "nearest"} : tensor<1x16x4x4xf32, #ge.layout<NCHW>> -> tensor<1x32x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %u : tensor<1x32x4x4xf32, #ge.layout<NCHW>>
}

// -----

// The spread moves a producer back into FRACTAL_NZ when every user reads
// it so: a LayerNorm's last add feeding the Q and K products.
// CHECK-LABEL: ge.graph @producer_of_several_products
// CHECK:         %n = ge.add %x, %b {{.*}}-> tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
ge.graph @producer_of_several_products {
  %x = ge.data {index = 0 : i64} : tensor<2x16xf32>
  %b = ge.const {value = dense<0.5> : tensor<16xf32>} : tensor<16xf32>
  %w = ge.const {value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %n = ge.add %x, %b : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %q = ge.matmul %n, %w : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  %k = ge.matmul %n, %w : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  ge.netoutput %q, %k : tensor<2x16xf32>, tensor<2x16xf32>
}

// -----

// One user (the graph output) reads the origin layout: the producer stays.
// CHECK-LABEL: ge.graph @no_spread_back_past_an_origin_reader
// CHECK:         %n = ge.add %x, %b : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
ge.graph @no_spread_back_past_an_origin_reader {
  %x = ge.data {index = 0 : i64} : tensor<2x16xf32>
  %b = ge.const {value = dense<0.5> : tensor<16xf32>} : tensor<16xf32>
  %w = ge.const {value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %n = ge.add %x, %b : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %q = ge.matmul %n, %w : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  ge.netoutput %q, %n : tensor<2x16xf32>, tensor<2x16xf32>
}
