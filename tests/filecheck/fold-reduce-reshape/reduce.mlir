// RUN: ge-opt %s --split-input-file --fold-reduce-reshape | filecheck %s
// RUN: ge-opt %s --split-input-file --fold-reduce-reshape=disable=ReduceReshapeFold | filecheck %s --check-prefix=OFF

// ReduceReshapeFold: reshape(reduce(x, keep_dims = false)) to the shape the
// reduction keeps is reduce(x, keep_dims = true).

// TensorFlow's squeeze-and-excitation: Mean over H, W, then Reshape to
// [N, 1, 1, C].
// CHECK-LABEL: ge.graph @mean_reshape_nhwc
// CHECK:         %[[M:.*]] = ge.reduce_mean %x {axes = array<i64: 1, 2>, name = "se/Mean+se/Reshape"} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    ge.conv2d %[[M]], %w
// CHECK-NOT:     ge.reshape
// OFF-LABEL: ge.graph @mean_reshape_nhwc
// OFF:         ge.reshape
ge.graph @mean_reshape_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x17xf32, #ge.layout<NHWC>>
  %w = ge.const {value = dense<0.5> : tensor<1x1x17x3xf32>} : tensor<1x1x17x3xf32, #ge.layout<HWCN>>
  %m = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false, name = "se/Mean"} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x17xf32>
  %r = ge.reshape %m {shape = array<i64: 1, 1, 1, 17>, name = "se/Reshape"} : tensor<1x17xf32> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  %c = ge.conv2d %r, %w {data_format = "NHWC"} : (tensor<1x1x1x17xf32, #ge.layout<NHWC>>, tensor<1x1x17x3xf32, #ge.layout<HWCN>>) -> tensor<1x1x1x3xf32, #ge.layout<NHWC>>
  ge.netoutput %c : tensor<1x1x1x3xf32, #ge.layout<NHWC>>
}

// -----

// A sum over every axis (empty axes) unsqueezed back to rank 3, and a max
// over the batch expanded back.
// CHECK-LABEL: ge.graph @sum_all_unsqueeze_and_max_expand
// CHECK:         %[[S:.*]] = ge.reduce_sum %x : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.reduce_max %x {axes = array<i64: -3>} : tensor<2x3x4xf32> -> tensor<1x3x4xf32>
// CHECK-NEXT:    ge.netoutput %[[S]], %[[M]]
ge.graph @sum_all_unsqueeze_and_max_expand {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %s = ge.reduce_sum %x {keep_dims = false} : tensor<2x3x4xf32> -> tensor<f32>
  %u = ge.unsqueeze %s {axes = array<i64: 0, 1, 2>} : tensor<f32> -> tensor<1x1x1xf32>
  %m = ge.reduce_max %x {axes = array<i64: -3>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<3x4xf32>
  %e = ge.expand_dims %m {axis = 0 : i64} : tensor<3x4xf32> -> tensor<1x3x4xf32>
  ge.netoutput %u, %e : tensor<1x1x1xf32>, tensor<1x3x4xf32>
}

// -----

// The reshape puts the unit dims elsewhere ([1, 17] -> [1, 17, 1, 1] after
// reducing axes 1, 2 of NHWC): a different layout of the same data.
// CHECK-LABEL: ge.graph @no_fold_other_shape
// CHECK:         ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false}
// CHECK-NEXT:    ge.reshape
ge.graph @no_fold_other_shape {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x17xf32, #ge.layout<NHWC>>
  %m = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x17xf32>
  %r = ge.reshape %m {shape = array<i64: 1, 17, 1, 1>} : tensor<1x17xf32> -> tensor<1x17x1x1xf32>
  ge.netoutput %r : tensor<1x17x1x1xf32>
}

// -----

// The [N, C] mean is also a graph output.
// CHECK-LABEL: ge.graph @no_fold_reduction_used_twice
// CHECK:         ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false}
// CHECK-NEXT:    ge.reshape
ge.graph @no_fold_reduction_used_twice {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x17xf32, #ge.layout<NHWC>>
  %m = ge.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : tensor<1x5x5x17xf32, #ge.layout<NHWC>> -> tensor<1x17xf32>
  %r = ge.reshape %m {shape = array<i64: 1, 1, 1, 17>} : tensor<1x17xf32> -> tensor<1x1x1x17xf32>
  ge.netoutput %r, %m : tensor<1x1x1x17xf32>, tensor<1x17xf32>
}
