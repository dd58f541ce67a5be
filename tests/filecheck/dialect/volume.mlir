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

// 3-D pooling: ksize, strides and dilations per axis of data_format, pads
// [front, back, top, bottom, left, right]; an NDHWC average pool with its
// ceil mode and padding rule.

// CHECK-LABEL: ge.graph @pool3d
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x17x5x6x7xf32>
// CHECK-NEXT:    [[M:%.*]] = ge.max_pool3d [[X]] {data_format = "NCDHW", ksize = array<i64: 1, 1, 2, 3, 2>, strides = array<i64: 1, 1, 2, 1, 2>, pads = array<i64: 1, 0, 1, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 2, 1>, ceil_mode = true} : tensor<1x17x5x6x7xf32> -> tensor<1x17x3x3x4xf32>
// CHECK-NEXT:    [[V:%.*]] = ge.data {index = 1 : i64} : tensor<2x5x4x7x3xf32>
// CHECK-NEXT:    [[A:%.*]] = ge.avg_pool3d [[V]] {data_format = "NDHWC", ksize = array<i64: 1, 3, 2, 3, 1>, pads = array<i64: 1, 1, 1, 1, 0, 2>, count_include_pad = true} : tensor<2x5x4x7x3xf32> -> tensor<2x5x5x7x3xf32>
// CHECK-NEXT:    ge.netoutput [[M]], [[A]] :
ge.graph @pool3d {
  %x = ge.data {index = 0 : i64} : tensor<1x17x5x6x7xf32>
  %m = ge.max_pool3d %x {data_format = "NCDHW", ksize = array<i64: 1, 1, 2, 3, 2>, strides = array<i64: 1, 1, 2, 1, 2>, pads = array<i64: 1, 0, 1, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 2, 1>, ceil_mode = true} : tensor<1x17x5x6x7xf32> -> tensor<1x17x3x3x4xf32>
  %v = ge.data {index = 1 : i64} : tensor<2x5x4x7x3xf32>
  %a = ge.avg_pool3d %v {data_format = "NDHWC", ksize = array<i64: 1, 3, 2, 3, 1>, pads = array<i64: 1, 1, 1, 1, 0, 2>, count_include_pad = true} : tensor<2x5x4x7x3xf32> -> tensor<2x5x5x7x3xf32>
  ge.netoutput %m, %a : tensor<1x17x3x3x4xf32>, tensor<2x5x5x7x3xf32>
}

// 3-D transposed convolution: an [I, O / groups, kd, kh, kw] filter, pads
// cropped from the full output, output_padding per D, H and W.

// CHECK-LABEL: ge.graph @conv3d_transpose
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3x3x4x3xf32>
// CHECK-NEXT:    [[W:%.*]] = ge.data {index = 1 : i64} : tensor<3x17x3x2x3xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.conv3d_transpose [[X]], [[W]] {data_format = "NCDHW", strides = array<i64: 1, 1, 2, 1, 2>, pads = array<i64: 1, 0, 1, 0, 1, 0>, output_padding = array<i64: 1, 0, 1>} : (tensor<2x3x3x4x3xf32>, tensor<3x17x3x2x3xf32>) -> tensor<2x17x7x4x7xf32>
// CHECK-NEXT:    ge.netoutput [[Y]] :
ge.graph @conv3d_transpose {
  %x = ge.data {index = 0 : i64} : tensor<2x3x3x4x3xf32>
  %w = ge.data {index = 1 : i64} : tensor<3x17x3x2x3xf32>
  %y = ge.conv3d_transpose %x, %w {data_format = "NCDHW", strides = array<i64: 1, 1, 2, 1, 2>, pads = array<i64: 1, 0, 1, 0, 1, 0>, output_padding = array<i64: 1, 0, 1>} : (tensor<2x3x3x4x3xf32>, tensor<3x17x3x2x3xf32>) -> tensor<2x17x7x4x7xf32>
  ge.netoutput %y : tensor<2x17x7x4x7xf32>
}
