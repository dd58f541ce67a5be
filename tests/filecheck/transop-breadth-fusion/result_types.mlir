// RUN: ge-opt %s --split-input-file --transop-breadth-fusion | filecheck %s

// GE's fusion id compares the descriptors a trans op writes (research §2.2):
// shapes for Reshape/Squeeze/Unsqueeze, formats and shapes for ExpandDims,
// the perm for a Transpose. Attributes that only spell the result shape do
// not keep two ops apart. tests/test_transop_passes.py runs every graph here
// through the reference evaluator before and after the pass.

// Reshapes to one [3,17] written [3,17] and [3,-1] are one op.
// CHECK-LABEL: ge.graph @reshape_spelled_two_ways
// CHECK:         %[[A:.*]] = ge.reshape %x {shape = array<i64: 3, 17>}
// CHECK-NEXT:    %r = ge.relu %[[A]]
// CHECK-NEXT:    %s = ge.sigmoid %[[A]]
ge.graph @reshape_spelled_two_ways {
  %x = ge.data {index = 0 : i64} : tensor<51xf32>
  %a = ge.reshape %x {shape = array<i64: 3, 17>} : tensor<51xf32> -> tensor<3x17xf32>
  %b = ge.reshape %x {shape = array<i64: 3, -1>} : tensor<51xf32> -> tensor<3x17xf32>
  %r = ge.relu %a : tensor<3x17xf32> -> tensor<3x17xf32>
  %s = ge.sigmoid %b : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %r, %s : tensor<3x17xf32>, tensor<3x17xf32>
}

// -----

// Mirror: the other spelling first, and a third spelling (0 copies the
// input dim; no attribute at all means the result type); the first is kept.
// CHECK-LABEL: ge.graph @reshape_spelled_three_ways
// CHECK:         %[[A:.*]] = ge.reshape %x {shape = array<i64: -1, 17>}
// CHECK-NOT:     ge.reshape
// CHECK:         ge.netoutput %[[A]], %[[A]], %[[A]] :
ge.graph @reshape_spelled_three_ways {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %a = ge.reshape %x {shape = array<i64: -1, 17>} : tensor<3x17xf32> -> tensor<3x17xf32>
  %b = ge.reshape %x {shape = array<i64: 0, 17>} : tensor<3x17xf32> -> tensor<3x17xf32>
  %c = ge.reshape %x : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %a, %b, %c : tensor<3x17xf32>, tensor<3x17xf32>, tensor<3x17xf32>
}

// -----

