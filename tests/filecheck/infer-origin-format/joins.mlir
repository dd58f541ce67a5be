// RUN: ge-opt %s --split-input-file --infer-origin-format | filecheck %s

// Conflicting anchors at a join (research §1.2 AnchorProcess, §1.3
// DefaultInferFormat, §1.7 conflicts): GE's answer for each operand order,
// anchor order and nesting. tests/test_infer_origin_format.py runs every
// graph here through the reference evaluator before and after the pass and
// through the whole pipeline and the JIT.

// Two anchors of different formats meet at an add (research §1.2, §1.3,
// §1.7). Anchors walk one after the other in IR order; the NCHW conv's walk
// reaches the add first, when the add's other input descriptor is still ND,
// so GE's default rule takes NCHW and writes the add's other input. The NHWC
// conv's walk then finds that input written (first writer wins): the
// conflict sits on the edge, a relabelling identity (docs/GE_DEVIATIONS.md).
// CHECK-LABEL: ge.graph @join_first_writer_wins
// CHECK:         %c1 = ge.conv2d {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %c2 = ge.conv2d {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %[[C2:.*]] = ge.identity %c2 : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s = ge.add %c1, %[[C2]] : (tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>) -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r = ge.relu %s : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
ge.graph @join_first_writer_wins {
  %x1 = ge.data {index = 0 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 1 : i64} : tensor<1x7x8x3xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<7x3x3x3xf32>} : tensor<7x3x3x3xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c2 = ge.conv2d %x2, %w2 {data_format = "NHWC"} : (tensor<1x7x8x3xf32>, tensor<7x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %s = ge.add %c1, %c2 : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
  %r = ge.relu %s : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  ge.netoutput %r : tensor<1x5x6x7xf32>
}

// -----

// Mirror: the operands swapped. Still the first *walk* wins, not the first
// operand (every anchor's refresh writes only its own descriptors).
// CHECK-LABEL: ge.graph @join_swapped_operands
// CHECK:         %[[C2:.*]] = ge.identity %c2 : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %s = ge.add %[[C2]], %c1 : (tensor<1x5x6x7xf32, #ge.layout<NCHW>>, tensor<1x5x6x7xf32, #ge.layout<NCHW>>) -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r = ge.relu %s : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
ge.graph @join_swapped_operands {
  %x1 = ge.data {index = 0 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 1 : i64} : tensor<1x7x8x3xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<7x3x3x3xf32>} : tensor<7x3x3x3xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c2 = ge.conv2d %x2, %w2 {data_format = "NHWC"} : (tensor<1x7x8x3xf32>, tensor<7x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %s = ge.add %c2, %c1 : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
  %r = ge.relu %s : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  ge.netoutput %r : tensor<1x5x6x7xf32>
}

// -----

// Mirror: the NHWC conv comes first in IR order, so its walk wins the add.
// CHECK-LABEL: ge.graph @join_swapped_anchor_order
// CHECK:         %c1 = ge.conv2d {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %[[C1:.*]] = ge.identity %c1 : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %s = ge.add %[[C1]], %c2 : (tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>) -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %r = ge.relu %s : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
ge.graph @join_swapped_anchor_order {
  %x1 = ge.data {index = 0 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 1 : i64} : tensor<1x7x8x3xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<7x3x3x3xf32>} : tensor<7x3x3x3xf32>
  %c2 = ge.conv2d %x2, %w2 {data_format = "NHWC"} : (tensor<1x7x8x3xf32>, tensor<7x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %s = ge.add %c1, %c2 : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
  %r = ge.relu %s : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  ge.netoutput %r : tensor<1x5x6x7xf32>
}

// -----

// Mirror: both swapped; the NHWC walk still wins.
// CHECK-LABEL: ge.graph @join_swapped_both
// CHECK:         %[[C1:.*]] = ge.identity %c1 : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:    %s = ge.add %c2, %[[C1]] : (tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>) -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
ge.graph @join_swapped_both {
  %x1 = ge.data {index = 0 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 1 : i64} : tensor<1x7x8x3xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<7x3x3x3xf32>} : tensor<7x3x3x3xf32>
  %c2 = ge.conv2d %x2, %w2 {data_format = "NHWC"} : (tensor<1x7x8x3xf32>, tensor<7x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %s = ge.add %c2, %c1 : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
  %r = ge.relu %s : tensor<1x5x6x7xf32> -> tensor<1x5x6x7xf32>
  ge.netoutput %r : tensor<1x5x6x7xf32>
}

// -----

