// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// Ops whose result shape is an operand's value lower where that shape is
// concrete: the single-op kernel host scheduling compiles for the shape read
// at run time. The shape operand is not read; a range reads start and delta
// (one kernel serves every range of its length).

// CHECK-LABEL: func.func @range(
// CHECK-SAME:    %[[S:.*]]: memref<f32> {ge.input = 0 : i64}, %{{.*}}: memref<f32> {ge.input = 1 : i64}, %[[D:.*]]: memref<f32> {ge.input = 2 : i64})
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<7xf32>
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 7 {
// CHECK-NEXT:      %[[START:.*]] = affine.load %[[S]][] : memref<f32>
// CHECK-NEXT:      %[[DELTA:.*]] = affine.load %[[D]][] : memref<f32>
// CHECK-NEXT:      %[[P:.*]] = affine.apply affine_map<(d0) -> (d0)> (%[[I]])
// CHECK-NEXT:      %[[P64:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK-NEXT:      %[[PF:.*]] = arith.sitofp %[[P64]] : i64 to f32
// CHECK-NEXT:      %[[OFF:.*]] = arith.mulf %[[PF]], %[[DELTA]] : f32
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[START]], %[[OFF]] : f32
// CHECK-NEXT:      affine.store %[[V]], %[[Y]][%[[I]]] : memref<7xf32>
ge.graph @range {
  %s = ge.data {index = 0 : i64} : tensor<f32>
  %l = ge.data {index = 1 : i64} : tensor<f32>
  %d = ge.data {index = 2 : i64} : tensor<f32>
  %r = ge.range %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<7xf32>
  ge.netoutput %r : tensor<7xf32>
}

// -----

// CHECK-LABEL: func.func @fill(
// CHECK-SAME:    %{{.*}}: memref<2xi64> {ge.input = 0 : i64}, %[[V:.*]]: memref<1xi32> {ge.input = 1 : i64})
// CHECK:         affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 5 {
// CHECK-NEXT:        %[[E:.*]] = affine.load %[[V]][0] : memref<1xi32>
// CHECK-NEXT:        affine.store %[[E]], %{{.*}}[%[[I]], %[[J]]] : memref<3x5xi32>
ge.graph @fill {
  %s = ge.data {index = 0 : i64} : tensor<2xi64>
  %v = ge.data {index = 1 : i64} : tensor<1xi32>
  %f = ge.fill %s, %v : (tensor<2xi64>, tensor<1xi32>) -> tensor<3x5xi32>
  ge.netoutput %f : tensor<3x5xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to(
// CHECK:         affine.for %[[A:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[B:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.for %[[C:.*]] = 0 to 9 {
// CHECK-NEXT:          %[[E:.*]] = affine.load %{{.*}}[%[[B]], 0] : memref<3x1xf32>
// CHECK-NEXT:          affine.store %[[E]], %{{.*}}[%[[A]], %[[B]], %[[C]]] : memref<2x3x9xf32>
ge.graph @broadcast_to {
  %x = ge.data {index = 0 : i64} : tensor<3x1xf32>
  %s = ge.data {index = 1 : i64} : tensor<3xi64>
  %b = ge.broadcast_to %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x9xf32>
  ge.netoutput %b : tensor<2x3x9xf32>
}
