// RUN: ge-opt %s --split-input-file --select-storage-format | filecheck %s

// DeBERTa's heads for 3-D products: the context [B*H, S, D] regrouped to
// [B, H, S, D] keeps the last two dims, so the reshape stays in FRACTAL_NZ
// (the fractals are stored batch-major: the same bytes).
// CHECK-LABEL: ge.graph @batch_regroup
// CHECK:         %r = ge.reshape %p {shape = array<i64: 2, 3, 17, 33>} : tensor<6x17x33xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x3x17x33xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %y = ge.batch_matmul %r, %w {{.*}} -> tensor<2x3x17x5xf32, #ge.layout<ND, FRACTAL_NZ>>
ge.graph @batch_regroup {
  %x = ge.data {index = 0 : i64} : tensor<6x17x100xf32>
  %v = ge.const {value = dense<0.5> : tensor<100x33xf32>} : tensor<100x33xf32>
  %w = ge.const {value = dense<0.25> : tensor<33x5xf32>} : tensor<33x5xf32>
  %p = ge.batch_matmul %x, %v : (tensor<6x17x100xf32>, tensor<100x33xf32>) -> tensor<6x17x33xf32>
  %r = ge.reshape %p {shape = array<i64: 2, 3, 17, 33>} : tensor<6x17x33xf32> -> tensor<2x3x17x33xf32>
  %y = ge.batch_matmul %r, %w : (tensor<2x3x17x33xf32>, tensor<33x5xf32>) -> tensor<2x3x17x5xf32>
  ge.netoutput %y : tensor<2x3x17x5xf32>
}

// -----

// A reshape that regroups the matrix (rows of 17 into 51 columns) moves
// elements across fractals: origin format, with a TransData each way.
// CHECK-LABEL: ge.graph @no_matrix_regroup
// CHECK:         %r = ge.reshape %p {shape = array<i64: 2, 1, 99>, input_layouts = [#ge.layout<ND>]} : tensor<2x3x33xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x1x99xf32>
ge.graph @no_matrix_regroup {
  %x = ge.data {index = 0 : i64} : tensor<2x3x100xf32>
  %v = ge.const {value = dense<0.5> : tensor<100x33xf32>} : tensor<100x33xf32>
  %w = ge.const {value = dense<0.25> : tensor<99x5xf32>} : tensor<99x5xf32>
  %p = ge.batch_matmul %x, %v : (tensor<2x3x100xf32>, tensor<100x33xf32>) -> tensor<2x3x33xf32>
  %r = ge.reshape %p {shape = array<i64: 2, 1, 99>} : tensor<2x3x33xf32> -> tensor<2x1x99xf32>
  %y = ge.batch_matmul %r, %w : (tensor<2x1x99xf32>, tensor<99x5xf32>) -> tensor<2x1x5xf32>
  ge.netoutput %y : tensor<2x1x5xf32>
}
