// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// GE's FormatRefiner unit tests (format_refiner_unittes.cc), research §5.1.
// GE's test builder defaults every tensor to NCHW; here everything that is
// not an anchor is ND, so each case really exercises propagation.

// ForwardAndDefaultInferFunc: the conv's data_format reaches its input
// variable backward and the relu and output forward; the HWCN weight keeps
// its own format (the conv reads it: a filter's format is never relabelled).
// CHECK-LABEL: ge.graph @forward_and_default_infer_func
// CHECK-NEXT:    %var1 = ge.variable {name = "var1"} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %var2 = ge.variable {name = "var2"} : tensor<3x3x3x4xf32, #ge.layout<HWCN>>
// CHECK-NEXT:    %conv = ge.conv2d %var1, %var2 {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %relu = ge.relu %conv : tensor<1x4x6x6xf32, #ge.layout<NCHW>> -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput %relu : tensor<1x4x6x6xf32, #ge.layout<NCHW>>
ge.graph @forward_and_default_infer_func {
  %var1 = ge.variable {name = "var1"} : tensor<1x3x8x8xf32>
  %var2 = ge.variable {name = "var2"} : tensor<3x3x3x4xf32, #ge.layout<HWCN>>
  %conv = ge.conv2d %var1, %var2 {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32, #ge.layout<HWCN>>) -> tensor<1x4x6x6xf32>
  %relu = ge.relu %conv : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  ge.netoutput %relu : tensor<1x4x6x6xf32>
}

// -----

// ForwardBackward: conv -> batch_norm whose four parameters are variables ->
// relu. The rank-1 parameters take NCHW (default reshape type "C").
// CHECK-LABEL: ge.graph @forward_backward
// CHECK:         %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK:         %scale = ge.variable {name = "scale"} : tensor<4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %offset = ge.variable {name = "offset"} : tensor<4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %mean = ge.variable {name = "mean"} : tensor<4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %variance = ge.variable {name = "variance"} : tensor<4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %bn = ge.batch_norm {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %relu = ge.relu %bn : {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
ge.graph @forward_backward {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %conv = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %scale = ge.variable {name = "scale"} : tensor<4xf32>
  %offset = ge.variable {name = "offset"} : tensor<4xf32>
  %mean = ge.variable {name = "mean"} : tensor<4xf32>
  %variance = ge.variable {name = "variance"} : tensor<4xf32>
  %bn = ge.batch_norm %conv, %scale, %offset, %mean, %variance {data_format = "NCHW"} : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %relu = ge.relu %bn : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  ge.netoutput %relu : tensor<1x4x6x6xf32>
}

// -----

// ForwardMultiOutput: every result of a multi-output op is written, and
// propagation continues from each (GE's test is a training graph; here a
// split feeds two branches that join again).
// CHECK-LABEL: ge.graph @forward_multi_output
// CHECK:         %a, %b = ge.split %conv {{.*}} -> (tensor<1x2x6x6xf32, #ge.layout<NCHW>>, tensor<1x2x6x6xf32, #ge.layout<NCHW>>)
// CHECK-NEXT:    %ra = ge.relu %a : {{.*}} -> tensor<1x2x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %nb = ge.neg %b : {{.*}} -> tensor<1x2x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %sum = ge.add %ra, %nb : {{.*}} -> tensor<1x2x6x6xf32, #ge.layout<NCHW>>
ge.graph @forward_multi_output {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %conv = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a, %b = ge.split %conv {axis = 1 : i64, sizes = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>)
  %ra = ge.relu %a : tensor<1x2x6x6xf32> -> tensor<1x2x6x6xf32>
  %nb = ge.neg %b : tensor<1x2x6x6xf32> -> tensor<1x2x6x6xf32>
  %sum = ge.add %ra, %nb : (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  ge.netoutput %sum : tensor<1x2x6x6xf32>
}

// -----

// FormatConflict: conv(NCHW) -> relu -> conv(NHWC) succeeds. The first
// conv's walk labels the relu NCHW; the second conv's refresh wrote only its
// own input descriptor (NHWC), so the conflict sits on the relu -> conv edge,
// as in GE, as a relabelling identity.
// CHECK-LABEL: ge.graph @format_conflict
// CHECK:         %c1 = ge.conv2d {{.*}} -> tensor<1x6x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r = ge.relu %c1 : tensor<1x6x6x6xf32, #ge.layout<NCHW>> -> tensor<1x6x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[R:.*]] = ge.identity %r : tensor<1x6x6x6xf32, #ge.layout<NCHW>> -> tensor<1x6x6x6xf32, #ge.layout<NHWC>>
// CHECK:         %c2 = ge.conv2d %[[R]], %w2 {{.*}} -> tensor<1x4x4x4xf32, #ge.layout<NHWC>>
ge.graph @format_conflict {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w1 = ge.const {value = dense<1.0> : tensor<6x3x3x3xf32>} : tensor<6x3x3x3xf32>
  %c1 = ge.conv2d %x, %w1 {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  %r = ge.relu %c1 : tensor<1x6x6x6xf32> -> tensor<1x6x6x6xf32>
  %w2 = ge.const {value = dense<1.0> : tensor<4x6x3x3xf32>} : tensor<4x6x3x3xf32>
  %c2 = ge.conv2d %r, %w2 {data_format = "NHWC"} : (tensor<1x6x6x6xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x4x4xf32>
  ge.netoutput %c2 : tensor<1x4x4x4xf32>
}

// -----

// InferStopSameFormat: two anchors of the same format meet in the middle.
// CHECK-LABEL: ge.graph @infer_stop_same_format
// CHECK:         %r = ge.relu %c1 : tensor<1x6x6x6xf32, #ge.layout<NCHW>> -> tensor<1x6x6x6xf32, #ge.layout<NCHW>>
// CHECK:         %c2 = ge.conv2d %r, %w2 {{.*}} -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
ge.graph @infer_stop_same_format {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w1 = ge.const {value = dense<1.0> : tensor<6x3x3x3xf32>} : tensor<6x3x3x3xf32>
  %c1 = ge.conv2d %x, %w1 {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x6x6xf32>
  %r = ge.relu %c1 : tensor<1x6x6x6xf32> -> tensor<1x6x6x6xf32>
  %w2 = ge.const {value = dense<1.0> : tensor<4x6x3x3xf32>} : tensor<4x6x3x3xf32>
  %c2 = ge.conv2d %r, %w2 {data_format = "NCHW"} : (tensor<1x6x6x6xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x4x4xf32>
  ge.netoutput %c2 : tensor<1x4x4x4xf32>
}

// -----

// FormatInferWithLockedNode: a locked add keeps its ND / FRACTAL_Z result;
// its neighbours take NCHW. (Its operands are its producers' results, so
// they show NCHW; GE keeps the locked node's input descriptors ND.)
// CHECK-LABEL: ge.graph @format_infer_with_locked_node
// CHECK-NEXT:    %v1 = ge.variable {name = "v1"} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %v2 = ge.variable {name = "v2"} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p1 = ge.avg_pool %v1 {{.*}} -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p2 = ge.avg_pool %v2 {{.*}} -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %add = ge.add %v1, %v2 {_format_locked} : {{.*}} -> tensor<1x3x8x8xf32, #ge.layout<ND, FRACTAL_Z>>
// CHECK-NEXT:    %r = ge.relu %add : tensor<1x3x8x8xf32, #ge.layout<ND, FRACTAL_Z>> -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
ge.graph @format_infer_with_locked_node {
  %v1 = ge.variable {name = "v1"} : tensor<1x3x8x8xf32>
  %v2 = ge.variable {name = "v2"} : tensor<1x3x8x8xf32>
  %p1 = ge.avg_pool %v1 {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  %p2 = ge.avg_pool %v2 {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  %add = ge.add %v1, %v2 {_format_locked} : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32, #ge.layout<ND, FRACTAL_Z>>
  %r = ge.relu %add : tensor<1x3x8x8xf32, #ge.layout<ND, FRACTAL_Z>> -> tensor<1x3x8x8xf32>
  %m = ge.max_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  ge.netoutput %m, %p1, %p2 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// -----

// ChangeDim back: a squeeze below rank 4 keeps its result ND even though a
// conv consumes it as its bias.
// CHECK-LABEL: ge.graph @change_dim_back
// CHECK:         %d = ge.data {index = 1 : i64} : tensor<1x4xf32>
// CHECK-NEXT:    %b = ge.squeeze %d {{.*}} : tensor<1x4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %y = ge.conv2d %x, %w, %b {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
ge.graph @change_dim_back {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %d = ge.data {index = 1 : i64} : tensor<1x4xf32>
  %b = ge.squeeze %d {axes = array<i64: 0>} : tensor<1x4xf32> -> tensor<4xf32>
  %y = ge.conv2d %x, %w, %b {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  ge.netoutput %y : tensor<1x4x6x6xf32>
}

// -----

// ChangeDim forward: a rank-2 NCHW value (a bias_add's output, GE's rule)
// does not enter a squeeze; nothing after it is reached.
// CHECK-LABEL: ge.graph @change_dim_forward
// CHECK:         %y = ge.bias_add %x, %bias {{.*}} -> tensor<1x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s = ge.squeeze %y {{.*}} : tensor<1x4xf32, #ge.layout<NCHW>> -> tensor<4xf32>
// CHECK-NEXT:    %n = ge.neg %s : tensor<4xf32> -> tensor<4xf32>
ge.graph @change_dim_forward {
  %x = ge.data {index = 0 : i64} : tensor<1x4xf32>
  %bias = ge.const {value = dense<1.0> : tensor<4xf32>} : tensor<4xf32>
  %y = ge.bias_add %x, %bias {data_format = "NCHW"} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %s = ge.squeeze %y {axes = array<i64: 0>} : tensor<1x4xf32> -> tensor<4xf32>
  %n = ge.neg %s : tensor<4xf32> -> tensor<4xf32>
  ge.netoutput %n : tensor<4xf32>
}

// -----

// Constant with an empty (scalar) value: scalars never take a format.
// CHECK-LABEL: ge.graph @constant_scalar_value
// CHECK:         %s = ge.const {value = dense<2.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT:    %y = ge.mul %x, %s : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<f32>) -> tensor<1x3x8x8xf32, #ge.layout<NCHW>>
ge.graph @constant_scalar_value {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32, #ge.layout<NCHW>>
  %s = ge.const {value = dense<2.0> : tensor<f32>} : tensor<f32>
  %y = ge.mul %x, %s : (tensor<1x3x8x8xf32, #ge.layout<NCHW>>, tensor<f32>) -> tensor<1x3x8x8xf32>
  ge.netoutput %y : tensor<1x3x8x8xf32>
}
