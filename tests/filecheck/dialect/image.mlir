// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// `ge.resize` (ONNX Resize): defaults are elided when printing.

// CHECK-LABEL: ge.graph @resize
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32>
// CHECK-NEXT:    [[N:%.*]] = ge.resize [[X]] {sizes = array<i64: 1, 3, 8, 10>, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : tensor<1x3x4x5xf32> -> tensor<1x3x8x10xf32>
// CHECK-NEXT:    [[L:%.*]] = ge.resize [[X]] {sizes = array<i64: 1, 3, 7, 9>, scales = array<f32: 1.000000e+00, 1.000000e+00, 1.750000e+00, 1.800000e+00>, mode = "linear", coordinate_transformation_mode = "align_corners"} : tensor<1x3x4x5xf32> -> tensor<1x3x7x9xf32>
// CHECK-NEXT:    ge.netoutput [[N]], [[L]]
ge.graph @resize {
  %x = ge.data {index = 0 : i64} : tensor<1x3x4x5xf32>
  %n = ge.resize %x {sizes = array<i64: 1, 3, 8, 10>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x5xf32> -> tensor<1x3x8x10xf32>
  %l = ge.resize %x {sizes = array<i64: 1, 3, 7, 9>, scales = array<f32: 1.0, 1.0, 1.75, 1.8>, mode = "linear", coordinate_transformation_mode = "align_corners"} : tensor<1x3x4x5xf32> -> tensor<1x3x7x9xf32>
  ge.netoutput %n, %l : tensor<1x3x8x10xf32>, tensor<1x3x7x9xf32>
}
