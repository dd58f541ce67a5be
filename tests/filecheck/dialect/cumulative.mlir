// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Running sums and products: the shape and dtype of x; defaults (axis 0,
// inclusive, forward) are elided.

// CHECK-LABEL: ge.graph @cumulative
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf32>
// CHECK-NEXT:    [[S:%.*]] = ge.cum_sum [[X]] : tensor<3x17xf32> -> tensor<3x17xf32>
// CHECK-NEXT:    [[R:%.*]] = ge.cum_sum [[X]] {axis = -1 : i64, exclusive = true, reverse = true} : tensor<3x17xf32> -> tensor<3x17xf32>
// CHECK-NEXT:    [[P:%.*]] = ge.cum_prod [[X]] {axis = 1 : i64, exclusive = true} : tensor<3x17xf32> -> tensor<3x17xf32>
// CHECK-NEXT:    ge.netoutput [[S]], [[R]], [[P]] :
ge.graph @cumulative {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %s = ge.cum_sum %x {axis = 0 : i64, exclusive = false} : tensor<3x17xf32> -> tensor<3x17xf32>
  %r = ge.cum_sum %x {axis = -1 : i64, exclusive = true, reverse = true} : tensor<3x17xf32> -> tensor<3x17xf32>
  %p = ge.cum_prod %x {axis = 1 : i64, exclusive = true} : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %s, %r, %p : tensor<3x17xf32>, tensor<3x17xf32>, tensor<3x17xf32>
}

// CHECK-LABEL: ge.graph @integer_cumulative
// CHECK:         ge.cum_prod %{{.*}} {reverse = true} : tensor<5xi64> -> tensor<5xi64>
ge.graph @integer_cumulative {
  %x = ge.data {index = 0 : i64} : tensor<5xi64>
  %p = ge.cum_prod %x {reverse = true} : tensor<5xi64> -> tensor<5xi64>
  ge.netoutput %p : tensor<5xi64>
}
