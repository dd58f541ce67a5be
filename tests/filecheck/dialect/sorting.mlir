// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// TopK: values in x's dtype and int64 positions, k along the axis; the
// defaults (last axis, largest, sorted) are elided.

// CHECK-LABEL: ge.graph @top_k
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf16>
// CHECK-NEXT:    [[V:%.*]], [[I:%.*]] = ge.top_k [[X]] {k = 5 : i64} : tensor<3x17xf16> -> tensor<3x5xf16>, tensor<3x5xi64>
// CHECK-NEXT:    [[S:%.*]], [[J:%.*]] = ge.top_k [[X]] {k = 2 : i64, axis = 0 : i64, largest = false} : tensor<3x17xf16> -> tensor<2x17xf16>, tensor<2x17xi64>
// CHECK-NEXT:    ge.netoutput [[V]], [[I]], [[S]], [[J]] :
ge.graph @top_k {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf16>
  %v, %i = ge.top_k %x {k = 5 : i64, axis = -1 : i64, sorted = true} : tensor<3x17xf16> -> tensor<3x5xf16>, tensor<3x5xi64>
  %s, %j = ge.top_k %x {k = 2 : i64, axis = 0 : i64, largest = false} : tensor<3x17xf16> -> tensor<2x17xf16>, tensor<2x17xi64>
  ge.netoutput %v, %i, %s, %j : tensor<3x5xf16>, tensor<3x5xi64>, tensor<2x17xf16>, tensor<2x17xi64>
}

// Compress: the dim along `axis` is the count of trues, dynamic until the
// condition is known.

// CHECK-LABEL: ge.graph @compress
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf32>
// CHECK-NEXT:    [[C:%.*]] = ge.data {index = 1 : i64} : tensor<17xi1>
// CHECK-NEXT:    [[Y:%.*]] = ge.compress [[X]], [[C]] {axis = 1 : i64} : (tensor<3x17xf32>, tensor<17xi1>) -> tensor<3x?xf32>
// CHECK-NEXT:    ge.netoutput [[Y]] :
ge.graph @compress {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %c = ge.data {index = 1 : i64} : tensor<17xi1>
  %y = ge.compress %x, %c {axis = 1 : i64} : (tensor<3x17xf32>, tensor<17xi1>) -> tensor<3x?xf32>
  ge.netoutput %y : tensor<3x?xf32>
}

// Unique: y, first indices and counts are as long as the distinct slices
// (dynamic); inverse as long as the axis.

// CHECK-LABEL: ge.graph @unique
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<17xf32>
// CHECK-NEXT:    [[Y:%.*]], [[I:%.*]], [[V:%.*]], [[C:%.*]] = ge.unique [[X]] {sorted = false} : tensor<17xf32> -> tensor<?xf32>, tensor<?xi64>, tensor<17xi64>, tensor<?xi64>
// CHECK-NEXT:    ge.netoutput [[Y]], [[I]], [[V]], [[C]] :
ge.graph @unique {
  %x = ge.data {index = 0 : i64} : tensor<17xf32>
  %y, %i, %v, %c = ge.unique %x {axis = 0 : i64, sorted = false} : tensor<17xf32> -> tensor<?xf32>, tensor<?xi64>, tensor<17xi64>, tensor<?xi64>
  ge.netoutput %y, %i, %v, %c : tensor<?xf32>, tensor<?xi64>, tensor<17xi64>, tensor<?xi64>
}

// NonZero: [rank, count], the count dynamic until x is known.

// CHECK-LABEL: ge.graph @non_zero
// CHECK:         [[X:%.*]] = ge.data {index = 0 : i64} : tensor<3x17xf32>
// CHECK-NEXT:    [[Y:%.*]] = ge.non_zero [[X]] : tensor<3x17xf32> -> tensor<2x?xi64>
// CHECK-NEXT:    ge.netoutput [[Y]] :
ge.graph @non_zero {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %y = ge.non_zero %x : tensor<3x17xf32> -> tensor<2x?xi64>
  ge.netoutput %y : tensor<2x?xi64>
}
