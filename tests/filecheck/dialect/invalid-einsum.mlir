// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid einsums.

ge.graph @einsum_terms {
  %a = ge.data {index = 0 : i64} : tensor<3x4xf32>
  // CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE + 1]]:3: error: 'ge.einsum' op equation 'ij,jk' has 2 input terms for 1 inputs
  %y = ge.einsum %a {equation = "ij,jk"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @einsum_sizes {
  %a = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %b = ge.data {index = 1 : i64} : tensor<5x2xf32>
  // CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE + 1]]:3: error: 'ge.einsum' op input #1 has 5 for 'j', which is 4 elsewhere
  %y = ge.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  ge.netoutput
}

// -----

ge.graph @einsum_result_shape {
  %a = ge.data {index = 0 : i64} : tensor<3x4xf32>
  // CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE + 1]]:3: error: {{.*}}4x3
  %y = ge.einsum %a {equation = "ij->ji"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  ge.netoutput
}

// -----

ge.graph @einsum_diagonal_sizes {
  %a = ge.data {index = 0 : i64} : tensor<3x4x5xf32>
  // CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE + 1]]:3: error: 'ge.einsum' op input #0 has 5 for 'i', which is 4 elsewhere
  %y = ge.einsum %a {equation = "...ii->...i"} : (tensor<3x4x5xf32>) -> tensor<3x4xf32>
  ge.netoutput
}
