// RUN: ge-opt --load-plugin %S/../plugins/toy_plugin.py %s --split-input-file --infer-origin-format | filecheck %s
// RUN: ge-opt --load-plugin %S/../plugins/toy_plugin.py %s --split-input-file --infer-origin-format --infer-shape | filecheck %s --check-prefix=SHAPE
// RUN: not ge-opt --load-plugin %S/../plugins/toy_plugin.py %S/../plugins/toy_rule_fails.mlir --infer-origin-format 2>&1 | filecheck %s --check-prefix=FAIL

// User ops from a plugin (tests/filecheck/plugins/toy_plugin.py) with
// Python-registered infer-format rules, end to end through ge-opt; the GE
// scenarios that use custom infer functions (research §5.1).

// A user op with a rule carries the format through, both ways.
// CHECK-LABEL: ge.graph @user_op_rule
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %b = toy.blur %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %b {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %q = toy.blur %p : {{.*}} -> tensor<?x?x?x?xf32, #ge.layout<NCHW>>
// SHAPE-LABEL: ge.graph @user_op_rule
// SHAPE:         %q = toy.blur %p : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @user_op_rule {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %b = toy.blur %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %p = ge.avg_pool %b {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %q = toy.blur %p : (tensor<1x3x4x4xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %q : tensor<?x?x?x?xf32>
}

// -----

// A user op without a rule gets GE's default rule: the first non-ND input
// goes into every ND tensor, except scalars.
// CHECK-LABEL: ge.graph @user_op_default_rule
// CHECK:         %m = toy.mix %s, %x, %y : (tensor<f32>, tensor<1x3x4x4xf32, #ge.layout<NHWC>>, tensor<1x3x4x4xf32, #ge.layout<NHWC>>) -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
ge.graph @user_op_default_rule {
  %s = ge.data {index = 0 : i64} : tensor<f32>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
  %y = ge.data {index = 2 : i64} : tensor<1x3x4x4xf32>
  %m = toy.mix %s, %x, %y : (tensor<f32>, tensor<1x3x4x4xf32, #ge.layout<NHWC>>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  ge.netoutput %m : tensor<1x3x4x4xf32>
}

// -----

// ForwardAndSpecifedInferFunc: the NHWC rule cannot change tensors that
// already have formats (GE's relu descriptors are NCHW from its builder; a
// value's layout here is its producer's descriptor, so the relu's result
// says NCHW and the rule, reached from the conv, writes nothing)...
// CHECK-LABEL: ge.graph @forward_and_specified_infer_func
// CHECK:         %r = toy.nhwc_relu %c : {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %r {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
ge.graph @forward_and_specified_infer_func {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = toy.nhwc_relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
  %p = ge.avg_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x6xf32, #ge.layout<NCHW>> -> tensor<1x4x6x6xf32>
  ge.netoutput %p : tensor<1x4x6x6xf32>
}

// -----

// ...and when its result is still ND, the rule decides it (a conflict with
// its NCHW input, visible and not an error). An NCHW pool after it wrote
// only its own input descriptor before the walks: the rule still decides,
// and the pool reads a relabelled copy (the conflict is on that edge).
// CHECK-LABEL: ge.graph @specified_infer_func_decides
// CHECK:         %r = toy.nhwc_relu %c : (tensor<1x4x6x6xf32, #ge.layout<NCHW>>) -> tensor<1x4x6x6xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %[[R:.*]] = ge.identity %r : tensor<1x4x6x6xf32, #ge.layout<NHWC>> -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %n = ge.neg %r : {{.*}} -> tensor<1x4x6x6xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %p = ge.avg_pool %[[R]] {{.*}} : tensor<1x4x6x6xf32, #ge.layout<NCHW>> -> tensor<1x4x6x6xf32, #ge.layout<NCHW>>
ge.graph @specified_infer_func_decides {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = toy.nhwc_relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %n = ge.neg %r : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %p = ge.avg_pool %r {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  ge.netoutput %n, %p : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// FailedWhenInfer: a failing rule that is never reached is not an error
// (the failing case is plugins/toy_rule_fails.mlir).
// FAIL: toy_rule_fails.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'toy.fail' op infer-format rule failed: toy.fail cannot infer formats
// CHECK-LABEL: ge.graph @failed_when_infer
// CHECK:         %f = toy.fail %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
ge.graph @failed_when_infer {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %f = toy.fail %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>, _format_locked} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %f, %p : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// InferStopND: a rule that writes nothing stops propagation at its op.
// CHECK-LABEL: ge.graph @infer_stop_nd
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s = toy.stop %x : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %n = ge.neg %s : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
ge.graph @infer_stop_nd {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %s = toy.stop %x : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32>
  %n = ge.neg %s : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %n : tensor<1x3x4x4xf32>
}
