// RUN: ge-opt %s --split-input-file --select-storage-format | filecheck %s

// An LSTM step kept in FRACTAL_NZ: step t of the sequence's projection
// (a slice and a squeeze of a batch axis), the recurrent product, the gate
// columns (whole C0 blocks: 8 for f32 on the default target), the cell
// update and the hidden state the next step's product reads, all in the
// layout the products want (SliceOp, SqueezeOp accepts_layouts).
// CHECK-LABEL: ge.graph @lstm_step
// CHECK:         %xt = ge.slice %p {begins = array<i64: 1>, ends = array<i64: 2>, axes = array<i64: 0>} : tensor<3x2x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x2x32xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %x = ge.squeeze %xt {axes = array<i64: 0>} : tensor<1x2x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK:         %g = ge.add %x, %r : (tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %i = ge.slice %g {begins = array<i64: 0>, ends = array<i64: 16>, axes = array<i64: 1>} : tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %o = ge.slice %g {begins = array<i64: 16>, ends = array<i64: 32>, axes = array<i64: 1>} : tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %si = ge.sigmoid %i : tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %so = ge.tanh %o : tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %h = ge.mul %si, %so : (tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %next = ge.matmul %h, %w2 {{.*}} : (tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<32x16xf32>) -> tensor<2x32xf32, #ge.layout<ND, FRACTAL_NZ>>
ge.graph @lstm_step {
  %seq = ge.data {index = 0 : i64} : tensor<3x2x8xf32>
  %h0 = ge.data {index = 1 : i64} : tensor<2x16xf32>
  %w = ge.const {value = dense<0.5> : tensor<32x8xf32>} : tensor<32x8xf32>
  %w2 = ge.const {value = dense<0.25> : tensor<32x16xf32>} : tensor<32x16xf32>
  %p = ge.batch_matmul %seq, %w {adj_x2 = true} : (tensor<3x2x8xf32>, tensor<32x8xf32>) -> tensor<3x2x32xf32>
  %xt = ge.slice %p {begins = array<i64: 1>, ends = array<i64: 2>, axes = array<i64: 0>} : tensor<3x2x32xf32> -> tensor<1x2x32xf32>
  %x = ge.squeeze %xt {axes = array<i64: 0>} : tensor<1x2x32xf32> -> tensor<2x32xf32>
  %r = ge.matmul %h0, %w2 {transpose_x2 = true} : (tensor<2x16xf32>, tensor<32x16xf32>) -> tensor<2x32xf32>
  %g = ge.add %x, %r : (tensor<2x32xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
  %i = ge.slice %g {begins = array<i64: 0>, ends = array<i64: 16>, axes = array<i64: 1>} : tensor<2x32xf32> -> tensor<2x16xf32>
  %o = ge.slice %g {begins = array<i64: 16>, ends = array<i64: 32>, axes = array<i64: 1>} : tensor<2x32xf32> -> tensor<2x16xf32>
  %si = ge.sigmoid %i : tensor<2x16xf32> -> tensor<2x16xf32>
  %so = ge.tanh %o : tensor<2x16xf32> -> tensor<2x16xf32>
  %h = ge.mul %si, %so : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %next = ge.matmul %h, %w2 {transpose_x2 = true} : (tensor<2x16xf32>, tensor<32x16xf32>) -> tensor<2x32xf32>
  ge.netoutput %next : tensor<2x32xf32>
}

// -----

// The hidden states stacked over time: an unsqueeze of a batch axis and a
// concat along it keep whole fractals (UnsqueezeOp, ConcatOp).
// CHECK-LABEL: ge.graph @stack_steps
// CHECK:         %a1 = ge.unsqueeze %a {axes = array<i64: 0>} : tensor<2x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK:         %y = ge.concat %a1, %b1 {axis = 0 : i64} : (tensor<1x2x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<1x2x16xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<2x2x16xf32, #ge.layout<ND, FRACTAL_NZ>>
ge.graph @stack_steps {
  %x = ge.data {index = 0 : i64} : tensor<2x8xf32>
  %w = ge.const {value = dense<0.5> : tensor<8x16xf32>} : tensor<8x16xf32>
  %a = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  %b = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  %a1 = ge.unsqueeze %a {axes = array<i64: 0>} : tensor<2x16xf32> -> tensor<1x2x16xf32>
  %b1 = ge.unsqueeze %b {axes = array<i64: 0>} : tensor<2x16xf32> -> tensor<1x2x16xf32>
  %y = ge.concat %a1, %b1 {axis = 0 : i64} : (tensor<1x2x16xf32>, tensor<1x2x16xf32>) -> tensor<2x2x16xf32>
  %t = ge.batch_matmul %y, %w {adj_x2 = true} : (tensor<2x2x16xf32>, tensor<8x16xf32>) -> tensor<2x2x8xf32>
  ge.netoutput %t : tensor<2x2x8xf32>
}

// -----

// Gate columns of 12 cut a C0 block of 8: the slices stay in origin format.
// CHECK-LABEL: ge.graph @no_slice_nz_inside_a_block
// CHECK:         %i = ge.slice %g {begins = array<i64: 0>, ends = array<i64: 12>, axes = array<i64: 1>, input_layouts = [#ge.layout<ND>]} : tensor<2x24xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<2x12xf32>
ge.graph @no_slice_nz_inside_a_block {
  %x = ge.data {index = 0 : i64} : tensor<2x8xf32>
  %w = ge.const {value = dense<0.5> : tensor<8x24xf32>} : tensor<8x24xf32>
  %g = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x24xf32>) -> tensor<2x24xf32>
  %i = ge.slice %g {begins = array<i64: 0>, ends = array<i64: 12>, axes = array<i64: 1>} : tensor<2x24xf32> -> tensor<2x12xf32>
  ge.netoutput %i : tensor<2x12xf32>
}

// -----

// A squeeze of the row axis changes the fractals: origin format.
// CHECK-LABEL: ge.graph @no_squeeze_nz_of_a_blocked_axis
// CHECK:         %s = ge.squeeze %g {axes = array<i64: 0>, input_layouts = [#ge.layout<ND>]} : tensor<1x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<16xf32>
ge.graph @no_squeeze_nz_of_a_blocked_axis {
  %x = ge.data {index = 0 : i64} : tensor<1x8xf32>
  %w = ge.const {value = dense<0.5> : tensor<8x16xf32>} : tensor<8x16xf32>
  %g = ge.matmul %x, %w : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  %s = ge.squeeze %g {axes = array<i64: 0>} : tensor<1x16xf32> -> tensor<16xf32>
  ge.netoutput %s : tensor<16xf32>
}
