// RUN: ge-opt %s --split-input-file --infer-shape | filecheck %s

// Subgraph data take their parent operand's shape; parent results come
// from the subgraph outputs.

// CHECK-LABEL: ge.graph @if_results_from_branches
// CHECK:         %c = ge.conv2d {{.*}} -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %r = ge.if %p, %c : (tensor<i1>, tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> then {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64} : tensor<1x4x6x6xf32>
// CHECK-NEXT:      %m = ge.max_pool %a {{.*}} -> tensor<1x4x3x3xf32>
// CHECK:         } else {
// CHECK-NEXT:      %b = ge.data {parent_index = 1 : i64} : tensor<1x4x6x6xf32>
// CHECK-NEXT:      %v = ge.avg_pool %b {{.*}} -> tensor<1x4x3x3xf32>
// CHECK:         %o = ge.relu %r : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
ge.graph @if_results_from_branches {
  %p = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %r = ge.if %p, %c : (tensor<i1>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<?x?x?x?xf32>
    %m = ge.max_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
    ge.netoutput %m : tensor<?x?x?x?xf32>
  } else {
    %b = ge.data {parent_index = 1 : i64} : tensor<?x?x?x?xf32>
    %v = ge.avg_pool %b {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
    ge.netoutput %v : tensor<?x?x?x?xf32>
  }
  %o = ge.relu %r : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  ge.netoutput %o : tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: ge.graph @while_loop_variables
// CHECK:         %r = ge.while %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> cond {
// CHECK-NEXT:      %cx = ge.data {parent_index = 0 : i64} : tensor<1x4x6x6xf32>
// CHECK-NEXT:      %s = ge.reduce_sum %cx {{.*}} -> tensor<f32>
// CHECK:         } body {
// CHECK-NEXT:      %bx = ge.data {parent_index = 0 : i64} : tensor<1x4x6x6xf32>
// CHECK-NEXT:      %n = ge.neg %bx : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
ge.graph @while_loop_variables {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %r = ge.while %c : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> cond {
    %cx = ge.data {parent_index = 0 : i64} : tensor<?x?x?x?xf32>
    %s = ge.reduce_sum %cx {keep_dims = false} : tensor<?x?x?x?xf32> -> tensor<f32>
    %b = ge.cast %s {dst_type = i1} : tensor<f32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bx = ge.data {parent_index = 0 : i64} : tensor<?x?x?x?xf32>
    %n = ge.neg %bx : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
    ge.netoutput %n : tensor<?x?x?x?xf32>
  }
  ge.netoutput %r : tensor<?x?x?x?xf32>
}

// -----

// A fused group's body is inferred like a subgraph.
// CHECK-LABEL: ge.graph @fused_group
// CHECK:         %y = ge.fused %c {{.*}} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
// CHECK-NEXT:      %a = ge.data {parent_index = 0 : i64} : tensor<1x4x6x6xf32>
// CHECK-NEXT:      %r = ge.relu %a : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
ge.graph @fused_group {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %c = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %y = ge.fused %c {fusion_rule = "EltwiseFusion"} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<?x?x?x?xf32>
    %r = ge.relu %a : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
    ge.netoutput %r : tensor<?x?x?x?xf32>
  }
  ge.netoutput %y : tensor<?x?x?x?xf32>
}

// -----

// A loop variable that grows by a row per iteration: its first value is
// 0x2, the body's one row longer, so the loop variable (result, cond and
// body data) keeps its first dim unknown and learns the second; the first
// value stays static.
// CHECK-LABEL: ge.graph @while_growing_buffer
// CHECK:         %r, %r_1 = ge.while %i, %e : (tensor<i64>, tensor<0x2xf32>) -> (tensor<i64>, tensor<?x2xf32>) cond {
// CHECK-NEXT:      %ci = ge.data {parent_index = 0 : i64} : tensor<i64>
// CHECK-NEXT:      %cb = ge.data {parent_index = 1 : i64} : tensor<?x2xf32>
// CHECK:         } body {
// CHECK-NEXT:      %bi = ge.data {parent_index = 0 : i64} : tensor<i64>
// CHECK-NEXT:      %bb = ge.data {parent_index = 1 : i64} : tensor<?x2xf32>
// CHECK:           %g = ge.concat %bb, %row {{.*}} -> tensor<?x2xf32>
// CHECK:         %o = ge.relu %r_1 : tensor<?x2xf32> -> tensor<?x2xf32>
ge.graph @while_growing_buffer {
  %i = ge.const {value = dense<0> : tensor<i64>} : tensor<i64>
  %e = ge.const {value = dense<0.0> : tensor<0x2xf32>} : tensor<0x2xf32>
  %r:2 = ge.while %i, %e : (tensor<i64>, tensor<0x2xf32>) -> (tensor<i64>, tensor<?x?xf32>) cond {
    %ci = ge.data {parent_index = 0 : i64} : tensor<i64>
    %cb = ge.data {parent_index = 1 : i64} : tensor<?x?xf32>
    %n = ge.const {value = dense<3> : tensor<i64>} : tensor<i64>
    %c = ge.less %ci, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    ge.netoutput %c : tensor<i1>
  } body {
    %bi = ge.data {parent_index = 0 : i64} : tensor<i64>
    %bb = ge.data {parent_index = 1 : i64} : tensor<?x?xf32>
    %one = ge.const {value = dense<1> : tensor<i64>} : tensor<i64>
    %next = ge.add %bi, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %row = ge.const {value = dense<1.5> : tensor<1x2xf32>} : tensor<1x2xf32>
    %g = ge.concat %bb, %row {axis = 0 : i64} : (tensor<?x?xf32>, tensor<1x2xf32>) -> tensor<?x?xf32>
    ge.netoutput %next, %g : tensor<i64>, tensor<?x?xf32>
  }
  %o = ge.relu %r#1 : tensor<?x?xf32> -> tensor<?x?xf32>
  ge.netoutput %o : tensor<?x?xf32>
}
