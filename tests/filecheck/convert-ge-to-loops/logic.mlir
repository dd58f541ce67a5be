// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// Comparisons, select and mod lower through their scalar bodies: no code of
// their own. A bool result is an i1 memref; integer predicates follow the
// operands' signedness.

// CHECK-LABEL: func.func @less_select(
// CHECK-SAME:      %[[A:.*]]: memref<3x17xf32> {ge.input = 0 : i64}, %[[B:.*]]: memref<17xf32> {ge.input = 1 : i64})
// CHECK:         %[[M:.*]] = memref.alloc() : memref<3x17xi1>
// CHECK:             %[[X:.*]] = affine.load %[[A]][%[[I:.*]], %[[J:.*]]] : memref<3x17xf32>
// CHECK-NEXT:        %[[Y:.*]] = affine.load %[[B]][%[[J]]] : memref<17xf32>
// CHECK-NEXT:        %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK-NEXT:        affine.store %[[LT]], %[[M]][%[[I]], %[[J]]] : memref<3x17xi1>
// CHECK:             %[[C:.*]] = affine.load %[[M]][%[[I2:.*]], %[[J2:.*]]] : memref<3x17xi1>
// CHECK-NEXT:        %[[X2:.*]] = affine.load %[[A]][%[[I2]], %[[J2]]] : memref<3x17xf32>
// CHECK-NEXT:        %[[Y2:.*]] = affine.load %[[B]][%[[J2]]] : memref<17xf32>
// CHECK-NEXT:        arith.select %[[C]], %[[X2]], %[[Y2]] : f32
ge.graph @less_select {
  %a = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %b = ge.data {index = 1 : i64} : tensor<17xf32>
  %lt = ge.less %a, %b : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xi1>
  %sel = ge.select %lt, %a, %b : (tensor<3x17xi1>, tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  ge.netoutput %sel : tensor<3x17xf32>
}

// -----

// CHECK-LABEL: func.func @unsigned_less(
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK-NOT:     arith.cmpi slt
ge.graph @unsigned_less {
  %a = ge.data {index = 0 : i64} : tensor<5xui8>
  %b = ge.data {index = 1 : i64} : tensor<5xui8>
  %lt = ge.less %a, %b : (tensor<5xui8>, tensor<5xui8>) -> tensor<5xi1>
  ge.netoutput %lt : tensor<5xi1>
}

// -----

// Integer mod takes the divisor's sign: the truncated remainder, plus the
// divisor where the signs differ.

// CHECK-LABEL: func.func @int_mod(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:           %[[X:.*]] = affine.load
// CHECK-NEXT:      %[[Y:.*]] = affine.load
// CHECK-NEXT:      %[[R:.*]] = arith.remsi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      %[[NZ:.*]] = arith.cmpi ne, %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[RN:.*]] = arith.cmpi slt, %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[YN:.*]] = arith.cmpi slt, %[[Y]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[DIFF:.*]] = arith.xori %[[RN]], %[[YN]] : i1
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %[[R]], %[[Y]] : i32
// CHECK-NEXT:      %[[FIX:.*]] = arith.andi %[[NZ]], %[[DIFF]] : i1
// CHECK-NEXT:      arith.select %[[FIX]], %[[SUM]], %[[R]] : i32
ge.graph @int_mod {
  %a = ge.data {index = 0 : i64} : tensor<5xi32>
  %b = ge.data {index = 1 : i64} : tensor<5xi32>
  %m = ge.mod %a, %b : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  ge.netoutput %m : tensor<5xi32>
}

// -----

// CHECK-LABEL: func.func @float_fmod(
// CHECK:         arith.remf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.select
ge.graph @float_fmod {
  %a = ge.data {index = 0 : i64} : tensor<5xf32>
  %b = ge.data {index = 1 : i64} : tensor<5xf32>
  %m = ge.mod %a, %b {fmod = 1 : i64} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  ge.netoutput %m : tensor<5xf32>
}
