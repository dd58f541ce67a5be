// RUN: ge-opt %s --split-input-file --fold-bias-add 2>/dev/null | filecheck %s
// RUN: ge-opt %s --split-input-file --fold-bias-add 2>&1 >/dev/null | filecheck %s --check-prefix=LOG
// RUN: ge-opt %s --split-input-file --fold-bias-add=disable=MatMulBiasAddFold 2>/dev/null | filecheck %s --check-prefix=OFF

// MatMulBiasAddFold: a constant addend on the matrix columns folds into a
// matmul's bias or a Gemm's c.

// Keras Dense: MatMul -> BiasAdd (2-D, NHWC: the columns).
// CHECK-LABEL: ge.graph @matmul_bias_add
// CHECK:         %[[B:.*]] = ge.const {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, name = "fc/bias"}
// CHECK-NEXT:    %[[M:.*]] = ge.matmul %x, %w, %[[B]] {name = "fc+fc/BiasAdd"}
// CHECK-NEXT:    ge.softmax %[[M]]
// OFF-LABEL: ge.graph @matmul_bias_add
// OFF:         ge.bias_add
ge.graph @matmul_bias_add {
  %x = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<4x3xf32>} : tensor<4x3xf32>
  %d = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.matmul %x, %w {name = "fc"} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = ge.bias_add %m, %d {data_format = "NHWC", name = "fc/BiasAdd"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s = ge.softmax %y {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput %s : tensor<2x3xf32>
}

// -----

// ONNX MatMul -> Add with a [1, N] row (constant first), transposed weight
// and an existing bias.
// CHECK-LABEL: ge.graph @matmul_add_row
// CHECK:         %[[B:.*]] = ge.const {value = dense<[1.500000e+00, -1.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    ge.matmul %x, %w, %[[B]] {transpose_x2 = true}
// CHECK-NOT:     ge.add
ge.graph @matmul_add_row {
  %x = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<3x4xf32>} : tensor<3x4xf32>
  %b = ge.const {value = dense<[0.5, 1.0, 1.5]> : tensor<3xf32>} : tensor<3xf32>
  %r = ge.const {value = dense<[[1.0, -2.0, -0.5]]> : tensor<1x3xf32>} : tensor<1x3xf32>
  %m = ge.matmul %x, %w, %b {transpose_x2 = true} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = ge.add %r, %m : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}

// -----

// Gemm with beta = 0.5: beta * c + d = beta * (c + d / beta); c [3] -> [1, 2, 3] + [2, 4, 6].
// CHECK-LABEL: ge.graph @gemm_bias_add
// CHECK:         %[[C:.*]] = ge.const {value = dense<[3.000000e+00, 6.000000e+00, 9.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    ge.gemm %a, %b, %[[C]] {beta = 5.000000e-01 : f32}
// CHECK-NOT:     ge.bias_add
ge.graph @gemm_bias_add {
  %a = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %b = ge.const {value = dense<1.0> : tensor<4x3xf32>} : tensor<4x3xf32>
  %c = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %d = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %g = ge.gemm %a, %b, %c {beta = 0.5 : f32} : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = ge.bias_add %g, %d {data_format = "NCHW"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}

// -----

// Gemm without c: the addend becomes c and beta 1.
// CHECK-LABEL: ge.graph @gemm_without_c_add
// CHECK:         %[[C:.*]] = ge.const {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    ge.gemm %a, %b, %[[C]] {alpha = 2.000000e+00 : f32} :
ge.graph @gemm_without_c_add {
  %a = ge.data {index = 0 : i64} : tensor<3x4xf32>
  %b = ge.const {value = dense<1.0> : tensor<4x2xf32>} : tensor<4x2xf32>
  %d = ge.const {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %g = ge.gemm %a, %b {alpha = 2.0 : f32, beta = 0.0 : f32} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %y = ge.add %g, %d : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  ge.netoutput %y : tensor<3x2xf32>
}

// -----

// A [M, 1] column varies along the rows: not a bias.
// CHECK-LABEL: ge.graph @no_fold_column_addend
// CHECK:         ge.matmul
// CHECK-NEXT:    ge.add
// LOG: fold-bias-add: col not folded: the constant is not per channel on axis 1
ge.graph @no_fold_column_addend {
  %x = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<4x3xf32>} : tensor<4x3xf32>
  %k = ge.const {value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>} : tensor<2x1xf32>
  %m = ge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = ge.add %m, %k {name = "col"} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}

// -----

// The matmul's own bias is a graph input: the sum cannot be computed now.
// CHECK-LABEL: ge.graph @no_fold_bias_is_input
// CHECK:         ge.matmul
// CHECK-NEXT:    ge.bias_add
// LOG: fold-bias-add: ba not folded: the product's bias: not a constant (from ge.data)
ge.graph @no_fold_bias_is_input {
  %x = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %b = ge.data {index = 1 : i64} : tensor<3xf32>
  %w = ge.const {value = dense<0.5> : tensor<4x3xf32>} : tensor<4x3xf32>
  %d = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.matmul %x, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = ge.bias_add %m, %d {data_format = "NHWC", name = "ba"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}

// -----

// A batch_matmul has no bias operand: nothing to fold into.
// CHECK-LABEL: ge.graph @no_fold_batch_matmul
// CHECK:         ge.batch_matmul
// CHECK-NEXT:    ge.add
ge.graph @no_fold_batch_matmul {
  %x = ge.data {index = 0 : i64} : tensor<2x2x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<4x3xf32>} : tensor<4x3xf32>
  %d = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.batch_matmul %x, %w : (tensor<2x2x4xf32>, tensor<4x3xf32>) -> tensor<2x2x3xf32>
  %y = ge.add %m, %d : (tensor<2x2x3xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
  ge.netoutput %y : tensor<2x2x3xf32>
}
