// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid data movement: concat, split, slice, gather, tile, pad.

ge.graph @concat_no_inputs {
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op 'ge.concat' needs at least one input
  %r = ge.concat {axis = 0 : i64} : () -> tensor<2xf32>
  ge.netoutput
}

// -----

ge.graph @concat_rank_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op input #1 has rank 1, expected 2
  %r = ge.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  ge.netoutput
}

// -----

ge.graph @concat_dim_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x4xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op input #1 dim 1 is 4, result has 3
  %r = ge.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  ge.netoutput
}

// -----

ge.graph @concat_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op axis 2 is out of range for rank 2
  %r = ge.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  ge.netoutput
}

// -----

ge.graph @concat_dtype_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3xf16>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operands and results must share one dtype, got f16, f32
  %r = ge.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  ge.netoutput
}

// -----

ge.graph @concat_missing_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op attribute 'axis' expected in operation 'ge.concat'
  %r = ge.concat %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @split_sizes_count {
  %x = ge.data {index = 0 : i64} : tensor<2x8xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.split' op 'sizes' has 3 entries for 2 results
  %r:2 = ge.split %x {axis = 1 : i64, sizes = array<i64: 4, 2, 2>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  ge.netoutput
}

// -----

ge.graph @split_sizes_sum {
  %x = ge.data {index = 0 : i64} : tensor<2x8xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.split' op sizes [4, 3] do not add up to dim 1 of size 8
  %r:2 = ge.split %x {axis = 1 : i64, sizes = array<i64: 4, 3>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>)
  ge.netoutput
}

// -----

ge.graph @split_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<2x8xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.split' op axis -3 is out of range for rank 2
  %r:2 = ge.split %x {axis = -3 : i64, sizes = array<i64: 1, 1>} : (tensor<2x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>)
  ge.netoutput
}

// -----

ge.graph @split_scalar {
  %x = ge.data {index = 0 : i64} : tensor<f32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.split' op cannot split a rank-0 tensor
  %r = ge.split %x {axis = 0 : i64, sizes = array<i64: 1>} : (tensor<f32>) -> tensor<f32>
  ge.netoutput
}

// -----

ge.graph @slice_lengths {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op 'begins', 'ends', 'axes' and 'steps' differ in length
  %r = ge.slice %x {begins = array<i64: 0, 0>, ends = array<i64: 2>} : tensor<4x6xf32> -> tensor<2x6xf32>
  ge.netoutput
}

// -----

ge.graph @slice_axes_length {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op 'begins', 'ends', 'axes' and 'steps' differ in length
  %r = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 0, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  ge.netoutput
}

// -----

ge.graph @slice_steps_length {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op 'begins', 'ends', 'axes' and 'steps' differ in length
  %r = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 2>, steps = array<i64>} : tensor<4x6xf32> -> tensor<2x6xf32>
  ge.netoutput
}

// -----

ge.graph @slice_zero_step {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op 'steps' cannot contain 0
  %r = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 0>} : tensor<4x6xf32> -> tensor<2x6xf32>
  ge.netoutput
}

// -----

ge.graph @slice_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op axis 2 is out of range for rank 2
  %r = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 2>} : tensor<4x6xf32> -> tensor<4x6xf32>
  ge.netoutput
}

// -----

ge.graph @slice_dtype {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op operands and results must share one dtype, got f32, i32
  %r = ge.slice %x {begins = array<i64: 0>, ends = array<i64: 2>} : tensor<4x6xf32> -> tensor<2x6xi32>
  ge.netoutput
}

// -----

