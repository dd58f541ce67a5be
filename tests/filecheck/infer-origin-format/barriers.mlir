// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// Where propagation stops (research §1.7): locked ops, scalars,
// permute/expand_dims/squeeze below rank 4, rules that write nothing, the
// root output.

// A locked op is not entered from either side: the chain stops at it.
// CHECK-LABEL: ge.graph @no_propagation_through_locked_op
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %x {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %l = ge.relu %p {_format_locked} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %n = ge.neg %l : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
ge.graph @no_propagation_through_locked_op {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %l = ge.relu %p {_format_locked} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %n = ge.neg %l : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %n : tensor<1x3x4x4xf32>
}

// -----

// A locked anchor keeps its own types (its refresh is skipped, so its ND
// input is not written) but its explicit layouts still reach its neighbours.
// CHECK-LABEL: ge.graph @locked_anchor_still_propagates
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
// CHECK-NEXT:    %p = ge.max_pool %x {_format_locked, {{.*}}} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %n = ge.neg %p : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %q = ge.avg_pool %x {_format_locked, {{.*}}} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
ge.graph @locked_anchor_still_propagates {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %p = ge.max_pool %x {_format_locked, data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
  %n = ge.neg %p : tensor<1x3x4x4xf32, #ge.layout<NHWC>> -> tensor<1x3x4x4xf32>
  %q = ge.avg_pool %x {_format_locked, data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %n, %q : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// Scalars never take a format: a rank-0 operand of an elementwise op, and
// a scalar loop counter.
// CHECK-LABEL: ge.graph @no_format_on_scalars
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s = ge.data {index = 1 : i64} : tensor<f32>
// CHECK-NEXT:    %y = ge.maximum %x, %s : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<f32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @no_format_on_scalars {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %s = ge.data {index = 1 : i64} : tensor<f32>
  %y = ge.maximum %x, %s : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<f32>) -> tensor<1x3x4x4xf32>
  ge.netoutput %y : tensor<1x3x4x4xf32>
}

// -----

// Rank-3 squeeze, expand_dims and permute: a consumer's format does not go
// back into their results (explicit rank-3 NCHW data is the anchor), so
// their rank-3 values and what is before them stay ND.
// CHECK-LABEL: ge.graph @no_propagation_into_rank3_barriers
// CHECK-NEXT:    %d = ge.data {index = 0 : i64} : tensor<3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %a = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32>
// CHECK-NEXT:    %sq = ge.squeeze %a {{.*}} : tensor<1x3x4x4xf32> -> tensor<3x4x4xf32>
// CHECK-NEXT:    %b = ge.data {index = 2 : i64} : tensor<3x4xf32>
// CHECK-NEXT:    %ex = ge.expand_dims %b {{.*}} : tensor<3x4xf32> -> tensor<3x4x1xf32>
// CHECK-NEXT:    %c = ge.data {index = 3 : i64} : tensor<4x4x3xf32>
// CHECK-NEXT:    %pe = ge.permute %c {{.*}} : tensor<4x4x3xf32> -> tensor<3x4x4xf32>
// CHECK-NEXT:    %s1 = ge.mul %d, %sq : (tensor<3x4x4xf32, #ge.layout<NCHW>>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s2 = ge.mul %s1, %ex : (tensor<3x4x4xf32, #ge.layout<NCHW>>, tensor<3x4x1xf32>) -> tensor<3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s3 = ge.add %s2, %pe : (tensor<3x4x4xf32, #ge.layout<NCHW>>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32, #ge.layout<NCHW>>
ge.graph @no_propagation_into_rank3_barriers {
  %d = ge.data {index = 0 : i64} : tensor<3x4x4xf32, #ge.layout<NCHW>>
  %a = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32>
  %sq = ge.squeeze %a {axes = array<i64: 0>} : tensor<1x3x4x4xf32> -> tensor<3x4x4xf32>
  %b = ge.data {index = 2 : i64} : tensor<3x4xf32>
  %ex = ge.expand_dims %b {axis = 2 : i64} : tensor<3x4xf32> -> tensor<3x4x1xf32>
  %c = ge.data {index = 3 : i64} : tensor<4x4x3xf32>
  %pe = ge.permute %c {order = array<i64: 2, 0, 1>} : tensor<4x4x3xf32> -> tensor<3x4x4xf32>
  %s1 = ge.mul %d, %sq : (tensor<3x4x4xf32, #ge.layout<NCHW>>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  %s2 = ge.mul %s1, %ex : (tensor<3x4x4xf32>, tensor<3x4x1xf32>) -> tensor<3x4x4xf32>
  %s3 = ge.add %s2, %pe : (tensor<3x4x4xf32>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  ge.netoutput %s3 : tensor<3x4x4xf32>
}

// -----

// The same ops at rank 4 are ordinary: the format reaches through a rank-4
// squeeze input into its producer (the squeeze itself regroups axes, so its
// rule writes nothing past it).
// CHECK-LABEL: ge.graph @rank4_squeeze_input_is_reached
// CHECK-NEXT:    %a = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %a {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %sq = ge.squeeze %p {{.*}} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<3x4x4xf32>
ge.graph @rank4_squeeze_input_is_reached {
  %a = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %sq = ge.squeeze %p {axes = array<i64: 0>} : tensor<1x3x4x4xf32> -> tensor<3x4x4xf32>
  ge.netoutput %sq : tensor<3x4x4xf32>
}

// -----

// Ops that regroup axes write nothing, so nothing passes them, in either
// direction: flatten, reshape, matmul, gemm, batch_matmul, softmax on 2-D,
// reductions without keep_dims.
// CHECK-LABEL: ge.graph @no_propagation_through_regrouping_ops
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %f = ge.flatten %x {{.*}} -> tensor<1x48xf32>
// CHECK-NEXT:    %s = ge.softmax %f {{.*}} -> tensor<1x48xf32>
// CHECK-NEXT:    %w = ge.const {{.*}} : tensor<48x2xf32>
// CHECK-NEXT:    %m = ge.matmul %s, %w : {{.*}} -> tensor<1x2xf32>
// CHECK-NEXT:    %g = ge.gemm %m, %m {{.*}} -> tensor<1x1xf32>
// CHECK-NEXT:    %r = ge.reshape %x {{.*}} -> tensor<1x3x16xf32>
// CHECK-NEXT:    %bm = ge.batch_matmul %r, %r {{.*}} -> tensor<1x3x3xf32>
// CHECK-NEXT:    %rs = ge.reduce_sum %x {{.*}} -> tensor<1x3xf32>
// CHECK-NEXT:    %rk = ge.reduce_mean %x {{.*}} -> tensor<1x3x1x1xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %y = ge.data {index = 1 : i64} : tensor<1x48xf32>
// CHECK-NEXT:    %u = ge.reshape %y {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
ge.graph @no_propagation_through_regrouping_ops {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %f = ge.flatten %x : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x48xf32>
  %s = ge.softmax %f : tensor<1x48xf32> -> tensor<1x48xf32>
  %w = ge.const {value = dense<1.0> : tensor<48x2xf32>} : tensor<48x2xf32>
  %m = ge.matmul %s, %w : (tensor<1x48xf32>, tensor<48x2xf32>) -> tensor<1x2xf32>
  %g = ge.gemm %m, %m {trans_b = true} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x1xf32>
  %r = ge.reshape %x {shape = array<i64: 1, 3, 16>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x16xf32>
  %bm = ge.batch_matmul %r, %r {adj_x2 = true} : (tensor<1x3x16xf32>, tensor<1x3x16xf32>) -> tensor<1x3x3xf32>
  %rs = ge.reduce_sum %x {axes = array<i64: 2, 3>, keep_dims = false} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3xf32>
  %rk = ge.reduce_mean %x {axes = array<i64: 2, 3>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x1x1xf32>
  %y = ge.data {index = 1 : i64} : tensor<1x48xf32>
  %u = ge.reshape %y {shape = array<i64: 1, 3, 4, 4>} : tensor<1x48xf32> -> tensor<1x3x4x4xf32>
  %p = ge.avg_pool %u {data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %g, %bm, %rs, %rk, %p : tensor<1x1xf32>, tensor<1x3x3xf32>, tensor<1x3xf32>, tensor<1x3x1x1xf32>, tensor<1x3x4x4xf32>
}

// -----

// The root output is written, not passed through: a second use of the same
// value elsewhere is reached from its producer, not from the output.
// CHECK-LABEL: ge.graph @root_output_is_written_not_passed
// CHECK-NEXT:    %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %p = ge.avg_pool %x {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    ge.netoutput %p, %x : tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @root_output_is_written_not_passed {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %p = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %p, %x : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}
