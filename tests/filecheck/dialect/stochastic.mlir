// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s

// Dropout with run-time ratio and training_mode: y like x, a bool mask.

// CHECK-LABEL: ge.graph @dropout
// CHECK:         [[Y:%.*]], [[M:%.*]] = ge.dropout {{.*}} : (tensor<3x17xf32>, tensor<f32>, tensor<i1>) -> (tensor<3x17xf32>, tensor<3x17xi1>)
// CHECK-NEXT:    ge.netoutput [[Y]], [[M]] :
ge.graph @dropout {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %r = ge.data {index = 1 : i64} : tensor<f32>
  %t = ge.data {index = 2 : i64} : tensor<i1>
  %y, %m = ge.dropout %x, %r, %t : (tensor<3x17xf32>, tensor<f32>, tensor<i1>) -> (tensor<3x17xf32>, tensor<3x17xi1>)
  ge.netoutput %y, %m : tensor<3x17xf32>, tensor<3x17xi1>
}
