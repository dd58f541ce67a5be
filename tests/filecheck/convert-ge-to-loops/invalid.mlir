// RUN: not ge-opt %s -p convert-ge-to-loops 2>&1 | filecheck %s

// Ops without a loop lowering fail with one located line.

// CHECK: {{.*}}invalid.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'ge.variable' op has no loop lowering
ge.graph @variable {
  %v = ge.variable {name = "step"} : tensor<2x3xf32>
  ge.netoutput %v : tensor<2x3xf32>
}
