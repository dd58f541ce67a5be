// RUN: not ge-opt %s -p convert-ge-to-loops 2>&1 | filecheck %s

// Ops without a loop lowering fail with one located line.

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: 'ge.gather' op has no loop lowering
ge.graph @gather {
  %x = ge.data {index = 0 : i64} : tensor<4x3xf32>
  %i = ge.data {index = 1 : i64} : tensor<2xi32>
  %y = ge.gather %x, %i : (tensor<4x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  ge.netoutput %y : tensor<2x3xf32>
}
