// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Einsum: the equation as written; the result shape follows from it.

// CHECK-LABEL: ge.graph @einsum
// CHECK:         [[A:%.*]] = ge.data {index = 0 : i64} : tensor<3x4x17xf32>
// CHECK-NEXT:    [[B:%.*]] = ge.data {index = 1 : i64} : tensor<3x17x5xf32>
// CHECK-NEXT:    [[M:%.*]] = ge.einsum [[A]], [[B]] {equation = "bij, bjk -> bik"} : (tensor<3x4x17xf32>, tensor<3x17x5xf32>) -> tensor<3x4x5xf32>
// CHECK-NEXT:    [[C:%.*]] = ge.data {index = 2 : i64} : tensor<3x5x5xf32>
// CHECK-NEXT:    [[D:%.*]] = ge.einsum [[C]] {equation = "...ii->...i"} : (tensor<3x5x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    ge.netoutput [[M]], [[D]] :
ge.graph @einsum {
  %a = ge.data {index = 0 : i64} : tensor<3x4x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<3x17x5xf32>
  %m = ge.einsum %a, %b {equation = "bij, bjk -> bik"} : (tensor<3x4x17xf32>, tensor<3x17x5xf32>) -> tensor<3x4x5xf32>
  %c = ge.data {index = 2 : i64} : tensor<3x5x5xf32>
  %d = ge.einsum %c {equation = "...ii->...i"} : (tensor<3x5x5xf32>) -> tensor<3x5xf32>
  ge.netoutput %m, %d : tensor<3x4x5xf32>, tensor<3x5xf32>
}
