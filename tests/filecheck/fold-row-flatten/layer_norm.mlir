// RUN: ge-opt %s --split-input-file --fold-row-flatten | filecheck %s

// ONNX's LayerNormalization body: flatten to rows, normalise each row,
// scale by a [1, H] constant, reshape back. The flatten and the reshape go;
// the reductions reduce the last axis of [2, 11, 17].
// CHECK-LABEL: ge.graph @layer_norm_body
// CHECK-NEXT:    %x = ge.data
// CHECK-NEXT:    %m = ge.reduce_mean %x {axes = array<i64: 2>} : tensor<2x11x17xf32> -> tensor<2x11x1xf32>
// CHECK-NEXT:    %d = ge.sub %x, %m : (tensor<2x11x17xf32>, tensor<2x11x1xf32>) -> tensor<2x11x17xf32>
// CHECK-NEXT:    %sq = ge.mul %d, %d : (tensor<2x11x17xf32>, tensor<2x11x17xf32>) -> tensor<2x11x17xf32>
// CHECK-NEXT:    %v = ge.reduce_mean %sq {axes = array<i64: 2>} : tensor<2x11x17xf32> -> tensor<2x11x1xf32>
// CHECK-NEXT:    %e = ge.const
// CHECK-NEXT:    %ve = ge.add %v, %e : (tensor<2x11x1xf32>, tensor<f32>) -> tensor<2x11x1xf32>
// CHECK-NEXT:    %s = ge.sqrt %ve : tensor<2x11x1xf32> -> tensor<2x11x1xf32>
// CHECK-NEXT:    %n = ge.div %d, %s : (tensor<2x11x17xf32>, tensor<2x11x1xf32>) -> tensor<2x11x17xf32>
// CHECK-NEXT:    %g = ge.const
// CHECK-NEXT:    %y2 = ge.mul %n, %g : (tensor<2x11x17xf32>, tensor<1x17xf32>) -> tensor<2x11x17xf32>
// CHECK-NEXT:    ge.netoutput %y2 : tensor<2x11x17xf32>
ge.graph @layer_norm_body {
  %x = ge.data {index = 0 : i64} : tensor<2x11x17xf32>
  %r = ge.flatten %x {axis = 2 : i64} : tensor<2x11x17xf32> -> tensor<22x17xf32>
  %m = ge.reduce_mean %r {axes = array<i64: 1>} : tensor<22x17xf32> -> tensor<22x1xf32>
  %d = ge.sub %r, %m : (tensor<22x17xf32>, tensor<22x1xf32>) -> tensor<22x17xf32>
  %sq = ge.mul %d, %d : (tensor<22x17xf32>, tensor<22x17xf32>) -> tensor<22x17xf32>
  %v = ge.reduce_mean %sq {axes = array<i64: -1>} : tensor<22x17xf32> -> tensor<22x1xf32>
  %e = ge.const {value = dense<1.0e-05> : tensor<f32>} : tensor<f32>
  %ve = ge.add %v, %e : (tensor<22x1xf32>, tensor<f32>) -> tensor<22x1xf32>
  %s = ge.sqrt %ve : tensor<22x1xf32> -> tensor<22x1xf32>
  %n = ge.div %d, %s : (tensor<22x17xf32>, tensor<22x1xf32>) -> tensor<22x17xf32>
  %g = ge.const {value = dense<1.5> : tensor<1x17xf32>} : tensor<1x17xf32>
  %y2 = ge.mul %n, %g : (tensor<22x17xf32>, tensor<1x17xf32>) -> tensor<22x17xf32>
  %y = ge.reshape %y2 {shape = array<i64: 2, 11, 17>} : tensor<22x17xf32> -> tensor<2x11x17xf32>
  ge.netoutput %y : tensor<2x11x17xf32>
}

// -----

// A row value also leaves the region (the mean is an output): no change.
// CHECK-LABEL: ge.graph @no_fold_row_value_escapes
// CHECK:         ge.flatten
// CHECK:         ge.reshape
ge.graph @no_fold_row_value_escapes {
  %x = ge.data {index = 0 : i64} : tensor<2x3x5xf32>
  %r = ge.flatten %x {axis = 2 : i64} : tensor<2x3x5xf32> -> tensor<6x5xf32>
  %m = ge.reduce_mean %r {axes = array<i64: 1>} : tensor<6x5xf32> -> tensor<6x1xf32>
  %d = ge.sub %r, %m : (tensor<6x5xf32>, tensor<6x1xf32>) -> tensor<6x5xf32>
  %y = ge.reshape %d {shape = array<i64: 2, 3, 5>} : tensor<6x5xf32> -> tensor<2x3x5xf32>
  ge.netoutput %y, %m : tensor<2x3x5xf32>, tensor<6x1xf32>
}

// -----

// A reduction across rows (axis 0) mixes rows: no change.
// CHECK-LABEL: ge.graph @no_fold_reduction_across_rows
// CHECK:         ge.flatten
ge.graph @no_fold_reduction_across_rows {
  %x = ge.data {index = 0 : i64} : tensor<2x3x5xf32>
  %r = ge.flatten %x {axis = 2 : i64} : tensor<2x3x5xf32> -> tensor<6x5xf32>
  %m = ge.reduce_mean %r {axes = array<i64: 0>} : tensor<6x5xf32> -> tensor<1x5xf32>
  %d = ge.sub %r, %m : (tensor<6x5xf32>, tensor<1x5xf32>) -> tensor<6x5xf32>
  %y = ge.reshape %d {shape = array<i64: 2, 3, 5>} : tensor<6x5xf32> -> tensor<2x3x5xf32>
  ge.netoutput %y : tensor<2x3x5xf32>
}

// -----

// A [rows, H] operand from outside the region: no change.
// CHECK-LABEL: ge.graph @no_fold_outside_rows
// CHECK:         ge.flatten
ge.graph @no_fold_outside_rows {
  %x = ge.data {index = 0 : i64} : tensor<2x3x5xf32>
  %z = ge.data {index = 1 : i64} : tensor<6x5xf32>
  %r = ge.flatten %x {axis = 2 : i64} : tensor<2x3x5xf32> -> tensor<6x5xf32>
  %d = ge.add %r, %z : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %y = ge.reshape %d {shape = array<i64: 2, 3, 5>} : tensor<6x5xf32> -> tensor<2x3x5xf32>
  ge.netoutput %y : tensor<2x3x5xf32>
}
