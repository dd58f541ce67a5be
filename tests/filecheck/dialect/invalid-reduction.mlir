// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid softmax family and reductions.

ge.graph @softmax_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op axis 2 is out of range for rank 2
  %r = ge.softmax %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @log_softmax_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.log_softmax' op axis -3 is out of range for rank 2
  %r = ge.log_softmax %x {axis = -3 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @softmax_dtype {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op operands and results must share one dtype, got f16, f32
  %r = ge.softmax %x : tensor<2x3xf32> -> tensor<2x3xf16>
  ge.netoutput
}

// -----

ge.graph @reduce_sum_axes {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_sum' op axis 2 is out of range for rank 2
  %r = ge.reduce_sum %x {axes = array<i64: 0, 2>} : tensor<2x3xf32> -> tensor<1x1xf32>
  ge.netoutput
}

// -----

ge.graph @reduce_mean_negative_axes {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_mean' op axis -3 is out of range for rank 2
  %r = ge.reduce_mean %x {axes = array<i64: -3>} : tensor<2x3xf32> -> tensor<1x3xf32>
  ge.netoutput
}

// -----

ge.graph @reduce_max_dtype {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_max' op operands and results must share one dtype, got f32, i32
  %r = ge.reduce_max %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xi32>
  ge.netoutput
}

// -----

ge.graph @reduce_keep_dims_not_bool {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_sum' op 1.000000e+00 : f32 should be of base attribute integer
  %r = ge.reduce_sum %x {keep_dims = 1.0 : f32} : tensor<2x3xf32> -> tensor<1x1xf32>
  ge.netoutput
}

// -----

ge.graph @no_arg_max_of_float_result {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.arg_max' op {{.*}}i64
  %r = ge.arg_max %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
  ge.netoutput
}

// -----

ge.graph @no_arg_min_over_an_empty_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x0xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.arg_min' op {{.*}}axis 1 is empty: it has no extreme
  %r = ge.arg_min %x {axis = 1 : i64} : tensor<2x0xf32> -> tensor<2x1xi64>
  ge.netoutput
}

// -----

ge.graph @no_arg_max_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.arg_max' op axis 2 is out of range for rank 2
  %r = ge.arg_max %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x1xi64>
  ge.netoutput
}

// -----

ge.graph @lp_norm_p {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-reduction.mlir:[[# @LINE + 1]]:3: error: 'ge.lp_norm' op 'p' must be 1 or 2, got 3
  %r = ge.lp_norm %x {p = 3 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}
