// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid comparisons, logic, bit ops and select: dtypes and shapes.

ge.graph @no_float_comparison_result {
  %a = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.less' op result must be bool (i1), got f32
  %r = ge.less %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput
}

// -----

ge.graph @no_mixed_comparison_operands {
  %a = ge.data {index = 0 : i64} : tensor<3xf32>
  %b = ge.data {index = 1 : i64} : tensor<3xi32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.equal' op operands must share one dtype, got f32, i32
  %r = ge.equal %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  ge.netoutput
}

// -----

ge.graph @no_shift_on_floats {
  %a = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.left_shift' op operands must be integers, got f32
  %r = ge.left_shift %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput
}

// -----

ge.graph @no_logical_float_result {
  %a = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.logical_and' op result must be bool (i1), got f32
  %r = ge.logical_and %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  ge.netoutput
}

// -----

ge.graph @no_is_nan_on_integers {
  %a = ge.data {index = 0 : i64} : tensor<3xi32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.is_nan' op operands must be floats, got i32
  %r = ge.is_nan %a : tensor<3xi32> -> tensor<3xi1>
  ge.netoutput
}

// -----

ge.graph @no_select_broadcast_mismatch {
  %c = ge.data {index = 0 : i64} : tensor<3xi1>
  %x = ge.data {index = 1 : i64} : tensor<4xf32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.select' op shapes [3] and [4] and [4] do not broadcast
  %r = ge.select %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.netoutput
}

// -----

ge.graph @no_comparison_of_unbroadcastable_shapes {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.greater' op shapes [2, 3] and [4] do not broadcast
  %r = ge.greater %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  ge.netoutput
}

// -----

ge.graph @no_select_of_mixed_dtypes {
  %c = ge.data {index = 0 : i64} : tensor<2x3xi1>
  %x = ge.data {index = 1 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 2 : i64} : tensor<2x3xf16>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.select' op operands must share one dtype, got f16, f32
  %r = ge.select %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @no_select_result_of_wrong_shape {
  %c = ge.data {index = 0 : i64} : tensor<2x1xi1>
  %x = ge.data {index = 1 : i64} : tensor<1x3xf32>
  // CHECK: {{.*}}invalid-logic.mlir:[[# @LINE + 1]]:3: error: 'ge.select' op result shape [1, 3] does not match the broadcast shape [2, 3]
  %r = ge.select %c, %x, %x : (tensor<2x1xi1>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  ge.netoutput
}
