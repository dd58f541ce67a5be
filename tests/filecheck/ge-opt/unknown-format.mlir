// RUN: not ge-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{.*}}unknown-format.mlir:7:67: error: unknown format 'NCWH' (expected one of ND, NCHW, {{.*}})
// CHECK-NOT: {{.}}

ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<2x3x4x5xf32, #ge.layout<NCWH>>
  ge.netoutput %x : tensor<2x3x4x5xf32, #ge.layout<NCWH>>
}