// expand_dims axis 0 and axis -2 of a [3] both give [1,3]: one op.
// CHECK-LABEL: ge.graph @expand_dims_spelled_two_ways
// CHECK:         %[[A:.*]] = ge.expand_dims %x {axis = 0 : i64}
// CHECK-NOT:     ge.expand_dims
// CHECK:         ge.netoutput %[[A]], %[[A]] :
ge.graph @expand_dims_spelled_two_ways {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %a = ge.expand_dims %x {axis = 0 : i64} : tensor<3xf32> -> tensor<1x3xf32>
  %b = ge.expand_dims %x {axis = -2 : i64} : tensor<3xf32> -> tensor<1x3xf32>
  ge.netoutput %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Squeeze axes written positive and negative, and unsqueeze of a [1] at
// either end (both [1,1]): one op each.
// CHECK-LABEL: ge.graph @squeeze_unsqueeze_spelled_two_ways
// CHECK:         %[[S:.*]] = ge.squeeze %x {axes = array<i64: 0>}
// CHECK-NEXT:    %[[U:.*]] = ge.unsqueeze %y {axes = array<i64: 0>}
// CHECK-NEXT:    ge.netoutput %[[S]], %[[S]], %[[U]], %[[U]] :
ge.graph @squeeze_unsqueeze_spelled_two_ways {
  %x = ge.data {index = 0 : i64} : tensor<1x17xf32>
  %y = ge.data {index = 1 : i64} : tensor<1xf32>
  %a = ge.squeeze %x {axes = array<i64: 0>} : tensor<1x17xf32> -> tensor<17xf32>
  %u = ge.unsqueeze %y {axes = array<i64: 0>} : tensor<1xf32> -> tensor<1x1xf32>
  %b = ge.squeeze %x {axes = array<i64: -2>} : tensor<1x17xf32> -> tensor<17xf32>
  %v = ge.unsqueeze %y {axes = array<i64: 1>} : tensor<1xf32> -> tensor<1x1xf32>
  ge.netoutput %a, %b, %u, %v : tensor<17xf32>, tensor<17xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// Nested: the same in a subgraph.
// CHECK-LABEL: ge.graph @reshape_spelled_two_ways_in_subgraph
// CHECK:           %[[A:.*]] = ge.reshape %d {shape = array<i64: 3, -1>}
// CHECK-NOT:       ge.reshape
// CHECK:           ge.netoutput %[[A]], %[[A]] :
ge.graph @reshape_spelled_two_ways_in_subgraph {
  %x = ge.data {index = 0 : i64} : tensor<51xf32>
  %y:2 = ge.partitioned_call %x : (tensor<51xf32>) -> (tensor<3x17xf32>, tensor<3x17xf32>) {
    %d = ge.data {parent_index = 0 : i64} : tensor<51xf32>
    %a = ge.reshape %d {shape = array<i64: 3, -1>} : tensor<51xf32> -> tensor<3x17xf32>
    %b = ge.reshape %d {shape = array<i64: 3, 17>} : tensor<51xf32> -> tensor<3x17xf32>
    ge.netoutput %a, %b : tensor<3x17xf32>, tensor<3x17xf32>
  }
  ge.netoutput %y#0, %y#1 : tensor<3x17xf32>, tensor<3x17xf32>
}

// -----

// A transpose is compared by its permutation, negative axes normalised.
// CHECK-LABEL: ge.graph @transpose_negative_axes
// CHECK:         %[[A:.*]] = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT:     ge.transpose
// CHECK:         ge.netoutput %[[A]], %[[A]] :
ge.graph @transpose_negative_axes {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x5xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x3x5xf32> -> tensor<1x3x5x17xf32>
  %b = ge.transpose %x {perm = array<i64: 0, -2, -1, 1>} : tensor<1x17x3x5xf32> -> tensor<1x3x5x17xf32>
  ge.netoutput %a, %b : tensor<1x3x5x17xf32>, tensor<1x3x5x17xf32>
}

// -----

// Transposes with one result type but different permutations compute
// different values (the result type does not fix a permutation): kept.
// CHECK-LABEL: ge.graph @no_transpose_same_result_other_perm
// CHECK:         ge.transpose %x {perm = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT:    ge.transpose %x {perm = array<i64: 0, 1, 2, 3>}
ge.graph @no_transpose_same_result_other_perm {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf32>
  %a = ge.transpose %x {perm = array<i64: 0, 1, 3, 2>} : tensor<1x17x3x3xf32> -> tensor<1x17x3x3xf32>
  %b = ge.transpose %x {perm = array<i64: 0, 1, 2, 3>} : tensor<1x17x3x3xf32> -> tensor<1x17x3x3xf32>
  ge.netoutput %a, %b : tensor<1x17x3x3xf32>, tensor<1x17x3x3xf32>
}

// -----

// One unknown dim is fixed by the element count: [?, 17] written [-1, 17]
// and [0, 17] is one op.
// CHECK-LABEL: ge.graph @reshape_one_unknown_dim
// CHECK:         %[[A:.*]] = ge.reshape %x {shape = array<i64: -1, 17>}
// CHECK-NOT:     ge.reshape
// CHECK:         ge.netoutput %[[A]], %[[A]] :
ge.graph @reshape_one_unknown_dim {
  %x = ge.data {index = 0 : i64} : tensor<?x17xf32>
  %a = ge.reshape %x {shape = array<i64: -1, 17>} : tensor<?x17xf32> -> tensor<?x17xf32>
  %b = ge.reshape %x {shape = array<i64: 0, 17>} : tensor<?x17xf32> -> tensor<?x17xf32>
  ge.netoutput %a, %b : tensor<?x17xf32>, tensor<?x17xf32>
}

// -----

// Two unknown dims: [?, 6] read as [-1, 3] (rows of 3) and as [2, -1] (two
// rows) differ although both results are tensor<?x?xf32>: kept.
// CHECK-LABEL: ge.graph @no_reshape_two_unknown_dims
// CHECK:         ge.reshape %x {shape = array<i64: -1, 3>}
// CHECK-NEXT:    ge.reshape %x {shape = array<i64: 2, -1>}
ge.graph @no_reshape_two_unknown_dims {
  %x = ge.data {index = 0 : i64} : tensor<?x6xf32>
  %a = ge.reshape %x {shape = array<i64: -1, 3>} : tensor<?x6xf32> -> tensor<?x?xf32>
  %b = ge.reshape %x {shape = array<i64: 2, -1>} : tensor<?x6xf32> -> tensor<?x?xf32>
  ge.netoutput %a, %b : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Reshapes with other result shapes, or one with a stream_label, stay apart.
// CHECK-LABEL: ge.graph @no_reshape_other_shape_or_stream
// CHECK:         ge.reshape %x {shape = array<i64: 3, 17>}
// CHECK-NEXT:    ge.reshape %x {shape = array<i64: 17, 3>}
// CHECK-NEXT:    ge.reshape %x {shape = array<i64: 3, -1>, stream_label = "s1"}
ge.graph @no_reshape_other_shape_or_stream {
  %x = ge.data {index = 0 : i64} : tensor<51xf32>
  %a = ge.reshape %x {shape = array<i64: 3, 17>} : tensor<51xf32> -> tensor<3x17xf32>
  %b = ge.reshape %x {shape = array<i64: 17, 3>} : tensor<51xf32> -> tensor<17x3xf32>
  %c = ge.reshape %x {shape = array<i64: 3, -1>, stream_label = "s1"} : tensor<51xf32> -> tensor<3x17xf32>
  ge.netoutput %a, %b, %c : tensor<3x17xf32>, tensor<17x3xf32>, tensor<3x17xf32>
}
