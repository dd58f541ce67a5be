// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid 3-D convolutions.

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
