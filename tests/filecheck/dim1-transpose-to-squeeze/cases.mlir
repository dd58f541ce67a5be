// RUN: ge-opt %s --split-input-file --dim1-transpose-to-squeeze | filecheck %s

// GE's Dim1TransposeToSqueezePass (docs/research/ge_behaviour.md §2.9): a transpose
// whose non-unit axes keep their order becomes squeeze + unsqueeze.

// CHECK-LABEL: ge.graph @dim1_transpose_to_squeeze
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %y = ge.squeeze %x {axes = array<i64: 0>} : tensor<1x5x7xf32> -> tensor<5x7xf32>
// CHECK-NEXT:    %y_1 = ge.unsqueeze %y {axes = array<i64: 1>} : tensor<5x7xf32> -> tensor<5x1x7xf32>
// CHECK-NEXT:    ge.netoutput %y_1
ge.graph @dim1_transpose_to_squeeze {
  %x = ge.data {index = 0 : i64} : tensor<1x5x7xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<1x5x7xf32> -> tensor<5x1x7xf32>
  ge.netoutput %y : tensor<5x1x7xf32>
}

// -----

// Several unit axes, moved to the back; unknown dims count as "not 1".
// CHECK-LABEL: ge.graph @dim1_several_unit_axes
// CHECK:         ge.squeeze %x {axes = array<i64: 0, 2>} : tensor<1x?x1x3xf16> -> tensor<?x3xf16>
// CHECK-NEXT:    ge.unsqueeze %{{.*}} {axes = array<i64: 2, 3>} : tensor<?x3xf16> -> tensor<?x3x1x1xf16>
ge.graph @dim1_several_unit_axes {
  %x = ge.data {index = 0 : i64} : tensor<1x?x1x3xf16>
  %y = ge.transpose %x {perm = array<i64: 1, 3, 2, 0>} : tensor<1x?x1x3xf16> -> tensor<?x3x1x1xf16>
  ge.netoutput %y : tensor<?x3x1x1xf16>
}

// -----

// A real axis moves: a transpose stays.
// CHECK-LABEL: ge.graph @no_dim1_real_axis_moves
// CHECK:         ge.transpose
ge.graph @no_dim1_real_axis_moves {
  %x = ge.data {index = 0 : i64} : tensor<1x5x7xf32>
  %y = ge.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<1x5x7xf32> -> tensor<7x1x5xf32>
  ge.netoutput %y : tensor<7x1x5xf32>
}

// -----

// GE skips transposes FE inserted.
// CHECK-LABEL: ge.graph @no_dim1_inserted_by_fe
// CHECK:         ge.transpose
ge.graph @no_dim1_inserted_by_fe {
  %x = ge.data {index = 0 : i64} : tensor<1x5x7xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0, 2>, _inserted_by_fe = 1 : i64} : tensor<1x5x7xf32> -> tensor<5x1x7xf32>
  ge.netoutput %y : tensor<5x1x7xf32>
}

// -----

// GE skips results whose dims are all unknown.
// CHECK-LABEL: ge.graph @no_dim1_all_unknown
// CHECK:         ge.transpose
ge.graph @no_dim1_all_unknown {
  %x = ge.data {index = 0 : i64} : tensor<?x?xf32>
  %y = ge.transpose %x {perm = array<i64: 1, 0>} : tensor<?x?xf32> -> tensor<?x?xf32>
  ge.netoutput %y : tensor<?x?xf32>
}

// -----

// No size-1 axis: nothing to squeeze (an identity perm is
// unchanged-transpose-remove's).
// CHECK-LABEL: ge.graph @no_dim1_without_unit_axis
// CHECK:         ge.transpose
ge.graph @no_dim1_without_unit_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x5xf32>
  %y = ge.transpose %x {perm = array<i64: 0, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  ge.netoutput %y : tensor<2x5xf32>
}

// -----

// An NCHW [1,C,1,1] value moved to NHWC: both sides have formats; GE's
// squeeze/unsqueeze pair would drop them in the middle, which the dialect
// allows only for plain storage. Stored in NC1HWC0, the transpose stays.
// CHECK-LABEL: ge.graph @dim1_keeps_outer_layouts
// CHECK:         ge.squeeze %x {axes = array<i64: 0, 2, 3>} : tensor<1x17x1x1xf32, #ge.layout<NCHW>> -> tensor<17xf32>
// CHECK-NEXT:    ge.unsqueeze %{{.*}} {axes = array<i64: 0, 1, 2>} : tensor<17xf32> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
// CHECK:         ge.transpose %z
ge.graph @dim1_keeps_outer_layouts {
  %x = ge.data {index = 0 : i64} : tensor<1x17x1x1xf32, #ge.layout<NCHW>>
  %y = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x1x1xf32, #ge.layout<NCHW>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  %z = ge.data {index = 1 : i64} : tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>>
  %w = ge.transpose %z {perm = array<i64: 0, 2, 3, 1>} : tensor<1x17x1x1xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x1x1x17xf32, #ge.layout<NHWC>>
  ge.netoutput %y, %w : tensor<1x1x1x17xf32, #ge.layout<NHWC>>, tensor<1x1x1x17xf32, #ge.layout<NHWC>>
}
