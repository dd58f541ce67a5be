// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A declared result type that disagrees with the op's shape function (for
// fully known operands) is reported at that op, not at the consumer that
// would trip over it (the dtype, where a verifier does not check it, too).

ge.graph @conv_result_declared_wrong {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %b = ge.data {index = 1 : i64} : tensor<1x4x6x6xf32>
  // CHECK: {{.*}}invalid-declared-types.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op inferred type tensor<1x4x6x6xf32> is incompatible with result #0 type tensor<1x4x7x7xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x7xf32>
  %r = ge.add %y, %b : (tensor<1x4x7x7xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x7x7xf32>
  ge.netoutput %r : tensor<1x4x7x7xf32>
}

// -----

// A pooling window the declared result does not fit.
ge.graph @pool_result_declared_wrong {
  %x = ge.data {index = 0 : i64} : tensor<1x3x9x9xf32>
  // CHECK: {{.*}}invalid-declared-types.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op inferred type tensor<1x3x4x4xf32> is incompatible with result #0 type tensor<1x3x5x5xf32>
  %y = ge.max_pool %x {data_format = "NCHW", ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>} : tensor<1x3x9x9xf32> -> tensor<1x3x5x5xf32>
  ge.netoutput %y : tensor<1x3x5x5xf32>
}

// -----

// Results declared with unknown dims are placeholders (infer-shape fills them).
// CHECK-LABEL: ge.graph @placeholder_result
// CHECK:         ge.conv2d {{.*}} -> tensor<?x?x?x?xf32>
ge.graph @placeholder_result {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  ge.netoutput %y : tensor<?x?x?x?xf32>
}
