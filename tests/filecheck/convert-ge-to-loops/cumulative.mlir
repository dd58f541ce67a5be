// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// A running sum is one reduction nest over x's shape and the summed
// position j: y[i] accumulates x[j] where j <= i (no loop-carried
// dependence), the other positions adding the identity. A float32 result
// is its own accumulator.

// CHECK-LABEL: func.func @cum_sum(
// CHECK-SAME:      %[[X:.*]]: memref<3x17xf32> {ge.input = 0 : i64})
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<3x17xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         affine.store %[[ZERO]], %[[ACC]]
// CHECK:         affine.for %[[R:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 17 {
// CHECK-NEXT:        affine.for %[[J:.*]] = 0 to 17 {
// CHECK-NEXT:          %[[JV:.*]] = affine.apply affine_map<(d0) -> (d0)> (%[[J]])
// CHECK-NEXT:          %[[IV:.*]] = affine.apply affine_map<(d0) -> (d0)> (%[[I]])
// CHECK-NEXT:          %[[IN:.*]] = arith.cmpi sle, %[[JV]], %[[IV]] : index
// CHECK-NEXT:          %[[V:.*]] = affine.load %[[X]][%[[R]], %[[J]]] : memref<3x17xf32>
// CHECK-NEXT:          %[[T:.*]] = arith.select %[[IN]], %[[V]], %[[ZERO]] : f32
// CHECK-NEXT:          %[[A:.*]] = affine.load %[[ACC]][%[[R]], %[[I]]] : memref<3x17xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[A]], %[[T]] : f32
// CHECK-NEXT:          affine.store %[[S]], %[[ACC]][%[[R]], %[[I]]] : memref<3x17xf32>
// CHECK:         return %[[ACC]] : memref<3x17xf32>
ge.graph @cum_sum {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %y = ge.cum_sum %x {axis = 1 : i64} : tensor<3x17xf32> -> tensor<3x17xf32>
  ge.netoutput %y : tensor<3x17xf32>
}

// -----

// Exclusive and reversed: j > i. An integer product multiplies in its own
// type from 1.

// CHECK-LABEL: func.func @cum_prod_exclusive_reverse(
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:           arith.cmpi sgt, %{{.*}}, %{{.*}} : index
// CHECK:           %[[T:.*]] = arith.select %{{.*}}, %{{.*}}, %[[ONE]] : i32
// CHECK:           arith.muli %{{.*}}, %[[T]] : i32
// CHECK-NOT:     arith.mulf
ge.graph @cum_prod_exclusive_reverse {
  %x = ge.data {index = 0 : i64} : tensor<5x3xi32>
  %y = ge.cum_prod %x {exclusive = true, reverse = true} : tensor<5x3xi32> -> tensor<5x3xi32>
  ge.netoutput %y : tensor<5x3xi32>
}

// -----

// float16 accumulates in float32: extended on load, truncated on store.

// CHECK-LABEL: func.func @cum_sum_f16(
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<4xf32>
// CHECK:           %[[V:.*]] = affine.load %{{.*}} : memref<4xf16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK:         arith.truncf %{{.*}} : f32 to f16
ge.graph @cum_sum_f16 {
  %x = ge.data {index = 0 : i64} : tensor<4xf16>
  %y = ge.cum_sum %x {exclusive = true} : tensor<4xf16> -> tensor<4xf16>
  ge.netoutput %y : tensor<4xf16>
}
