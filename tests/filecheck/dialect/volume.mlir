// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// 3-D convolution: strides and dilations per axis of data_format, pads
// [front, back, top, bottom, left, right], an OIDHW filter.

// CHECK-LABEL: ge.graph @conv3d
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
// CHECK-NEXT:    [[W:%.*]] = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.conv3d [[X]], [[W]] {data_format = "NCDHW", pads = array<i64: 1, 1, 0, 1, 1, 1>, strides = array<i64: 1, 1, 1, 2, 1>} : (tensor<1x5x4x7x6xf32>, tensor<17x5x3x2x3xf32>) -> tensor<1x17x4x4x6xf32>
// CHECK-NEXT:    ge.netoutput [[Y]] :
ge.graph @conv3d {
  %x = ge.data {index = 0 : i64} : tensor<1x5x4x7x6xf32>
  %w = ge.data {index = 1 : i64} : tensor<17x5x3x2x3xf32>
  %y = ge.conv3d %x, %w {data_format = "NCDHW", pads = array<i64: 1, 1, 0, 1, 1, 1>, strides = array<i64: 1, 1, 1, 2, 1>} : (tensor<1x5x4x7x6xf32>, tensor<17x5x3x2x3xf32>) -> tensor<1x17x4x4x6xf32>
  ge.netoutput %y : tensor<1x17x4x4x6xf32>
}
