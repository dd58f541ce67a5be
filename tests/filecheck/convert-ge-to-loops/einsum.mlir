// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// One nest over every label (output labels first): the product of the
// inputs at their labels accumulates into the result at the output labels.

// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME:      %[[A:[^:]*]]: memref<3x4x17xf32> {ge.input = 0 : i64}, %[[B:[^:]*]]: memref<3x17x5xf32> {ge.input = 1 : i64})
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<3x4x5xf32>
// CHECK:         affine.store %[[ZERO]], %[[Y]]
// CHECK:         affine.for %[[N:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:        affine.for %[[K:.*]] = 0 to 5 {
// CHECK-NEXT:          affine.for %[[J:.*]] = 0 to 17 {
// CHECK-NEXT:            %[[X:.*]] = affine.load %[[A]][%[[N]], %[[I]], %[[J]]] : memref<3x4x17xf32>
// CHECK-NEXT:            %[[W:.*]] = affine.load %[[B]][%[[N]], %[[J]], %[[K]]] : memref<3x17x5xf32>
// CHECK-NEXT:            %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT:            %[[S:.*]] = affine.load %[[Y]][%[[N]], %[[I]], %[[K]]] : memref<3x4x5xf32>
// CHECK-NEXT:            %[[T:.*]] = arith.addf %[[S]], %[[P]] : f32
// CHECK-NEXT:            affine.store %[[T]], %[[Y]][%[[N]], %[[I]], %[[K]]] : memref<3x4x5xf32>
ge.graph @batch_matmul {
  %a = ge.data {index = 0 : i64} : tensor<3x4x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<3x17x5xf32>
  %y = ge.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<3x4x17xf32>, tensor<3x17x5xf32>) -> tensor<3x4x5xf32>
  ge.netoutput %y : tensor<3x4x5xf32>
}

// -----

// A repeated letter reads the diagonal: one loop variable for both dims.

// CHECK-LABEL: func.func @diagonal(
// CHECK:         affine.store
// CHECK:         affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 5 {
// CHECK-NEXT:        %[[X:.*]] = affine.load %{{.*}}[%[[B]], %[[I]], %[[I]]] : memref<2x5x5xi32>
// CHECK-NEXT:        %[[S:.*]] = affine.load %{{.*}}[%[[B]], %[[I]]] : memref<2x5xi32>
// CHECK-NEXT:        arith.addi %[[S]], %[[X]] : i32
ge.graph @diagonal {
  %a = ge.data {index = 0 : i64} : tensor<2x5x5xi32>
  %y = ge.einsum %a {equation = "...ii->...i"} : (tensor<2x5x5xi32>) -> tensor<2x5xi32>
  ge.netoutput %y : tensor<2x5xi32>
}
