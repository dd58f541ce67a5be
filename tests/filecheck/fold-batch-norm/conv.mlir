// RUN: ge-opt %s --split-input-file --fold-batch-norm 2>/dev/null | filecheck %s
// RUN: ge-opt %s --split-input-file --fold-batch-norm 2>&1 >/dev/null | filecheck %s --check-prefix=LOG
// RUN: ge-opt %s --split-input-file --fold-batch-norm=disable=ConvBatchNormFold 2>/dev/null | filecheck %s --check-prefix=OFF

// ConvBatchNormFold: y = a * conv(x) + b with a = scale / sqrt(var + eps) and
// b = offset - mean * a becomes conv(x, w * a[o], a * bias + b).

// No bias: a = [2, 1, 4], b = [-2, 0, -5] (epsilon 0).
// CHECK-LABEL: ge.graph @conv_bn
// CHECK:         %[[W:.*]] = ge.const {value = dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}1.000000e+00]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<3x2x1x1xf32>, name = "conv/filter_bn"}
// CHECK-NEXT:    %[[B:.*]] = ge.const {value = dense<[-2.000000e+00, 0.000000e+00, -5.000000e+00]> : tensor<3xf32>, name = "conv/bias_bn"}
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %x, %[[W]], %[[B]] {data_format = "NCHW", name = "conv+bn"}
// CHECK-NEXT:    ge.relu %[[C]]
// CHECK-NOT:     ge.batch_norm
// OFF-LABEL: ge.graph @conv_bn
// OFF:         ge.batch_norm
ge.graph @conv_bn {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %scale = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %offset = ge.const {value = dense<[0.0, 1.0, -1.0]> : tensor<3xf32>} : tensor<3xf32>
  %mean = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %var = ge.const {value = dense<[1.0, 4.0, 0.25]> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW", name = "conv"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.batch_norm %c, %scale, %offset, %mean, %var {data_format = "NCHW", epsilon = 0.0 : f32, name = "bn"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %r = ge.relu %y : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// NHWC with an HWCN filter (output channels last) and a bias:
// a = [2, 1, 4], bias' = a * [1, 2, 3] + (0.5 - a) = [0.5, 1.5, 8.5].
// CHECK-LABEL: ge.graph @conv_bias_bn_nhwc
// CHECK:         %[[W:.*]] = ge.const {value = dense<{{\[\[\[\[}}2.000000e+00, 2.000000e+00, 1.200000e+01], [2.000000e+00, 2.000000e+00, 1.200000e+01]]]]> : tensor<1x1x2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const {value = dense<[5.000000e-01, 1.500000e+00, 8.500000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %x, %[[W]], %[[B]] {data_format = "NHWC"}
// CHECK-NEXT:    ge.netoutput %[[C]]
ge.graph @conv_bias_bn_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x2xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<[[[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]]]> : tensor<1x1x2x3xf32>} : tensor<1x1x2x3xf32, #ge.layout<HWCN>>
  %b = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %scale = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %offset = ge.const {value = dense<0.5> : tensor<3xf32>} : tensor<3xf32>
  %mean = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %var = ge.const {value = dense<[1.0, 4.0, 0.25]> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w, %b {data_format = "NHWC"} : (tensor<1x4x4x2xf32, #ge.layout<NHWC>>, tensor<1x1x2x3xf32, #ge.layout<HWCN>>, tensor<3xf32>) -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  %y = ge.batch_norm %c, %scale, %offset, %mean, %var {data_format = "NHWC", epsilon = 0.0 : f32} : (tensor<1x4x4x3xf32, #ge.layout<NHWC>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  ge.netoutput %y : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
}

// -----

// After the format pipeline: the filter is FRACTAL_Z and the parameters are
// NC1HWC0 constants; both are read back to origin layout and the new filter
// is laid out again (padding zero).
// CHECK-LABEL: ge.graph @conv_bn_fractal_z
// CHECK:         %[[W:.*]] = ge.const {value = dense<"0x{{.*}}"> : tensor<3x1x16x8xf32>, name = "conv2d_0/filter_bn"} : tensor<3x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NEXT:    %[[B:.*]] = ge.const {value = dense<0.234835625> : tensor<3xf32>, name = "conv2d_0/bias_bn"} : tensor<3xf32>
// CHECK-NEXT:    ge.conv2d %x, %[[W]], %[[B]]
// CHECK-NOT:     ge.batch_norm
ge.graph @conv_bn_fractal_z {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.const {value = dense<0.5> : tensor<3x1x16x8xf32>} : tensor<3x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>
  %scale = ge.const {value = dense<1.5> : tensor<1x1x1x1x8xf32>} : tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %offset = ge.const {value = dense<0.5> : tensor<1x1x1x1x8xf32>} : tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %mean = ge.const {value = dense<0.25> : tensor<1x1x1x1x8xf32>} : tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %var = ge.const {value = dense<2.0> : tensor<1x1x1x1x8xf32>} : tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<3x17x1x1xf32, #ge.layout<NCHW, FRACTAL_Z>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.batch_norm %c, %scale, %offset, %mean, %var {data_format = "NCHW"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>, tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>, tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>, tensor<3xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "C">>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// The convolution's result is also a graph output: folding would change it.
// CHECK-LABEL: ge.graph @no_fold_multi_consumer
// CHECK:         ge.conv2d
// CHECK-NEXT:    ge.batch_norm
// LOG: fold-batch-norm: bn2 not folded: the convolution's result has other consumers
ge.graph @no_fold_multi_consumer {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %p = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.batch_norm %c, %p, %p, %p, %p {data_format = "NCHW", name = "bn2"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y, %c : tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// The scale is a graph input, not a constant.
// CHECK-LABEL: ge.graph @no_fold_parameter_not_constant
// CHECK:         ge.batch_norm
// LOG: fold-batch-norm: bn3 not folded: scale: not a constant (from ge.data)
ge.graph @no_fold_parameter_not_constant {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %s = ge.data {index = 1 : i64} : tensor<3xf32>
  %w = ge.const {value = dense<1.0> : tensor<3x2x1x1xf32>} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %p = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.batch_norm %c, %s, %p, %p, %p {data_format = "NCHW", name = "bn3"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// External weights need the weights mapping (ge-atc passes it; ge-opt has
// none): the batch norm stays and the reason is logged.
// CHECK-LABEL: ge.graph @no_fold_external_weights
// CHECK:         ge.batch_norm
// LOG: fold-batch-norm: bn4 not folded: filter: weight 'conv.w' is external and no weights are given
ge.graph @no_fold_external_weights {
  %x = ge.data {index = 0 : i64} : tensor<1x2x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = #ge.external<"conv.w">} : tensor<3x2x1x1xf32, #ge.layout<NCHW>>
  %p = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x2x4x4xf32, #ge.layout<NCHW>>, tensor<3x2x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.batch_norm %c, %p, %p, %p, %p {data_format = "NCHW", name = "bn4"} : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// A batch norm after a pooling has nothing to fold into.
// CHECK-LABEL: ge.graph @no_fold_after_pooling
// CHECK:         ge.max_pool
// CHECK-NEXT:    ge.batch_norm
ge.graph @no_fold_after_pooling {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %p = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x3x3xf32, #ge.layout<NCHW>>
  %y = ge.batch_norm %m, %p, %p, %p, %p {data_format = "NCHW"} : (tensor<1x3x3x3xf32, #ge.layout<NCHW>>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32, #ge.layout<NCHW>>
  ge.netoutput %y : tensor<1x3x3x3xf32, #ge.layout<NCHW>>
}
