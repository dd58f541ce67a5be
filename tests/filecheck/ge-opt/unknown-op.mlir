// RUN: not ge-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{.*}}unknown-op.mlir:8:22: error: Operation ge.frobnicate is not registered
// CHECK-NOT: {{.}}

ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2xf32>
  %y = ge.frobnicate %x : tensor<2xf32>
  ge.netoutput %y : tensor<2xf32>
}
