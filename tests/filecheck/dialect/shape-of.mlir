// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s

// `ge.shape` (ONNX Shape, optionally from `start` to `end`) and `ge.size`.

// CHECK-LABEL: ge.graph @shape_and_size
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<?x11x64xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.shape [[X]] : (tensor<?x11x64xf32>) -> tensor<3xi64>
// CHECK-NEXT:    [[T:%.*]] = ge.shape [[X]] {start = 1 : i64} : (tensor<?x11x64xf32>) -> tensor<2xi64>
// CHECK-NEXT:    [[N:%.*]] = ge.size [[X]] : (tensor<?x11x64xf32>) -> tensor<i64>
// CHECK-NEXT:    ge.netoutput [[S]], [[T]], [[N]]
ge.graph @shape_and_size {
  %x = ge.data {index = 0 : i64} : tensor<?x11x64xf32>
  %s = ge.shape %x : (tensor<?x11x64xf32>) -> tensor<3xi64>
  %t = ge.shape %x {start = 1 : i64} : (tensor<?x11x64xf32>) -> tensor<2xi64>
  %n = ge.size %x : (tensor<?x11x64xf32>) -> tensor<i64>
  ge.netoutput %s, %t, %n : tensor<3xi64>, tensor<2xi64>, tensor<i64>
}
