// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid value-shaped ops: fill, broadcast_to, dynamic_reshape, range.

ge.graph @fill_rank {
  %d = ge.data {index = 0 : i64} : tensor<3xi64>
  %z = ge.const {value = dense<0.0> : tensor<f32>} : tensor<f32>
  // CHECK: {{.*}}invalid-value-shaped.mlir:[[# @LINE + 1]]:3: error: 'ge.fill' op a shape of 3 dims gives a rank-3 result, not rank 2
  %f = ge.fill %d, %z : (tensor<3xi64>, tensor<f32>) -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @fill_dtype {
  %d = ge.data {index = 0 : i64} : tensor<2xi64>
  %z = ge.const {value = dense<0.0> : tensor<f32>} : tensor<f32>
  // CHECK: {{.*}}invalid-value-shaped.mlir:[[# @LINE + 1]]:3: error: 'ge.fill' op the result has the dtype of value
  %f = ge.fill %d, %z : (tensor<2xi64>, tensor<f32>) -> tensor<?x?xi32>
  ge.netoutput
}

// -----

ge.graph @broadcast_to_rank {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %d = ge.data {index = 1 : i64} : tensor<1xi64>
  // CHECK: {{.*}}invalid-value-shaped.mlir:[[# @LINE + 1]]:3: error: 'ge.broadcast_to' op the result rank is below the rank of x
  %b = ge.broadcast_to %x, %d : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  ge.netoutput
}

// -----

ge.graph @dynamic_reshape_shape_rank {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %d = ge.data {index = 1 : i64} : tensor<2x1xi64>
  // CHECK: {{.*}}invalid-value-shaped.mlir:[[# @LINE + 1]]:3: error: 'ge.dynamic_reshape' op the shape operand must be 1-D
  %r = ge.dynamic_reshape %x, %d : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<?x?xf32>
  ge.netoutput
}

// -----

ge.graph @range_scalars {
  %a = ge.data {index = 0 : i64} : tensor<2xi64>
  %b = ge.data {index = 1 : i64} : tensor<i64>
  // CHECK: {{.*}}invalid-value-shaped.mlir:[[# @LINE + 1]]:3: error: 'ge.range' op start, limit and delta are scalars
  %r = ge.range %a, %b, %b : (tensor<2xi64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  ge.netoutput
}
