// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid neural-network ops: data_format, ranks, list lengths, groups, parameter sizes.

ge.graph @conv2d_bad_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op data_format must be one of NCHW, NHWC, got 'NCDHW'
  %r = ge.conv2d %x, %y {data_format = "NCDHW"} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_data_format_not_a_string {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op 1 : i64 should be of base attribute string
  %r = ge.conv2d %x, %y {data_format = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_missing_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op attribute 'data_format' expected in operation 'ge.conv2d'
  %r = ge.conv2d %x, %y : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_input_rank {
  %x = ge.data {index = 0 : i64} : tensor<4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op input must have rank 4, got 3
  %r = ge.conv2d %x, %y {data_format = "NCHW"} : (tensor<4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_filter_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op filter must have rank 4, got 3
  %r = ge.conv2d %x, %y {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<8x4x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_result_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op result must have rank 4, got 3
  %r = ge.conv2d %x, %y {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_strides_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op 'strides' must have 4 values, got 2
  %r = ge.conv2d %x, %y {data_format = "NCHW", strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_pads_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op 'pads' must have 4 values, got 3
  %r = ge.conv2d %x, %y {data_format = "NCHW", pads = array<i64: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_dilations_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op 'dilations' must have 4 values, got 5
  %r = ge.conv2d %x, %y {data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_zero_stride {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op 'strides' must be positive, got [1, 1, 0, 1]
  %r = ge.conv2d %x, %y {data_format = "NCHW", strides = array<i64: 1, 1, 0, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_zero_dilation {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op 'dilations' must be positive, got [0, 1, 1, 1]
  %r = ge.conv2d %x, %y {data_format = "NCHW", dilations = array<i64: 0, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_groups_do_not_divide {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op groups 3 must divide the 4 input channels
  %r = ge.conv2d %x, %y {data_format = "NCHW", groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_groups_zero {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op groups 0 must divide the 4 input channels
  %r = ge.conv2d %x, %y {data_format = "NCHW", groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_groups_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x6xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op groups 4 must divide the 6 input channels
  %r = ge.conv2d %x, %y {data_format = "NHWC", groups = 4 : i64} : (tensor<1x8x8x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_bias_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  %z = ge.data {index = 2 : i64} : tensor<1x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op bias must have rank 1, got 2
  %r = ge.conv2d %x, %y, %z {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<1x8xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_filter_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op filter must have rank 4, got 2
  %r = ge.conv2d_transpose %x, %y {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<4x8xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_bad_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op data_format must be one of NCHW, NHWC, got 'HWCN'
  %r = ge.conv2d_transpose %x, %y {data_format = "HWCN"} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_stride_zero {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x8x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op 'strides' must be positive, got [1, 1, 0, 0]
  %r = ge.conv2d_transpose %x, %y {data_format = "NCHW", strides = array<i64: 1, 1, 0, 0>} : (tensor<1x4x8x8xf32>, tensor<4x8x3x3xf32>) -> tensor<1x8x?x?xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_groups_zero {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x8x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op groups 0 must divide the 4 input channels
  %r = ge.conv2d_transpose %x, %y {data_format = "NCHW", groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x8x3x3xf32>) -> tensor<1x?x10x10xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_output_padding_past_stride {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4x8x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op output_padding [2, 0] must be >= 0 and below the stride or the dilation of its axis
  %r = ge.conv2d_transpose %x, %y {data_format = "NCHW", strides = array<i64: 1, 1, 2, 2>, output_padding = array<i64: 2, 0>} : (tensor<1x4x8x8xf32>, tensor<4x8x3x3xf32>) -> tensor<1x8x19x17xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_strides_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op 'strides' must have 4 values, got 2
  %r = ge.conv2d_transpose %x, %y {data_format = "NCHW", strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @conv2d_transpose_output_padding_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d_transpose' op 'output_padding' must have 2 values, got 4
  %r = ge.conv2d_transpose %x, %y {data_format = "NCHW", output_padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool_ksize_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op 'ksize' must have 4 values, got 2
  %r = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 3, 3>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool_strides_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op 'strides' must have 4 values, got 1
  %r = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @avg_pool_pads_length {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op 'pads' must have 4 values, got 2
  %r = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 3, 3>, pads = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool_zero_ksize {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op 'ksize' and 'strides' must be positive
  %r = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 0, 3>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @avg_pool_zero_stride {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op 'ksize' and 'strides' must be positive
  %r = ge.avg_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool_dtype {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op operands and results must share one dtype, got f16, f32
  %r = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf16>
  ge.netoutput
}

// -----

ge.graph @max_pool_rank {
  %x = ge.data {index = 0 : i64} : tensor<4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op input must have rank 4, got 3
  %r = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 1, 1>} : tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @avg_pool_bad_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op data_format must be one of NCHW, NHWC, got 'nchw'
  %r = ge.avg_pool %x {data_format = "nchw", ksize = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @global_avg_pool_bad_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op data_format must be one of NCHW, NHWC, got 'ND'
  %r = ge.global_avg_pool %x {data_format = "ND"} : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  ge.netoutput
}

// -----

ge.graph @global_max_pool_rank {
  %x = ge.data {index = 0 : i64} : tensor<4x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.global_max_pool' op input must have rank 4, got 2
  %r = ge.global_max_pool %x {data_format = "NCHW"} : tensor<4x8xf32> -> tensor<4x1xf32>
  ge.netoutput
}

// -----

ge.graph @batch_norm_param_size {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  %z = ge.data {index = 2 : i64} : tensor<5xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op mean has 5 entries for 4 channels
  %r = ge.batch_norm %x, %y, %y, %z, %y {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @batch_norm_param_size_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x8x8x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op scale has 8 entries for 3 channels
  %r = ge.batch_norm %x, %y, %y, %y, %y {data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x3xf32>
  ge.netoutput
}

// -----

ge.graph @batch_norm_param_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  %z = ge.data {index = 2 : i64} : tensor<1x4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op variance must have rank 1, got 2
  %r = ge.batch_norm %x, %y, %y, %y, %z {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @batch_norm_operand_count {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op Expected 5 operands, but got 4
  %r = "ge.batch_norm"(%x, %y, %y, %y) {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @instance_norm_bad_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.instance_norm' op data_format must be one of NCHW, NHWC, got 'CHWN'
  %r = ge.instance_norm %x, %y, %y {data_format = "CHWN"} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @instance_norm_rank {
  %x = ge.data {index = 0 : i64} : tensor<4x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.instance_norm' op input must have rank 4, got 2
  %r = ge.instance_norm %x, %y, %y {data_format = "NCHW"} : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  ge.netoutput
}

// -----

ge.graph @lrn_size {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.lrn' op 'size' must be positive
  %r = ge.lrn %x {data_format = "NCHW", size = 0 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @lrn_missing_size {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.lrn' op attribute 'size' expected in operation 'ge.lrn'
  %r = ge.lrn %x {data_format = "NCHW"} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @bias_add_size {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<8xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.bias_add' op bias has 8 entries for 4 channels
  %r = ge.bias_add %x, %y {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @bias_add_size_nhwc_2d {
  %x = ge.data {index = 0 : i64} : tensor<5x3xf32>
  %y = ge.data {index = 1 : i64} : tensor<5xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.bias_add' op bias has 5 entries for 3 channels
  %r = ge.bias_add %x, %y {data_format = "NHWC"} : (tensor<5x3xf32>, tensor<5xf32>) -> tensor<5x3xf32>
  ge.netoutput
}

// -----

ge.graph @bias_add_bias_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<1x4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.bias_add' op bias must have rank 1, got 2
  %r = ge.bias_add %x, %y {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<1x4xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @bias_add_scalar_input {
  %x = ge.data {index = 0 : i64} : tensor<f32>
  %y = ge.data {index = 1 : i64} : tensor<1xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.bias_add' op input must have rank >= 1
  %r = ge.bias_add %x, %y {data_format = "NCHW"} : (tensor<f32>, tensor<1xf32>) -> tensor<f32>
  ge.netoutput
}

// -----

ge.graph @bias_add_bad_data_format {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %y = ge.data {index = 1 : i64} : tensor<4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.bias_add' op data_format must be one of NCHW, NHWC, got 'NC1HWC0'
  %r = ge.bias_add %x, %y {data_format = "NC1HWC0"} : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  ge.netoutput
}

// -----

ge.graph @lp_pool_p {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x4xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.lp_pool' op 'p' must be positive, got -1.0
  %y = ge.lp_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, p = -1.0 : f32} : tensor<1x3x5x4xf32> -> tensor<1x3x4x3xf32>
  ge.netoutput
}

// -----

ge.graph @argmax_nhwc {
  %x = ge.data {index = 0 : i64} : tensor<1x5x5x3xf32>
  // CHECK: {{.*}}invalid-nn.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool_with_argmax' op argmax positions are defined on NCHW input only
  %y, %i = ge.max_pool_with_argmax %x {data_format = "NHWC", ksize = array<i64: 1, 2, 2, 1>} : tensor<1x5x5x3xf32> -> tensor<1x4x4x3xf32>, tensor<1x4x4x3xi64>
  ge.netoutput
}
