// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// Control flow (research §1.6 RefRelations, tests with_if_sub_graph_*,
// IfIsNDWithSubgraph_ReflectionProcessOK and ref_relation_unittes.cc): a
// parent operand and the subgraph data mirroring it, or a parent result and
// the subgraph outputs mirroring it, form a group that is written whole.

// with_if_sub_graph_1: the anchor is a subgraph input. GE's test gives the
// If its own NCHW input descriptor, which blocks the root data's NHWC; with
// one type per value the If's operand *is* the root data's value, so here
// the root data is ND and the walk from the subgraph reaches everything:
// the branch output, the If result, the other branch, and back to the root.
// CHECK-LABEL: ge.graph @with_if_sub_graph_1
// CHECK:         %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r = ge.if %c, %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>> then {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %s = ge.sub %a, %a : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %t = ge.relu %s : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %t : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %e = ge.exp %a_1 : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %e : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    }
// CHECK-NEXT:    %o = ge.relu %r : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @with_if_sub_graph_1 {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
    %s = ge.sub %a, %a : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32>
    %t = ge.relu %s : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
    ge.netoutput %t : tensor<1x3x4x4xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %e = ge.exp %a : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
    ge.netoutput %e : tensor<1x3x4x4xf32>
  }
  %o = ge.relu %r : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %o : tensor<1x3x4x4xf32>
}

// -----

// IfIsNDWithSubgraph_ReflectionProcessOK: the root data's NHWC reaches the
// If's input and overwrites the subgraph data (NCHW before); the sub takes
// NHWC; the relu feeding each branch output keeps its own NCHW, which is
// reflected into the If's result and from there to the root's relu.
// CHECK-LABEL: ge.graph @if_is_nd_with_subgraph_reflection_process_ok
// CHECK:         %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %r = ge.if %c, %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>> then {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %s = ge.sub %a, %a : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %t = ge.relu %s : tensor<1x3x4x4xf32, #ge.layout<NHWC>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %t : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %s_1 = ge.sub %a_1, %a_1 : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %t_1 = ge.relu %s_1 : tensor<1x3x4x4xf32, #ge.layout<NHWC>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %t_1 : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    }
// CHECK-NEXT:    %o = ge.relu %r : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @if_is_nd_with_subgraph_reflection_process_ok {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
  %r = ge.if %c, %x : (tensor<i1>, tensor<1x3x4x4xf32, #ge.layout<NHWC>>) -> tensor<1x3x4x4xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
    %s = ge.sub %a, %a : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32>
    %t = ge.relu %s : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
    ge.netoutput %t : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
    %s = ge.sub %a, %a : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32>
    %t = ge.relu %s : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
    ge.netoutput %t : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  }
  %o = ge.relu %r : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %o : tensor<1x3x4x4xf32>
}

// -----

