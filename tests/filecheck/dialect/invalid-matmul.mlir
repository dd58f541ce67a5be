// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid matrix products: ranks and contraction sizes.

ge.graph @matmul_contraction {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op contraction sizes differ: 3 vs 4
  %r = ge.matmul %x, %y : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  ge.netoutput
}

// -----

ge.graph @matmul_contraction_transposed {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op contraction sizes differ: 3 vs 5
  %r = ge.matmul %x, %y {transpose_x2 = true} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @matmul_contraction_transposed_x1 {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op contraction sizes differ: 2 vs 3
  %r = ge.matmul %x, %y {transpose_x1 = true} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  ge.netoutput
}

// -----

ge.graph @matmul_x1_rank {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op x1 must have rank 2, got 1
  %r = ge.matmul %x, %y : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
  ge.netoutput
}

// -----

ge.graph @matmul_x2_rank {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<2x3x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op x2 must have rank 2, got 3
  %r = ge.matmul %x, %y : (tensor<2x3xf32>, tensor<2x3x5xf32>) -> tensor<2x5xf32>
  ge.netoutput
}

// -----

ge.graph @matmul_transpose_not_bool {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op "yes" should be of base attribute integer
  %r = ge.matmul %x, %y {transpose_x1 = "yes"} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  ge.netoutput
}

// -----

ge.graph @gemm_contraction {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.gemm' op contraction sizes differ: 3 vs 4
  %r = ge.gemm %x, %y : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  ge.netoutput
}

// -----

ge.graph @gemm_contraction_trans {
  %x = ge.data {index = 0 : i64} : tensor<3x2xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x3xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.gemm' op contraction sizes differ: 3 vs 4
  %r = ge.gemm %x, %y {trans_a = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @gemm_a_rank {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x5xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.gemm' op a must have rank 2, got 3
  %r = ge.gemm %x, %y : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  ge.netoutput
}

// -----

ge.graph @gemm_b_rank {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.gemm' op b must have rank 2, got 1
  %r = ge.gemm %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  ge.netoutput
}

// -----

ge.graph @batch_matmul_result_count {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-matmul.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_matmul' op Expected 1 result, but got 2
  %r:2 = "ge.batch_matmul"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  ge.netoutput
}
