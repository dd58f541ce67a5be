// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// A scatter copies data into the result, then per update loads its index
// (checked to lie in [-size, size) as a gather's, made non-negative), the
// value there, combines and stores back through memref.load / memref.store.

// CHECK-LABEL: func.func @scatter_elements_add(
// CHECK-SAME:      %[[D:[^:]*]]: memref<3x17xf32> {ge.input = 0 : i64}, %[[I:[^:]*]]: memref<3x5xi64> {ge.input = 1 : i64}, %[[U:[^:]*]]: memref<3x5xf32> {ge.input = 2 : i64})
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<3x17xf32>
// CHECK:             %[[C:.*]] = affine.load %[[D]][%{{.*}}, %{{.*}}] : memref<3x17xf32>
// CHECK-NEXT:        affine.store %[[C]], %[[Y]][%{{.*}}, %{{.*}}] : memref<3x17xf32>
// CHECK:         affine.for %[[R:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[K:.*]] = 0 to 5 {
// CHECK-NEXT:        %[[RAW:.*]] = affine.load %[[I]][%[[R]], %[[K]]] : memref<3x5xi64>
// CHECK-NEXT:        %[[RV:.*]] = affine.apply affine_map<(d0) -> (d0)> (%[[R]])
// CHECK-NEXT:        %{{.*}} = affine.apply affine_map<(d0) -> (d0)> (%[[K]])
// CHECK-NEXT:        %[[P:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:        %[[W:.*]] = arith.addi %[[P]], %{{.*}} : index
// CHECK-NEXT:        %[[GE:.*]] = arith.cmpi sge, %[[P]], %{{.*}} : index
// CHECK-NEXT:        %[[LT:.*]] = arith.cmpi slt, %[[P]], %{{.*}} : index
// CHECK-NEXT:        %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:        cf.assert %[[OK]], "{{.*}}scatter.mlir:[[# @LINE + 11]]:3: error: 'ge.scatter_elements' op index out of range [-17, 16] on axis 1"
// CHECK-NEXT:        %[[NEG:.*]] = arith.cmpi slt, %[[P]], %{{.*}} : index
// CHECK-NEXT:        %[[AT:.*]] = arith.select %[[NEG]], %[[W]], %[[P]] : index
// CHECK-NEXT:        %[[UP:.*]] = affine.load %[[U]][%[[R]], %[[K]]] : memref<3x5xf32>
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[Y]][%[[RV]], %[[AT]]] : memref<3x17xf32>
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[OLD]], %[[UP]] : f32
// CHECK-NEXT:        memref.store %[[NEW]], %[[Y]][%[[RV]], %[[AT]]] : memref<3x17xf32>
ge.graph @scatter_elements_add {
  %d = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x5xi64>
  %u = ge.data {index = 2 : i64} : tensor<3x5xf32>
  %y = ge.scatter_elements %d, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x17xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<3x17xf32>
  ge.netoutput %y : tensor<3x17xf32>
}

// -----

// ScatterND over index pairs: two loaded entries pick the row; "none"
// stores the update without reading the old value; signed integer max.

// CHECK-LABEL: func.func @scatter_nd_none(
// CHECK:           %[[A:.*]] = affine.load %{{.*}}[%[[N:.*]], 0] : memref<2x2xi32>
// CHECK:           %[[B:.*]] = affine.load %{{.*}}[%[[N]], 1] : memref<2x2xi32>
// CHECK:           %[[UP:.*]] = affine.load %{{.*}}[%[[N]], %[[T:.*]]] : memref<2x5xi32>
// CHECK-NOT:       memref.load
// CHECK-NEXT:      memref.store %[[UP]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x3x5xi32>
// CHECK-LABEL: func.func @scatter_nd_max(
// CHECK:           arith.maxsi
ge.graph @scatter_nd_none {
  %d = ge.data {index = 0 : i64} : tensor<4x3x5xi32>
  %i = ge.data {index = 1 : i64} : tensor<2x2xi32>
  %u = ge.data {index = 2 : i64} : tensor<2x5xi32>
  %y = ge.scatter_nd %d, %i, %u : (tensor<4x3x5xi32>, tensor<2x2xi32>, tensor<2x5xi32>) -> tensor<4x3x5xi32>
  ge.netoutput %y : tensor<4x3x5xi32>
}

// -----

ge.graph @scatter_nd_max {
  %d = ge.data {index = 0 : i64} : tensor<4x3x5xi32>
  %i = ge.data {index = 1 : i64} : tensor<2x2xi32>
  %u = ge.data {index = 2 : i64} : tensor<2x5xi32>
  %y = ge.scatter_nd %d, %i, %u {reduction = "max"} : (tensor<4x3x5xi32>, tensor<2x2xi32>, tensor<2x5xi32>) -> tensor<4x3x5xi32>
  ge.netoutput %y : tensor<4x3x5xi32>
}

// -----

// OneHot is one select per result element: the index (as an `index`)
// equals p or p - depth.

