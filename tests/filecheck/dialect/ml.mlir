// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// ONNX-ML's Binarizer: 1 where x > threshold, in x's type; the default
// threshold (0) is elided.

// CHECK-LABEL: ge.graph @binarizer
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x5xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.binarizer [[X]] {threshold = 5.000000e-01 : f32} : tensor<3x5xf32> -> tensor<3x5xf32>
// CHECK-NEXT:    [[Z:%.*]] = ge.binarizer [[X]] : tensor<3x5xf32> -> tensor<3x5xf32>
// CHECK-NEXT:    [[I:%.*]] = ge.data {index = 1 : i64} : tensor<7xi64>
// CHECK-NEXT:    [[C:%.*]] = ge.binarizer [[I]] {threshold = -1.500000e+00 : f32} : tensor<7xi64> -> tensor<7xi64>
// CHECK-NEXT:    ge.netoutput [[B]], [[Z]], [[C]] :
ge.graph @binarizer {
  %x = ge.data {index = 0 : i64} : tensor<3x5xf32>
  %b = ge.binarizer %x {threshold = 0.5 : f32} : tensor<3x5xf32> -> tensor<3x5xf32>
  %z = ge.binarizer %x {threshold = 0.0 : f32} : tensor<3x5xf32> -> tensor<3x5xf32>
  %i = ge.data {index = 1 : i64} : tensor<7xi64>
  %c = ge.binarizer %i {threshold = -1.5 : f32} : tensor<7xi64> -> tensor<7xi64>
  ge.netoutput %b, %z, %c : tensor<3x5xf32>, tensor<3x5xf32>, tensor<7xi64>
}
