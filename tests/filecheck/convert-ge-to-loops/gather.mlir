// RUN: ge-opt %s --split-input-file -p convert-ge-to-loops | filecheck %s
// RUN: ge-run %s --graph lookup --random-inputs --check --trace --output-dir %t | filecheck %s --check-prefix=JIT

// Gathers load their index, check it lies in [-size, size) (a `cf.assert`
// whose message is the diagnostic at the gather: the JIT raises it), make it
// non-negative and read the data with a data-dependent `memref.load`. The
// JIT runs them (AI Core ops), not a host fallback.

// JIT: trace: lookup ge.gather AICore sunk (part 0, jit)
// JIT-NOT: fallback
// JIT: : ok

// CHECK-LABEL: func.func @lookup(
// CHECK-SAME:      %[[X:[0-9]+]]: memref<5x3xf32> {ge.input = 0 : i64}, %[[I:[0-9]+]]: memref<4xi32> {ge.input = 1 : i64})
// CHECK-DAG:     %[[LOW:[0-9]+]] = arith.constant -5 : index
// CHECK-DAG:     %[[SIZE:[0-9]+]] = arith.constant 5 : index
// CHECK-DAG:     %[[ZERO:[0-9]+]] = arith.constant 0 : index
// CHECK:         affine.for %[[A:[0-9]+]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[B:[0-9]+]] = 0 to 3 {
// CHECK-NEXT:        %[[RAW:[0-9]+]] = affine.load %[[I]][%[[A]]] : memref<4xi32>
// CHECK-NEXT:        %[[K:[0-9]+]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK-NEXT:        %[[UP:[0-9]+]] = arith.addi %[[K]], %[[SIZE]] : index
// CHECK-NEXT:        %[[GE:[0-9]+]] = arith.cmpi sge, %[[K]], %[[LOW]] : index
// CHECK-NEXT:        %[[LT:[0-9]+]] = arith.cmpi slt, %[[K]], %[[SIZE]] : index
// CHECK-NEXT:        %[[OK:[0-9]+]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:        cf.assert %[[OK]], "{{.*}}gather.mlir:[[# @LINE + 11]]:3: error: 'ge.gather' op index out of range [-5, 4] on axis 0"
// CHECK-NEXT:        %[[NEG:[0-9]+]] = arith.cmpi slt, %[[K]], %[[ZERO]] : index
// CHECK-NEXT:        %[[AT:[0-9]+]] = arith.select %[[NEG]], %[[UP]], %[[K]] : index
// CHECK-NEXT:        %[[COL:[0-9]+]] = affine.apply affine_map<(d0) -> (d0)> (%[[B]])
// CHECK-NEXT:        %[[V:[0-9]+]] = memref.load %[[X]][%[[AT]], %[[COL]]] : memref<5x3xf32>
// CHECK-NEXT:        affine.store %[[V]], %{{[0-9]+}}[%[[A]], %[[B]]] : memref<4x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
ge.graph @lookup {
  %x = ge.data {index = 0 : i64} : tensor<5x3xf32>
  %i = ge.data {index = 1 : i64} : tensor<4xi32>
  %g = ge.gather %x, %i {axis = 0 : i64, name = "lookup"} : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
  ge.netoutput %g : tensor<4x3xf32>
}

// -----

// Bool data (BERT's masks) and a middle axis: the check names that axis.
// CHECK-LABEL: func.func @bool_axis1(
// CHECK:         cf.assert %{{[0-9]+}}, "{{.*}}: error: 'ge.gather' op index out of range [-17, 16] on axis 1"
// CHECK:         memref.load %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<2x17x3xi1>
ge.graph @bool_axis1 {
  %x = ge.data {index = 0 : i64} : tensor<2x17x3xi1>
  %i = ge.data {index = 1 : i64} : tensor<2xi64>
  %g = ge.gather %x, %i {axis = 1 : i64} : (tensor<2x17x3xi1>, tensor<2xi64>) -> tensor<2x2x3xi1>
  ge.netoutput %g : tensor<2x2x3xi1>
}

// -----

// GatherElements checks its axis; GatherND each entry of an index tuple
// against its own axis.
// CHECK-LABEL: func.func @elements_and_nd(
// CHECK:         cf.assert %{{[0-9]+}}, "{{.*}}: error: 'ge.gather_elements' op index out of range [-5, 4] on axis 1"
// CHECK:         cf.assert %{{[0-9]+}}, "{{.*}}: error: 'ge.gather_nd' op index out of range [-3, 2] on axis 0"
// CHECK:         cf.assert %{{[0-9]+}}, "{{.*}}: error: 'ge.gather_nd' op index out of range [-5, 4] on axis 1"
ge.graph @elements_and_nd {
  %x = ge.data {index = 0 : i64} : tensor<3x5xf32>
  %i = ge.data {index = 1 : i64} : tensor<3x2xi64>
  %e = ge.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  %n = ge.gather_nd %x, %i : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  ge.netoutput %e, %n : tensor<3x2xf32>, tensor<3xf32>
}

// -----

// Affine copies (a slice) read only in-range addresses: no check.
// CHECK-LABEL: func.func @no_check_in_a_slice(
// CHECK-NOT:     cf.assert
// CHECK:         func.return
ge.graph @no_check_in_a_slice {
  %x = ge.data {index = 0 : i64} : tensor<5x3xf32>
  %s = ge.slice %x {begins = array<i64: 1, 0>, ends = array<i64: 4, 3>} : tensor<5x3xf32> -> tensor<3x3xf32>
  ge.netoutput %s : tensor<3x3xf32>
}
