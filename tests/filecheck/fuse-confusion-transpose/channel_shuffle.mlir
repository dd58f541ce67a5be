// RUN: ge-opt %s --split-input-file --fuse-confusion-transpose | filecheck %s

// ShuffleNet's channel shuffle between two NC1HWC0 values (reshape to
// [N, g, C/g, H, W], transpose (0, 2, 1, 3, 4), reshape back): one
// ge.channel_shuffle in NC1HWC0, the TransData round trip gone.
// CHECK-LABEL: ge.graph @channel_shuffle
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %s = ge.channel_shuffle %x {groups = 3 : i64, name = "rtb"} : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %s
ge.graph @channel_shuffle {
  %x = ge.data {index = 0 : i64} : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x24x3x3xf32, #ge.layout<NCHW>>
  %r = ge.reshape %a {shape = array<i64: 1, 3, 8, 3, 3>, name = "r"} : tensor<1x24x3x3xf32, #ge.layout<NCHW>> -> tensor<1x3x8x3x3xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>, name = "t"} : tensor<1x3x8x3x3xf32> -> tensor<1x8x3x3x3xf32>
  %b = ge.reshape %t {shape = array<i64: 1, 24, 3, 3>, name = "b"} : tensor<1x8x3x3x3xf32> -> tensor<1x24x3x3xf32, #ge.layout<NCHW>>
  %s = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x24x3x3xf32, #ge.layout<NCHW>> -> tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %s : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// 2 groups of 5 channels, C0 = 8: the shuffled channels pad the last C1
// block; the shuffle still moves each channel to its C1/C0 position.
// CHECK-LABEL: ge.graph @channel_shuffle_padded
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %s = ge.channel_shuffle %x {groups = 2 : i64} : tensor<2x10x2x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x10x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
ge.graph @channel_shuffle_padded {
  %x = ge.data {index = 0 : i64} : tensor<2x10x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<2x10x2x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x10x2x3xf32, #ge.layout<NCHW>>
  %r = ge.reshape %a {shape = array<i64: 2, 2, 5, 2, 3>} : tensor<2x10x2x3xf32, #ge.layout<NCHW>> -> tensor<2x2x5x2x3xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<2x2x5x2x3xf32> -> tensor<2x5x2x2x3xf32>
  %b = ge.reshape %t {shape = array<i64: 2, 10, 2, 3>} : tensor<2x5x2x2x3xf32> -> tensor<2x10x2x3xf32, #ge.layout<NCHW>>
  %s = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x10x2x3xf32, #ge.layout<NCHW>> -> tensor<2x10x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %s : tensor<2x10x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The transpose swaps H and W, not the groups: not a channel shuffle, no
// change.
// CHECK-LABEL: ge.graph @no_shuffle_other_transpose
// CHECK:         ge.transpose
// CHECK-NOT:     ge.channel_shuffle
ge.graph @no_shuffle_other_transpose {
  %x = ge.data {index = 0 : i64} : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x24x3x3xf32, #ge.layout<NCHW>>
  %r = ge.reshape %a {shape = array<i64: 1, 3, 8, 3, 3>} : tensor<1x24x3x3xf32, #ge.layout<NCHW>> -> tensor<1x3x8x3x3xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x3x8x3x3xf32> -> tensor<1x3x8x3x3xf32>
  %b = ge.reshape %t {shape = array<i64: 1, 24, 3, 3>} : tensor<1x3x8x3x3xf32> -> tensor<1x24x3x3xf32, #ge.layout<NCHW>>
  %s = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x24x3x3xf32, #ge.layout<NCHW>> -> tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %s : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The shuffle reads a value stored in its origin format (no TransData out of
// NC1HWC0 before it): nothing to fuse.
// CHECK-LABEL: ge.graph @no_shuffle_from_origin
// CHECK:         ge.reshape
// CHECK-NOT:     ge.channel_shuffle
ge.graph @no_shuffle_from_origin {
  %x = ge.data {index = 0 : i64} : tensor<1x24x3x3xf32, #ge.layout<NCHW>>
  %r = ge.reshape %x {shape = array<i64: 1, 3, 8, 3, 3>} : tensor<1x24x3x3xf32, #ge.layout<NCHW>> -> tensor<1x3x8x3x3xf32>
  %t = ge.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x3x8x3x3xf32> -> tensor<1x8x3x3x3xf32>
  %b = ge.reshape %t {shape = array<i64: 1, 24, 3, 3>} : tensor<1x8x3x3x3xf32> -> tensor<1x24x3x3xf32, #ge.layout<NCHW>>
  %s = ge.transdata %b {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x24x3x3xf32, #ge.layout<NCHW>> -> tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %s : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}
