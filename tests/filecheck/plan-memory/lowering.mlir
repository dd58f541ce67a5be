// RUN: ge-opt %s -p plan-memory,convert-ge-to-loops | filecheck %s
// RUN: ge-opt %s -p plan-memory -o %t.mlir
// RUN: ge-run %t.mlir --random-inputs --check --output-dir %t | filecheck %s --check-prefix=EXEC

// The lowering follows the plan: one i8 arena, and each planned result a
// `memref.view` at its offset (the identity aliases %a's view, the add
// reuses it in place). Views are never freed. The planned graph still
// matches the reference evaluator.

// CHECK-LABEL: func.func @views(
// CHECK-DAG:     %[[AT4096:.*]] = arith.constant 4096 : index
// CHECK-DAG:     %[[AT0:.*]] = arith.constant 0 : index
// CHECK:         %[[ARENA:.*]] = memref.alloc() : memref<8192xi8>
// CHECK:         %[[A:.*]] = memref.view %[[ARENA]][%[[AT0]]][] : memref<8192xi8> to memref<1x16x8x8xf32>
// CHECK:         %[[S:.*]] = memref.view %[[ARENA]][%[[AT4096]]][] : memref<8192xi8> to memref<1x16x8x8xf32>
// CHECK:         %[[C:.*]] = memref.view %[[ARENA]][%[[AT0]]][] : memref<8192xi8> to memref<1x16x8x8xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         func.return %[[C]] : memref<1x16x8x8xf32>

// EXEC: check output_0: max abs error {{.*}}: ok
ge.graph @views {
  %x = ge.data {index = 0 : i64} : tensor<1x16x8x8xf32>
  %a = ge.relu %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %v = ge.identity %a : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %s = ge.sigmoid %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  %c = ge.add %v, %s : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  ge.netoutput %c : tensor<1x16x8x8xf32>
}
