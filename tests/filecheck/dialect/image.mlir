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

// -----

// `ge.grid_sample` (ONNX GridSample): x [N, C, D1..Dr], grid [N, O1..Or, r];
// the default mode (linear), padding (zeros) and align_corners are elided.

// CHECK-LABEL: ge.graph @grid_sample
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<1x3x5x4xf32>
// CHECK-NEXT:    [[G:%.*]] = ge.data {index = 1 : i64} : tensor<1x2x3x2xf32>
// CHECK-NEXT:    [[L:%.*]] = ge.grid_sample [[X]], [[G]] : (tensor<1x3x5x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
// CHECK-NEXT:    [[C:%.*]] = ge.grid_sample [[X]], [[G]] {mode = "cubic", padding_mode = "reflection", align_corners = true} : (tensor<1x3x5x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
// CHECK-NEXT:    [[V:%.*]] = ge.data {index = 2 : i64} : tensor<1x3x4x5x6xf16>
// CHECK-NEXT:    [[VG:%.*]] = ge.data {index = 3 : i64} : tensor<1x2x3x4x3xf32>
// CHECK-NEXT:    [[N:%.*]] = ge.grid_sample [[V]], [[VG]] {mode = "nearest", padding_mode = "border"} : (tensor<1x3x4x5x6xf16>, tensor<1x2x3x4x3xf32>) -> tensor<1x3x2x3x4xf16>
// CHECK-NEXT:    ge.netoutput [[L]], [[C]], [[N]]
ge.graph @grid_sample {
  %x = ge.data {index = 0 : i64} : tensor<1x3x5x4xf32>
  %g = ge.data {index = 1 : i64} : tensor<1x2x3x2xf32>
  %l = ge.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x3x5x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  %c = ge.grid_sample %x, %g {mode = "cubic", padding_mode = "reflection", align_corners = true} : (tensor<1x3x5x4xf32>, tensor<1x2x3x2xf32>) -> tensor<1x3x2x3xf32>
  %v = ge.data {index = 2 : i64} : tensor<1x3x4x5x6xf16>
  %vg = ge.data {index = 3 : i64} : tensor<1x2x3x4x3xf32>
  %n = ge.grid_sample %v, %vg {mode = "nearest", padding_mode = "border"} : (tensor<1x3x4x5x6xf16>, tensor<1x2x3x4x3xf32>) -> tensor<1x3x2x3x4xf16>
  ge.netoutput %l, %c, %n : tensor<1x3x2x3xf32>, tensor<1x3x2x3xf32>, tensor<1x3x2x3x4xf16>
}

// -----

// `ge.roi_align` (ONNX RoiAlign): avg, half_pixel, sampling_ratio 0 and
// spatial_scale 1 are the defaults.

// CHECK-LABEL: ge.graph @roi_align
// CHECK:         [[Y:%.*]] = ge.roi_align %{{.*}}, %{{.*}}, %{{.*}} {output_height = 3 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, mode = "max", coordinate_transformation_mode = "output_half_pixel"} : (tensor<1x3x9x7xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x3x2xf32>
// CHECK-NEXT:    ge.netoutput [[Y]]
ge.graph @roi_align {
  %x = ge.data {index = 0 : i64} : tensor<1x3x9x7xf32>
  %r = ge.data {index = 1 : i64} : tensor<2x4xf32>
  %b = ge.data {index = 2 : i64} : tensor<2xi64>
  %y = ge.roi_align %x, %r, %b {output_height = 3 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, mode = "max", spatial_scale = 1.0 : f32, coordinate_transformation_mode = "output_half_pixel"} : (tensor<1x3x9x7xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x3x2xf32>
  ge.netoutput %y : tensor<2x3x3x2xf32>
}
