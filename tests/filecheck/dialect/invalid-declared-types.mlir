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

// A result dtype the operands do not give (conv2d's verifier checks shapes only).
ge.graph @conv_dtype_declared_wrong {
  %x = ge.data {index = 0 : i64} : tensor<1x3x8x8xf32>
  %w = ge.const {value = dense<1.0> : tensor<4x3x3x3xf32>} : tensor<4x3x3x3xf32>
  // CHECK: {{.*}}invalid-declared-types.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op inferred type tensor<1x4x6x6xf32> is incompatible with result #0 type tensor<1x4x6x6xf16>
  %y = ge.conv2d %x, %w {data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf16>
  ge.netoutput %y : tensor<1x4x6x6xf16>
}

// -----

// A declared rank other than the shape attribute's (same element count).
ge.graph @reshape_rank_declared_wrong {
  %a = ge.data {index = 0 : i64} : tensor<120xf32>
  // CHECK: {{.*}}invalid-declared-types.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op inferred type tensor<1x2x3x4x5xf32> is incompatible with result #0 type tensor<2x3x4x5xf32>
  %r = ge.reshape %a {shape = array<i64: 1, 2, 3, 4, 5>} : tensor<120xf32> -> tensor<2x3x4x5xf32>
  ge.netoutput %r : tensor<2x3x4x5xf32>
}

// -----

// A matmul result with the left operand's columns instead of the right's.
ge.graph @matmul_declared_wrong {
  %a = ge.data {index = 0 : i64} : tensor<17x33xf32>
  %b = ge.data {index = 1 : i64} : tensor<33x100xf32>
  // CHECK: {{.*}}invalid-declared-types.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op inferred type tensor<17x100xf32> is incompatible with result #0 type tensor<17x33xf32>
  %r = ge.matmul %a, %b : (tensor<17x33xf32>, tensor<33x100xf32>) -> tensor<17x33xf32>
  ge.netoutput %r : tensor<17x33xf32>
}
