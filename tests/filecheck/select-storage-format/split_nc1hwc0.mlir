// RUN: ge-opt %s --split-input-file --select-storage-format | filecheck %s

// YOLOv8's C2f splits a conv's NC1HWC0 result in two halves along C: each
// half is whole C0 blocks (8 for f32 on the default target), so the split
// runs in NC1HWC0 and both halves feed the next convs without a relayout
// (SplitOp.accepts_layouts).
// CHECK-LABEL: ge.graph @split_channel_blocks
// CHECK:         %a, %b = ge.split %c {axis = 1 : i64, sizes = array<i64: 8, 8>} : (tensor<1x16x6x6xf32, #ge.layout<NCHW, NC1HWC0>>) -> (tensor<1x8x6x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x8x6x6xf32, #ge.layout<NCHW, NC1HWC0>>)
ge.graph @split_channel_blocks {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<16x3x3x3xf32>} : tensor<16x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<16x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x16x6x6xf32, #ge.layout<NCHW>>
  %a, %b = ge.split %c {axis = 1 : i64, sizes = array<i64: 8, 8>} : (tensor<1x16x6x6xf32, #ge.layout<NCHW>>) -> (tensor<1x8x6x6xf32, #ge.layout<NCHW>>, tensor<1x8x6x6xf32, #ge.layout<NCHW>>)
  ge.netoutput %a, %b : tensor<1x8x6x6xf32, #ge.layout<NCHW>>, tensor<1x8x6x6xf32, #ge.layout<NCHW>>
}

// -----

// Along H any split moves whole channel blocks.
// CHECK-LABEL: ge.graph @split_height
// CHECK:         %a, %b = ge.split %c {axis = 2 : i64, sizes = array<i64: 2, 4>} : (tensor<1x5x6x6xf32, #ge.layout<NCHW, NC1HWC0>>) -> (tensor<1x5x2x6xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x5x4x6xf32, #ge.layout<NCHW, NC1HWC0>>)
ge.graph @split_height {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<5x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x5x6x6xf32, #ge.layout<NCHW>>
  %a, %b = ge.split %c {axis = 2 : i64, sizes = array<i64: 2, 4>} : (tensor<1x5x6x6xf32, #ge.layout<NCHW>>) -> (tensor<1x5x2x6xf32, #ge.layout<NCHW>>, tensor<1x5x4x6xf32, #ge.layout<NCHW>>)
  ge.netoutput %a, %b : tensor<1x5x2x6xf32, #ge.layout<NCHW>>, tensor<1x5x4x6xf32, #ge.layout<NCHW>>
}

// -----

// Channels 12 + 4 cut a C0 block of 8: the split stays in origin format.
// CHECK-LABEL: ge.graph @no_split_inside_a_channel_block
// CHECK:         %a, %b = ge.split %c {axis = 1 : i64, sizes = array<i64: 12, 4>, input_layouts = [#ge.layout<NCHW>]} : (tensor<1x16x6x6xf32, #ge.layout<NCHW, NC1HWC0>>) -> (tensor<1x12x6x6xf32, #ge.layout<NCHW>>, tensor<1x4x6x6xf32, #ge.layout<NCHW>>)
ge.graph @no_split_inside_a_channel_block {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<0.5> : tensor<16x3x3x3xf32>} : tensor<16x3x3x3xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<16x3x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x16x6x6xf32, #ge.layout<NCHW>>
  %a, %b = ge.split %c {axis = 1 : i64, sizes = array<i64: 12, 4>} : (tensor<1x16x6x6xf32, #ge.layout<NCHW>>) -> (tensor<1x12x6x6xf32, #ge.layout<NCHW>>, tensor<1x4x6x6xf32, #ge.layout<NCHW>>)
  ge.netoutput %a, %b : tensor<1x12x6x6xf32, #ge.layout<NCHW>>, tensor<1x4x6x6xf32, #ge.layout<NCHW>>
}