ge.graph @gather_axis {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<2xi32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op axis 2 is out of range for rank 2
  %r = ge.gather %x, %y {axis = 2 : i64} : (tensor<4x6xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  ge.netoutput
}

// -----

ge.graph @gather_negative_axis {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<2xi32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op axis -3 is out of range for rank 2
  %r = ge.gather %x, %y {axis = -3 : i64} : (tensor<4x6xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  ge.netoutput
}

// -----

ge.graph @gather_elements_rank {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<2xi64>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.gather_elements' op indices must have the rank of x
  %r = ge.gather_elements %x, %y : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<2xf32>
  ge.netoutput
}

// -----

ge.graph @gather_elements_wider_indices {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x7xi64>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.gather_elements' op indices dim 1 is 7, more than x's 6
  %r = ge.gather_elements %x, %y : (tensor<4x6xf32>, tensor<2x7xi64>) -> tensor<2x7xf32>
  ge.netoutput
}

// -----

ge.graph @gather_nd_batch_dims {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x1xi64>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.gather_nd' op batch_dims 2 is out of range
  %r = ge.gather_nd %x, %y {batch_dims = 2 : i64} : (tensor<4x6xf32>, tensor<4x1xi64>) -> tensor<4xf32>
  ge.netoutput
}

// -----

ge.graph @gather_nd_deep_tuples {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<5x3xi64>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.gather_nd' op index tuples of 3 entries after 0 batch dims exceed x's rank 2
  %r = ge.gather_nd %x, %y : (tensor<4x6xf32>, tensor<5x3xi64>) -> tensor<5xf32>
  ge.netoutput
}

// -----

ge.graph @tile_multiples {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.tile' op 'multiples' needs one entry per input axis
  %r = ge.tile %x {multiples = array<i64: 2>} : tensor<2x3xf32> -> tensor<4x3xf32>
  ge.netoutput
}

// -----

ge.graph @tile_dtype {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.tile' op operands and results must share one dtype, got f16, f32
  %r = ge.tile %x {multiples = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf16>
  ge.netoutput
}

// -----

ge.graph @pad_paddings_length {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.pad' op 'paddings' needs two entries per input axis
  %r = ge.pad %x {paddings = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  ge.netoutput
}

// -----

ge.graph @pad_mode {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.pad' op mode must be constant, reflect, edge or wrap, got 'circular'
  %r = ge.pad %x {paddings = array<i64: 1, 1, 1, 1>, mode = "circular"} : tensor<2x3xf32> -> tensor<4x5xf32>
  ge.netoutput
}

// -----

ge.graph @pad_reflect_past_the_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.pad' op 'reflect' padding of 3 after axis 1 must be below its length 3 (at most 2)
  %r = ge.pad %x {paddings = array<i64: 0, 0, 0, 3>, mode = "reflect"} : tensor<2x3xf32> -> tensor<2x6xf32>
  ge.netoutput
}

// -----

ge.graph @pad_reflect_past_the_cropped_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.pad' op 'reflect' padding of 2 before axis 1 must be below its length 2 (at most 1)
  %r = ge.pad %x {paddings = array<i64: 0, 2, 0, -1>, mode = "reflect"} : tensor<2x3xf32> -> tensor<2x4xf32>
  ge.netoutput
}

// -----

ge.graph @pad_edge_of_an_empty_axis {
  %x = ge.data {index = 0 : i64} : tensor<0x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.pad' op 'edge' padding of 1 before axis 0 needs a non-empty axis, it has 0 elements
  %r = ge.pad %x {paddings = array<i64: 1, 0, 0, 0>, mode = "edge"} : tensor<0x3xf32> -> tensor<1x3xf32>
  ge.netoutput
}

// -----

ge.graph @pad_missing_paddings {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.pad' op attribute 'paddings' expected in operation 'ge.pad'
  %r = ge.pad %x : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @no_trilu_of_a_vector {
  %x = ge.data {index = 0 : i64} : tensor<6xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.trilu' op x must have rank >= 2, got tensor<6xf32>
  %r = ge.trilu %x : (tensor<6xf32>) -> tensor<6xf32>
  ge.netoutput
}

// -----

ge.graph @no_trilu_of_several_offsets {
  %x = ge.data {index = 0 : i64} : tensor<4x6xf32>
  %k = ge.data {index = 1 : i64} : tensor<2xi64>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.trilu' op {{.*}}k must be one value, got shape [2]
  %r = ge.trilu %x, %k : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  ge.netoutput
}

// -----

ge.graph @channel_shuffle_uneven_groups {
  %x = ge.data {index = 0 : i64} : tensor<1x10x3x3xf32>
  // CHECK: {{.*}}invalid-data-movement.mlir:[[# @LINE + 1]]:3: error: 'ge.channel_shuffle' op 10 channels do not split into 3 groups
  %y = ge.channel_shuffle %x {groups = 3 : i64} : tensor<1x10x3x3xf32> -> tensor<1x10x3x3xf32>
  ge.netoutput %y : tensor<1x10x3x3xf32>
}
