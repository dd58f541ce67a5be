// RUN: not ge-opt %s 2>&1 | filecheck %s
// RUN: not ge-opt %s --print-op-generic 2>&1 | filecheck %s
// RUN: not ge-opt %s -p infer-shape 2>&1 | filecheck %s
// The output is one located line; nothing is printed to stdout.
// CHECK-NOT: Traceback
// CHECK: {{.*}}verifier-failure.mlir:12:3: error: 'ge.conv2d' op groups 3 must divide the 4 input channels
// CHECK-NOT: {{.}}

ge.graph @main {
  %x = ge.data {index = 0 : i64} : tensor<1x4x8x8xf32>
  %w = ge.data {index = 1 : i64} : tensor<8x4x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW", groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  ge.netoutput %y : tensor<1x8x6x6xf32>
}
