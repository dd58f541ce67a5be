// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid NonMaxSuppression.

ge.graph @boxes_disagree {
  %b = ge.data {index = 0 : i64} : tensor<1x5x4xf32>
  %s = ge.data {index = 1 : i64} : tensor<1x2x6xf32>
  %m = ge.data {index = 2 : i64} : tensor<1xi64>
  %t = ge.data {index = 3 : i64} : tensor<1xf32>
  // CHECK: {{.*}}invalid-detection.mlir:[[# @LINE + 1]]:3: error: 'ge.non_max_suppression' op boxes and scores disagree on the boxes: 5 and 6
  %y = ge.non_max_suppression %b, %s, %m, %t, %t : (tensor<1x5x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  ge.netoutput
}

// -----

ge.graph @not_four_coordinates {
  %b = ge.data {index = 0 : i64} : tensor<1x5x3xf32>
  %s = ge.data {index = 1 : i64} : tensor<1x2x5xf32>
  %m = ge.data {index = 2 : i64} : tensor<1xi64>
  %t = ge.data {index = 3 : i64} : tensor<1xf32>
  // CHECK: {{.*}}invalid-detection.mlir:[[# @LINE + 1]]:3: error: 'ge.non_max_suppression' op boxes must be [batches, boxes, 4], got [1, 5, 3]
  %y = ge.non_max_suppression %b, %s, %m, %t, %t : (tensor<1x5x3xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  ge.netoutput
}

// -----

ge.graph @two_limits {
  %b = ge.data {index = 0 : i64} : tensor<1x5x4xf32>
  %s = ge.data {index = 1 : i64} : tensor<1x2x5xf32>
  %m = ge.data {index = 2 : i64} : tensor<2xi64>
  %t = ge.data {index = 3 : i64} : tensor<1xf32>
  // CHECK: {{.*}}invalid-detection.mlir:[[# @LINE + 1]]:3: error: 'ge.non_max_suppression' op max_output_boxes_per_class and the thresholds hold one element
  %y = ge.non_max_suppression %b, %s, %m, %t, %t : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<2xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  ge.netoutput
}
