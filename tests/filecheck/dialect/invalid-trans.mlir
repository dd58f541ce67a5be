// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid trans ops: transdata, cast, reshape family, transpose, permute.

ge.graph @transdata_shape_change {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op origin shapes differ: [1, 3, 8, 8] vs [1, 1, 8, 8]
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x1x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @transdata_dtype_change {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op transdata cannot change the dtype (use ge.cast)
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf32, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @transdata_src_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op src_format NHWC does not match the operand's storage format NCHW
  %y = ge.transdata %x {src_format = #ge.format<NHWC>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @transdata_dst_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op dst_format FRACTAL_Z does not match the result's storage format NC1HWC0
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_Z>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @transdata_src_nd_default {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf16>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op src_format NCHW does not match the operand's storage format ND
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<FRACTAL_NZ>} : tensor<2x3xf16> -> tensor<2x3xf16, #ge.layout<ND, FRACTAL_NZ>>
  ge.netoutput
}

// -----

ge.graph @transdata_origin_change {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op origin formats differ: NCHW vs ND
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<ND, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @transdata_origin_change_wrong_rank {
  %x = ge.data {index = 0 : i64} : tensor<3x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op origin formats differ: NCHW vs NHWC
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NHWC>} : tensor<3x8xf16, #ge.layout<NCHW>> -> tensor<3x8xf16, #ge.layout<NHWC>>
  ge.netoutput
}

// -----

// A TransData that absorbed a transpose: its origin shape is permuted.
ge.graph @transdata_origin_change_shape_not_permuted {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x5xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op origin shapes differ: [1, 3, 8, 5] vs [1, 3, 8, 5]
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x5xf16, #ge.layout<NCHW>> -> tensor<1x3x8x5xf16, #ge.layout<NHWC, NC1HWC0>>
  ge.netoutput
}

// -----

// ... and its perm is the permutation between the origin formats' letters.
ge.graph @transdata_perm_is_not_the_format_change {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op perm must permute the axis letters of NCHW into NHWC
  %y = ge.transdata %x {src_format = #ge.format<NCHW>, dst_format = #ge.format<NC1HWC0>, perm = array<i64: 0, 3, 2, 1>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x8x8x3xf16, #ge.layout<NHWC, NC1HWC0>>
  ge.netoutput
}

// -----

ge.graph @transdata_missing_dst_format {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op attribute 'dst_format' expected in operation 'ge.transdata'
  %y = ge.transdata %x {src_format = #ge.format<NCHW>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput
}

// -----

ge.graph @transdata_format_not_a_format {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transdata' op "NCHW" should be of base attribute ge.format
  %y = ge.transdata %x {src_format = "NCHW", dst_format = #ge.format<NCHW>} : tensor<1x3x8x8xf16, #ge.layout<NCHW>> -> tensor<1x3x8x8xf16, #ge.layout<NCHW>>
  ge.netoutput
}

// -----

ge.graph @cast_dst_type_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result dtype bf16 does not match dst_type f16
  %y = ge.cast %x {dst_type = f16} : tensor<2x3xf32> -> tensor<2x3xbf16>
  ge.netoutput
}

// -----

ge.graph @cast_dst_type_not_a_type {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result dtype f16 does not match dst_type 3 : i64
  %y = ge.cast %x {dst_type = 3 : i64} : tensor<2x3xf32> -> tensor<2x3xf16>
  ge.netoutput
}

// -----

ge.graph @cast_shape_change {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op cast cannot change the shape
  %y = ge.cast %x {dst_type = f16} : tensor<2x3xf32> -> tensor<3x2xf16>
  ge.netoutput
}

// -----

ge.graph @cast_round_mode_unknown {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op round_mode must be one of up, down, nearest, got 'odd'
  %y = ge.cast %x {dst_type = f8E8M0FNU, round_mode = "odd"} : tensor<2x3xf32> -> tensor<2x3xf8E8M0FNU>
  ge.netoutput
}

// -----

ge.graph @reshape_element_count {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op cannot reshape [2, 3, 4] (24 elements) into [5, 5] (25 elements)
  %y = ge.reshape %x {shape = array<i64: 5, 5>} : tensor<2x3x4xf32> -> tensor<5x5xf32>
  ge.netoutput
}

// -----

ge.graph @reshape_dtype_change {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op operands and results must share one dtype, got f16, f32
  %y = ge.reshape %x : tensor<2x3x4xf32> -> tensor<24xf16>
  ge.netoutput
}

// -----

ge.graph @flatten_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op axis -3 is out of range [-2, 2]
  %y = ge.flatten %x {axis = -3 : i64} : tensor<2x3xf32> -> tensor<1x6xf32>
  ge.netoutput
}

// -----

ge.graph @flatten_axis_too_large {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op axis 3 is out of range [-2, 2]
  %y = ge.flatten %x {axis = 3 : i64} : tensor<2x3xf32> -> tensor<6x1xf32>
  ge.netoutput
}

// -----

ge.graph @flatten_result_rank {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op result must have rank 2, got 1
  %y = ge.flatten %x : tensor<2x3x4xf32> -> tensor<24xf32>
  ge.netoutput
}

// -----

ge.graph @flatten_element_count {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op cannot reshape [2, 3, 4] (24 elements) into [2, 3] (6 elements)
  %y = ge.flatten %x : tensor<2x3x4xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @squeeze_non_unit_axis {
  %x = ge.data {index = 0 : i64} : tensor<1x3x1xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.squeeze' op cannot squeeze axis 1 of size 3
  %y = ge.squeeze %x {axes = array<i64: 1>} : tensor<1x3x1xf32> -> tensor<1x1xf32>
  ge.netoutput
}

// -----

ge.graph @squeeze_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<1x3x1xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.squeeze' op axis 3 is out of range for rank 3
  %y = ge.squeeze %x {axes = array<i64: 3>} : tensor<1x3x1xf32> -> tensor<3xf32>
  ge.netoutput
}

// -----

ge.graph @squeeze_scalar {
  %x = ge.data {index = 0 : i64} : tensor<f32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.squeeze' op cannot squeeze axes of a rank-0 tensor
  %y = ge.squeeze %x {axes = array<i64: 0>} : tensor<f32> -> tensor<f32>
  ge.netoutput
}

// -----

ge.graph @squeeze_element_count {
  %x = ge.data {index = 0 : i64} : tensor<1x3x1xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.squeeze' op cannot reshape [1, 3, 1] (3 elements) into [3, 2] (6 elements)
  %y = ge.squeeze %x {axes = array<i64: 0>} : tensor<1x3x1xf32> -> tensor<3x2xf32>
  ge.netoutput
}

// -----

ge.graph @unsqueeze_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.unsqueeze' op axis 2 is out of range for rank 2
  %y = ge.unsqueeze %x {axes = array<i64: 2>} : tensor<3xf32> -> tensor<1x3xf32>
  ge.netoutput
}

// -----

ge.graph @unsqueeze_element_count {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.unsqueeze' op cannot reshape [3] (3 elements) into [2, 3] (6 elements)
  %y = ge.unsqueeze %x {axes = array<i64: 0>} : tensor<3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @unsqueeze_without_axes {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.unsqueeze' op attribute 'axes' expected in operation 'ge.unsqueeze'
  %y = ge.unsqueeze %x : tensor<3xf32> -> tensor<1x3xf32>
  ge.netoutput
}

// -----

ge.graph @expand_dims_axis_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.expand_dims' op axis -3 is out of range for rank 2
  %y = ge.expand_dims %x {axis = -3 : i64} : tensor<3xf32> -> tensor<1x3xf32>
  ge.netoutput
}

// -----

ge.graph @expand_dims_element_count {
  %x = ge.data {index = 0 : i64} : tensor<3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.expand_dims' op cannot reshape [3] (3 elements) into [3, 3] (9 elements)
  %y = ge.expand_dims %x {axis = 0 : i64} : tensor<3xf32> -> tensor<3x3xf32>
  ge.netoutput
}

// -----

ge.graph @transpose_not_a_permutation {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x5xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op 'perm' [0, 1, 1, 3] is not a permutation of rank 4
  %y = ge.transpose %x {perm = array<i64: 0, 1, 1, 3>} : tensor<1x3x8x5xf32> -> tensor<1x3x3x5xf32>
  ge.netoutput
}

// -----

ge.graph @transpose_perm_too_short {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x5xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op 'perm' [1, 0] is not a permutation of rank 4
  %y = ge.transpose %x {perm = array<i64: 1, 0>} : tensor<1x3x8x5xf32> -> tensor<3x1xf32>
  ge.netoutput
}

// -----

ge.graph @transpose_perm_out_of_range {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x5xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op 'perm' [0, 1, 2, 7] is not a permutation of rank 4
  %y = ge.transpose %x {perm = array<i64: 0, 1, 2, 7>} : tensor<1x3x8x5xf32> -> tensor<1x3x8x5xf32>
  ge.netoutput
}

// -----

ge.graph @transpose_result_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x5xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op result shape [1, 3, 8, 5] does not match the permuted shape [1, 8, 5, 3]
  %y = ge.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x5xf32> -> tensor<1x3x8x5xf32>
  ge.netoutput
}

// -----

ge.graph @transpose_dtype_change {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op operands and results must share one dtype, got f32, i32
  %y = ge.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xi32>
  ge.netoutput
}

// -----

ge.graph @permute_not_a_permutation {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.permute' op 'order' [2, 0] is not a permutation of rank 2
  %y = ge.permute %x {order = array<i64: 2, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  ge.netoutput
}

// -----

ge.graph @permute_result_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.permute' op result shape [2, 3] does not match the permuted shape [3, 2]
  %y = ge.permute %x {order = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  ge.netoutput
}

// -----

ge.graph @permute_with_perm_attribute {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.permute' op attribute 'order' expected in operation 'ge.permute'
  %y = ge.permute %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  ge.netoutput
}

// -----

ge.graph @confusion_transpose_size_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x11x64xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.confusion_transpose' op cannot reshape [2, 11, 64] (1408 elements) into [2, 11, 4, 8] (704 elements)
  %y = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 4, 8>} : tensor<2x11x64xf32> -> tensor<2x4x11x8xf32>
  ge.netoutput
}

