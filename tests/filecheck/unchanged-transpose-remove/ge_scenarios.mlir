// RUN: ge-opt %s --split-input-file --unchanged-transpose-remove | filecheck %s

// GE's UnchangedTransposeRemovePass unit-test scenarios
// (docs/research/ge_behaviour.md §5.6).

// GE: [1,1,2,2,8] with perm [1,0,2,3,4] -> removed.
// CHECK-LABEL: ge.graph @unchanged_swap_of_unit_axes
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @unchanged_swap_of_unit_axes {
  %x = ge.data {index = 0 : i64} : tensor<1x1x2x2x8xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2, 3, 4>} : tensor<1x1x2x2x8xf32> -> tensor<1x1x2x2x8xf32>
  ge.netoutput %y : tensor<1x1x2x2x8xf32>
}

// -----

// GE: [2,3,4,5] with the identity perm -> removed.
// CHECK-LABEL: ge.graph @unchanged_identity_perm
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %r = ge.relu %x
ge.graph @unchanged_identity_perm {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4x5xf16, #ge.layout<NCHW>>
  %y = ge.transpose %x {perm = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x5xf16, #ge.layout<NCHW>> -> tensor<2x3x4x5xf16, #ge.layout<NCHW>>
  %r = ge.relu %y : tensor<2x3x4x5xf16, #ge.layout<NCHW>> -> tensor<2x3x4x5xf16, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<2x3x4x5xf16, #ge.layout<NCHW>>
}

// -----

// GE: [1,1,1,1] with perm [3,2,1,0] -> removed.
// CHECK-LABEL: ge.graph @unchanged_all_unit_axes
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    ge.netoutput %x
ge.graph @unchanged_all_unit_axes {
  %x = ge.data {index = 0 : i64} : tensor<1x1x1x1xi32>
  %y = ge.transpose %x {perm = array<i64: 3, 2, 1, 0>} : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xi32>
  ge.netoutput %y : tensor<1x1x1x1xi32>
}

// -----

// GE: [3,4,2,2,8] with [1,0,...] -> kept.
// CHECK-LABEL: ge.graph @no_unchanged_moves_real_axes
// CHECK:         ge.transpose
ge.graph @no_unchanged_moves_real_axes {
  %x = ge.data {index = 0 : i64} : tensor<3x4x2x2x8xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2, 3, 4>} : tensor<3x4x2x2x8xf32> -> tensor<4x3x2x2x8xf32>
  ge.netoutput %y : tensor<4x3x2x2x8xf32>
}

// -----

// GE: a perm of length 6 for a rank-5 input -> kept. The dialect's verifier
// rejects such a transpose, so the nearest case is a size-1 axis swapped with
// a real one: the check is per axis, `shape[i] == 1 or perm[i] == i`.
// CHECK-LABEL: ge.graph @no_unchanged_unit_axis_swapped_with_real_one
// CHECK:         ge.transpose
ge.graph @no_unchanged_unit_axis_swapped_with_real_one {
  %x = ge.data {index = 0 : i64} : tensor<1x3x1xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<1x3x1xf32> -> tensor<3x1x1xf32>
  ge.netoutput %y : tensor<3x1x1xf32>
}

// -----

// In SSA the result replaces nothing unless it has the operand's type: a
// transpose of a [1,1,1,1] value that also renames the layout stays.
// CHECK-LABEL: ge.graph @no_unchanged_layout_differs
// CHECK:         ge.transpose
ge.graph @no_unchanged_layout_differs {
  %x = ge.data {index = 0 : i64} : tensor<1x1x1x1xf32, #ge.layout<NCHW>>
  %y = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x1x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x1xf32, #ge.layout<NHWC>>
  ge.netoutput %y : tensor<1x1x1x1xf32, #ge.layout<NHWC>>
}

// -----

// GE's pass handles Transpose only (it skips TransposeD, which is what GE's
// PermutePass makes of a Permute).
// CHECK-LABEL: ge.graph @no_unchanged_permute
// CHECK:         ge.permute
ge.graph @no_unchanged_permute {
  %x = ge.data {index = 0 : i64} : tensor<1x1x2x2xf32>
  %y = ge.permute %x {order = array<i64: 1, 0, 2, 3>} : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
  ge.netoutput %y : tensor<1x1x2x2xf32>
}
