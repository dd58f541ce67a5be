// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Scatters keep data's shape and dtype; reduction "none" and axis 0 are the
// defaults (elided).

// CHECK-LABEL: ge.graph @scatter
// CHECK:         [[D:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf32>
// CHECK-NEXT:    [[I:%.*]] = ge.data {index = 1 : i64} : tensor<3x5xi64>
// CHECK-NEXT:    [[U:%.*]] = ge.data {index = 2 : i64} : tensor<3x5xf32>
// CHECK-NEXT:    [[E:%.*]] = ge.scatter_elements [[D]], [[I]], [[U]] {axis = 1 : i64} : (tensor<3x17xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<3x17xf32>
// CHECK-NEXT:    [[M:%.*]] = ge.scatter_elements [[D]], [[I]], [[U]] {axis = -1 : i64, reduction = "max"} : (tensor<3x17xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<3x17xf32>
// CHECK-NEXT:    [[T:%.*]] = ge.data {index = 3 : i64} : tensor<2x1xi32>
// CHECK-NEXT:    [[V:%.*]] = ge.data {index = 4 : i64} : tensor<2x17xf32>
// CHECK-NEXT:    [[N:%.*]] = ge.scatter_nd [[D]], [[T]], [[V]] {reduction = "add"} : (tensor<3x17xf32>, tensor<2x1xi32>, tensor<2x17xf32>) -> tensor<3x17xf32>
// CHECK-NEXT:    ge.netoutput [[E]], [[M]], [[N]] :
ge.graph @scatter {
  %d = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x5xi64>
  %u = ge.data {index = 2 : i64} : tensor<3x5xf32>
  %e = ge.scatter_elements %d, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<3x17xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<3x17xf32>
  %m = ge.scatter_elements %d, %i, %u {axis = -1 : i64, reduction = "max"} : (tensor<3x17xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<3x17xf32>
  %t = ge.data {index = 3 : i64} : tensor<2x1xi32>
  %v = ge.data {index = 4 : i64} : tensor<2x17xf32>
  %n = ge.scatter_nd %d, %t, %v {reduction = "add"} : (tensor<3x17xf32>, tensor<2x1xi32>, tensor<2x17xf32>) -> tensor<3x17xf32>
  ge.netoutput %e, %m, %n : tensor<3x17xf32>, tensor<3x17xf32>, tensor<3x17xf32>
}

// OneHot: the new dim of `depth` at `axis` (default -1); values' dtype.

// CHECK-LABEL: ge.graph @one_hot
// CHECK:         [[I:%.*]] = ge.data {index = 0 : i64} : tensor<3x5xi64>
// CHECK-NEXT:    [[V:%.*]] = ge.data {index = 1 : i64} : tensor<2xf16>
// CHECK-NEXT:    [[L:%.*]] = ge.one_hot [[I]], [[V]] {depth = 17 : i64} : (tensor<3x5xi64>, tensor<2xf16>) -> tensor<3x5x17xf16>
// CHECK-NEXT:    [[F:%.*]] = ge.one_hot [[I]], [[V]] {depth = 4 : i64, axis = 0 : i64} : (tensor<3x5xi64>, tensor<2xf16>) -> tensor<4x3x5xf16>
// CHECK-NEXT:    ge.netoutput [[L]], [[F]] :
ge.graph @one_hot {
  %i = ge.data {index = 0 : i64} : tensor<3x5xi64>
  %v = ge.data {index = 1 : i64} : tensor<2xf16>
  %l = ge.one_hot %i, %v {depth = 17 : i64, axis = -1 : i64} : (tensor<3x5xi64>, tensor<2xf16>) -> tensor<3x5x17xf16>
  %f = ge.one_hot %i, %v {depth = 4 : i64, axis = 0 : i64} : (tensor<3x5xi64>, tensor<2xf16>) -> tensor<4x3x5xf16>
  ge.netoutput %l, %f : tensor<3x5x17xf16>, tensor<4x3x5xf16>
}
