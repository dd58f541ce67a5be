// RUN: ge-run %s --random-inputs --check --output-dir %t | filecheck %s
// RUN: ge-opt %s -p convert-ge-to-loops -o %t.loops.mlir
// RUN: filecheck %s --input-file %t.loops.mlir --check-prefix=LOWERED
// RUN: ge-run %t.loops.mlir --random-inputs --output-dir %t | filecheck %s --check-prefix=LOOPS

// Unsigned data runs through signless loop IR: `ge-run` of the graph checks
// the JIT against the reference, and a lowered module takes and returns the
// graph's unsigned dtypes (its `ge.element_type` attributes say which).

// CHECK: JIT vs reference on
// CHECK: check output_0: max abs error {{.*}}: ok
// CHECK: output_0.npy: shape [3, 17], dtype uint8
// LOWERED-LABEL: func.func @main(
// LOWERED-SAME:      memref<3x17xi8> {ge.input = 0 : i64, ge.element_type = ui8}
// LOWERED-SAME:      -> (memref<3x17xi8> {ge.element_type = ui8})
// LOWERED:           arith.divui
// LOOPS: output_0.npy: shape [3, 17], dtype uint8
ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<3x17xui8>
  %y = ge.data {index = 1 : i64} : tensor<17xui8>
  %d = ge.div %x, %y : (tensor<3x17xui8>, tensor<17xui8>) -> tensor<3x17xui8>
  %m = ge.maximum %d, %x : (tensor<3x17xui8>, tensor<3x17xui8>) -> tensor<3x17xui8>
  ge.netoutput %m : tensor<3x17xui8>
}
