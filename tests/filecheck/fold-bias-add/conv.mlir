// RUN: ge-opt %s --split-input-file --fold-bias-add 2>/dev/null | filecheck %s
// RUN: ge-opt %s --split-input-file --fold-bias-add 2>&1 >/dev/null | filecheck %s --check-prefix=LOG
// RUN: ge-opt %s --split-input-file --fold-bias-add=disable=ConvBiasAddFold 2>/dev/null | filecheck %s --check-prefix=OFF

// ConvBiasAddFold: conv(x, w[, b]) + d per output channel becomes
// conv(x, w, b + d).

// TensorFlow's Conv2D -> BiasAdd (NHWC, HWCN filter, no bias yet): the
// BiasAdd's bias becomes the convolution's.
// CHECK-LABEL: ge.graph @conv_bias_add_nhwc
// CHECK:         %[[B:.*]] = ge.const {value = dense<[1.000000e+00, -2.000000e+00, 5.000000e-01]> : tensor<3xf32>, name = "conv/bias"}
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %x, %w, %[[B]] {data_format = "NHWC", name = "conv+bias"}
// CHECK-NEXT:    ge.relu %[[C]]
// CHECK-NOT:     ge.bias_add
// OFF-LABEL: ge.graph @conv_bias_add_nhwc
// OFF:         ge.bias_add
ge.graph @conv_bias_add_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x2xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x2x3xf32>} : tensor<1x1x2x3xf32, #ge.layout<HWCN>>
  %d = ge.const {value = dense<[1.0, -2.0, 0.5]> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NHWC", name = "conv"} : (tensor<1x4x4x2xf32, #ge.layout<NHWC>>, tensor<1x1x2x3xf32, #ge.layout<HWCN>>) -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  %y = ge.bias_add %c, %d {data_format = "NHWC", name = "bias"} : (tensor<1x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>) -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  %r = ge.relu %y : tensor<1x4x4x3xf32, #ge.layout<NHWC>> -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  ge.netoutput %r : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
}

// -----

