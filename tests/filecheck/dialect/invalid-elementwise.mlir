// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid elementwise ops: shapes, NumPy broadcasting, dtypes, operand counts.

ge.graph @unary_shape_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op result shape [3, 2] must equal the input shape [2, 3]
  %r = ge.relu %x : tensor<2x3xf32> -> tensor<3x2xf32>
  ge.netoutput
}

// -----

ge.graph @unary_dtype_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.exp' op operands and results must share one dtype, got f16, f32
  %r = ge.exp %x : tensor<2x3xf32> -> tensor<2x3xf16>
  ge.netoutput
}

// -----

ge.graph @unary_attribute_not_float {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.leaky_relu' op 1 : i64 should be of base attribute float
  %r = ge.leaky_relu %x {alpha = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @clip_shape_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.clip' op result shape [2, 1] must equal the input shape [2, 3]
  %r = ge.clip %x {min = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x1xf32>
  ge.netoutput
}

// -----

ge.graph @binary_broadcast_failure {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op shapes [2, 3] and [4, 3] do not broadcast
  %r = ge.add %x, %y : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @binary_broadcast_failure_trailing {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.mul' op shapes [2, 3] and [2] do not broadcast
  %r = ge.mul %x, %y : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @binary_result_shape {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.sub' op result shape [3] does not match the broadcast shape [2, 3]
  %r = ge.sub %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput
}

// -----

ge.graph @binary_result_rank {
  %x = ge.data {index = 0 : i64} : tensor<4x1x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x1xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.div' op result shape [2, 3] does not match the broadcast shape [4, 2, 3]
  %r = ge.div %x, %y : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @binary_dtype_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3xf16>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.maximum' op operands and results must share one dtype, got f16, f32
  %r = ge.maximum %x, %y : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @binary_result_dtype {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.pow' op operands and results must share one dtype, got f32, f64
  %r = ge.pow %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf64>
  ge.netoutput
}

// -----

ge.graph @binary_dynamic_clash {
  %x = ge.data {index = 0 : i64} : tensor<?x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x4xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.minimum' op shapes [-1, 3] and [2, 4] do not broadcast
  %r = ge.minimum %x, %y : (tensor<?x3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.netoutput
}

// -----

ge.graph @prelu_slope_does_not_broadcast {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.prelu' op shapes [2, 3] and [2] do not broadcast
  %r = ge.prelu %x, %y : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @binary_one_operand {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op Expected 2 operands, but got 1
  %r = "ge.add"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @add_n_no_inputs {
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.add_n' op 'ge.add_n' needs at least one input
  %r = ge.add_n : () -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @add_n_dtype_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3xi32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.add_n' op operands and results must share one dtype, got f32, i32
  %r = ge.add_n %x, %y : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @no_unknown_gelu_approximation {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-elementwise.mlir:[[# @LINE + 1]]:3: error: 'ge.gelu' op approximate must be one of none, tanh, got 'erf'
  %r = ge.gelu %x {approximate = "erf"} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}
