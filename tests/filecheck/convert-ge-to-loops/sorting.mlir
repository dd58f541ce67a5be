// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// TopK by ranks: rank[i] counts the j that come first (larger, NaN the
// largest, or equal with j < i); then values and positions are the
// maxima over i of what has rank p.

// CHECK-LABEL: func.func @top_k(
// CHECK-SAME:      %[[X:[^:]*]]: memref<17xf32> {ge.input = 0 : i64})
// CHECK:         %[[RANK:.*]] = memref.alloc() : memref<17xi64>
// CHECK:         affine.store %{{.*}}, %[[RANK]]
// CHECK:         affine.for %[[I:.*]] = 0 to 17 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 17 {
// CHECK-NEXT:        %[[A:.*]] = affine.load %[[X]][%[[J]]] : memref<17xf32>
// CHECK-NEXT:        %[[B:.*]] = affine.load %[[X]][%[[I]]] : memref<17xf32>
// CHECK-NEXT:        %[[AN:.*]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK-NEXT:        %[[BN:.*]] = arith.cmpf uno, %[[B]], %[[B]] : f32
// CHECK-NEXT:        %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK:             %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK:             affine.load %[[RANK]][%[[I]]] : memref<17xi64>
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        affine.store %{{.*}}, %[[RANK]][%[[I]]] : memref<17xi64>
// CHECK:             %[[R:.*]] = affine.load %[[RANK]][%{{.*}}] : memref<17xi64>
// CHECK-NEXT:        arith.cmpi eq, %[[R]], %{{.*}} : i64
// CHECK:             arith.maximumf
// CHECK:             arith.maxsi
// CHECK:         func.return %{{.*}}, %{{.*}} : memref<5xf32>, memref<5xi64>
ge.graph @top_k {
  %x = ge.data {index = 0 : i64} : tensor<17xf32>
  %v, %i = ge.top_k %x {k = 5 : i64} : tensor<17xf32> -> tensor<5xf32>, tensor<5xi64>
  ge.netoutput %v, %i : tensor<5xf32>, tensor<5xi64>
}

// -----

// Smallest integers: signed less-than; the minimum element's identity.

// CHECK-LABEL: func.func @top_k_smallest_int(
// CHECK:           arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NOT:       arith.cmpf
// CHECK:           arith.maxsi %{{.*}}, %{{.*}} : i32
ge.graph @top_k_smallest_int {
  %x = ge.data {index = 0 : i64} : tensor<3x5xi32>
  %v, %i = ge.top_k %x {k = 2 : i64, largest = false} : tensor<3x5xi32> -> tensor<3x2xi32>, tensor<3x2xi64>
  ge.netoutput %v, %i : tensor<3x2xi32>, tensor<3x2xi64>
}

// -----

// Compress with its result shape known (as the host compiles it): count
// the trues before each entry, find the k-th true (n if none: out of
// bounds), gather.

// CHECK-LABEL: func.func @compress(
// CHECK-SAME:      %[[X:[^:]*]]: memref<3x17xf32> {ge.input = 0 : i64}, %[[C:[^:]*]]: memref<17xi1> {ge.input = 1 : i64})
// CHECK:         %[[N:.*]] = arith.constant 17 : i64
// CHECK:         %[[COUNT:.*]] = memref.alloc() : memref<17xi64>
// CHECK:         %[[SRC:.*]] = memref.alloc() : memref<2xi64>
// CHECK:         affine.store %[[N]], %[[SRC]]
// CHECK:             arith.minsi
// CHECK:             %[[K:.*]] = affine.load %[[SRC]][%{{.*}}] : memref<2xi64>
// CHECK-NEXT:        %[[AT:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[X]][%{{.*}}, %[[AT]]] : memref<3x17xf32>
ge.graph @compress {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %c = ge.data {index = 1 : i64} : tensor<17xi1>
  %y = ge.compress %x, %c {axis = 1 : i64} : (tensor<3x17xf32>, tensor<17xi1>) -> tensor<3x2xf32>
  ge.netoutput %y : tensor<3x2xf32>
}

// -----

// Unique with its result shapes known (as the host compiles it): one
// reduction compares every pair of slices: the smallest 2 * t + (x_j[t] <
// x_i[t] ? 0 : 1) where they differ, 2 * 3 + 2 = 8 when equal.

// CHECK-LABEL: func.func @unique_rows(
// CHECK:         %[[SAME:.*]] = arith.constant 8 : i64
// CHECK:         %[[CODE:.*]] = memref.alloc() : memref<5x5xi64>
// CHECK:         affine.store %[[SAME]], %[[CODE]]
// CHECK:         affine.for %[[J:.*]] = 0 to 5 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 5 {
// CHECK-NEXT:        affine.for %[[T:.*]] = 0 to 3 {
// CHECK-NEXT:          %[[A:.*]] = affine.load %{{.*}}[%[[J]], %[[T]]] : memref<5x3xi32>
// CHECK-NEXT:          %[[B:.*]] = affine.load %{{.*}}[%[[I]], %[[T]]] : memref<5x3xi32>
// CHECK-NEXT:          arith.cmpi slt, %[[A]], %[[B]] : i32
// CHECK-NEXT:          arith.cmpi eq, %[[A]], %[[B]] : i32
// CHECK:               arith.minsi
// CHECK:         func.return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x3xi32>, memref<2xi64>, memref<5xi64>, memref<2xi64>
ge.graph @unique_rows {
  %x = ge.data {index = 0 : i64} : tensor<5x3xi32>
  %y, %i, %v, %c = ge.unique %x : tensor<5x3xi32> -> tensor<2x3xi32>, tensor<2xi64>, tensor<5xi64>, tensor<2xi64>
  ge.netoutput %y, %i, %v, %c : tensor<2x3xi32>, tensor<2xi64>, tensor<5xi64>, tensor<2xi64>
}