// An existing bias adds up with the BiasAdd's (NCHW).
// CHECK-LABEL: ge.graph @conv_bias_plus_bias_add_nchw
// CHECK:         %[[B:.*]] = ge.const {value = dense<[1.500000e+00, 0.000000e+00, 4.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    ge.conv2d %x, %w, %[[B]] {data_format = "NCHW"}
// CHECK-NOT:     ge.bias_add
ge.graph @conv_bias_plus_bias_add_nchw {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %b = ge.const {value = dense<[0.5, 1.0, 1.5]> : tensor<3xf32>} : tensor<3xf32>
  %d = ge.const {value = dense<[1.0, -1.0, 2.5]> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w, %b {data_format = "NCHW"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.bias_add %c, %d {data_format = "NCHW"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// An Add of a [C, 1, 1] constant (NCHW; constant first) and of a scalar
// (NHWC depthwise conv) are per-channel addends too.
// CHECK-LABEL: ge.graph @conv_add_channel_constants
// CHECK:         %[[B1:.*]] = ge.const {value = dense<[2.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %x, %w, %[[B1]] {data_format = "NCHW"}
// CHECK:         %[[B2:.*]] = ge.const {value = dense<-2.500000e-01> : tensor<2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %t, %dw, %[[B2]] {data_format = "NHWC", groups = 2 : i64, pads
// CHECK-NEXT:    ge.netoutput %[[C1]], %[[C2]]
// CHECK-NOT:     ge.add
ge.graph @conv_add_channel_constants {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %t = ge.data {index = 1 : i64} : tensor<1x3x3x2xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<1.0> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32, #ge.layout<NCHW>>
  %dw = ge.const {value = dense<2.0> : tensor<3x3x1x2xf32>} : tensor<3x3x1x2xf32, #ge.layout<HWCN>>
  %k = ge.const {value = dense<[[[2.0]], [[-3.0]]]> : tensor<2x1x1xf32>} : tensor<2x1x1xf32>
  %s = ge.const {value = dense<-0.25> : tensor<f32>} : tensor<f32>
  %c1 = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %y1 = ge.add %k, %c1 : (tensor<2x1x1xf32>, tensor<1x2x3x3xf32, #ge.layout<NCHW>>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %c2 = ge.conv2d %t, %dw {data_format = "NHWC", groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x3x2xf32, #ge.layout<NHWC>>, tensor<3x3x1x2xf32, #ge.layout<HWCN>>) -> tensor<1x3x3x2xf32, #ge.layout<NHWC>>
  %y2 = ge.add %c2, %s : (tensor<1x3x3x2xf32, #ge.layout<NHWC>>, tensor<f32>) -> tensor<1x3x3x2xf32, #ge.layout<NHWC>>
  ge.netoutput %y1, %y2 : tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<1x3x3x2xf32, #ge.layout<NHWC>>
}

// -----

// A -0.0 addend stays -0.0 in a product without a bias (0.0 + -0.0 would be 0.0).
// CHECK-LABEL: ge.graph @conv_negative_zero_addend
// CHECK:         ge.const {value = dense<[-0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    ge.conv2d
ge.graph @conv_negative_zero_addend {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32, #ge.layout<NCHW>>
  %d = ge.const {value = dense<[-0.0, 1.0]> : tensor<2xf32>} : tensor<2xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %y = ge.bias_add %c, %d {data_format = "NCHW"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2xf32>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
}

// -----

// After the format pipeline: the conv runs in NC1HWC0 and the addend is an
// NC1HWC0 constant; it is read back to origin layout (17 channels, C0 8).
// CHECK-LABEL: ge.graph @conv_bias_add_nc1hwc0
// CHECK:         %[[B:.*]] = ge.const {value = dense<7.500000e-01> : tensor<17xf32>
// CHECK-NEXT:    ge.conv2d %x, %w, %[[B]]
// CHECK-NOT:     ge.bias_add
ge.graph @conv_bias_add_nc1hwc0 {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = dense<0.5> : tensor<1x2x16x8xf32>} : tensor<17x3x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %d = ge.const {value = dense<0.75> : tensor<1x3x1x1x8xf32>} : tensor<17xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<17x3x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.bias_add %c, %d {data_format = "NCHW"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<17xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The convolution's result is also a graph output: folding would change it.
// CHECK-LABEL: ge.graph @no_fold_multi_consumer
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.bias_add
// LOG: fold-bias-add: bias2 not folded: the product's result has other consumers
ge.graph @no_fold_multi_consumer {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %d = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.bias_add %c, %d {data_format = "NCHW", name = "bias2"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y, %c : tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// The bias is a graph input, not a constant.
// CHECK-LABEL: ge.graph @no_fold_bias_not_constant
// CHECK:         ge.bias_add
// LOG: fold-bias-add: bias3 not folded: bias: not a constant (from ge.data)
ge.graph @no_fold_bias_not_constant {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %d = ge.data {index = 1 : i64} : tensor<3xf32>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.bias_add %c, %d {data_format = "NCHW", name = "bias3"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// The constant varies along W as well: not a per-channel addend.
// CHECK-LABEL: ge.graph @no_fold_add_not_per_channel
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.add
// LOG: fold-bias-add: add4 not folded: the constant is not per channel on axis 1
ge.graph @no_fold_add_not_per_channel {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32, #ge.layout<NCHW>>
  %k = ge.const {value = dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>} : tensor<2x1x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %y = ge.add %c, %k {name = "add4"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2x1x3xf32>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
}

// -----

// The constant broadcasts the convolution's result up (a batch of 2).
// CHECK-LABEL: ge.graph @no_fold_add_broadcasts_result
// CHECK:         ge.add
// LOG: fold-bias-add: add5 not folded: the sum's type differs from the product's
ge.graph @no_fold_add_broadcasts_result {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32, #ge.layout<NCHW>>
  %k = ge.const {value = dense<1.0> : tensor<2x2x1x1xf32>} : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %y = ge.add %c, %k {name = "add5"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<2x2x1x1xf32>) -> tensor<2x2x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<2x2x3x3xf32, #ge.layout<NCHW>>
}

// -----

// A BiasAdd on another axis than the convolution's channels (NCHW conv,
// NHWC BiasAdd: W) is not the convolution's bias.
// CHECK-LABEL: ge.graph @no_fold_bias_on_other_axis
// CHECK:         ge.bias_add
// LOG: fold-bias-add: bias6 not folded: the bias is not on the product's channel axis
ge.graph @no_fold_bias_on_other_axis {
  %x = ge.data {index = 0 : i64} : tensor<1x2x3x3xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %d = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x3x3xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x3x3xf32, #ge.layout<NCHW>>
  %y = ge.bias_add %c, %d {data_format = "NHWC", name = "bias6"} : (tensor<1x3x3x3xf32, #ge.layout<NCHW>>, tensor<3xf32>) -> tensor<1x3x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x3x3xf32, #ge.layout<NCHW>>
}