// -----

ge.graph @confusion_transpose_result_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<2x11x64xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.confusion_transpose' op result shape [2, 11, 4, 16] does not match [2, 4, 11, 16]
  %y = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, 11, 4, 16>} : tensor<2x11x64xf32> -> tensor<2x11x4x16xf32>
  ge.netoutput
}

// -----

ge.graph @confusion_transpose_bad_perm {
  %x = ge.data {index = 0 : i64} : tensor<2x11x64xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.confusion_transpose' op 'perm' [0, 2, 1] is not a permutation of rank 4
  %y = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1>, shape = array<i64: 2, 11, 4, 16>} : tensor<2x11x64xf32> -> tensor<2x4x11x16xf32>
  ge.netoutput
}

// -----

ge.graph @confusion_transpose_unknown_dim {
  %x = ge.data {index = 0 : i64} : tensor<2x11x64xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.confusion_transpose' op shape [2, -1, 4, 16] has a dim that is not positive
  %y = ge.confusion_transpose %x {perm = array<i64: 0, 2, 1, 3>, shape = array<i64: 2, -1, 4, 16>} : tensor<2x11x64xf32> -> tensor<2x4x11x16xf32>
  ge.netoutput
}

// -----

ge.graph @bitcast_between_widths {
  %x = ge.data {index = 0 : i64} : tensor<2x3xf32>
  // CHECK: {{.*}}invalid-trans.mlir:[[# @LINE + 1]]:3: error: 'ge.bitcast' op cannot bitcast float32 (32 bits) to int64 (64 bits)
  %y = ge.bitcast %x {dst_type = i64} : tensor<2x3xf32> -> tensor<2x3xi64>
  ge.netoutput
}
