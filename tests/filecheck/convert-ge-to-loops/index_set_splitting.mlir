// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// A concat's second input starts at channel 17 (C0 = 8): channel 17 + c is
// block 2 + c1, lane c0 + 1 for c0 < 7 and block 3 + c1, lane 0 for c0 = 7,
// so the copy is cut there into nests with affine stores.

// CHECK-LABEL: func.func @concat_at_a_misaligned_channel(
// CHECK-SAME:      %[[A:.*]]: memref<1x3x2x3x8xf32> {ge.input = 0 : i64},
// CHECK-SAME:      %[[B:.*]]: memref<1x3x2x3x8xf32> {ge.input = 1 : i64})
// CHECK-NOT:     floordiv
// CHECK-NOT:     mod
// CHECK:         affine.for %{{.*}} = 0 to 7 {
// CHECK-NEXT:      %[[V:.*]] = affine.load %[[B]][0, %[[C1:.*]], %{{.*}}, %{{.*}}, %[[C0:.*]]]
// CHECK-NEXT:      affine.store %[[V]], %{{.*}}[0, %[[C1]] + 2, %{{.*}}, %{{.*}}, %[[C0]] + 1]
// CHECK:         %[[W:.*]] = affine.load %[[B]][0, %[[D1:.*]], %{{.*}}, %{{.*}}, 7]
// CHECK-NEXT:    affine.store %[[W]], %{{.*}}[0, %[[D1]] + 3, %{{.*}}, %{{.*}}, 0]
// CHECK:         affine.load %[[B]][0, 2, %{{.*}}, %{{.*}}, 0]
// CHECK-NEXT:    affine.store %{{.*}}, %{{.*}}[0, 4, %{{.*}}, %{{.*}}, 1]
// CHECK-NOT:     floordiv
// CHECK-NOT:     mod
// CHECK:         func.return
ge.graph @concat_at_a_misaligned_channel {
  %a = ge.data {index = 0 : i64} : tensor<1x17x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.data {index = 1 : i64} : tensor<1x17x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x17x2x3xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x17x2x3xf32, #ge.layout<NCHW, NC1HWC0>>) -> tensor<1x34x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x34x2x3xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A 1x1 convolution in 2 groups of 12 channels (C0 = 8): a group starts
// inside a block (channel 12 * g + i), so its group and input-channel loops
// stay whole and read through floordiv/mod (`Reduction.gathered`: no nest
// per group and block crossed); its output channels are one nest per block
// shape counted from each group's start (8 lanes, then 4).

// CHECK-LABEL: func.func @grouped_conv_at_misaligned_channels(
// CHECK:         affine.for %[[G:.*]] = 0 to 2 {
// CHECK:         affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 12 {
// CHECK-NEXT:        affine.load %{{.*}}[0, (%[[G]] * 12 + %[[I]]) floordiv 8, %{{.*}}, %{{.*}}, (%[[G]] * 12 + %[[I]]) mod 8]
// CHECK:         affine.for %[[G2:.*]] = 0 to 2 {
// CHECK:         affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 12 {
// CHECK:             affine.store %{{.*}}, %{{.*}}[0, (%[[G2]] * 12 + %[[O]]) floordiv 8 + 1, %{{.*}}, %{{.*}}, (%[[G2]] * 12 + %[[O]]) mod 8]
// CHECK-NOT:     affine.for
// CHECK:         func.return
ge.graph @grouped_conv_at_misaligned_channels {
  %x = ge.data {index = 0 : i64} : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = #ge.external<"conv.w">} : tensor<24x12x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %y = ge.conv2d %x, %w {data_format = "NCHW", groups = 2 : i64} : (tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<24x12x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x24x3x3xf32, #ge.layout<NCHW, NC1HWC0>>
}