// with_if_sub_graph_2: the anchor (an NHWC pool) is inside one branch. Its
// input reaches the subgraph data, whose group carries NHWC out to the root
// data and into the other branch; its output reaches the If's result.
// (GE's test only shows the anchor branch because its builder defaults the
// rest to NCHW.)
// CHECK-LABEL: ge.graph @with_if_sub_graph_2
// CHECK:         %x = ge.data {index = 1 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %r = ge.if %c, %x : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>> then {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %p = ge.avg_pool %a {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK:         } else {
// CHECK-NEXT:      %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %n = ge.neg %a_1 : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK:         %o = ge.relu %r : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
ge.graph @with_if_sub_graph_2 {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x4x4x3xf32>
  %r = ge.if %c, %x : (tensor<i1>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x4x4x3xf32>
    %p = ge.avg_pool %a {data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
    ge.netoutput %p : tensor<1x4x4x3xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x4x4x3xf32>
    %n = ge.neg %a : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
    ge.netoutput %n : tensor<1x4x4x3xf32>
  }
  %o = ge.relu %r : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
  ge.netoutput %o : tensor<1x4x4x3xf32>
}

// -----

// RefRelations If: each parent input groups with the data of that index in
// every branch (inputs 1 and 2 here are independent groups); the condition
// (a scalar) never takes a format.
// CHECK-LABEL: ge.graph @ref_relation_if
// CHECK:         %c = ge.data {index = 0 : i64} : tensor<i1>
// CHECK-NEXT:    %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %y = ge.data {index = 2 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK:           %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %b = ge.data {parent_index = 2 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK:           %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %b_1 = ge.data {parent_index = 2 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
ge.graph @ref_relation_if {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.data {index = 2 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
  %r:2 = ge.if %c, %x, %y : (tensor<i1>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x4x4x3xf32, #ge.layout<NHWC>>) -> (tensor<1x3x4x4xf32>, tensor<1x4x4x3xf32>) then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %b = ge.data {parent_index = 2 : i64} : tensor<1x4x4x3xf32>
    ge.netoutput %a, %b : tensor<1x3x4x4xf32>, tensor<1x4x4x3xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %b = ge.data {parent_index = 2 : i64} : tensor<1x4x4x3xf32>
    ge.netoutput %a, %b : tensor<1x3x4x4xf32>, tensor<1x4x4x3xf32>
  }
  ge.netoutput %r#0, %r#1 : tensor<1x3x4x4xf32>, tensor<1x4x4x3xf32>
}

// -----

// Case with three branches, anchored outside (the operand, NCHW) and inside
// (a constant output, NHWC). The outside anchor comes first: its walk
// reaches a branch output, and reflection overwrites the whole output group
// (GE's one exception to first-writer-wins). The group holds the branch
// outputs' input descriptors, not the constant's own: the constant stays
// NHWC and the edge into its branch output is relabelled to NCHW.
// CHECK-LABEL: ge.graph @case_anchors_inside_and_outside
// CHECK:         %r = ge.case %i, %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>> {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %n = ge.neg %a : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %n : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %k = ge.const {{.*}} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %[[K:.*]] = ge.identity %k : tensor<1x3x4x4xf32, #ge.layout<NHWC>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %[[K]] : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %a_2 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %e = ge.exp %a_2 : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %e : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    }
ge.graph @case_anchors_inside_and_outside {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %r = ge.case %i, %x : (tensor<i32>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %n = ge.neg %a : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
    ge.netoutput %n : tensor<1x3x4x4xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %k = ge.const {value = dense<0.0> : tensor<1x3x4x4xf32>} : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
    ge.netoutput %k : tensor<1x3x4x4xf32, #ge.layout<NHWC>>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %e = ge.exp %a : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
    ge.netoutput %e : tensor<1x3x4x4xf32>
  }
  ge.netoutput %r : tensor<1x3x4x4xf32>
}

// -----

// RefRelations While, anchored outside: loop variable 1 is one group (its
// operand, result, cond and body data and body output); the counter is a
// scalar and stays ND.
// CHECK-LABEL: ge.graph @while_anchor_outside
// CHECK:         %r, %r_1 = ge.while %n, %x : {{.*}} -> (tensor<i32>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) cond {
// CHECK-NEXT:      %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
// CHECK-NEXT:      %cx = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK:         } body {
// CHECK-NEXT:      %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
// CHECK-NEXT:      %bx = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK:           %x2 = ge.mul %bx, %bx : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %n2, %x2 : tensor<i32>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK:         %o = ge.relu %r_1 : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @while_anchor_outside {
  %n = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %r:2 = ge.while %n, %x : (tensor<i32>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> (tensor<i32>, tensor<1x3x4x4xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %cx = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %x2 = ge.mul %bx, %bx : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    ge.netoutput %n2, %x2 : tensor<i32>, tensor<1x3x4x4xf32>
  }
  %o = ge.relu %r#1 : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.netoutput %o : tensor<1x3x4x4xf32>
}

// -----

// While anchored inside the body: the pool's NHWC reaches the body data,
// whose group carries it to the loop operand (and the root data), the
// result, the cond data and the body output.
// CHECK-LABEL: ge.graph @while_anchor_inside
// CHECK:         %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %r = ge.while %x : {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>> cond {
// CHECK-NEXT:      %cx = ge.data {parent_index = 0 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK:         } body {
// CHECK-NEXT:      %bx = ge.data {parent_index = 0 : i64} : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %p = ge.max_pool %bx {{.*}} -> tensor<1x4x4x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      ge.netoutput %p : tensor<1x4x4x3xf32, #ge.layout<NHWC>>
ge.graph @while_anchor_inside {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x3xf32>
  %r = ge.while %x : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> cond {
    %cx = ge.data {parent_index = 0 : i64} : tensor<1x4x4x3xf32>
    %s = ge.reduce_sum %cx {keep_dims = false} : tensor<1x4x4x3xf32> -> tensor<f32>
    %b = ge.cast %s {dst_type = i1} : tensor<f32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bx = ge.data {parent_index = 0 : i64} : tensor<1x4x4x3xf32>
    %p = ge.max_pool %bx {data_format = "NHWC", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<1x4x4x3xf32>
    ge.netoutput %p : tensor<1x4x4x3xf32>
  }
  ge.netoutput %r : tensor<1x4x4x3xf32>
}

// -----

// GE's crossed-loop-variable rule: the body returns data 1 as output 0 and
// data 0 as output 1, so loop variables 0 and 1 share one group and an
// anchor on variable 0 reaches variable 1.
// CHECK-LABEL: ge.graph @while_crossed_loop_variables
// CHECK:         %y = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r, %r_1 = ge.while %x, %y : {{.*}} -> (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>) cond {
// CHECK:         } body {
// CHECK-NEXT:      %b0 = ge.data {parent_index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %b1 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @while_crossed_loop_variables {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %y = ge.data {index = 1 : i64} : tensor<1x3x4x4xf32>
  %r:2 = ge.while %x, %y : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1x3x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) cond {
    %c0 = ge.data {parent_index = 0 : i64} : tensor<1x3x4x4xf32>
    %s = ge.reduce_max %c0 {keep_dims = false} : tensor<1x3x4x4xf32> -> tensor<f32>
    %b = ge.cast %s {dst_type = i1} : tensor<f32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %b0 = ge.data {parent_index = 0 : i64} : tensor<1x3x4x4xf32>
    %b1 = ge.data {parent_index = 1 : i64} : tensor<1x3x4x4xf32>
    ge.netoutput %b1, %b0 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
  }
  ge.netoutput %r#0, %r#1 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// RefRelations variables: in a graph with subgraphs, variables of the same
// name are one group; the root's NCHW reaches the copy inside the branch.
// CHECK-LABEL: ge.graph @shared_variables
// CHECK:         %w = ge.variable {name = "w"} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK:           %w2 = ge.variable {name = "w"} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %v = ge.variable {name = "v"} : tensor<1x3x4x4xf32>
ge.graph @shared_variables {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %w = ge.variable {name = "w"} : tensor<1x3x4x4xf32>
  %p = ge.avg_pool %w {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  ge.if %c : (tensor<i1>) -> () then {
    %w2 = ge.variable {name = "w"} : tensor<1x3x4x4xf32>
    %v = ge.variable {name = "v"} : tensor<1x3x4x4xf32>
    ge.netoutput
  } else {
    ge.netoutput
  }
  ge.netoutput %p : tensor<1x3x4x4xf32>
}

// -----

// partitioned_call reflects like a branch op.
// CHECK-LABEL: ge.graph @partitioned_call
// CHECK:         %r = ge.partitioned_call %x : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>> {
// CHECK-NEXT:      %a = ge.data {parent_index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %t = ge.abs %a : {{.*}} -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
ge.graph @partitioned_call {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %r = ge.partitioned_call %x : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>) -> tensor<1x3x4x4xf32> {
    %a = ge.data {parent_index = 0 : i64} : tensor<1x3x4x4xf32>
    %t = ge.abs %a : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
    ge.netoutput %t : tensor<1x3x4x4xf32>
  }
  ge.netoutput %r : tensor<1x3x4x4xf32>
}

// -----

// A fused group's body mirrors its operands and results like a subgraph.
// CHECK-LABEL: ge.graph @fused_group
// CHECK:         %y = ge.fused %x, %w {{.*}} -> tensor<1x6x6x4xf32, #ge.layout<NHWC>> {
// CHECK-NEXT:      %0 = ge.data {parent_index = 0 : i64} : tensor<1x8x8x3xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %1 = ge.data {parent_index = 1 : i64} : tensor<4x3x3x3xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %2 = ge.conv2d %0, %1 {{.*}} -> tensor<1x6x6x4xf32, #ge.layout<NHWC>>
ge.graph @fused_group {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.fused %x, %w {fusion_rule = "ConvEltwiseFusion"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32> {
    %0 = ge.data {parent_index = 0 : i64} : tensor<1x8x8x3xf32>
    %1 = ge.data {parent_index = 1 : i64} : tensor<4x3x3x3xf32>
    %2 = ge.conv2d %0, %1 {data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
    %3 = ge.relu %2 : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
    ge.netoutput %3 : tensor<1x6x6x4xf32>
  }
  ge.netoutput %y : tensor<1x6x6x4xf32>
}
