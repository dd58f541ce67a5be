// RUN: ge-opt %s --split-input-file --select-storage-format | filecheck %s

// A split of a FRACTAL_NZ product takes FRACTAL_NZ where whole fractals
// move (SplitOp.accepts_layouts): GPT-2's fused QKV projection split into
// Q, K and V along the columns, each a multiple of C0 (8 for f32 on the
// default target).
// CHECK-LABEL: ge.graph @split_qkv_columns
// CHECK:         %q, %k, %v = ge.split %p {axis = 2 : i64, sizes = array<i64: 16, 16, 16>} : (tensor<2x11x48xf32, #ge.layout<ND, FRACTAL_NZ>>) -> (tensor<2x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>)
ge.graph @split_qkv_columns {
  %x = ge.data {index = 0 : i64} : tensor<2x11x32xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x48xf32>} : tensor<32x48xf32>
  %p = ge.batch_matmul %x, %w : (tensor<2x11x32xf32>, tensor<32x48xf32>) -> tensor<2x11x48xf32>
  %q, %k, %v = ge.split %p {axis = 2 : i64, sizes = array<i64: 16, 16, 16>} : (tensor<2x11x48xf32>) -> (tensor<2x11x16xf32>, tensor<2x11x16xf32>, tensor<2x11x16xf32>)
  ge.netoutput %q, %k, %v : tensor<2x11x16xf32>, tensor<2x11x16xf32>, tensor<2x11x16xf32>
}

// -----

// Along a batch axis any split keeps whole fractals.
// CHECK-LABEL: ge.graph @split_batch_axis
// CHECK:         %a, %b = ge.split %p {axis = 0 : i64, sizes = array<i64: 1, 2>} : (tensor<3x11x13xf32, #ge.layout<ND, FRACTAL_NZ>>) -> (tensor<1x11x13xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x11x13xf32, #ge.layout<ND, FRACTAL_NZ>>)
ge.graph @split_batch_axis {
  %x = ge.data {index = 0 : i64} : tensor<3x11x32xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x13xf32>} : tensor<32x13xf32>
  %p = ge.batch_matmul %x, %w : (tensor<3x11x32xf32>, tensor<32x13xf32>) -> tensor<3x11x13xf32>
  %a, %b = ge.split %p {axis = 0 : i64, sizes = array<i64: 1, 2>} : (tensor<3x11x13xf32>) -> (tensor<1x11x13xf32>, tensor<2x11x13xf32>)
  ge.netoutput %a, %b : tensor<1x11x13xf32>, tensor<2x11x13xf32>
}

// -----

// Columns 12 + 4 cut a C0 block of 8: the split stays in origin format.
// CHECK-LABEL: ge.graph @no_split_nz_inside_a_block
// CHECK:         %a, %b = ge.split %p {axis = 2 : i64, sizes = array<i64: 12, 4>, input_layouts = [#ge.layout<ND>]} : (tensor<2x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>) -> (tensor<2x11x12xf32>, tensor<2x11x4xf32>)
ge.graph @no_split_nz_inside_a_block {
  %x = ge.data {index = 0 : i64} : tensor<2x11x32xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x16xf32>} : tensor<32x16xf32>
  %p = ge.batch_matmul %x, %w : (tensor<2x11x32xf32>, tensor<32x16xf32>) -> tensor<2x11x16xf32>
  %a, %b = ge.split %p {axis = 2 : i64, sizes = array<i64: 12, 4>} : (tensor<2x11x16xf32>) -> (tensor<2x11x12xf32>, tensor<2x11x4xf32>)
  ge.netoutput %a, %b : tensor<2x11x12xf32>, tensor<2x11x4xf32>
}

// -----

// Rows 8 + 3 of 11 cut an M0 block of 16 between whole fractal rows (C0
// lanes each, contiguous): no lane changes place, FRACTAL_NZ.
// CHECK-LABEL: ge.graph @split_nz_rows_inside_a_block
// CHECK:         ge.split %p {axis = 1 : i64, sizes = array<i64: 8, 3>} : (tensor<2x11x16xf32, #ge.layout<ND, FRACTAL_NZ>>) -> (tensor<2x8x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x3x16xf32, #ge.layout<ND, FRACTAL_NZ>>)
ge.graph @split_nz_rows_inside_a_block {
  %x = ge.data {index = 0 : i64} : tensor<2x11x32xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x16xf32>} : tensor<32x16xf32>
  %p = ge.batch_matmul %x, %w : (tensor<2x11x32xf32>, tensor<32x16xf32>) -> tensor<2x11x16xf32>
  %a, %b = ge.split %p {axis = 1 : i64, sizes = array<i64: 8, 3>} : (tensor<2x11x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x3x16xf32>)
  ge.netoutput %a, %b : tensor<2x8x16xf32>, tensor<2x3x16xf32>
}
