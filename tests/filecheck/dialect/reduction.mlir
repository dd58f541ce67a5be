// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Softmax family and reductions.

// CHECK-LABEL: ge.graph @softmax_reduce
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.softmax [[X]] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    [[S1:%.*]] = ge.softmax [[X]] {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    [[L:%.*]] = ge.log_softmax [[X]] {axis = -3 : i64} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.reduce_sum [[X]] {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK-NEXT:    [[M:%.*]] = ge.reduce_mean [[X]] {axes = array<i64: 0, -1>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[MX:%.*]] = ge.reduce_max [[X]] : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
// CHECK-NEXT:    [[ALL:%.*]] = ge.reduce_sum [[X]] {keep_dims = false} : tensor<2x3x4xf32> -> tensor<f32>
// CHECK-NEXT:    [[MN:%.*]] = ge.reduce_min [[X]] {axes = array<i64: -1>} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT:    [[P:%.*]] = ge.reduce_prod [[X]] {axes = array<i64: 0>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    ge.netoutput [[S]], [[S1]], [[L]], [[R]], [[M]], [[MX]], [[ALL]], [[MN]], [[P]] :
ge.graph @softmax_reduce {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4xf32>
  %s = ge.softmax %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %s1 = ge.softmax %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %l = ge.log_softmax %x {axis = -3 : i64} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %r = ge.reduce_sum %x {axes = array<i64: 1>, keep_dims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %m = ge.reduce_mean %x {axes = array<i64: 0, -1>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
  %mx = ge.reduce_max %x : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %all = ge.reduce_sum %x {axes = array<i64>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<f32>
  %mn = ge.reduce_min %x {axes = array<i64: -1>} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %p = ge.reduce_prod %x {axes = array<i64: 0>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<3x4xf32>
  ge.netoutput %s, %s1, %l, %r, %m, %mx, %all, %mn, %p : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<3xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x3x1xf32>, tensor<3x4xf32>
}

// ArgMax / ArgMin: int64 indices; the axis kept as 1 or dropped.

// CHECK-LABEL: ge.graph @arg_reduce
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17x5xf16>
// CHECK-NEXT:    [[A:%.*]] = ge.arg_max [[X]] : tensor<3x17x5xf16> -> tensor<1x17x5xi64>
// CHECK-NEXT:    [[B:%.*]] = ge.arg_min [[X]] {axis = -1 : i64, keep_dims = false, select_last_index = true} : tensor<3x17x5xf16> -> tensor<3x17xi64>
// CHECK-NEXT:    ge.netoutput [[A]], [[B]] :
ge.graph @arg_reduce {
  %x = ge.data {index = 0 : i64} : tensor<3x17x5xf16>
  %a = ge.arg_max %x : tensor<3x17x5xf16> -> tensor<1x17x5xi64>
  %b = ge.arg_min %x {axis = -1 : i64, keep_dims = false, select_last_index = true} : tensor<3x17x5xf16> -> tensor<3x17xi64>
  ge.netoutput %a, %b : tensor<1x17x5xi64>, tensor<3x17xi64>
}

// -----

// `ge.lp_norm` (ONNX LpNormalization): p = 2 is the default and is elided.

// CHECK-LABEL: ge.graph @lp_norm
// CHECK-NEXT:    [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf32>
// CHECK-NEXT:    [[L1:%.*]] = ge.lp_norm [[X]] {axis = 0 : i64, p = 1 : i64} : tensor<3x17xf32> -> tensor<3x17xf32>
// CHECK-NEXT:    [[L2:%.*]] = ge.lp_norm [[X]] : tensor<3x17xf32> -> tensor<3x17xf32>
// CHECK-NEXT:    ge.netoutput [[L1]], [[L2]]
ge.graph @lp_norm {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %a = ge.lp_norm %x {axis = 0 : i64, p = 1 : i64} : tensor<3x17xf32> -> tensor<3x17xf32>
  %b = ge.lp_norm %x {axis = -1 : i64, p = 2 : i64} : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %a, %b : tensor<3x17xf32>, tensor<3x17xf32>
}
