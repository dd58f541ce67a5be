// RUN: ge-opt %s --split-input-file --fold-batch-norm 2>/dev/null | filecheck %s
// RUN: ge-opt %s --split-input-file --fold-batch-norm 2>&1 >/dev/null | filecheck %s --check-prefix=LOG
// RUN: ge-opt %s --split-input-file --fold-batch-norm=disable=MatMulBatchNormFold 2>/dev/null | filecheck %s --check-prefix=OFF

// MatMulBatchNormFold: a batch norm on a matrix product's columns (seen
// through the reshape to 4-D the ONNX importer adds) folds into the weight's
// columns and the bias; a = [2, 1, 4], b = [-2, 0, -5] below.

// Gemm with trans_b (rows of B scaled) and beta = 0.5:
// c' = a * c + b / beta = [2, 2, 12] + [-4, 0, -10].
// CHECK-LABEL: ge.graph @gemm_bn
// CHECK:         %[[B:.*]] = ge.const {value = dense<{{\[\[}}2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [4.000000e+00, 4.000000e+00, 4.000000e+00, 4.000000e+00]]> : tensor<3x4xf32>, name = "fc/weight_bn"}
// CHECK-NEXT:    %[[C:.*]] = ge.const {value = dense<[-2.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<3xf32>, name = "fc/c_bn"}
// CHECK-NEXT:    %[[G:.*]] = ge.gemm %a, %[[B]], %[[C]] {trans_b = true, beta = 5.000000e-01 : f32, name = "fc"}
// CHECK-NEXT:    %[[R:.*]] = ge.reshape %[[G]]
// CHECK-NEXT:    ge.reshape %[[R]]
// OFF-LABEL: ge.graph @gemm_bn
// OFF:         ge.batch_norm
ge.graph @gemm_bn {
  %a = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %b = ge.const {value = dense<1.0> : tensor<3x4xf32>} : tensor<3x4xf32>
  %c = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %scale = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %offset = ge.const {value = dense<[0.0, 1.0, -1.0]> : tensor<3xf32>} : tensor<3xf32>
  %mean = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %var = ge.const {value = dense<[1.0, 4.0, 0.25]> : tensor<3xf32>} : tensor<3xf32>
  %g = ge.gemm %a, %b, %c {trans_b = true, beta = 0.5 : f32, name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = ge.reshape %g {shape = array<i64: 0, 0, -1, 1>} : tensor<2x3xf32> -> tensor<2x3x1x1xf32>
  %y = ge.batch_norm %r, %scale, %offset, %mean, %var {data_format = "NCHW", epsilon = 0.0 : f32} : (tensor<2x3x1x1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x1x1xf32>
  %o = ge.reshape %y {shape = array<i64: 0, 0>} : tensor<2x3x1x1xf32> -> tensor<2x3xf32>
  ge.netoutput %o : tensor<2x3xf32>
}

// -----

// Matmul without a bias (one is created), through an unsqueeze.
// CHECK-LABEL: ge.graph @matmul_bn_without_bias
// CHECK:         %[[W:.*]] = ge.const {value = dense<{{\[\[}}2.000000e+00, 1.000000e+00, 4.000000e+00], {{.*}}]> : tensor<4x3xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const {value = dense<[-2.000000e+00, 0.000000e+00, -5.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.matmul %a, %[[W]], %[[B]]
// CHECK-NEXT:    %[[U:.*]] = ge.unsqueeze %[[M]]
// CHECK-NEXT:    ge.netoutput %[[U]]
ge.graph @matmul_bn_without_bias {
  %a = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3xf32>} : tensor<4x3xf32>
  %scale = ge.const {value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %offset = ge.const {value = dense<[0.0, 1.0, -1.0]> : tensor<3xf32>} : tensor<3xf32>
  %mean = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %var = ge.const {value = dense<[1.0, 4.0, 0.25]> : tensor<3xf32>} : tensor<3xf32>
  %m = ge.matmul %a, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = ge.unsqueeze %m {axes = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3x1x1xf32>
  %y = ge.batch_norm %r, %scale, %offset, %mean, %var {data_format = "NCHW", epsilon = 0.0 : f32} : (tensor<2x3x1x1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x1x1xf32>
  ge.netoutput %y : tensor<2x3x1x1xf32>
}

// -----

// Gemm without c, NHWC batch norm: c = b and beta becomes 1 (alpha stays).
// CHECK-LABEL: ge.graph @gemm_bn_without_c
// CHECK:         %[[C:.*]] = ge.const {value = dense<[-5.000000e-01, 0.000000e+00, 5.000000e-01]> : tensor<3xf32>
// CHECK-NEXT:    ge.gemm %a, %{{.*}}, %[[C]] {alpha = 3.000000e+00 : f32}
// CHECK-NOT:     ge.batch_norm
ge.graph @gemm_bn_without_c {
  %a = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %b = ge.const {value = dense<1.0> : tensor<4x3xf32>} : tensor<4x3xf32>
  %p = ge.const {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %offset = ge.const {value = dense<[0.5, 1.0, 1.5]> : tensor<3xf32>} : tensor<3xf32>
  %g = ge.gemm %a, %b {alpha = 3.0 : f32} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = ge.reshape %g {shape = array<i64: 0, 1, 1, 3>} : tensor<2x3xf32> -> tensor<2x1x1x3xf32>
  %y = ge.batch_norm %r, %p, %offset, %p, %p {data_format = "NHWC", epsilon = 0.0 : f32} : (tensor<2x1x1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x1x1x3xf32>
  ge.netoutput %y : tensor<2x1x1x3xf32>
}

// -----

// The reshape puts the columns on H, not on the batch norm's channels.
// CHECK-LABEL: ge.graph @no_fold_channels_moved
// CHECK:         ge.matmul
// CHECK-NEXT:    ge.reshape
// CHECK-NEXT:    ge.batch_norm
// LOG: fold-batch-norm: bn5 not folded: the reshape does not put the matrix columns on channels
ge.graph @no_fold_channels_moved {
  %a = ge.data {index = 0 : i64} : tensor<2x4xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3xf32>} : tensor<4x3xf32>
  %p = ge.const {value = dense<2.0> : tensor<1xf32>} : tensor<1xf32>
  %m = ge.matmul %a, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = ge.reshape %m {shape = array<i64: 2, 1, 3, 1>} : tensor<2x3xf32> -> tensor<2x1x3x1xf32>
  %y = ge.batch_norm %r, %p, %p, %p, %p {data_format = "NCHW", name = "bn5"} : (tensor<2x1x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x3x1xf32>
  ge.netoutput %y : tensor<2x1x3x1xf32>
}
