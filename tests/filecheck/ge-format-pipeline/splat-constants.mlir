// RUN: ge-opt %s --split-input-file -p ge-format-pipeline | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-format-pipeline | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-format-pipeline,convert-ge-to-loops | filecheck %s --check-prefix=LOOPS

// A splat constant laid out in a padded storage format stays a splat, written
// in its origin shape (the padding is zero when it is laid out); one whose
// storage layout has no padding is a splat of the storage shape.

// CHECK-LABEL: ge.graph @padded_filter
// CHECK:         ge.const {value = dense<1.000000e-01> : tensor<9x9x3x3xf32>} : tensor<9x9x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
// CHECK-NOT:     dense<"0x
// LOOPS-LABEL: "memref.global"() <{sym_name = "padded_filter_const0", type = memref<18x1x16x8xf32>, initial_value = dense<"0x
ge.graph @padded_filter {
  %x = ge.data {index = 0 : i64} : tensor<1x9x8x8xf32>
  %w = ge.const {value = dense<0.1> : tensor<9x9x3x3xf32>} : tensor<9x9x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x9x8x8xf32>, tensor<9x9x3x3xf32>) -> tensor<1x9x8x8xf32>
  ge.netoutput %y : tensor<1x9x8x8xf32>
}

// -----

// CHECK-LABEL: ge.graph @unpadded_filter
// CHECK:         ge.const {value = dense<2.500000e-01> : tensor<18x1x16x8xf32>} : tensor<16x16x3x3xf32, #ge.layout<NCHW, FRACTAL_Z>>
// LOOPS-LABEL: "memref.global"() <{sym_name = "unpadded_filter_const0", type = memref<18x1x16x8xf32>, initial_value = dense<2.500000e-01> : tensor<18x1x16x8xf32>
ge.graph @unpadded_filter {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %w = ge.const {value = dense<0.25> : tensor<16x16x3x3xf32>} : tensor<16x16x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  ge.netoutput %y : tensor<1x16x8x8xf32>
}
