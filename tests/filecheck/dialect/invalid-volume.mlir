// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid 3-D convolutions, transposed convolutions and pools.

ge.graph @conv3d_format {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.conv3d' op data_format must be one of NCDHW, NDHWC, got 'NCHW'
  %y = ge.conv3d %x, %w {data_format = "NCHW"} : (tensor<1x5x4x7x6xf32>, tensor<17x5x3x2x3xf32>) -> tensor<1x17x2x6x4xf32>
  ge.netoutput
}

// -----

ge.graph @conv3d_pads {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.conv3d' op 'pads' must have 6 values, got 4
  %y = ge.conv3d %x, %w {data_format = "NCDHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x5x4x7x6xf32>, tensor<17x5x3x2x3xf32>) -> tensor<1x17x2x6x4xf32>
  ge.netoutput
}

// -----

ge.graph @conv3d_groups {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.conv3d' op groups 2 must divide the 5 input channels
  %y = ge.conv3d %x, %w {data_format = "NCDHW", groups = 2 : i64} : (tensor<1x5x4x7x6xf32>, tensor<17x5x3x2x3xf32>) -> tensor<1x17x2x6x4xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool3d_format {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool3d' op data_format must be one of NCDHW, NDHWC, got 'NCHW'
  %y = ge.max_pool3d %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2, 2>} : tensor<1x5x4x7x6xf32> -> tensor<1x5x3x6x5xf32>
  ge.netoutput
}

// -----

ge.graph @avg_pool3d_pads {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool3d' op 'pads' must have 6 values, got 4
  %y = ge.avg_pool3d %x {data_format = "NCDHW", ksize = array<i64: 1, 1, 2, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x5x4x7x6xf32> -> tensor<1x5x3x6x5xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool3d_ksize {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool3d' op 'ksize' must be positive, got [1, 1, 0, 2, 2]
  %y = ge.max_pool3d %x {data_format = "NCDHW", ksize = array<i64: 1, 1, 0, 2, 2>} : tensor<1x5x4x7x6xf32> -> tensor<1x5x3x6x5xf32>
  ge.netoutput
}

// -----

ge.graph @max_pool3d_rank {
  %x = ge.data {index = 0 : i64} : tensor<1x5x7x6xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool3d' op input must have rank 5, got 4
  %y = ge.max_pool3d %x {data_format = "NCDHW", ksize = array<i64: 1, 1, 1, 2, 2>} : tensor<1x5x7x6xf32> -> tensor<1x5x6x5xf32>
  ge.netoutput
}

// -----

ge.graph @conv3d_transpose_output_padding {
  %x = ge.data {index = 0 : i64} : tensor<2x3x3x4x3xf32>
  %w = ge.data {index = 1 : i64} : tensor<3x17x3x2x3xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.conv3d_transpose' op output_padding [1, 1, 0] must be >= 0 and below the stride or the dilation of its axis
  %y = ge.conv3d_transpose %x, %w {data_format = "NCDHW", strides = array<i64: 1, 1, 2, 1, 1>, output_padding = array<i64: 1, 1, 0>} : (tensor<2x3x3x4x3xf32>, tensor<3x17x3x2x3xf32>) -> tensor<2x17x8x6x5xf32>
  ge.netoutput
}

// -----

ge.graph @conv3d_transpose_groups {
  %x = ge.data {index = 0 : i64} : tensor<2x3x3x4x3xf32>
  %w = ge.data {index = 1 : i64} : tensor<3x17x3x2x3xf32>
  // CHECK: {{.*}}invalid-volume.mlir:[[# @LINE + 1]]:3: error: 'ge.conv3d_transpose' op groups 2 must divide the 3 input channels
  %y = ge.conv3d_transpose %x, %w {data_format = "NCDHW", groups = 2 : i64} : (tensor<2x3x3x4x3xf32>, tensor<3x17x3x2x3xf32>) -> tensor<2x34x5x5x5xf32>
  ge.netoutput
}
