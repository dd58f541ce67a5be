// RUN: ge-opt %s --split-input-file --fold-row-flatten | filecheck %s

// GPT-2's Conv1D (c_attn): rows flattened, a Gemm by the constant weight
// with an addend, the rows reshaped back to [B, S, N]. The product works
// on the unflattened rows: a batch_matmul with the weight broadcast and an
// add of the addend; the flatten and the reshape back go.
// CHECK-LABEL: ge.graph @conv1d_projection
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %w = ge.const
// CHECK-NEXT:    %c = ge.const
// CHECK-NEXT:    %{{.*}} = ge.batch_matmul %x, %w {name = "c_attn"} : (tensor<2x11x64xf32>, tensor<64x192xf32>) -> tensor<2x11x192xf32>
// CHECK-NEXT:    %{{.*}} = ge.add %{{.*}}, %c {name = "c_attn/c"} : (tensor<2x11x192xf32>, tensor<192xf32>) -> tensor<2x11x192xf32>
// CHECK-NEXT:    ge.netoutput
ge.graph @conv1d_projection {
  %x = ge.data {index = 0 : i64} : tensor<2x11x64xf32>
  %w = ge.const {value = dense<0.5> : tensor<64x192xf32>} : tensor<64x192xf32>
  %c = ge.const {value = dense<0.25> : tensor<192xf32>} : tensor<192xf32>
  %r = ge.reshape %x {shape = array<i64: -1, 64>} : tensor<2x11x64xf32> -> tensor<22x64xf32>
  %p = ge.gemm %r, %w, %c {name = "c_attn"} : (tensor<22x64xf32>, tensor<64x192xf32>, tensor<192xf32>) -> tensor<22x192xf32>
  %y = ge.reshape %p {shape = array<i64: 2, 11, 192>} : tensor<22x192xf32> -> tensor<2x11x192xf32>
  ge.netoutput %y : tensor<2x11x192xf32>
}

// -----

// The head merge before the output projection flattens [B, S, H, D] to
// [B*S, H*D]: only the heads merge ([B, S, H*D]), and the projection (a
// matmul with a transposed weight) works on the rows.
// CHECK-LABEL: ge.graph @head_merge_projection
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %w = ge.const
// CHECK-NEXT:    %{{.*}} = ge.reshape %x {shape = array<i64: 2, 11, 64>} : tensor<2x11x4x16xf32> -> tensor<2x11x64xf32>
// CHECK-NEXT:    %{{.*}} = ge.batch_matmul %{{.*}}, %w {adj_x2 = true} : (tensor<2x11x64xf32>, tensor<32x64xf32>) -> tensor<2x11x32xf32>
// CHECK-NEXT:    %{{.*}} = ge.relu %{{.*}} : tensor<2x11x32xf32> -> tensor<2x11x32xf32>
// CHECK-NEXT:    ge.netoutput
ge.graph @head_merge_projection {
  %x = ge.data {index = 0 : i64} : tensor<2x11x4x16xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x64xf32>} : tensor<32x64xf32>
  %r = ge.reshape %x {shape = array<i64: 22, 64>} : tensor<2x11x4x16xf32> -> tensor<22x64xf32>
  %p = ge.matmul %r, %w {transpose_x2 = true} : (tensor<22x64xf32>, tensor<32x64xf32>) -> tensor<22x32xf32>
  %a = ge.relu %p : tensor<22x32xf32> -> tensor<22x32xf32>
  %y = ge.reshape %a {shape = array<i64: 2, 11, 32>} : tensor<22x32xf32> -> tensor<2x11x32xf32>
  ge.netoutput %y : tensor<2x11x32xf32>
}

// -----

// A Gemm that transposes its rows operand mixes rows: no change.
// CHECK-LABEL: ge.graph @no_fold_transposed_rows
// CHECK:         ge.reshape
// CHECK:         ge.gemm
ge.graph @no_fold_transposed_rows {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<6x5xf32>} : tensor<6x5xf32>
  %r = ge.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %p = ge.gemm %r, %w {trans_a = true} : (tensor<6x4xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  ge.netoutput %p : tensor<4x5xf32>
}

// -----

// A product of the rows by another activation (not a constant weight): no
// change.
// CHECK-LABEL: ge.graph @no_fold_product_of_activations
// CHECK:         ge.reshape
// CHECK:         ge.matmul
ge.graph @no_fold_product_of_activations {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %w = ge.data {index = 1 : i64} : tensor<4x5xf32>
  %r = ge.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %p = ge.matmul %r, %w : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %y = ge.reshape %p {shape = array<i64: 2, 3, 5>} : tensor<6x5xf32> -> tensor<2x3x5xf32>
  ge.netoutput %y : tensor<2x3x5xf32>
}

// -----

// Rows that end inside an axis ([2, 6, 4] -> [4, 12]: 4 rows split the
// 6): no change.
// CHECK-LABEL: ge.graph @no_fold_rows_inside_an_axis
// CHECK:         ge.reshape
// CHECK:         ge.matmul
ge.graph @no_fold_rows_inside_an_axis {
  %x = ge.data {index = 0 : i64} : tensor<2x6x4xf32>
  %w = ge.const {value = dense<0.5> : tensor<12x5xf32>} : tensor<12x5xf32>
  %r = ge.reshape %x {shape = array<i64: 4, 12>} : tensor<2x6x4xf32> -> tensor<4x12xf32>
  %p = ge.matmul %r, %w : (tensor<4x12xf32>, tensor<12x5xf32>) -> tensor<4x5xf32>
  ge.netoutput %p : tensor<4x5xf32>
}
