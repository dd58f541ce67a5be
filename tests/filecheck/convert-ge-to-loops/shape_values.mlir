// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s

// ge.shape and ge.size of a static shape (a lowered graph has no other
// kind) copy their int64 value from a constant table.

// CHECK-LABEL: func.func @shape_size(
// CHECK:         %[[S:.*]] = memref.alloc() : memref<2xi64>
// CHECK:         %[[T:.*]] = memref.get_global @[[TABLE:.*]] : memref<2xi64>
// CHECK:           %[[V:.*]] = affine.load %[[T]][%[[I:.*]]] : memref<2xi64>
// CHECK-NEXT:      affine.store %[[V]], %[[S]][%[[I]]] : memref<2xi64>
// CHECK:         %[[N:.*]] = memref.alloc() : memref<i64>
// CHECK:         func.return %[[S]], %[[N]] : memref<2xi64>, memref<i64>
ge.graph @shape_size {
  %x = ge.data {index = 0 : i64} : tensor<3x17x5xf32>
  %s = ge.shape %x {start = 1 : i64} : (tensor<3x17x5xf32>) -> tensor<2xi64>
  %n = ge.size %x : (tensor<3x17x5xf32>) -> tensor<i64>
  ge.netoutput %s, %n : tensor<2xi64>, tensor<i64>
}

// -----

// An empty selection of dims has nothing to copy: no table.

// CHECK-LABEL: func.func @no_table_for_an_empty_selection(
// CHECK:         memref.alloc() : memref<0xi64>
// CHECK-NOT:     memref.get_global
// CHECK:         func.return
ge.graph @no_table_for_an_empty_selection {
  %x = ge.data {index = 0 : i64} : tensor<3x17xf32>
  %s = ge.shape %x {start = 2 : i64} : (tensor<3x17xf32>) -> tensor<0xi64>
  ge.netoutput %s : tensor<0xi64>
}
