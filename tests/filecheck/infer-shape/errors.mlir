// RUN: ge-opt %s --split-input-file --verify-diagnostics --infer-shape | filecheck %s

// Inputs that give no valid result are reported at the op, one line each.

// CHECK: errors.mlir:9:3: error: 'ge.conv2d' op input has 3 channels, filter expects 4 (groups = 1)
ge.graph @no_conv_channel_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<2x4x3x3xf32>} : tensor<2x4x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}

// -----

// CHECK: errors.mlir:21:3: error: 'ge.add' op shapes [2, 3, 2] and [2, 5, 4] do not broadcast
ge.graph @no_broadcast {
  %x = ge.data {index = 0 : i64} : tensor<12xf32>
  %r = ge.reshape %x {shape = array<i64: 2, 3, 2>} : tensor<12xf32> -> tensor<?x?x?xf32>
  %a = ge.data {index = 1 : i64} : tensor<2x5x4xf32>
  %y = ge.reshape %r {shape = array<i64: 2, 3, 2>} : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %z = ge.add %y, %a : (tensor<?x?x?xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  ge.netoutput %z : tensor<2x5x4xf32>
}

// -----

// CHECK: errors.mlir:31:3: error: 'ge.reshape' op cannot reshape [2, 6] (12 elements) into [5, 2] (10 elements)
ge.graph @no_reshape_size_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<12xf32>
  %r = ge.reshape %x {shape = array<i64: 2, 6>} : tensor<12xf32> -> tensor<?x?xf32>
  %y = ge.reshape %r {shape = array<i64: 5, 2>} : tensor<?x?xf32> -> tensor<?x?xf32>
  ge.netoutput %y : tensor<?x?xf32>
}

// -----

// CHECK: errors.mlir:40:3: error: 'ge.max_pool' op window 5 is larger than the padded input 4 by at least the stride 1: no output
ge.graph @no_pool_window_larger_than_input {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x4xf32>
  %y = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 5, 5>} : tensor<1x3x4x4xf32> -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}

// -----

// CHECK: errors.mlir:51:3: error: 'ge.matmul' op contraction sizes differ: 3 vs 4
ge.graph @no_matmul_contraction_mismatch {
  %a = ge.data {index = 0 : i64} : tensor<6xf32>
  %r = ge.reshape %a {shape = array<i64: 2, 3>} : tensor<6xf32> -> tensor<?x?xf32>
  %b = ge.data {index = 1 : i64} : tensor<4x5xf32>
  %y = ge.matmul %r, %b : (tensor<?x?xf32>, tensor<4x5xf32>) -> tensor<?x?xf32>
  ge.netoutput %y : tensor<?x?xf32>
}

// -----

// CHECK: errors.mlir:61:3: error: 'ge.batch_norm' op scale has 3 entries for 4 channels
ge.graph @no_batch_norm_parameter_mismatch {
  %x = ge.data {index = 0 : i64} : tensor<1x4x2x2xf32>
  %k = ge.data {index = 1 : i64} : tensor<3xf32>
  %y = ge.batch_norm %x, %k, %k, %k, %k {data_format = "NCHW"} : (tensor<1x4x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}

// -----

// CHECK: errors.mlir:72:3: error: 'ge.concat' op input #1 has 5 at dim 0, input #0 has 2
ge.graph @no_concat_mismatch {
  %a = ge.data {index = 0 : i64} : tensor<6xf32>
  %r = ge.reshape %a {shape = array<i64: 2, 3>} : tensor<6xf32> -> tensor<?x?xf32>
  %b = ge.data {index = 1 : i64} : tensor<5x3xf32>
  %y = ge.concat %r, %b {axis = 1 : i64} : (tensor<?x?xf32>, tensor<5x3xf32>) -> tensor<?x?xf32>
  ge.netoutput %y : tensor<?x?xf32>
}

// -----

// A declared layout the inferred rank cannot carry.
// CHECK: errors.mlir:82:3: error: 'ge.reshape' op result #0: inferred type tensor<1x2x3x4x5xf32, #ge.layout<NCHW>> does not fit its layout: rank 5 is too large for origin format NCHW (rank 4)
ge.graph @no_layout_for_inferred_rank {
  %a = ge.data {index = 0 : i64} : tensor<120xf32>
  %r = ge.reshape %a {shape = array<i64: 1, 2, 3, 4, 5>} : tensor<120xf32> -> tensor<?x?x?x?xf32, #ge.layout<NCHW>>
  ge.netoutput %r : tensor<?x?x?x?xf32, #ge.layout<NCHW>>
}
