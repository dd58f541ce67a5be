// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// Reflection versus user intent (research §1.2 ReflectionProcess, §1.6
// RefRelations, §1.7): reflection overwrites a whole group, but a group
// holds the parent op's operand *descriptors* and the subgraph outputs'
// input descriptors, never the values feeding them. So a user-declared
// layout and an op's own data_format survive; the disagreement lands on the
// edge as a relabelling identity (docs/GE_DEVIATIONS.md).
// tests/test_infer_origin_format.py runs every graph here (every branch)
// through the reference evaluator before and after the pass and through the
// whole pipeline and the JIT.

// A while whose body outputs cross its loop variables indirectly (through
// ops, so GE's crossed-variable rule does not merge the groups). The NCHW
// pool's walk reaches variable 2, crosses the body into variable 1 and
// reflection writes variable 1's group (research §1.6): the While's operand
// *descriptor*, not the value feeding it. The graph input the user declared
// NHWC keeps NHWC; the While reads a relabelled copy.
// CHECK-LABEL: ge.graph @while_keeps_user_layout
// CHECK:         %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %[[X:.*]] = ge.identity %x : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK:         ge.while %n, %[[X]], %p : (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>) -> (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>) cond {
// CHECK:           %cx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK:         } body {
// CHECK:           %bx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %bp = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
ge.graph @while_keeps_user_layout {
  %a = ge.data {index = 0 : i64} : tensor<1x5x6x7xf32>
  %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>} : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
  %n = ge.const {value = dense<2> : tensor<i32>} : tensor<i32>
  %r:3 = ge.while %n, %x, %p : (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32>) -> (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %cx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %bp = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %x2 = ge.abs %bp : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
    %p2 = ge.neg %bx : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
    ge.netoutput %n2, %x2, %p2 : tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
  }
  ge.netoutput %r#1, %r#2 : tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
}

// -----

// Mirror, swapped anchor order: the user's NHWC input comes first, wins
// both loop variables, and the NCHW pool keeps its own result (relabelled
// into the While).
// CHECK-LABEL: ge.graph @while_user_layout_first
// CHECK:         %x = ge.data {index = 0 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK:         %p = ge.avg_pool %a {{.*}} : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[P:.*]] = ge.identity %p : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK:         ge.while %n, %x, %[[P]] : {{.*}} -> (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>) cond {
ge.graph @while_user_layout_first {
  %x = ge.data {index = 0 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
  %a = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32>
  %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>} : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  %n = ge.const {value = dense<2> : tensor<i32>} : tensor<i32>
  %r:3 = ge.while %n, %x, %p : (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32>) -> (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %bp = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %x2 = ge.abs %bp : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
    %p2 = ge.neg %bx : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
    ge.netoutput %n2, %x2, %p2 : tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
  }
  ge.netoutput %r#1, %r#2 : tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
}

// -----

// Mirror: the body returns its data crossed directly, so GE's extra rule
// merges the two groups; reflection reaches the user's input's descriptor
// the same way, and the input keeps NHWC.
// CHECK-LABEL: ge.graph @while_crossed_directly
// CHECK:         %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %[[X:.*]] = ge.identity %x : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK:         ge.while %n, %[[X]], %p : {{.*}} -> (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>) cond {
ge.graph @while_crossed_directly {
  %a = ge.data {index = 0 : i64} : tensor<1x5x6x7xf32>
  %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>} : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
  %n = ge.const {value = dense<3> : tensor<i32>} : tensor<i32>
  %r:3 = ge.while %n, %x, %p : (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32>) -> (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %bp = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    ge.netoutput %n2, %bp, %bx : tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
  }
  ge.netoutput %r#1, %r#2 : tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
}

// -----