// CHECK-LABEL: func.func @one_hot(
// CHECK-SAME:      %[[I:[^:]*]]: memref<3xi64> {ge.input = 0 : i64}, %[[V:[^:]*]]: memref<2xf32> {ge.input = 1 : i64})
// CHECK:         affine.for %[[N:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[P:.*]] = 0 to 5 {
// CHECK:             %[[PV:.*]] = affine.apply affine_map<(d0) -> (d0)> (%[[P]])
// CHECK-NEXT:        %[[PE:.*]] = affine.apply affine_map<(d0) -> ((d0 + -5))> (%[[P]])
// CHECK-NEXT:        %[[RAW:.*]] = affine.load %[[I]][%[[N]]] : memref<3xi64>
// CHECK-NEXT:        %[[AT:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:        %[[A:.*]] = arith.cmpi eq, %[[AT]], %[[PV]] : index
// CHECK-NEXT:        %[[B:.*]] = arith.cmpi eq, %[[AT]], %[[PE]] : index
// CHECK-NEXT:        %[[HOT:.*]] = arith.ori %[[A]], %[[B]] : i1
// CHECK-NEXT:        %[[OFF:.*]] = affine.load %[[V]][0] : memref<2xf32>
// CHECK-NEXT:        %[[ON:.*]] = affine.load %[[V]][1] : memref<2xf32>
// CHECK-NEXT:        %[[Y:.*]] = arith.select %[[HOT]], %[[ON]], %[[OFF]] : f32
// CHECK-NEXT:        affine.store %[[Y]], %{{.*}}[%[[N]], %[[P]]] : memref<3x5xf32>
ge.graph @one_hot {
  %i = ge.data {index = 0 : i64} : tensor<3xi64>
  %v = ge.data {index = 1 : i64} : tensor<2xf32>
  %y = ge.one_hot %i, %v {depth = 5 : i64} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x5xf32>
  ge.netoutput %y : tensor<3x5xf32>
}

// -----

// Constant indices that all name one position (torch's select_scatter,
// `state[:, 3] = x`): the update is stored through an affine map, no
// index is loaded, checked or stored through memref.store.

// CHECK-LABEL: func.func @select_scatter(
// CHECK-SAME:      %{{[^:]*}}: memref<2x5x17xf32> {ge.input = 0 : i64}, %[[U:[^:]*]]: memref<2x1x17xf32> {ge.input = 1 : i64})
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<2x5x17xf32>
// CHECK:               affine.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x5x17xf32>
// CHECK:         affine.for %[[A:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[C:.*]] = 0 to 17 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %[[U]][%[[A]], 0, %[[C]]] : memref<2x1x17xf32>
// CHECK-NEXT:        affine.store %[[V]], %[[Y]][%[[A]], 3, %[[C]]] : memref<2x5x17xf32>
// CHECK-NOT:     memref.store
// CHECK-NOT:     cf.assert
ge.graph @select_scatter {
  %d = ge.data {index = 0 : i64} : tensor<2x5x17xf32>
  %u = ge.data {index = 1 : i64} : tensor<2x1x17xf32>
  %i = ge.const {value = dense<3> : tensor<2x1x17xi64>} : tensor<2x1x17xi64>
  %y = ge.scatter_elements %d, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<2x5x17xf32>, tensor<2x1x17xi64>, tensor<2x1x17xf32>) -> tensor<2x5x17xf32>
  ge.netoutput %y : tensor<2x5x17xf32>
}

// -----

// ScatterND rows 1..3 (`x[1:4] = v`): the row is the tuple's position + 1.

// CHECK-LABEL: func.func @slice_assignment(
// CHECK:         affine.for %[[R:.*]] = 0 to 3 {
// CHECK-NEXT:      affine.for %[[C:.*]] = 0 to 17 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %{{.*}}[%[[R]], %[[C]]] : memref<3x17xf32>
// CHECK-NEXT:        affine.store %[[V]], %{{.*}}[%[[R]] + 1, %[[C]]] : memref<5x17xf32>
// CHECK-NOT:     memref.store
ge.graph @slice_assignment {
  %d = ge.data {index = 0 : i64} : tensor<5x17xf32>
  %u = ge.data {index = 1 : i64} : tensor<3x17xf32>
  %i = ge.const {value = dense<[[1], [2], [3]]> : tensor<3x1xi64>} : tensor<3x1xi64>
  %y = ge.scatter_nd %d, %i, %u {reduction = "none"} : (tensor<5x17xf32>, tensor<3x1xi64>, tensor<3x17xf32>) -> tensor<5x17xf32>
  ge.netoutput %y : tensor<5x17xf32>
}

// -----

// Rows 0, 2, 1 are no affine function of the position: the indices are
// loaded, checked and stored through.

// CHECK-LABEL: func.func @no_affine_scatter_of_permuted_indices(
// CHECK:         cf.assert
// CHECK:         memref.store
ge.graph @no_affine_scatter_of_permuted_indices {
  %d = ge.data {index = 0 : i64} : tensor<5x17xf32>
  %u = ge.data {index = 1 : i64} : tensor<3x17xf32>
  %i = ge.const {value = dense<[[0], [2], [1]]> : tensor<3x1xi64>} : tensor<3x1xi64>
  %y = ge.scatter_nd %d, %i, %u {reduction = "none"} : (tensor<5x17xf32>, tensor<3x1xi64>, tensor<3x17xf32>) -> tensor<5x17xf32>
  ge.netoutput %y : tensor<5x17xf32>
}
