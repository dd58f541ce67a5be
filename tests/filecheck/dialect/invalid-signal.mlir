// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid transforms: one located line each.

ge.graph @dft_axis_is_the_complex_axis {
  %x = ge.data {index = 0 : i64} : tensor<4x2xf32>
  // CHECK: {{.*}}invalid-signal.mlir:[[# @LINE + 1]]:3: error: 'ge.dft' op axis 1 must name a signal axis, in [0, 0]
  %y = ge.dft %x {axis = 1 : i64, length = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>
  ge.netoutput
}

// -----

ge.graph @dft_length {
  %x = ge.data {index = 0 : i64} : tensor<4x2xf32>
  // CHECK: {{.*}}invalid-signal.mlir:[[# @LINE + 1]]:3: error: 'ge.dft' op length must be positive, got 0
  %y = ge.dft %x {axis = 0 : i64, length = 0 : i64} : tensor<4x2xf32> -> tensor<0x2xf32>
  ge.netoutput
}