// Nested: the same while inside an if branch. Reflection runs through both
// levels (the while's groups, then the if's) and stops at the If's operand
// descriptor; the user's NHWC input keeps its layout.
// CHECK-LABEL: ge.graph @while_in_if_keeps_user_layout
// CHECK:         %x = ge.data {index = 2 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %[[X:.*]] = ge.identity %x : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %o = ge.if %c, %[[X]], %p : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>> then {
// CHECK-NEXT:      %ix = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK:           ge.while %n, %ix, %ip : {{.*}} -> (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>) cond {
// CHECK-NOT:       ge.identity
// CHECK:         } else {
ge.graph @while_in_if_keeps_user_layout {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %a = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32>
  %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>} : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  %x = ge.data {index = 2 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
  %o = ge.if %c, %x, %p : (tensor<i1>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32> then {
    %ix = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %ip = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %n = ge.const {value = dense<2> : tensor<i32>} : tensor<i32>
    %r:3 = ge.while %n, %ix, %ip : (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) cond {
      %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
      %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
      ge.netoutput %b : tensor<i1>
    } body {
      %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
      %bx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
      %bp = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
      %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
      %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %x2 = ge.abs %bp : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
      %p2 = ge.neg %bx : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
      ge.netoutput %n2, %x2, %p2 : tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
    }
    ge.netoutput %r#1 : tensor<1x5x6x7xf32>
  } else {
    %ix = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    ge.netoutput %ix : tensor<1x5x6x7xf32>
  }
  ge.netoutput %o : tensor<1x5x6x7xf32>
}

// -----

// A user layout that agrees with the walk needs no relabelling.
// CHECK-LABEL: ge.graph @no_relabel_when_user_layout_agrees
// CHECK-NOT:     ge.identity
// CHECK:         ge.while %n, %x, %p : (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NOT:     ge.identity
// CHECK:         ge.netoutput %r_1, %r_2
ge.graph @no_relabel_when_user_layout_agrees {
  %a = ge.data {index = 0 : i64} : tensor<1x5x6x7xf32>
  %p = ge.avg_pool %a {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>} : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
  %n = ge.const {value = dense<2> : tensor<i32>} : tensor<i32>
  %r:3 = ge.while %n, %x, %p : (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32>) -> (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %bx = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %bp = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %x2 = ge.abs %bp : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
    %p2 = ge.neg %bx : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
    ge.netoutput %n2, %x2, %p2 : tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
  }
  ge.netoutput %r#1, %r#2 : tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
}

// -----

// A 3-branch case whose branches disagree: branch 0 pools NCHW, branch 1
// pools NHWC. The NCHW pool's walk comes first and reflection writes the
// whole input and output groups NCHW: the branch data (GE overwrites them)
// and the branch outputs' input descriptors. The NHWC max_pool keeps its
// own format on both sides, as its data_format says; both of its edges are
// relabelled.
// CHECK-LABEL: ge.graph @case_pool_keeps_its_format
// CHECK:         %r = ge.case %i, %x : {{.*}} -> tensor<1x4x5x7xf32, #ge.layout<NCHW>> {
// CHECK:           %p = ge.avg_pool %s {{.*}} : tensor<1x4x6x7xf32, #ge.layout<NCHW>> -> tensor<1x4x5x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %p
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %[[A:.*]] = ge.identity %a_1 : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %m = ge.max_pool %[[A]] {data_format = "NHWC", {{.*}}} : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x4x5x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %[[M:.*]] = ge.identity %m : tensor<1x4x5x7xf32, #ge.layout<NHWC>> -> tensor<1x4x5x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      ge.netoutput %[[M]] : tensor<1x4x5x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %a_2 = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NOT:       ge.identity
// CHECK:         ge.netoutput %r
ge.graph @case_pool_keeps_its_format {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32>
  %r = ge.case %i, %x : (tensor<i32>, tensor<1x5x6x7xf32>) -> tensor<1x4x5x7xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %s = ge.slice %a {begins = array<i64: 1>, ends = array<i64: 5>, axes = array<i64: 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x6x7xf32>
    %p = ge.avg_pool %s {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 1>} : tensor<1x4x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %p : tensor<1x4x5x7xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %m = ge.max_pool %a {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %m : tensor<1x4x5x7xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %s = ge.slice %a {begins = array<i64: 0, 1>, ends = array<i64: 4, 6>, axes = array<i64: 1, 2>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    %e = ge.exp %s : tensor<1x4x5x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %e : tensor<1x4x5x7xf32>
  }
  ge.netoutput %r : tensor<1x4x5x7xf32>
}

// -----

// Mirror, swapped branch (anchor) order: the NHWC max_pool comes first and
// wins; the NCHW avg_pool keeps its own format and is relabelled on both
// sides.
// CHECK-LABEL: ge.graph @case_pool_first_branch
// CHECK:         %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %r = ge.case %i, %x : {{.*}} -> tensor<1x4x5x7xf32, #ge.layout<NHWC>> {
// CHECK:           %m = ge.max_pool %a {{.*}} : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x4x5x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      ge.netoutput %m
// CHECK:           %s = ge.slice %a_1 {{.*}} -> tensor<1x4x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %[[S:.*]] = ge.identity %s : tensor<1x4x6x7xf32, #ge.layout<NHWC>> -> tensor<1x4x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %p = ge.avg_pool %[[S]] {data_format = "NCHW", {{.*}}} : tensor<1x4x6x7xf32, #ge.layout<NCHW>> -> tensor<1x4x5x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %[[P:.*]] = ge.identity %p : tensor<1x4x5x7xf32, #ge.layout<NCHW>> -> tensor<1x4x5x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      ge.netoutput %[[P]] : tensor<1x4x5x7xf32, #ge.layout<NHWC>>
ge.graph @case_pool_first_branch {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32>
  %r = ge.case %i, %x : (tensor<i32>, tensor<1x5x6x7xf32>) -> tensor<1x4x5x7xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %m = ge.max_pool %a {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %m : tensor<1x4x5x7xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %s = ge.slice %a {begins = array<i64: 1>, ends = array<i64: 5>, axes = array<i64: 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x6x7xf32>
    %p = ge.avg_pool %s {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 1>} : tensor<1x4x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %p : tensor<1x4x5x7xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %s = ge.slice %a {begins = array<i64: 0, 1>, ends = array<i64: 4, 6>, axes = array<i64: 1, 2>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    %e = ge.exp %s : tensor<1x4x5x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %e : tensor<1x4x5x7xf32>
  }
  ge.netoutput %r : tensor<1x4x5x7xf32>
}

// -----

// Nested: the case inside an if branch. Same answer one level down.
// CHECK-LABEL: ge.graph @case_in_if_pool_keeps_its_format
// CHECK:         %o = ge.if %c, %i, %x : {{.*}} -> tensor<1x4x5x7xf32, #ge.layout<NCHW>> then {
// CHECK:           %r = ge.case %ii, %ix : {{.*}} -> tensor<1x4x5x7xf32, #ge.layout<NCHW>> {
// CHECK:             %[[A:.*]] = ge.identity %a_1 : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:        %m = ge.max_pool %[[A]] {data_format = "NHWC", {{.*}}} : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x4x5x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:        %[[M:.*]] = ge.identity %m : tensor<1x4x5x7xf32, #ge.layout<NHWC>> -> tensor<1x4x5x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:        ge.netoutput %[[M]] : tensor<1x4x5x7xf32, #ge.layout<NCHW>>
ge.graph @case_in_if_pool_keeps_its_format {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %i = ge.data {index = 1 : i64} : tensor<i32>
  %x = ge.data {index = 2 : i64} : tensor<1x5x6x7xf32>
  %o = ge.if %c, %i, %x : (tensor<i1>, tensor<i32>, tensor<1x5x6x7xf32>) -> tensor<1x4x5x7xf32> then {
    %ii = ge.data {parent_index = 1 : i64} : tensor<i32>
    %ix = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %r = ge.case %ii, %ix : (tensor<i32>, tensor<1x5x6x7xf32>) -> tensor<1x4x5x7xf32> {
      %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
      %s = ge.slice %a {begins = array<i64: 1>, ends = array<i64: 5>, axes = array<i64: 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x6x7xf32>
      %p = ge.avg_pool %s {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 1>} : tensor<1x4x6x7xf32> -> tensor<1x4x5x7xf32>
      ge.netoutput %p : tensor<1x4x5x7xf32>
    }, {
      %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
      %m = ge.max_pool %a {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
      ge.netoutput %m : tensor<1x4x5x7xf32>
    }, {
      %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
      %s = ge.slice %a {begins = array<i64: 0, 1>, ends = array<i64: 4, 6>, axes = array<i64: 1, 2>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
      %e = ge.exp %s : tensor<1x4x5x7xf32> -> tensor<1x4x5x7xf32>
      ge.netoutput %e : tensor<1x4x5x7xf32>
    }
    ge.netoutput %r : tensor<1x4x5x7xf32>
  } else {
    %ix = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %s = ge.slice %ix {begins = array<i64: 0, 0>, ends = array<i64: 4, 5>, axes = array<i64: 1, 2>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %s : tensor<1x4x5x7xf32>
  }
  ge.netoutput %o : tensor<1x4x5x7xf32>
}

// -----

// Branches that agree need no relabelling.
// CHECK-LABEL: ge.graph @no_relabel_when_branches_agree
// CHECK-NOT:     ge.identity
// CHECK:         %m_1 = ge.avg_pool %a_1 {{.*}} -> tensor<1x4x5x7xf32, #ge.layout<NHWC>>
// CHECK-NOT:     ge.identity
// CHECK:         ge.netoutput %r
ge.graph @no_relabel_when_branches_agree {
  %i = ge.data {index = 0 : i64} : tensor<i32>
  %x = ge.data {index = 1 : i64} : tensor<1x5x6x7xf32>
  %r = ge.case %i, %x : (tensor<i32>, tensor<1x5x6x7xf32>) -> tensor<1x4x5x7xf32> {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %m = ge.max_pool %a {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %m : tensor<1x4x5x7xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %m = ge.avg_pool %a {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %m : tensor<1x4x5x7xf32>
  }, {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %s = ge.slice %a {begins = array<i64: 0, 1>, ends = array<i64: 4, 6>, axes = array<i64: 1, 2>} : tensor<1x5x6x7xf32> -> tensor<1x4x5x7xf32>
    %e = ge.exp %s : tensor<1x4x5x7xf32> -> tensor<1x4x5x7xf32>
    ge.netoutput %e : tensor<1x4x5x7xf32>
  }
  ge.netoutput %r : tensor<1x4x5x7xf32>
}
