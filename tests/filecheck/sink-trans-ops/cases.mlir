// RUN: ge-opt %s --split-input-file --sink-trans-ops | filecheck %s

// Survey scenario 4: a unary elementwise op is transparent. The relu runs in
// NC1HWC0 and both TransData go (17 channels: padded, relu keeps zeros zero).
// CHECK-LABEL: ge.graph @survey_4_unary_elementwise_is_transparent
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %r = ge.relu %x : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %r
ge.graph @survey_4_unary_elementwise_is_transparent {
  %x = ge.data {index = 0 : i64} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %r = ge.relu %a : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW>>
  %b = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x3x3xf16, #ge.layout<NCHW>> -> tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x17x3x3xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A batch norm as ONNX exporters write it: mul and add with [C,1,1]
// constants. The constants are relaid out at compile time, aligned as NumPy
// broadcasting aligns them ("CHW"); a chain of several ops moves at once.
// CHECK-LABEL: ge.graph @broadcast_constants_are_relaid_out
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[S:.*]] = ge.const {value = dense<2.000000e+00> : tensor<17x1x1xf32>} : tensor<17x1x1xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">>
// CHECK-NEXT:    %m = ge.mul %x, %[[S]] : (tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<17x1x1xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %[[O:.*]] = ge.const {value = dense<{{.*}}> : tensor<1x3x1x1x8xf32>} : tensor<17x1x1xf32, #ge.layout<NCHW, NC1HWC0, reshape_type = "CHW">>
// CHECK-NEXT:    %p = ge.add %m, %[[O]] : ({{.*}}) -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %r = ge.relu %p
// CHECK-NEXT:    ge.netoutput %r
// CHECK-NOT:     ge.transdata
ge.graph @broadcast_constants_are_relaid_out {
  %x = ge.data {index = 0 : i64} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %s = ge.const {value = dense<2.0> : tensor<17x1x1xf32>} : tensor<17x1x1xf32>
  %m = ge.mul %a, %s : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<17x1x1xf32>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %o = ge.const {value = dense<[[[-1.0]], [[1.0]], [[-2.0]], [[2.0]], [[-3.0]], [[3.0]], [[-4.0]], [[4.0]], [[-5.0]], [[5.0]], [[-6.0]], [[6.0]], [[-7.0]], [[7.0]], [[-8.0]], [[8.0]], [[0.5]]]> : tensor<17x1x1xf32>} : tensor<17x1x1xf32, #ge.layout<NCHW>>
  %p = ge.add %m, %o : (tensor<1x17x4x4xf32, #ge.layout<NCHW>>, tensor<17x1x1xf32, #ge.layout<NCHW>>) -> tensor<1x17x4x4xf32, #ge.layout<NCHW>>
  %b = ge.transdata %p {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x4x4xf32, #ge.layout<NCHW>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %r = ge.relu %b : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %r : tensor<1x17x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// A residual add of two NC1HWC0 values, then relu, back into NC1HWC0: three
// TransData go.
// CHECK-LABEL: ge.graph @residual_add
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %y = ge.data
// CHECK-NEXT:    %s = ge.add %x, %y
// CHECK-NEXT:    %r = ge.relu %s
// CHECK-NEXT:    ge.netoutput %r
ge.graph @residual_add {
  %x = ge.data {index = 0 : i64} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.data {index = 1 : i64} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x33x2x2xf16, #ge.layout<NCHW>>
  %b = ge.transdata %y {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<2x33x2x2xf16, #ge.layout<NCHW>>
  %s = ge.add %a, %b : (tensor<2x33x2x2xf16, #ge.layout<NCHW>>, tensor<2x33x2x2xf16, #ge.layout<NCHW>>) -> tensor<2x33x2x2xf16, #ge.layout<NCHW>>
  %r = ge.relu %s : tensor<2x33x2x2xf16, #ge.layout<NCHW>> -> tensor<2x33x2x2xf16, #ge.layout<NCHW>>
  %c = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<2x33x2x2xf16, #ge.layout<NCHW>> -> tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %c : tensor<2x33x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Hoisting: two TransData into NC1HWC0 read a relu of a graph input. Moving
// them above the relu leaves one (on the input), and the relu runs in NC1HWC0.
// CHECK-LABEL: ge.graph @hoist_above_producer
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %[[T:.*]] = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    %r = ge.relu %[[T]] : tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput %r, %r
ge.graph @hoist_above_producer {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x5xf32, #ge.layout<NCHW>>
  %r = ge.relu %x : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW>>
  %a = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  %b = ge.transdata %r {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x5x5xf32, #ge.layout<NCHW>> -> tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %a, %b : tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x5x5xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Survey scenario 14: the TransData feeds a mul whose other operand is a
// runtime value in origin layout, and nothing downstream cancels. Pushing
// would trade one TransData for two: no push (ONNX Runtime's
// TestOnlyOptimizeTowardsTranspose).
// CHECK-LABEL: ge.graph @no_survey_14_push_without_cancel
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %y = ge.data
// CHECK-NEXT:    %a = ge.transdata %x
// CHECK-NEXT:    %m = ge.mul %a, %y : (tensor<1x16x2x2xf16, #ge.layout<NCHW>>
ge.graph @no_survey_14_push_without_cancel {
  %x = ge.data {index = 0 : i64} : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.data {index = 1 : i64} : tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %m = ge.mul %a, %y : (tensor<1x16x2x2xf16, #ge.layout<NCHW>>, tensor<1x16x2x2xf16, #ge.layout<NCHW>>) -> tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  ge.netoutput %m : tensor<1x16x2x2xf16, #ge.layout<NCHW>>
}

// -----

// The same mul, but its result goes back into NC1HWC0: pushing removes two
// TransData and adds one for %y (3 -> 2... here 2 -> 1).
// CHECK-LABEL: ge.graph @push_when_it_cancels
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %y = ge.data
// CHECK-NEXT:    %[[Y:.*]] = ge.transdata %y {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>}
// CHECK-NEXT:    %m = ge.mul %x, %[[Y]]
// CHECK-NEXT:    ge.netoutput %m
ge.graph @push_when_it_cancels {
  %x = ge.data {index = 0 : i64} : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.data {index = 1 : i64} : tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %m = ge.mul %a, %y : (tensor<1x16x2x2xf16, #ge.layout<NCHW>>, tensor<1x16x2x2xf16, #ge.layout<NCHW>>) -> tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %b = ge.transdata %m {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x16x2x2xf16, #ge.layout<NCHW>> -> tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Survey scenario 13: sigmoid(0) = 0.5 would fill the channel padding
// (17 channels in blocks of 16), so it stays in origin layout; with 32
// channels there is no padding and it moves.
// CHECK-LABEL: ge.graph @no_padded_sigmoid
// CHECK:         ge.transdata
// CHECK:         ge.sigmoid %{{.*}} : tensor<1x17x2x2xf16, #ge.layout<NCHW>>
// CHECK:         ge.transdata
// CHECK:         ge.sigmoid %{{.*}} : tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    ge.netoutput
ge.graph @no_padded_sigmoid {
  %x = ge.data {index = 0 : i64} : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW>>
  %s = ge.sigmoid %a : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW>>
  %b = ge.transdata %s {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x17x2x2xf16, #ge.layout<NCHW>> -> tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %y = ge.data {index = 1 : i64} : tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.transdata %y {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x32x2x2xf16, #ge.layout<NCHW>>
  %t = ge.sigmoid %c : tensor<1x32x2x2xf16, #ge.layout<NCHW>> -> tensor<1x32x2x2xf16, #ge.layout<NCHW>>
  %d = ge.transdata %t {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x32x2x2xf16, #ge.layout<NCHW>> -> tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b, %d : tensor<1x17x2x2xf16, #ge.layout<NCHW, NC1HWC0>>, tensor<1x32x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Survey scenarios 6 and 16: a one-element operand keeps its layout, and the
// graph output still gets its origin layout (one TransData back, after the
// moved ops).
// CHECK-LABEL: ge.graph @scalar_operand_and_graph_output
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %k = ge.const
// CHECK-NEXT:    %m = ge.mul %x, %k : (tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
// CHECK-NEXT:    %[[BACK:.*]] = ge.transdata %m {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>}
// CHECK-NEXT:    ge.netoutput %m, %[[BACK]]
ge.graph @scalar_operand_and_graph_output {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %k = ge.const {value = dense<3.0> : tensor<1xf32>} : tensor<1xf32>
  %m = ge.mul %a, %k : (tensor<1x3x4x4xf32, #ge.layout<NCHW>>, tensor<1xf32>) -> tensor<1x3x4x4xf32, #ge.layout<NCHW>>
  %b = ge.transdata %m {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %c = ge.transdata %m {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x4x4xf32, #ge.layout<NCHW>> -> tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b, %m : tensor<1x3x4x4xf32, #ge.layout<NCHW, NC1HWC0>>, tensor<1x3x4x4xf32, #ge.layout<NCHW>>
}

// -----

// A rank-1 operand broadcasts along W under NumPy's rules, not along C:
// NC1HWC0 cannot hold that broadcast, so nothing moves.
// CHECK-LABEL: ge.graph @no_broadcast_along_w
// CHECK:         ge.transdata
// CHECK:         ge.add %a, %w : (tensor<1x4x4x4xf32, #ge.layout<NCHW>>
ge.graph @no_broadcast_along_w {
  %x = ge.data {index = 0 : i64} : tensor<1x4x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x4x4x4xf32, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
  %w = ge.const {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %s = ge.add %a, %w : (tensor<1x4x4x4xf32, #ge.layout<NCHW>>, tensor<4xf32>) -> tensor<1x4x4x4xf32, #ge.layout<NCHW>>
  %b = ge.transdata %s {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x4x4x4xf32, #ge.layout<NCHW>> -> tensor<1x4x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x4x4x4xf32, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Softmax has no NC1HWC0 kernel in the op information: it is not layout
// agnostic, and the TransData around it stay.
// CHECK-LABEL: ge.graph @no_sink_through_softmax
// CHECK:         ge.transdata
// CHECK-NEXT:    ge.softmax
// CHECK-NEXT:    ge.transdata
ge.graph @no_sink_through_softmax {
  %x = ge.data {index = 0 : i64} : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  %a = ge.transdata %x {src_format = #ge.format<NC1HWC0>, dst_format = #ge.format<NCHW>} : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>> -> tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %s = ge.softmax %a {axis = 1 : i64} : tensor<1x16x2x2xf16, #ge.layout<NCHW>> -> tensor<1x16x2x2xf16, #ge.layout<NCHW>>
  %b = ge.transdata %s {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x16x2x2xf16, #ge.layout<NCHW>> -> tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput %b : tensor<1x16x2x2xf16, #ge.layout<NCHW, NC1HWC0>>
}

// -----

// Out of an internal format any op may move (its origin kernel reads the
// plain value): the softmax of a FRACTAL_NZ matmul result, which the graph
// also outputs, reads the output's ND copy, and its own TransData back goes
// (3 -> 2 runtime TransData; the shared one moves up to the matmul).
// CHECK-LABEL: ge.graph @softmax_reads_the_outputs_copy
// CHECK:         %y = ge.matmul %x, %k
// CHECK-NEXT:    %[[PLAIN:.*]] = ge.transdata %y {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>}
// CHECK-NEXT:    %s = ge.softmax %[[PLAIN]] {axis = 1 : i64} : tensor<1x5xf32> -> tensor<1x5xf32>
// CHECK-NEXT:    ge.netoutput %[[PLAIN]], %s
ge.graph @softmax_reads_the_outputs_copy {
  %x = ge.data {index = 0 : i64} : tensor<1x33xf32, #ge.layout<ND, FRACTAL_NZ>>
  %k = ge.const {value = dense<0.5> : tensor<33x5xf32>} : tensor<33x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.matmul %x, %k : (tensor<1x33xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<33x5xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %s = ge.softmax %y {axis = 1 : i64} : tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %t = ge.transdata %s {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x5xf32>
  %p = ge.transdata %y {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x5xf32>
  ge.netoutput %p, %t : tensor<1x5xf32>, tensor<1x5xf32>
}

// -----

// Without another consumer's ND copy the flip would only move the TransData
// (a new one before the softmax for the one after it): nothing changes.
// CHECK-LABEL: ge.graph @no_flip_without_a_copy
// CHECK:         %s = ge.softmax %y {axis = 1 : i64} : tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %t = ge.transdata %s
ge.graph @no_flip_without_a_copy {
  %x = ge.data {index = 0 : i64} : tensor<1x33xf32, #ge.layout<ND, FRACTAL_NZ>>
  %k = ge.const {value = dense<0.5> : tensor<33x5xf32>} : tensor<33x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.matmul %x, %k : (tensor<1x33xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<33x5xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %s = ge.softmax %y {axis = 1 : i64} : tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %t = ge.transdata %s {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<1x5xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<1x5xf32>
  ge.netoutput %t : tensor<1x5xf32>
}

// -----

// A bias row [1, N] broadcasting over a FRACTAL_NZ matrix keeps its own
// layout (the kernel reads it through it, as select-storage-format places
// such operands): the add between two matmuls sinks into FRACTAL_NZ and the
// TransData pair around it goes.
// CHECK-LABEL: ge.graph @bias_row_keeps_its_layout
// CHECK:         %y = ge.matmul %x, %k
// CHECK-NEXT:    %{{.*}} = ge.add %y, %b : (tensor<11x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<1x16xf32>) -> tensor<11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
// CHECK-NEXT:    %z = ge.matmul
// CHECK-NOT:     ge.transdata
ge.graph @bias_row_keeps_its_layout {
  %x = ge.data {index = 0 : i64} : tensor<11x33xf32, #ge.layout<ND, FRACTAL_NZ>>
  %k = ge.const {value = dense<0.5> : tensor<33x16xf32>} : tensor<33x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %b = ge.const {value = dense<0.25> : tensor<1x16xf32>} : tensor<1x16xf32>
  %k2 = ge.const {value = dense<0.5> : tensor<16x5xf32>} : tensor<16x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  %y = ge.matmul %x, %k : (tensor<11x33xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<33x16xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %t = ge.transdata %y {src_format = #ge.format<FRACTAL_NZ>, dst_format = #ge.format<ND>} : tensor<11x16xf32, #ge.layout<ND, FRACTAL_NZ>> -> tensor<11x16xf32>
  %a = ge.add %t, %b : (tensor<11x16xf32>, tensor<1x16xf32>) -> tensor<11x16xf32>
  %u = ge.transdata %a {src_format = #ge.format<ND>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<11x16xf32> -> tensor<11x16xf32, #ge.layout<ND, FRACTAL_NZ>>
  %z = ge.matmul %u, %k2 : (tensor<11x16xf32, #ge.layout<ND, FRACTAL_NZ>>, tensor<16x5xf32, #ge.layout<ND, FRACTAL_NZ>>) -> tensor<11x5xf32, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput %z : tensor<11x5xf32, #ge.layout<ND, FRACTAL_NZ>>
}
