// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid running reductions.

ge.graph @cum_sum_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-cumulative.mlir:[[# @LINE + 1]]:3: error: 'ge.cum_sum' op axis 2 is out of range for rank 2
  %r = ge.cum_sum %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @cum_prod_negative_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x3xi32>
  // CHECK: {{.*}}invalid-cumulative.mlir:[[# @LINE + 1]]:3: error: 'ge.cum_prod' op axis -3 is out of range for rank 2
  %r = ge.cum_prod %x {axis = -3 : i64} : tensor<2x3xi32> -> tensor<2x3xi32>
  ge.netoutput
}

// -----

ge.graph @cum_sum_scalar {
  %x = ge.data {index = 0 : i64} : tensor<f32>
  // CHECK: {{.*}}invalid-cumulative.mlir:[[# @LINE + 1]]:3: error: 'ge.cum_sum' op 'ge.cum_sum' needs an input of rank >= 1
  %r = ge.cum_sum %x : tensor<f32> -> tensor<f32>
  ge.netoutput
}

// -----

ge.graph @cum_sum_dtype {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-cumulative.mlir:[[# @LINE + 1]]:3: error: 'ge.cum_sum' op operands and results must share one dtype, got f16, f32
  %r = ge.cum_sum %x : tensor<2x3xf32> -> tensor<2x3xf16>
  ge.netoutput
}