// Nested: the join is inside both branches of an if. The NCHW conv's walk
// reaches the If operand it feeds, reflection carries NCHW to the branch
// data, the add's rule writes its other input, and the walk crosses back to
// the other branch data and the If's other operand descriptor. The NHWC
// conv finds that descriptor written: the If reads a relabelled copy.
// CHECK-LABEL: ge.graph @join_in_if_branch
// CHECK:         %[[C2:.*]] = ge.identity %c2 : tensor<1x5x6x7xf32, #ge.layout<NHWC>> -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:    %r = ge.if %c, %[[C2]], %c1 : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>> then {
// CHECK-NEXT:      %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %b = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %s = ge.add %a, %b : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK:         } else {
// CHECK-NEXT:      %a_1 = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NEXT:      %b_1 = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32, #ge.layout<NCHW>>
ge.graph @join_in_if_branch {
  %c = ge.data {index = 0 : i64} : tensor<i1>
  %x1 = ge.data {index = 1 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 2 : i64} : tensor<1x7x8x3xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<7x3x3x3xf32>} : tensor<7x3x3x3xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c2 = ge.conv2d %x2, %w2 {data_format = "NHWC"} : (tensor<1x7x8x3xf32>, tensor<7x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %r = ge.if %c, %c2, %c1 : (tensor<i1>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32> then {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %b = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %s = ge.add %a, %b : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
    ge.netoutput %s : tensor<1x5x6x7xf32>
  } else {
    %a = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %b = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %s = ge.sub %a, %b : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
    ge.netoutput %s : tensor<1x5x6x7xf32>
  }
  ge.netoutput %r : tensor<1x5x6x7xf32>
}

// -----

// Nested, swapped anchor order: the join is in a while body and the NHWC
// conv comes first; it wins loop variable 2, the add, and through the add
// loop variable 1, whose operand (the NCHW conv) is relabelled.
// CHECK-LABEL: ge.graph @join_in_while_body
// CHECK:         %[[C1:.*]] = ge.identity %c1 : tensor<1x5x6x7xf32, #ge.layout<NCHW>> -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK:         ge.while %n, %[[C1]], %c2 : {{.*}} -> (tensor<i32>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>, tensor<1x5x6x7xf32, #ge.layout<NHWC>>) cond {
// CHECK:         } body {
// CHECK:           %b1 = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK-NEXT:      %b2 = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32, #ge.layout<NHWC>>
// CHECK:           %s = ge.add %b2, %b1 : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NHWC>>
ge.graph @join_in_while_body {
  %x1 = ge.data {index = 0 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 1 : i64} : tensor<1x7x8x3xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<7x3x3x3xf32>} : tensor<7x3x3x3xf32>
  %c2 = ge.conv2d %x2, %w2 {data_format = "NHWC"} : (tensor<1x7x8x3xf32>, tensor<7x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %n = ge.const {value = dense<2> : tensor<i32>} : tensor<i32>
  %r:3 = ge.while %n, %c1, %c2 : (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> (tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) cond {
    %cn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b = ge.cast %cn {dst_type = i1} : tensor<i32> -> tensor<i1>
    ge.netoutput %b : tensor<i1>
  } body {
    %bn = ge.data {parent_index = 0 : i64} : tensor<i32>
    %b1 = ge.data {parent_index = 1 : i64} : tensor<1x5x6x7xf32>
    %b2 = ge.data {parent_index = 2 : i64} : tensor<1x5x6x7xf32>
    %one = ge.const {value = dense<-1> : tensor<i32>} : tensor<i32>
    %n2 = ge.add %bn, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = ge.add %b2, %b1 : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
    ge.netoutput %n2, %s, %b2 : tensor<i32>, tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>
  }
  ge.netoutput %r#1 : tensor<1x5x6x7xf32>
}

// -----

// Anchors that agree leave every edge as it is.
// CHECK-LABEL: ge.graph @no_relabel_when_anchors_agree
// CHECK-NOT:     ge.identity
// CHECK:         %s = ge.add %c2, %c1 : {{.*}} -> tensor<1x5x6x7xf32, #ge.layout<NCHW>>
// CHECK-NOT:     ge.identity
// CHECK:         ge.netoutput
ge.graph @no_relabel_when_anchors_agree {
  %x1 = ge.data {index = 0 : i64} : tensor<1x3x8x9xf32>
  %x2 = ge.data {index = 1 : i64} : tensor<1x3x8x9xf32>
  %w1 = ge.const {value = dense<0.5> : tensor<5x3x3x3xf32>} : tensor<5x3x3x3xf32>
  %c1 = ge.conv2d %x1, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %c2 = ge.conv2d %x2, %w1 {data_format = "NCHW"} : (tensor<1x3x8x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x7xf32>
  %s = ge.add %c2, %c1 : (tensor<1x5x6x7xf32>, tensor<1x5x6x7xf32>) -> tensor<1x5x6x7xf32>
  ge.netoutput %s : tensor<1x5x6x7xf32>
}
