// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid scatters.

ge.graph @scatter_reduction {
  %d = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x2xi64>
  %u = ge.data {index = 2 : i64} : tensor<3x2xf32>
  // CHECK: {{.*}}invalid-scatter.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_elements' op reduction 'sum' is not one of none, add, mul, max, min
  %y = ge.scatter_elements %d, %i, %u {reduction = "sum"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @scatter_axis {
  %d = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x2xi64>
  %u = ge.data {index = 2 : i64} : tensor<3x2xf32>
  // CHECK: {{.*}}invalid-scatter.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_elements' op axis 2 is out of range for rank 2
  %y = ge.scatter_elements %d, %i, %u {axis = 2 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @scatter_updates_dtype {
  %d = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x2xi64>
  %u = ge.data {index = 2 : i64} : tensor<3x2xf16>
  // CHECK: {{.*}}invalid-scatter.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_elements' op data, updates and the result must share one dtype, got f16, f32
  %y = ge.scatter_elements %d, %i, %u : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf16>) -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @scatter_nd_updates_shape {
  %d = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %i = ge.data {index = 1 : i64} : tensor<2x1xi64>
  %u = ge.data {index = 2 : i64} : tensor<2x5xf32>
  // CHECK: {{.*}}invalid-scatter.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_nd' op updates are [2, 5], expected [2, 4]
  %y = ge.scatter_nd %d, %i, %u : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x5xf32>) -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @one_hot_depth {
  %i = ge.data {index = 0 : i64} : tensor<3xi64>
  %v = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-scatter.mlir:[[# @LINE + 1]]:3: error: 'ge.one_hot' op depth 0 must be positive
  %y = ge.one_hot %i, %v {depth = 0 : i64} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x0xf32>
  ge.netoutput
}

// -----

ge.graph @one_hot_axis {
  %i = ge.data {index = 0 : i64} : tensor<3xi64>
  %v = ge.data {index = 1 : i64} : tensor<2xf32>
  // CHECK: {{.*}}invalid-scatter.mlir:[[# @LINE + 1]]:3: error: 'ge.one_hot' op axis 2 is out of range for rank 2
  %y = ge.one_hot %i, %v {depth = 4 : i64, axis = 2 : i64} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  ge.netoutput
}
