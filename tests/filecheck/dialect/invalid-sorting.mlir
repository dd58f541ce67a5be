// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid TopK.

ge.graph @top_k_too_many {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  // CHECK: {{.*}}invalid-sorting.mlir:[[# @LINE + 1]]:3: error: 'ge.top_k' op k 5 is out of range for an axis of 4
  %v, %i = ge.top_k %x {k = 5 : i64} : tensor<3x4xf32> -> tensor<3x5xf32>, tensor<3x5xi64>
  ge.netoutput
}

// -----

ge.graph @top_k_index_type {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  // CHECK: {{.*}}invalid-sorting.mlir:[[# @LINE + 1]]:3: error: 'ge.top_k' op indices must be i64
  %v, %i = ge.top_k %x {k = 2 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi32>
  ge.netoutput
}

// -----

ge.graph @top_k_axis {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  // CHECK: {{.*}}invalid-sorting.mlir:[[# @LINE + 1]]:3: error: 'ge.top_k' op axis 2 is out of range for rank 2
  %v, %i = ge.top_k %x {k = 2 : i64, axis = 2 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
  ge.netoutput
}

// -----

ge.graph @compress_condition_type {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %c = ge.data {index = 1 : i64} : tensor<4xi32>
  // CHECK: {{.*}}invalid-sorting.mlir:[[# @LINE + 1]]:3: error: 'ge.compress' op condition must be bool
  %y = ge.compress %x, %c {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi32>) -> tensor<3x?xf32>
  ge.netoutput
}

// -----

ge.graph @compress_condition_longer {
  %x = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %c = ge.data {index = 1 : i64} : tensor<5xi1>
  // CHECK: {{.*}}invalid-sorting.mlir:[[# @LINE + 1]]:3: error: {{.*}}condition has 5 entries, the axis 4
  %y = ge.compress %x, %c {axis = 1 : i64} : (tensor<3x4xf32>, tensor<5xi1>) -> tensor<3x?xf32>
  ge.netoutput
}

// -----

ge.graph @unique_counts_type {
  %x = ge.data {index = 0 : i64} : tensor<5xf32>
  // CHECK: {{.*}}invalid-sorting.mlir:[[# @LINE + 1]]:3: error: 'ge.unique' op indices, inverse and counts must be i64
  %y, %i, %v, %c = ge.unique %x : tensor<5xf32> -> tensor<?xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi32>
  ge.netoutput
}
