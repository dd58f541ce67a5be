// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// NonMaxSuppression: [S, 3] int64 triples, S dynamic until the scores are
// known; the defaults (corner boxes, scores filtered) are elided.

// CHECK-LABEL: ge.graph @non_max_suppression
// CHECK:         [[Y:%.*]] = ge.non_max_suppression {{.*}} : (tensor<2x17x4xf32>, tensor<2x3x17xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32>) -> tensor<?x3xi64>
// CHECK-NEXT:    [[Z:%.*]] = ge.non_max_suppression {{.*}} {center_point_box = 1 : i64, score_filtered = false} : (tensor<2x17x4xf32>, tensor<2x3x17xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32>) -> tensor<?x3xi64>
// CHECK-NEXT:    ge.netoutput [[Y]], [[Z]] :
ge.graph @non_max_suppression {
  %boxes = ge.data {index = 0 : i64} : tensor<2x17x4xf32>
  %scores = ge.data {index = 1 : i64} : tensor<2x3x17xf32>
  %max = ge.data {index = 2 : i64} : tensor<1xi64>
  %iou = ge.data {index = 3 : i64} : tensor<1xf32>
  %floor = ge.data {index = 4 : i64} : tensor<f32>
  %y = ge.non_max_suppression %boxes, %scores, %max, %iou, %floor {center_point_box = 0 : i64, score_filtered = true} : (tensor<2x17x4xf32>, tensor<2x3x17xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32>) -> tensor<?x3xi64>
  %z = ge.non_max_suppression %boxes, %scores, %max, %iou, %floor {center_point_box = 1 : i64, score_filtered = false} : (tensor<2x17x4xf32>, tensor<2x3x17xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32>) -> tensor<?x3xi64>
  ge.netoutput %y, %z : tensor<?x3xi64>, tensor<?x3xi64>
}
